// @ts-check
// A sweep's range of seeds as a link says it (`seeds=20`: seeds 0–19; `seeds=20-39`): its
// bounds, reading and writing it. Pure; the link (url.js) and the sweeps use it.

/** The seeds of a sweep: `from`, `from + 1`, …, `from + count − 1`. @typedef {{ from: number, count: number }} SeedRange */

export const MIN_SEEDS = 2;
export const MAX_SEEDS = 100;
/** The largest first seed a range may have (the trainer's seeds go further). */
const MAX_FROM = 999_999;

/** The words a message gives for what `seeds` may be. */
export const SEEDS_RANGE = `a count from ${MIN_SEEDS} to ${MAX_SEEDS} (seeds 0 to count − 1) or a range A-B of ${MIN_SEEDS} to ${MAX_SEEDS} seeds from 0 to ${MAX_FROM}`;

/** A link's `seeds` value (`20`: seeds 0–19; `20-39`), or null if it is none.
 * @param {string} raw @returns {SeedRange | null} */
export function parseSeeds(raw) {
  const count = /^\d{1,3}$/.exec(raw);
  if (count) {
    const n = Number(raw);
    return n >= MIN_SEEDS && n <= MAX_SEEDS ? { from: 0, count: n } : null;
  }
  const range = /^(\d{1,6})-(\d{1,6})$/.exec(raw);
  if (!range) return null;
  const [a, b] = [Number(range[1]), Number(range[2])];
  const n = b - a + 1;
  return a <= MAX_FROM && n >= MIN_SEEDS && n <= MAX_SEEDS ? { from: a, count: n } : null;
}

/** A seed range as a link writes it (the shortest form). @param {SeedRange} r */
export function formatSeeds(r) {
  return r.from === 0 ? String(r.count) : `${r.from}-${r.from + r.count - 1}`;
}
