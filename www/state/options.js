// @ts-check
// The shell's own choices (speeds, themes) and how settings compare, whatever the lab. A
// setting's text is the trainer's to read and check (one source of truth: each lab's
// settings in Rust). Pure: the store and the link use it, in the page and in Node's tests.

/** Speed choices: steps per frame; below 1 is slow motion (one step every 1/s frames); 0
 * is the gentle start (paceAt). */
export const SPEEDS = /** @type {[number, string][]} */ ([
  [0, 'gentle start'],
  [0.1, 'slow motion (6 steps/s)'],
  [0.25, 'slow (15 steps/s)'],
  [1, '1 step / frame'],
  [4, '4 steps / frame'],
  [16, '16 steps / frame'],
  [1000, 'as fast as possible'],
]);
export const DEFAULT_SPEED = 0;

/** The gentle start's pace: slow (0.25 steps a frame, 15 a second at 60 frames) for a lab's
 * first `Lab.gentle.steps` steps, then fast. */
export const GENTLE_PACE = { slow: 0.25, fast: 4 };

/** Steps per frame at `step` for the speed chosen, with the gentle start of `gentleSteps`
 * slow steps. @param {number} speed @param {number} step @param {number} gentleSteps */
export function paceAt(speed, step, gentleSteps) {
  if (speed !== 0) return speed;
  return step < gentleSteps ? GENTLE_PACE.slow : GENTLE_PACE.fast;
}

/** The themes: follow the system, or force one. */
export const THEMES = ['auto', 'light', 'dark'];

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

/** A value as the link writes it: booleans as 1 / 0, floats with the fewest digits that
 * give back the same f32. @param {unknown} v */
export function formatValue(v) {
  if (typeof v === 'boolean') return v ? '1' : '0';
  if (typeof v === 'number' && !Number.isInteger(v)) {
    for (let p = 1; p <= 9; p++) {
      const t = Number(v.toPrecision(p));
      if (Math.fround(t) === Math.fround(v)) return String(t);
    }
  }
  return String(v);
}

