// @ts-check
// Generated link cases, for the store's test in Node (links.test.js) and the page's
// (tests/e2e/inputs.test.js): for each key of the copying lab's link, values that apply
// (with what they apply as) and values that must be refused: empty, negative, huge,
// fractional, NaN, ∞, hex, unicode, very long; unknown keys; repeated keys.
import { copying } from '../../www/labs/copying/lab.js';
import { SPEEDS, THEMES } from '../../www/state/options.js';
import { VARIANTS } from '../../www/training/variant.js';
import { colormapNames } from '../../www/views/colormap.js';

export const LONG = '7'.repeat(20_000);
/** Text no field takes. */
const JUNK = ['', ' ', 'NaN', 'Infinity', '-Infinity', 'null', 'undefined', 'toString', '__proto__', 'ü', '١٢', '🙂', LONG, 'a'.repeat(300)];
/** Bad for every whole-number field. */
export const BAD_WHOLE = [...JUNK, '-1', '-0.5', '1.5', '99999999999999999999', '1e3', '0x10', '0b11', '1_000', '2 3', '9'.repeat(400)];

/**
 * Per key: values that apply, with what they apply as, and values that are refused. Good
 * values are chosen so that no two of them break a rule between settings (every vocabulary
 * at least 40, every length at most 20; sequences shown below every evaluation batch).
 * @type {Record<string, { good: [string, unknown][], bad: string[], kind: 'config' | 'view' | 'page' }>}
 */
export const KEYS = {
  task: { kind: 'config', good: [['copy', 'copy'], ['reverse', 'reverse'], ['translate', 'translate']], bad: [...JUNK, 'COPY', '1'] },
  distinct: { kind: 'config', good: [['1', true], ['0', false], ['true', true], ['false', false]], bad: [...JUNK, 'yes', '2', '-1'] },
  vocab: { kind: 'config', good: [['40', 40], ['60', 60], ['500', 500], ['+45', 45]], bad: [...BAD_WHOLE, '1', '501'] },
  length: { kind: 'config', good: [['1', 1], ['5', 5], ['20', 20]], bad: [...BAD_WHOLE, '0', '101'] },
  hidden: { kind: 'config', good: [['8', 8], ['1', 1], ['1024', 1024]], bad: [...BAD_WHOLE, '0', '1025'] },
  batch: { kind: 'config', good: [['1', 1], ['32', 32], ['1024', 1024]], bad: [...BAD_WHOLE, '0', '1025'] },
  learning_rate: {
    kind: 'config',
    good: [['0.002', Math.fround(0.002)], ['1e-3', Math.fround(0.001)], ['.5', 0.5], ['100', 100], ['3E-4', Math.fround(3e-4)]],
    bad: [...JUNK, '-1', '0', '101', '1e300', '1e-60', '0x10', '1,5', '1.5.2'],
  },
  optimizer: { kind: 'config', good: [['adam', 'adam'], ['sgd', 'sgd']], bad: [...JUNK, 'Adam'] },
  attention: { kind: 'config', good: [['learned', 'learned'], ['uniform', 'uniform']], bad: [...JUNK, 'hard'] },
  heads: { kind: 'config', good: [['1', 1], ['8', 8], ['16', 16]], bad: [...BAD_WHOLE, '0', '17'] },
  bidirectional: { kind: 'config', good: [['1', true], ['0', false]], bad: [...JUNK, 'on'] },
  seed: { kind: 'config', good: [['0', 0], ['7', 7], ['9007199254740991', 9007199254740991]], bad: [...BAD_WHOLE, '9007199254740992'] },
  eval_every: { kind: 'config', good: [['1', 1], ['100000', 100000]], bad: [...BAD_WHOLE, '0', '100001'] },
  eval_batch: { kind: 'config', good: [['8', 8], ['512', 512]], bad: [...BAD_WHOLE, '0', '513'] },
  speed: { kind: 'view', good: SPEEDS.map(([v]) => [String(v), v]), bad: [...JUNK, '0x10', '2', '-4', '1e4', '0x3E8'] },
  seq: { kind: 'view', good: [['0', 0], ['3', 3], ['7', 7]], bad: [...BAD_WHOLE, '512'] },
  head: { kind: 'view', good: [['-1', -1], ['0', 0]], bad: [...BAD_WHOLE.filter((v) => v !== '-1'), '-2', '16'] },
  workers: { kind: 'view', good: [['auto', 'auto'], ['1', 1], ['16', 16]], bad: [...BAD_WHOLE, '0', '17', 'AUTO'] },
  colormap: { kind: 'view', good: colormapNames.map((n) => [n, n]), bad: [...JUNK, 'jet'] },
  theme: { kind: 'view', good: THEMES.map((n) => [n, n]), bad: [...JUNK, 'neon'] },
  compare: { kind: 'view', good: Object.keys(copying.contrasts).map((n) => [n, n]), bad: [...JUNK, 'seeds'] },
  story: { kind: 'view', good: copying.story.map((_, i) => [String(i + 1), i + 1]), bad: [...BAD_WHOLE, '0', String(copying.story.length + 1)] },
  seeds: { kind: 'view', good: [['20', '20'], ['0-7', '8'], ['20-39', '20-39'], ['none', '']], bad: [...BAD_WHOLE, '1', '101', '39-20', '0-100', '5-5', 'all'] },
  embed: { kind: 'page', good: [['1', '1'], ['0', '0']], bad: [...JUNK, 'yes'] },
  autoplay: { kind: 'page', good: [['1', '1'], ['0', '0']], bad: [...JUNK, '2'] },
  variant: { kind: 'page', good: VARIANTS.map((n) => [n, n]), bad: [...JUNK, 'simd', 'wasm'] },
};
export const UNKNOWN = ['bogus', 'Seed', 'hidden ', 'constructor', '__proto__', 'hasOwnProperty', '', '🙂', 'k'.repeat(5000), 'learning-rate'];

/** A small deterministic generator (mulberry32). @param {number} seed */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** @template T @param {() => number} r @param {T[]} xs @returns {T} */
export const pick = (r, xs) => xs[Math.floor(r() * xs.length)];

/** How a message names `key`: "Words (key): …". @param {string} key */
export const names = (key) => (/** @type {string} */ p) => p.includes(`(${key}): must be `) || p.includes(`, so ${key}=`);

/**
 * One generated link: its key–value pairs, and what each key's first value must do (apply
 * as a value, or be refused).
 * @param {() => number} r @param {string[]} presetNames
 * @returns {{ pairs: [string, string][], preset: string | null,
 *   want: Map<string, { ok: true, value: unknown } | { ok: false }> }}
 */
export function generateLink(r, presetNames) {
  /** @type {[string, string][]} */
  const pairs = [];
  /** @type {Map<string, { ok: true, value: unknown } | { ok: false }>} */
  const want = new Map();
  const preset = r() < 0.3 ? pick(r, [...presetNames, ...Object.keys(copying.presetAliases)]) : null;
  if (preset) pairs.push(['preset', preset]);
  const n = 1 + Math.floor(r() * 6);
  for (let j = 0; j < n; j++) {
    const roll = r();
    if (roll < 0.1) {
      pairs.push([pick(r, UNKNOWN), pick(r, ['1', '', LONG])]);
      continue;
    }
    const key = pick(r, Object.keys(KEYS));
    const spec = KEYS[key];
    const isGood = roll < 0.55;
    const value = isGood ? pick(r, spec.good) : [pick(r, spec.bad)];
    pairs.push([key, /** @type {string} */ (value[0])]);
    if (!want.has(key)) want.set(key, isGood ? { ok: true, value: value[1] } : { ok: false });
    if (r() < 0.05) for (let k = 0; k < 1 + Math.floor(r() * 300); k++) pairs.push([key, pick(r, spec.bad)]);
  }
  return { pairs, preset, want };
}
