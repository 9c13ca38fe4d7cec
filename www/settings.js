// @ts-check
// How the page reads a setting's text, whatever the lab: by the field's kind (ranges are
// the trainer's to check: one source of truth, src/config.rs), and the shell's own choices
// (speeds, themes). Pure: the store and the link use it, in the page and in Node's tests.

/** @typedef {import('./labs/index.js').Setting} Setting */

/** Speed choices: steps per frame; below 1 is slow motion (one step every 1/s frames). */
export const SPEEDS = /** @type {[number, string][]} */ ([
  [0.1, 'slow motion (6 steps/s)'],
  [1, '1 step / frame'],
  [4, '4 steps / frame'],
  [16, '16 steps / frame'],
  [1000, 'as fast as possible'],
]);
export const DEFAULT_SPEED = 4;

/** The themes: follow the system, or force one. */
export const THEMES = ['auto', 'light', 'dark'];

/**
 * Parses a field's text. Returns the value, or an error message for text that is not a
 * value of the field's kind.
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

/** Whether two config values are the same run setting (floats compared as f32).
 * @param {unknown} a @param {unknown} b */
export function same(a, b) {
  if (typeof a === 'number' && typeof b === 'number') return Math.fround(a) === Math.fround(b);
  return a === b;
}

/** Whether `config` differs from `base` in any of `base`'s settings.
 * @param {Record<string, unknown>} config @param {Record<string, unknown>} base */
export function differs(config, base) {
  return Object.keys(base).some((k) => !same(config[k], base[k]));
}
