// @ts-check
// The sweeps the page trains, kept in step with the store: with `seeds` set, the store's
// settings over that range of seeds and, in compare mode, the lab's contrast of them over
// the same seeds. Every seed is a job of a pool of runs (pool.js: one worker per core,
// each training as fast as it can to the sweep's steps), queued so that two compared
// sweeps fill in together; or, where the page places runs of its settings on the GPU, of
// the GPU's pool (gpu-pool.js: the seeds of one setting batched as one GPU run, a compared
// sweep's after the first's), which hands back to the CPU's what it cannot train. It knows no model: the steps, the contrast, where a setting
// trains and what a seed's evaluations say are the lab's (seeds.js reads them).

import { Pool } from '../training/pool.js';
import { GpuPool } from '../training/gpu-pool.js';
import { parseSeeds, summarize } from './seeds.js';

/** @typedef {import('../state/store.js').Store} Store */
/** @typedef {import('../state/store.js').State} State */
/** @typedef {import('./seeds.js').SeedRun} SeedRun */
/** A seed's job: its run's settings and steps, and the seed's record it fills.
 * @typedef {import('../training/pool.js').Job & { seed: SeedRun }} SeedJob */
/** @typedef {import('../training/gpu-pool.js').JobReport} JobReport */
/** @typedef {import('../training/protocol.js').Placement} Placement */

/** The most finished seeds kept for later sweeps. */
const KEPT_MAX = 1000;


/**
 * One sweep: its name (in compare mode), settings, steps per seed, its seeds' runs so far,
 * and where they train: `gpu` batched on the GPU (`device`), else on the CPU (`reason`: why
 * not on the GPU, where it fell back from there).
 * @typedef {{ name: string, config: Record<string, unknown>, steps: number, seeds: SeedRun[],
 *   backend: 'gpu' | 'cpu', device: string, reason: string }} Sweep
 */

export class Sweeps {
  /**
   * @param {{ store: Store, variant: import('../training/variant.js').Build, module: WebAssembly.Module,
   *   cores: number, onChange: () => void, placementFor?: (config: Record<string, unknown>) => Placement }} o
   *   `onChange`: a seed's run moved on; `placementFor`: where runs of these settings train
   *   (the page's choice: runs.js), the CPU by default
   */
  constructor({ store, variant, module, cores, onChange, placementFor = () => ({ backend: 'cpu', reason: '' }) }) {
    /** @private */ this.store = store;
    /** @private */ this.onChange = onChange;
    /** @private */ this.placementFor = placementFor;
    const lab = store.lab.name;
    const metrics = store.lab.metrics.map((m) => m.key);
    /** @private @type {Pool<SeedJob>} */
    this.pool = new Pool({
      lab, metrics, variant, module, cores,
      onJob: (job, what, run, msg) => this.receive(job, what, {
        step: msg.type === 'snapshot' ? msg.step : job.seed.step,
        evaluations: run.evaluations,
        evaluated: what === 'done' || (msg.type === 'snapshot' && Boolean(msg.history)),
        message: what === 'failed' && 'message' in msg ? String(msg.message) : '',
        backend: 'cpu',
      }),
    });
    /** @private @type {GpuPool<SeedJob>} */
    this.gpu = new GpuPool({
      lab, metrics, variant, module,
      onJob: (job, what, report) => this.receive(job, what, report),
      onFallback: (jobs, reason) => this.fallBack(jobs, reason),
      onDevice: (name) => {
        for (const w of this.sweeps) if (w.backend === 'gpu') w.device = name;
        this.onChange();
      },
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
    return Math.max(this.pool.seconds(), this.gpu.seconds());
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
    const steps = this.store.sweepSteps();
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
      name: names[i], config, steps, backend: this.placementFor(config).backend, device: '', reason: '',
      seeds: Array.from({ length: count }, (_, k) => this.kept.get(this.keptKey(config, steps, from + k))
        ?? { seed: from + k, evaluations: [], step: 0, done: false, failed: null }),
    }));
    // Alternately, so that two compared sweeps fill in together; seeds kept from an
    // earlier sweep are done already. A sweep placed on the GPU trains there, batched.
    /** @type {SeedJob[]} */
    const jobs = [];
    /** @type {SeedJob[]} */
    const gpuJobs = [];
    for (let k = 0; k < count; k++) {
      for (const w of this.sweeps) {
        const seed = w.seeds[k];
        this.owner.set(seed, w);
        if (!seed.done) (w.backend === 'gpu' ? gpuJobs : jobs).push({ config: { ...w.config, seed: seed.seed }, steps, seed });
      }
    }
    this.paused = false;
    this.pace();
    this.pool.replace(jobs);
    this.gpu.replace(gpuJobs);
    this.onChange();
  }

  /** Plays the pools' busy runs while the page is in sight and the sweep not paused. @private */
  pace() {
    this.pool.setTraining(this.training());
    this.gpu.setTraining(this.training());
  }

  /** What a seed's run did, from either pool. @private @param {SeedJob} job
   * @param {'snapshot' | 'done' | 'failed'} what @param {JobReport} report */
  receive(job, what, report) {
    const seed = job.seed;
    seed.step = report.step;
    seed.backend = report.backend;
    if (report.evaluated) seed.evaluations = report.evaluations;
    if (what === 'failed') {
      seed.failed = report.message;
      seed.done = true;
    } else if (what === 'done') {
      seed.done = true;
      this.keep(seed);
    } else if (!report.evaluated) {
      // What the panel shows changes with an evaluation (or the seed's end), not every step.
      return;
    }
    this.onChange();
  }

  /** Jobs the GPU could not train start again on the CPU; their sweep says why.
   * @private @param {SeedJob[]} jobs @param {string} reason */
  fallBack(jobs, reason) {
    for (const job of jobs) {
      const w = this.owner.get(job.seed);
      if (w) Object.assign(w, { backend: 'cpu', reason: `the GPU could not train it: ${reason}` });
      Object.assign(job.seed, { evaluations: [], step: 0 });
    }
    this.pool.add(jobs);
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
    this.gpu.stop();
    this.sweeps = [];
    this.owner.clear();
    this.key = '';
    this.onChange();
  }
}
