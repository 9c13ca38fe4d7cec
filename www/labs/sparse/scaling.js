// @ts-check
// The sparse lab's experiment: for each length T, the fewest training samples m* with
// which the median test accuracy over five seeds reaches 95% after 1,000 steps, searched
// as the native `scaling` tool does (the search itself is the crate's, through the wasm
// facade's SampleSearch): all lengths at once, each trying one size at a time. Pure but
// for the wasm module it is given; its view is scaling-view.js.

import { formatValue } from '../../state/options.js';

/** @typedef {import('../../training/pool.js').Job & { t: number, m: number }} ScalingJob */

/** The lengths searched: the longest whose search ends in about two minutes on two cores
 * (docs/sparse.md, Speed). */
export const LENGTHS = [8, 16, 32, 64, 128, 256];
/** Seeds per size, steps per run, and the median test accuracy that counts as learned. */
export const SEEDS = 5;
export const STEPS = 1000;
export const THRESHOLD = 0.95;
/** The search: the first size tried, the largest, and how close the bracket ends. */
const START = 16;
const MAX = 4096;
const RATIO = 1.19;

/** The native tool's CSV header (src/bin/scaling.rs). */
const HEADER = 'function,sparsity,length,samples,seed,train_acc,test_acc,mass,found,rejected,ambiguous,positions,weight_decay,decay_scope';

/**
 * One size tried at one length: its runs' test accuracies so far, and once every seed
 * ended, their median and whether it reached the threshold.
 * @typedef {{ m: number, accuracies: number[], median: number | null, success: boolean | null }} Probe
 */

/**
 * The search at one length: the crate's search, and every size tried (the last one
 * perhaps still training).
 * @typedef {{ t: number, search: any, probes: Probe[] }} Length
 */

export class ScalingPlan {
  /** @param {Record<string, unknown>} config the run's settings (all but length, samples, seed and
   * the evaluation interval are kept) @param {any} wasm */
  constructor(config, wasm) {
    /** @private */ this.config = config;
    /** @private */ this.wasm = wasm;
    /** The lengths whose settings the trainer refuses (one-hot position codes longer than
     * the width), each with the refusal: not searched. @type {{ t: number, message: string }[]} */
    this.refused = [];
    const searched = LENGTHS.filter((t) => {
      try {
        wasm.validateConfig('sparse', { ...config, length: t, samples: START, seed: 0, eval_every: STEPS });
        return true;
      } catch (e) {
        this.refused.push({ t, message: /** @type {Error} */ (e).message });
        return false;
      }
    });
    /** @type {Length[]} */
    this.lengths = searched.map((t) => ({ t, search: new wasm.SampleSearch(START, MAX, RATIO), probes: [] }));
    /** @private @type {string[]} the CSV's rows so far */ this.rows = [];
    /** The hidden bits, for the information limit. */
    this.sparsity = Number(config.sparsity);
  }

  /** The probe of a length still training, if any. @param {Length} l */
  static open(l) {
    const p = l.probes.at(-1);
    return p && p.success === null ? p : null;
  }

  /** Whether the search at length `l` is over. @param {Length} l */
  static over(l) {
    return !ScalingPlan.open(l) && l.search.next() === undefined;
  }

  /** @returns {ScalingJob[]} */
  next() {
    /** @type {ScalingJob[]} */
    const jobs = [];
    for (const l of this.lengths) {
      if (ScalingPlan.open(l)) continue;
      const m = l.search.next();
      if (m === undefined) continue;
      l.probes.push({ m, accuracies: [], median: null, success: null });
      for (let seed = 0; seed < SEEDS; seed++) {
        jobs.push({ t: l.t, m, steps: STEPS, config: { ...this.config, length: l.t, samples: m, seed, eval_every: STEPS } });
      }
    }
    return jobs;
  }

  /** @param {import('../../training/pool.js').Job} job @param {Record<string, number> | undefined} last
   * @param {import('../../training/protocol.js').Snapshot | null} snapshot */
  record(job, last, snapshot) {
    const { t, m, config } = /** @type {ScalingJob} */ (job);
    const l = this.lengths.find((x) => x.t === t);
    const p = l && ScalingPlan.open(l);
    if (!l || !p || p.m !== m) return;
    // A run that failed (it diverged) did not learn.
    p.accuracies.push(last?.test_accuracy ?? 0);
    const shape = /** @type {{ rejected?: number, ambiguous?: boolean } | undefined} */ (snapshot?.shape);
    // As the native tool writes an f32: the fewest digits that give it back.
    const f = (/** @type {number | undefined} */ x) => (x === undefined ? '' : formatValue(Math.fround(x)));
    this.rows.push([config.function, config.sparsity, t, m, config.seed, f(last?.train_accuracy), f(last?.test_accuracy),
      f(last?.mass), last ? String(last.found) : '', shape?.rejected ?? '', shape ? Number(shape.ambiguous) : '',
      config.positions, f(Number(config.weight_decay)), config.decay_scope].join(','));
    if (p.accuracies.length < SEEDS) return;
    p.median = this.wasm.sparseMedian(Float32Array.from(p.accuracies));
    p.success = /** @type {number} */ (p.median) >= THRESHOLD;
    l.search.record(m, p.success);
  }

  /** Whether every length's search is over. */
  done() {
    return this.lengths.every(ScalingPlan.over);
  }

  /** The fewest samples that reached the threshold at length `l` so far (null: none yet). @param {Length} l */
  best(l) {
    return l.search.succeeded ?? null;
  }

  /** `log2 C(T, s)`, the bits that name the hidden set. @param {number} t */
  limit(t) {
    return this.wasm.sparseLog2Choose(t, this.sparsity);
  }

  /** The three laws of m* against T (log T, linear in T, a power of T) fitted to the
   * lengths whose search is over, best first by R² in the space of m* itself, each with the
   * m* it predicts at the next length (twice the longest done); null with fewer than two.
   * @returns {{ next: number, laws: { law: 'log' | 'linear' | 'power', name: string, formula: string, r2: number, next: number }[] } | null} */
  laws() {
    const over = this.lengths.filter((l) => ScalingPlan.over(l) && this.best(l) !== null);
    if (over.length < 2) return null;
    const next = 2 * Math.max(...over.map((l) => l.t));
    const laws = this.wasm.sparseLaws(Float64Array.from(over, (l) => l.t), Float64Array.from(over, (l) => /** @type {number} */ (this.best(l))), next);
    return laws.length ? { next, laws } : null;
  }

  summary() {
    const over = this.lengths.filter(ScalingPlan.over).length;
    const runs = this.rows.length;
    const n = this.lengths.length;
    const said = this.done()
      ? `Done: m* found for ${this.lengths.filter((l) => this.best(l) !== null).length} of ${n} lengths, ${runs} runs.`
      : `${over} of ${n} lengths done, ${runs} runs so far.`;
    const refused = this.refused.length
      ? ` Not searched: T = ${this.refused.map((r) => r.t).join(', ')}, whose settings are refused (${this.refused[0].message}).`
      : '';
    return said + refused;
  }

  csv() {
    return `${[HEADER, ...this.rows].join('\n')}\n`;
  }
}

/** The lab's experiment, as the shell reads it (Lab.experiment). */
export const scalingExperiment = {
  title: 'How many samples does it need?',
  button: 'Samples needed',
  help: `For T = ${LENGTHS.join(', ')} bits, the fewest training samples m* with which the median test accuracy of ${SEEDS} seeds `
    + `reaches ${100 * THRESHOLD}% after ${STEPS.toLocaleString('en')} steps, searched by doubling and then bisecting m, all lengths at once `
    + 'over this computer’s cores. The other settings are the run’s. Under the table, which law of m* against T fits the lengths '
    + 'done best, judged on m* itself (the paper’s claim is that m* grows like log T).',
  /** @param {Record<string, unknown>} config @param {any} wasm */
  plan: (config, wasm) => new ScalingPlan(config, wasm),
  // Its runs' lengths, sizes, seeds and evaluations are the plan's own.
  keys: ['length', 'samples', 'seed', 'eval_every'],
};
