// @ts-check
// The sweeps the page trains, kept in step with the store: with `seeds` set, the store's
// settings over that range of seeds and, in compare mode, the lab's contrast of them over
// the same seeds. Every seed is a job of a pool of runs (pool.js: one worker per core,
// each training as fast as it can to the sweep's steps), queued so that two compared
// sweeps fill in together. It knows no model: the steps, the contrast and what a seed's
// evaluations say are the lab's (seeds.js reads them).

import { Pool } from '../training/pool.js';
import { parseSeeds, summarize } from './seeds.js';

/** @typedef {import('../state/store.js').Store} Store */
/** @typedef {import('../state/store.js').State} State */
/** @typedef {import('./seeds.js').SeedRun} SeedRun */
/** @typedef {import('../training/protocol.js').FromWorker} FromWorker */
/** A seed's job: its run's settings and steps, and the seed's record it fills.
 * @typedef {import('../training/pool.js').Job & { seed: SeedRun }} SeedJob */

/** The most finished seeds kept for later sweeps. */
const KEPT_MAX = 1000;


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
   * @param {{ store: Store, variant: import('../training/variant.js').Build, module: WebAssembly.Module,
   *   cores: number, onChange: () => void }} o `onChange`: a seed's run moved on
   */
  constructor({ store, variant, module, cores, onChange }) {
    /** @private */ this.store = store;
    /** @private */ this.onChange = onChange;
    /** @private @type {Pool<SeedJob>} */
    this.pool = new Pool({
      lab: store.lab.name, metrics: store.lab.metrics.map((m) => m.key), variant, module, cores,
      onJob: (job, what, run, msg) => this.receive(job, what, run, msg),
    });
    /** The sweeps shown: none, one, or two compared. @type {Sweep[]} */
    this.sweeps = [];
    /** @private @type {Map<SeedRun, Sweep>} */
    this.owner = new Map();
    /** @private */ this.key = '';
    /** Whether the page is in sight (out of sight, nothing trains): a link opened in a
     * tab in the background waits until it is shown. */
    this.visible = !document.hidden;
    /** Paused by the user (the sweep's own Pause): nothing trains until it goes on. */
    this.paused = false;
    /** Seeds trained to the end, by settings, steps and seed: a sweep of more seeds, or one
     * compared anew, takes them as they are. @private @type {Map<string, SeedRun>} */
    this.kept = new Map();
    store.subscribe((s) => this.sync(s));
  }

  /** Seconds the current sweeps have trained (in sight, not paused), to their end if they ended. */
  seconds() {
    return this.pool.seconds();
  }

  /** @private @param {Record<string, unknown>} config @param {number} steps @param {number} seed */
  keptKey(config, steps, seed) {
    return `${JSON.stringify({ ...config, seed: null })} ${steps} ${seed}`;
  }

  /** Whether every seed of every sweep is done. */
  finished() {
    return this.sweeps.length > 0 && this.sweeps.every((w) => w.seeds.every((r) => r.done));
  }

  /** Each sweep's summary (seeds.js). */
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
    /** @type {SeedJob[]} */
    const jobs = [];
    for (let k = 0; k < count; k++) {
      for (const w of this.sweeps) {
        const seed = w.seeds[k];
        this.owner.set(seed, w);
        if (!seed.done) jobs.push({ config: { ...w.config, seed: seed.seed }, steps, seed });
      }
    }
    this.paused = false;
    this.pool.setTraining(this.training());
    this.pool.replace(jobs);
    this.onChange();
  }

  /** Plays the pool's busy runs while the page is in sight and the sweep not paused. @private */
  pace() {
    this.pool.setTraining(this.training());
  }

  /** @private @param {SeedJob} job @param {'snapshot' | 'done' | 'failed'} what
   * @param {import('../training/run.js').Run} run @param {FromWorker} msg */
  receive(job, what, run, msg) {
    const seed = job.seed;
    if (what === 'failed') {
      seed.failed = /** @type {{ message: string }} */ (msg).message;
      seed.done = true;
    } else if (msg.type === 'snapshot') {
      seed.step = msg.step;
      // What the panel shows changes with an evaluation (or the seed's end), not every frame.
      if (!msg.history && what !== 'done') return;
      seed.evaluations = run.evaluations;
      if (what === 'done') {
        seed.done = true;
        this.keep(seed);
      }
    }
    this.onChange();
  }

  /** Keeps a seed trained to the end (at most KEPT_MAX, the oldest dropped first).
   * @private @param {SeedRun} seed */
  keep(seed) {
    const w = this.owner.get(seed);
    if (!w) return;
    this.kept.set(this.keptKey(w.config, w.steps, seed.seed), seed);
    for (const k of this.kept.keys()) {
      if (this.kept.size <= KEPT_MAX) break;
      this.kept.delete(k);
    }
  }

  /** Ends the sweeps and their workers. */
  stop() {
    this.pool.stop();
    this.sweeps = [];
    this.owner.clear();
    this.key = '';
    this.onChange();
  }
}
