// @ts-check
// The lab's experiment (Lab.experiment), kept in step with the store: open (`experiment`
// in the state), it makes the experiment's plan from the run's settings, trains the jobs
// the plan asks for in a pool of runs (pool.js), tells the plan how each ended and asks it
// for more, until it is done; the settings changed, it starts again; closed, it stops. It
// knows no model: what to train and what the outcomes mean are the plan's.

import { Pool } from '../training/pool.js';

/** @typedef {import('../state/store.js').Store} Store */
/** @typedef {import('../state/store.js').State} State */
/** @typedef {import('../labs/index.js').ExperimentPlan} ExperimentPlan */

export class Experiments {
  /**
   * @param {{ store: Store, variant: import('../training/variant.js').Build, module: WebAssembly.Module,
   *   cores: number, wasm: any, onChange: () => void }} o `onChange`: the plan moved on
   */
  constructor({ store, variant, module, cores, wasm, onChange }) {
    /** @private */ this.store = store;
    /** @private */ this.wasm = wasm;
    /** @private */ this.onChange = onChange;
    /** @private @type {Pool<import('../training/pool.js').Job>} */
    this.pool = new Pool({
      lab: store.lab.name, metrics: store.lab.metrics.map((m) => m.key), variant, module, cores,
      onJob: (job, what, run, msg) => {
        if (what === 'snapshot') return;
        this.plan?.record(job, what === 'done' ? run.evaluations.at(-1) : undefined, msg.type === 'snapshot' ? msg : null);
        this.feed();
      },
    });
    /** The experiment's state, while it is open. @type {ExperimentPlan | null} */
    this.plan = null;
    /** @private */ this.key = '';
    /** Whether the page is in sight (out of sight, nothing trains). */
    this.visible = !document.hidden;
    store.subscribe((s) => this.sync(s));
  }

  /** Seconds the plan has trained (in sight), to its end if it ended. */
  seconds() {
    return this.pool.seconds();
  }

  /** Whether the plan asks for nothing more and its last runs ended. */
  finished() {
    return Boolean(this.plan?.done()) && this.pool.ended();
  }

  /** Opens, restarts or closes the experiment as the state asks. @param {State} s */
  sync(s) {
    const spec = this.store.lab.experiment;
    if (!s.experiment || !spec || s.viewing) {
      if (this.plan) this.stop();
      return;
    }
    // The settings the plan sets itself: the run's own do not change the experiment.
    const own = new Set(spec.keys);
    const key = JSON.stringify(Object.entries(s.config).filter(([k]) => !own.has(k)));
    if (key !== this.key) {
      this.key = key;
      this.plan = spec.plan(s.config, this.wasm);
      this.pool.setTraining(this.visible);
      this.pool.replace(this.plan.next());
      this.onChange();
    }
  }

  /** The page came into sight or went out of it. @param {boolean} visible */
  setVisible(visible) {
    this.visible = visible;
    this.pool.setTraining(visible);
  }

  /** Gives the pool what the plan asks for next. @private */
  feed() {
    const jobs = this.plan?.next() ?? [];
    if (jobs.length) this.pool.add(jobs);
    this.onChange();
  }

  /** Closes the experiment and ends its workers. */
  stop() {
    this.pool.stop();
    this.plan = null;
    this.key = '';
    this.onChange();
  }
}
