// @ts-check
// What a sweep says: one set of settings trained over a range of seeds (sweeps.js trains
// them). Here, pure: each seed's outcome read from its evaluations (reached the lab's
// success threshold, still learning, stalled), the sweep's summary (how many reached it and
// when, the final values, which metric passed its mark first) and its CSV, with the columns
// of `reproduce`'s; the seed range of a link is state/seed-range.js's. Node's tests run it
// (tests/unit/sweep.test.js).

/** @typedef {import('../state/history.js').Evaluation} Evaluation */
/** @typedef {import('../labs/index.js').SweepSpec} SweepSpec */

// A sweep's seed range is the link's (state/seed-range.js); re-exported for the sweeps.
export { MIN_SEEDS, MAX_SEEDS, parseSeeds, formatSeeds, SEEDS_RANGE } from '../state/seed-range.js';

/**
 * A seed's outcome: `reached` the lab's success threshold; `stalled` below it with the
 * lab's stall metric under its mark once half the steps are trained (say, attention that
 * has not found where to look); else `learning` (also a seed too young to
 * tell); `waiting` before its first evaluation; `failed` if its run stopped.
 * @typedef {'reached' | 'learning' | 'stalled' | 'waiting' | 'failed'} Outcome
 */
/**
 * One seed of a sweep as trained so far, and where (the GPU's batched sweep, or the CPU).
 * @typedef {{ seed: number, evaluations: readonly Evaluation[], step: number, done: boolean,
 *   failed: string | null, backend?: 'gpu' | 'cpu' }} SeedRun
 */

/**
 * What a seed's run says, read with the lab's sweep spec.
 * @typedef {{ seed: number, outcome: Outcome, reachedAt: number | null, value: number | null,
 *   firstAt: number | null, thenAt: number | null, step: number, done: boolean, failed: string | null }} SeedResult
 * `value`: the success metric at the latest evaluation; `firstAt` / `thenAt`: the first
 * evaluated step at which the spec's `order` metrics passed their mark (strictly).
 */

/** The first evaluated step at which `pass` holds. @param {readonly Evaluation[]} ev @param {(e: Evaluation) => boolean} pass */
function firstStep(ev, pass) {
  for (const e of ev) if (pass(e)) return e.step;
  return null;
}

/**
 * @param {SeedRun} run @param {SweepSpec} spec @param {number} steps the sweep's steps per seed
 * @returns {SeedResult}
 */
export function seedResult(run, spec, steps) {
  const ev = run.evaluations;
  const { key, at } = spec.success;
  // The metrics are f32 values: the threshold compared as the f32 the native tool uses.
  const threshold = Math.fround(at);
  const reachedAt = firstStep(ev, (e) => e[key] >= threshold);
  const last = ev.at(-1);
  const o = spec.order;
  const firstAt = o ? firstStep(ev, (e) => e[o.first] > Math.fround(o.at)) : null;
  const thenAt = o ? firstStep(ev, (e) => e[o.then] > Math.fround(o.at)) : null;
  /** @type {Outcome} */
  let outcome;
  if (run.failed) outcome = 'failed';
  else if (reachedAt !== null) outcome = 'reached';
  else if (!last) outcome = 'waiting';
  else {
    const stall = spec.stall;
    outcome = last.step >= steps / 2 && last[stall.key] < stall.below ? 'stalled' : 'learning';
  }
  return { seed: run.seed, outcome, reachedAt, value: last ? last[key] : null, firstAt, thenAt, step: run.step, done: run.done, failed: run.failed };
}

/** The median of a non-empty list (the mean of the middle two for an even count). @param {number[]} xs */
function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * The sweep so far: its seeds' results, how many are done, how many reached the threshold
 * and the median step they did it at, each outcome's count, and in how many seeds where both
 * order metrics passed their mark the first did strictly before the other.
 * @param {readonly SeedRun[]} runs @param {SweepSpec} spec @param {number} steps
 */
export function summarize(runs, spec, steps) {
  const results = runs.map((r) => seedResult(r, spec, steps));
  const reached = results.filter((r) => r.reachedAt !== null);
  const both = results.filter((r) => r.firstAt !== null && r.thenAt !== null);
  /** @type {Record<Outcome, number>} */
  const counts = { reached: 0, learning: 0, stalled: 0, waiting: 0, failed: 0 };
  for (const r of results) counts[r.outcome]++;
  return {
    results,
    total: runs.length,
    done: runs.filter((r) => r.done).length,
    reached: reached.length,
    medianReachedAt: reached.length ? median(reached.map((r) => /** @type {number} */ (r.reachedAt))) : null,
    counts,
    orderBoth: both.length,
    orderFirst: both.filter((r) => /** @type {number} */ (r.firstAt) < /** @type {number} */ (r.thenAt)).length,
  };
}

/** @typedef {ReturnType<typeof summarize>} SweepSummary */

/**
 * The sweep's CSV: one row per seed and evaluation, seeds in order, with the columns of
 * the lab's native tool (the spec's `columns`, after `seed,step`) and its number formats;
 * with `backends` (a lab whose runs may train on the GPU: `reproduce`'s), last the backend
 * that trained each seed.
 * @param {readonly SeedRun[]} runs @param {SweepSpec} spec @param {boolean} [backends]
 */
export function sweepCsv(runs, spec, backends = false) {
  const last = backends ? ['backend'] : [];
  const lines = [['seed', 'step', ...spec.columns.map((c) => c.name), ...last].join(',')];
  for (const r of [...runs].sort((a, b) => a.seed - b.seed)) {
    const backend = backends ? [r.backend ?? 'cpu'] : [];
    for (const e of r.evaluations) {
      lines.push([r.seed, e.step, ...spec.columns.map((c) => e[c.key].toFixed(c.digits)), ...backend].join(','));
    }
  }
  return `${lines.join('\n')}\n`;
}
