// @ts-check
// The page's settings: which ones exist, how each is edited and parsed, the presets' names
// and the speed steps. Ranges are not repeated here: the trainer validates (one source of
// truth) and the page shows its message beside the field.

/**
 * @typedef {{ key: string, label: string, kind: 'int' | 'float' | 'select' | 'checkbox',
 *   options?: [string, string][], live?: boolean, help: string }} Setting
 */

/** The settings, in the order the form shows them. @type {Setting[]} */
export const SETTINGS = [
  { key: 'task', label: 'Task', kind: 'select', help: 'What the target is made of.',
    options: [['copy', 'copy'], ['reverse', 'reverse'], ['translate', 'translate (word table)']] },
  { key: 'distinct', label: 'Distinct tokens', kind: 'checkbox',
    help: 'Each source has L different tokens out of V; with V = L every source is a permutation (the hard task).' },
  { key: 'vocab', label: 'Vocabulary V', kind: 'int', help: 'Number of ordinary tokens.' },
  { key: 'length', label: 'Length L', kind: 'int', help: 'Tokens per source, before EOS.' },
  { key: 'hidden', label: 'Width H', kind: 'int', help: 'Width of the embedding and both LSTMs.' },
  { key: 'batch', label: 'Batch', kind: 'int', help: 'Fresh sequences per training step.' },
  { key: 'learning_rate', label: 'Learning rate', kind: 'float', live: true,
    help: 'Applies at once, without restarting.' },
  { key: 'optimizer', label: 'Optimiser', kind: 'select', help: 'Adam with PyTorch defaults, or plain SGD.',
    options: [['adam', 'Adam'], ['sgd', 'SGD']] },
  { key: 'attention', label: 'Attention', kind: 'select',
    help: 'Uniform forces every score to zero: the decoder sees the average of the source.',
    options: [['learned', 'learned'], ['uniform', 'uniform']] },
  { key: 'heads', label: 'Heads K', kind: 'int', help: 'Attention heads; their contexts are averaged.' },
  { key: 'bidirectional', label: 'Bidirectional encoder', kind: 'checkbox',
    help: 'Read the source both ways; outputs concatenated.' },
  { key: 'seed', label: 'Seed', kind: 'int', help: 'Same seed, same run, bit for bit.' },
];

/** Preset names (as the trainer knows them) with the words the page shows. */
export const PRESET_LABELS = /** @type {Record<string, string>} */ ({
  'small-easy': 'Easy copying',
  'small-hard': 'Hard copying (permutations)',
  'small-uniform': 'Uniform attention',
  'small-heads': 'Several heads on the hard task',
  'small-reverse': 'Reversal',
  'small-translate': 'Word translation',
  easy: 'Easy copying, paper size (slow)',
  hard: 'Hard copying, paper size (slow)',
});

export const DEFAULT_PRESET = 'small-easy';

/** Speed choices: steps per frame; below 1 is slow motion (one step every 1/s frames). */
export const SPEEDS = /** @type {[number, string][]} */ ([
  [0.1, 'slow motion (6 steps/s)'],
  [1, '1 step / frame'],
  [4, '4 steps / frame'],
  [16, '16 steps / frame'],
  [1000, 'as fast as possible'],
]);
export const DEFAULT_SPEED = 4;

/**
 * Parses a field's text. Returns the value, or an error message for text that is not a
 * value of the field's kind (ranges are the trainer's to check).
 * @param {Setting} s @param {string | boolean} raw
 * @returns {{ value: unknown } | { error: string }}
 */
export function parseSetting(s, raw) {
  if (s.kind === 'checkbox') return { value: Boolean(raw) };
  if (s.kind === 'select') {
    const ok = (s.options ?? []).some(([v]) => v === raw);
    return ok ? { value: raw } : { error: `${s.key}: not one of the choices` };
  }
  const text = String(raw).trim();
  if (text === '' || !/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(text)) {
    return { error: `${s.key}: must be a number, got "${text}"` };
  }
  const n = Number(text);
  if (s.kind === 'int' && !Number.isInteger(n)) {
    return { error: `${s.key}: must be a whole number, got ${text}` };
  }
  return { value: n };
}

/** The token's name on an axis: 0..V−1 as numbers, then EOS and SOS.
 * @param {number} tok @param {number} vocab */
export function tokenName(tok, vocab) {
  if (tok === vocab) return 'EOS';
  if (tok === vocab + 1) return 'SOS';
  return String(tok);
}
