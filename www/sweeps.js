// @ts-check
// The sweeps the page trains, kept in step with the store: with `seeds` set, the store's
// settings over that range of seeds and, in compare mode, the lab's contrast of them over
// the same seeds. Every seed is a Run (run.js) of one worker; a pool of as many runs as
// the machine has cores takes the seeds in turn (the two sweeps' alternately), each
// training as fast as it can to the sweep's steps, and goes on with the next seed in the
// same worker. It knows no model: the steps, the contrast and what a seed's evaluations
// say are the lab's (sweep.js reads them).

import { Run } from './run.js';
import { parseSeeds, summarize } from './sweep.js';

/** @typedef {import('./store.js').Store} Store */
/** @typedef {import('./store.js').State} State */
/** @typedef {import('./sweep.js').SeedRun} SeedRun */
/** @typedef {import('./protocol.js').FromWorker} FromWorker */

/** The most finished seeds kept for later sweeps. */
const KEPT_MAX = 1000;

/** Steps per frame a seed trains at: as fast as the worker can (settings.js SPEEDS' fastest). */
const FULL_SPEED = 1000;
/** How long a seed's worker trains between two snapshots (ms): the panel draws its
 * curves a few times a second, and a snapshot every display frame would cost the
 * training's time on every core. */
const SEED_FRAME_MS = 250;

/**
 * The steps each seed of a sweep of the store's state trains: its budget (Store.budget),
 * else the lab's default for a sweep.
 * @param {Store} store
 */
export function sweepSteps(store) {
  return store.budget()?.steps ?? store.lab.sweep.steps;
}

/**
 * One sweep: its name (in compare mode), settings, steps per seed and its seeds' runs so far.
 * @typedef {{ name: string, config: Record<string, unknown>, steps: number, seeds: SeedRun[] }} Sweep
 */

export class Sweeps {
  /**
   * @param {{ store: Store, variant: import('./variant.js').Variant, module: WebAssembly.Module,
   *   cores: number, onChange: () => void }} o `onChange`: a seed's run moved on
   */
  constructor({ store, variant, module, cores, onChange }) {
    /** @private */ this.store = store;
    /** @private */ this.cores = Math.max(1, cores);
    /** @private */ this.onChange = onChange;
    /** @private */ this.make = () => new Run({
      lab: store.lab.name, metrics: store.lab.metrics.map((m) => m.key), variant, module,
      onEvent: (run, msg) => this.receive(run, msg),
    });
    /** The sweeps shown: none, one, or two compared. @type {Sweep[]} */
    this.sweeps = [];
    /** @private @type {Run[]} the pool */
    this.pool = [];
    /** @private @type {WeakMap<Run, SeedRun>} the seed each run of the pool trains */
    this.job = new WeakMap();
    /** @private @type {SeedRun[]} seeds not started yet, in the order they start */
    this.queue = [];
    /** @private @type {Map<SeedRun, Sweep>} */
    this.owner = new Map();
    /** @private */ this.key = '';
    /** Whether the page is in sight (out of sight, nothing trains): a link opened in a
     * tab in the background waits until it is shown. */
    this.visible = !document.hidden;
    /** Paused by the user (the sweep's own Pause): nothing trains until it goes on. */
    this.paused = false;
    /** When the current sweeps started, and when their last seed ended (ms, performance.now()). */
    this.startedAt = 0;
    /** @type {number | null} */ this.endedAt = null;
    /** Time the current sweeps waited (out of sight, or paused; ms), and since when they wait. @private */
    this.waited = { total: 0, since: /** @type {number | null} */ (null) };
    /** Seeds trained to the end, by settings, steps and seed: a sweep of more seeds, or one
     * compared anew, takes them as they are. @private @type {Map<string, SeedRun>} */
    this.kept = new Map();
    store.subscribe((s) => this.sync(s));
  }

  /** Seconds the current sweeps have trained (in sight, not paused), to their end if they ended. */
  seconds() {
    const now = performance.now();
    const end = this.endedAt ?? now;
    const waiting = this.waited.since !== null && this.endedAt === null ? now - this.waited.since : 0;
    return Math.max(0, end - this.startedAt - this.waited.total - waiting) / 1000;
  }

  /** @private @param {Record<string, unknown>} config @param {number} steps @param {number} seed */
  keptKey(config, steps, seed) {
    return `${JSON.stringify({ ...config, seed: null })} ${steps} ${seed}`;
  }

  /** Whether every seed of every sweep is done. */
  finished() {
    return this.sweeps.length > 0 && this.sweeps.every((w) => w.seeds.every((r) => r.done));
  }

  /** Each sweep's summary (sweep.js). */
  summaries() {
    const spec = this.store.lab.sweep;
    return this.sweeps.map((w) => summarize(w.seeds, spec, w.steps));
  }

  /** Brings the sweeps in line with the store's state: starts them afresh when their
   * settings (the seed aside), seeds, contrast or steps change. @param {State} s */
  sync(s) {
    const range = s.seeds ? parseSeeds(s.seeds) : null;
    if (!range) {
      if (this.key) this.stop();
      return;
    }
    const lab = this.store.lab;
    const steps = sweepSteps(this.store);
    const names = s.compare ? lab.contrasts[s.compare].names(s.config) : [''];
    const configs = s.compare ? [s.config, lab.contrasts[s.compare].apply(s.config)] : [s.config];
    const key = JSON.stringify({ configs: configs.map((c) => ({ ...c, seed: null })), range, steps });
    if (key !== this.key) this.begin(key, configs, names, range.from, range.count, steps);
    this.pace();
  }

  /** Pauses the sweep, or lets it go on. @param {boolean} paused */
  setPaused(paused) {
    this.paused = paused;
    this.pace();
    this.onChange();
  }

  /** Whether the sweep may train now: in sight and not paused. @private */
  training() {
    return this.visible && !this.paused;
  }

  /** @private @param {string} key @param {Record<string, unknown>[]} configs @param {string[]} names
   * @param {number} from @param {number} count @param {number} steps */
  begin(key, configs, names, from, count, steps) {
    this.key = key;
    this.owner.clear();
    this.sweeps = configs.map((config, i) => ({
      name: names[i], config, steps,
      seeds: Array.from({ length: count }, (_, k) => this.kept.get(this.keptKey(config, steps, from + k))
        ?? { seed: from + k, evaluations: [], step: 0, done: false, failed: null }),
    }));
    // Alternately, so that two compared sweeps fill in together; seeds kept from an
    // earlier sweep are done already.
    this.queue = [];
    for (let k = 0; k < count; k++) {
      for (const w of this.sweeps) {
        this.owner.set(w.seeds[k], w);
        if (!w.seeds[k].done) this.queue.push(w.seeds[k]);
      }
    }
    const size = Math.min(this.cores, this.queue.length);
    while (this.pool.length > size) /** @type {Run} */ (this.pool.pop()).stop();
    while (this.pool.length < size) this.pool.push(this.make());
    this.startedAt = performance.now();
    this.endedAt = this.queue.length ? null : this.startedAt;
    this.paused = false;
    this.waited = { total: 0, since: this.training() ? null : this.startedAt };
    for (const run of this.pool) this.next(run);
    this.onChange();
  }

  /** Gives `run` the next seed in the queue, or leaves it idle. @private @param {Run} run */
  next(run) {
    const job = this.queue.shift();
    if (!job) {
      this.job.delete(run);
      run.setPlaying(false);
      if (this.finished()) {
        this.endedAt ??= performance.now();
        // Every seed is done: the workers go (a new sweep makes others).
        for (const r of this.pool) r.stop();
        this.pool = [];
      }
      return;
    }
    const w = /** @type {Sweep} */ (this.owner.get(job));
    this.job.set(run, job);
    const config = { ...w.config, seed: job.seed };
    run.setSpeed(FULL_SPEED);
    run.setFrame(SEED_FRAME_MS);
    run.setLimit(w.steps);
    // The same settings but the seed: the run's trainer starts again from that seed.
    if (run.config && !run.dead && !run.failed && JSON.stringify({ ...run.config, seed: null }) === JSON.stringify({ ...config, seed: null })) {
      run.reset(job.seed);
    } else {
      run.start(config, 1);
    }
    // A run that stopped at a divergence was paused by it: the next seed plays.
    run.setPlaying(this.training());
  }

  /** Plays the pool's busy runs while the page is in sight and the sweep not paused, and
   * counts the time it waits. @private */
  pace() {
    const now = performance.now();
    if (!this.training()) this.waited.since ??= now;
    else if (this.waited.since !== null) {
      this.waited.total += now - this.waited.since;
      this.waited.since = null;
    }
    for (const run of this.pool) run.setPlaying(this.training() && this.job.has(run));
  }

  /** @private @param {Run} run @param {FromWorker} msg */
  receive(run, msg) {
    const job = this.job.get(run);
    if (!job) return;
    if (msg.type === 'snapshot') {
      job.step = msg.step;
      const done = msg.step >= (this.owner.get(job)?.steps ?? Infinity);
      // What the panel shows changes with an evaluation (or the seed's end), not every frame.
      if (!msg.history && !done) return;
      job.evaluations = run.evaluations;
      if (done) {
        job.done = true;
        this.keep(job);
        this.next(run);
      }
    } else if (msg.type === 'diverged' || msg.type === 'panic' || (msg.type === 'error' && msg.where !== 'snapshot')) {
      job.failed = msg.message;
      job.done = true;
      this.next(run);
    } else {
      return;
    }
    this.onChange();
  }

  /** Keeps a seed trained to the end (at most KEPT_MAX, the oldest dropped first).
   * @private @param {SeedRun} job */
  keep(job) {
    const w = this.owner.get(job);
    if (!w) return;
    this.kept.set(this.keptKey(w.config, w.steps, job.seed), job);
    for (const k of this.kept.keys()) {
      if (this.kept.size <= KEPT_MAX) break;
      this.kept.delete(k);
    }
  }

  /** Ends the sweeps and their workers. */
  stop() {
    for (const run of this.pool) run.stop();
    this.pool = [];
    this.queue = [];
    this.sweeps = [];
    this.owner.clear();
    this.key = '';
    this.onChange();
  }
}
