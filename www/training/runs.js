// @ts-check
// The runs the page trains, kept in step with the store: the first run on the store's
// settings and, in compare mode, a second run of the same settings with the lab's contrast
// applied, same seed. Each is a Run with its own workers; this module decides when a run
// starts afresh, plays, pauses or changes its learning rate, and passes what the runs say
// to the page (onEvent). It knows no model: contrasts and batch sizes are the lab's.

import { Run } from './run.js';
import { same, paceAt } from '../state/options.js';

/** @typedef {import('../state/store.js').State} State */
/** @typedef {import('../state/store.js').Store} Store */
/** @typedef {import('../labs/index.js').Lab} Lab */
/** @typedef {import('../labs/index.js').Budget} Budget */
/** @typedef {import('./protocol.js').FromWorker} FromWorker */

/** @typedef {(which: 'first' | 'second', run: Run, msg: FromWorker) => void} RunsEvents */

/** The paired measurements kept before the older half is thinned. */
const PAIRED_MAX = 2000;


export class Runs {
  /**
   * @param {{ store: Store, variant: import('./variant.js').Build, module: WebAssembly.Module,
   *   wasm: any, cores: number, onEvent: RunsEvents, onBudget: (budget: Budget) => void,
   *   placement?: { for(config: Record<string, unknown>): import('./protocol.js').Placement } }} o
   * `wasm`: the page's instance of the module (a contrast's paired measurement uses it);
   * `onBudget`: the first run reached its budget, playing (the page pauses and says so);
   * `placement`: where a run of given settings trains (placement.js; a GPU run trains on
   * one worker), the CPU without one.
   */
  constructor({ store, variant, module, wasm, cores, onEvent, onBudget, placement = { for: () => ({ backend: 'cpu', reason: '' }) } }) {
    /** @private */ this.store = store;
    /** @private */ this.wasm = wasm;
    /** The contrast's paired measurement at each evaluation both runs made, oldest first
     * (every one up to PAIRED_MAX, then every other one of the older half: bounded).
     * @type {import('../state/history.js').Evaluation[]} */
    this.paired = [];
    /** The starts of the two runs the series is of, and its last step measured. @private */
    this.pairedOf = { runs: '', step: -1 };
    /** @private */ this.lab = store.lab;
    /** @private */ this.cores = cores;
    /** @private */ this.onEvent = onEvent;
    /** @private */ this.onBudget = onBudget;
    /** @private */ this.placement = placement;
    /** @private */ this.make = () => new Run({
      lab: this.lab.name, metrics: this.lab.metrics.map((m) => m.key), variant, module,
      placementFor: (config) => this.placementFor(config),
      onEvent: (run, msg) => {
        // A new step, or a run that stopped (which the other must no longer wait for).
        this.pace();
        if (msg.type === 'snapshot' && msg.history) this.pair();
        this.onEvent(run === this.first ? 'first' : 'second', run, msg);
      },
    });
    /** The budget (the first run's generation and the budget's steps) last announced, and
     * the one the user played past (or that came when the run was already beyond it). */
    /** @private */ this.announced = '';
    /** @private */ this.passed = '';
    /** The budget the store's state gives the run on screen (its settings, preset, story
     * step), kept with the state rather than read again at every message. @private */
    this.claimed = this.claimOf(store.state);
    /** @readonly */ this.first = this.make();
    /** @type {Run | null} */ this.second = null;
    /** Whether the page is in sight (its tab shown and, embedded, scrolled into view):
     * out of sight, nothing plays. */
    this.visible = true;
    /** @private @type {WeakMap<Run, string>} what each run was started on */
    this.started = new WeakMap();
    store.subscribe((s, prev) => {
      this.claimed = this.claimOf(s);
      if (s.playing && !prev.playing) {
        // Play pressed anew: a run that stopped at a divergence goes on too, and one at its
        // budget goes past it.
        for (const run of this.all()) run.halted = false;
        const budget = this.budget();
        if (budget && this.first.currentStep() >= budget.steps) this.passed = this.budgetKey(budget);
      }
      this.sync(s);
    });
  }

  /** The live runs: the first, and the compared one. */
  all() {
    return this.second ? [this.first, this.second] : [this.first];
  }

  /** The names of the two runs in compare mode, else null. @returns {[string, string] | null} */
  names() {
    const s = this.store.state;
    return s.compare ? this.lab.contrasts[s.compare].names(s.config) : null;
  }

  /** How many workers share each batch: the user's choice (at most what the lab's run
   * can split into), else the lab's for these settings on this machine's cores, and one
   * beside a sweep. @param {Record<string, unknown>} config */
  workersFor(config) {
    // A GPU run's step is the GPU's: one worker drives it.
    if (this.placementFor(config).backend === 'gpu') return 1;
    const w = this.store.state.workers;
    const { most, auto } = this.lab.workers(config, this.cores);
    if (w !== 'auto') return Math.max(1, Math.min(w, most));
    // Beside a sweep (whose seeds train on one worker each), one worker: a seed opened from
    // it is then the sweep's run bit for bit (the worker count changes the gradients' sums).
    if (this.store.state.seeds) return 1;
    return Math.max(1, Math.min(auto, most));
  }

  /** Where a run of `config` trains (placement.js). @param {Record<string, unknown>} config
   * @returns {import('./protocol.js').Placement} */
  placementFor(config) {
    return this.placement.for(config);
  }

  /** Brings the runs in line with the store's state. @param {State} [s] */
  sync(s = this.store.state) {
    this.keep(this.first, s.config, s);
    if (s.compare) {
      this.second ??= this.make();
      this.keep(this.second, this.lab.contrasts[s.compare].apply(s.config), s);
    } else if (this.second) {
      this.second.stop();
      this.second = null;
    }
    const paired = Boolean(s.compare && this.lab.contrasts[s.compare].paired);
    if (!paired && this.paired.length) this.paired = [];
    for (const run of this.all()) {
      run.setEvaluationMaps(paired);
      run.setSpeed(paceAt(s.speed, this.first.currentStep(), this.lab.gentle.steps));
      run.select(s.seq, s.head);
      if (!run.dead) run.setPlaying(s.playing && this.visible && !s.viewing && !run.halted);
    }
    this.pace();
  }

  /**
   * Measures the two runs together (the contrast's `paired`) once both have evaluated the
   * same step with their whole evaluation batch's maps; starts the series afresh when
   * either run starts again.
   * @private
   */
  pair() {
    const s = this.store.state;
    const paired = s.compare ? this.lab.contrasts[s.compare].paired : undefined;
    const [a, b] = [this.first, this.second];
    if (!paired || !b) return;
    const runs = `${a.generation} ${b.generation}`;
    if (this.pairedOf.runs !== runs) {
      this.paired = [];
      this.pairedOf = { runs, step: -1 };
    }
    const [ea, eb] = [a.evaluated, b.evaluated];
    if (!ea || !eb || ea.step !== eb.step || ea.snapshot.generation !== a.generation || eb.snapshot.generation !== b.generation) return;
    if (this.pairedOf.step === ea.step) return;
    this.pairedOf.step = ea.step;
    let values;
    try {
      values = paired.measure(this.wasm, ea.snapshot, eb.snapshot, ea.step);
    } catch (e) {
      // Said once per evaluation (the next one is measured afresh); the runs go on.
      const message = `the comparison's measurement at step ${ea.step} failed: ${/** @type {Error} */ (e).message}`;
      this.onEvent('first', a, { type: 'error', where: 'compare', kind: 'internal', message });
      return;
    }
    let points = this.paired;
    if (points.length >= PAIRED_MAX) {
      const half = points.length >> 1;
      points = [...points.slice(0, half).filter((_, i) => i % 2 === 0), ...points.slice(half)];
    }
    this.paired = [...points, { step: ea.step, ...values }];
  }

  /** The steps the run on screen trains for, playing, before it pauses and says why: its
   * preset's (or story step's) budget, unless the settings are the user's own or the user
   * played past it. @returns {Budget | null} */
  budget() {
    const budget = this.claimed;
    return budget && this.passed !== this.budgetKey(budget) ? budget : null;
  }

  /** The budget of state `s`: the store's (its preset's or story step's), or beside a sweep
   * the sweep's steps, where a seed opened from it stops as the sweep did.
   * @private @param {State} s */
  claimOf(s) {
    const budget = this.store.budget();
    if (budget || !s.seeds) return budget;
    const steps = this.store.sweepSteps();
    return { steps, claim: `the sweep beside it trains each seed for ${steps} steps` };
  }

  /** @private @param {Budget} budget */
  budgetKey(budget) {
    return `${this.first.generation} ${budget.steps}`;
  }

  /**
   * Sets each run's limit: its budget and, compared, one step past the slower run's, so
   * that the faster waits and the charts compare equal steps. Announces the budget when
   * the first run reaches it playing.
   * @private
   */
  pace() {
    const s = this.store.state;
    // The gentle start speeds up once the first run is past its slow steps.
    const speed = paceAt(s.speed, this.first.currentStep(), this.lab.gentle.steps);
    for (const run of this.all()) run.setSpeed(speed);
    const live = this.all().filter((r) => !r.dead && !r.halted && !r.failed);
    let budget = this.budget();
    // A budget that comes when the run is already beyond it (the story closed, a preset's
    // budget after a step's longer one) does not apply to it.
    if (budget && this.first.currentStep() > budget.steps) {
      this.passed = this.budgetKey(budget);
      budget = null;
    }
    const slowest = Math.min(...live.map((r) => r.currentStep()));
    const ahead = live.length > 1 ? slowest + 1 : Infinity;
    const limit = Math.min(budget?.steps ?? Infinity, ahead);
    for (const run of this.all()) run.setLimit(Number.isFinite(limit) ? limit : null);
    if (budget && s.playing && this.announced !== this.budgetKey(budget) && this.first.currentStep() >= budget.steps) {
      this.announced = this.budgetKey(budget);
      this.onBudget(budget);
    }
  }

  /** Starts `run` afresh on `config` where its model or its workers change (a new request
   * for a fresh run too); relays a new learning rate.
   * @private @param {Run} run @param {Record<string, unknown>} config @param {State} s */
  keep(run, config, s) {
    const workers = this.workersFor(config);
    const key = this.startKey(config, s, workers);
    if (this.started.get(run) !== key) {
      // After a panic the first run goes on only through restart() ("Start again"); a
      // compared run starts afresh with new settings.
      if (run.dead && run === this.first && this.started.has(run)) return;
      this.started.set(run, key);
      run.start(config, workers);
    } else if (run.config) {
      for (const k of this.store.live) if (!same(run.config[k], config[k])) run.setLive(k, config[k]);
    }
  }

  /** What a run is started on: its settings but the live ones, the request for a fresh run,
   * its workers. @private @param {Record<string, unknown>} config @param {State} s @param {number} workers */
  startKey(config, s, workers) {
    const rest = Object.fromEntries(Object.entries(config).filter(([k]) => !this.store.live.includes(k)));
    return `${JSON.stringify(rest)} ${s.fresh} ${workers}`;
  }

  /** Starts every run again on the store's settings, in fresh workers (after a panic). */
  restart() {
    for (const run of this.all()) {
      this.started.delete(run);
      run.stop();
    }
    this.sync();
  }

  /** One step of every run, paused. */
  step() {
    this.store.setPlaying(false);
    for (const run of this.all()) run.step(1);
  }

  /** Every run back to step 0, same seed. */
  reset() {
    for (const run of this.all()) run.reset();
  }

  /**
   * Loads saved weights into the first run: the run's settings become theirs (the store's
   * too, without a new run), and a comparison ends.
   * @param {string} preset @param {Record<string, unknown>} config @param {Float32Array} params @param {number} step
   */
  loadWeights(preset, config, params, step) {
    const workers = this.workersFor(config);
    const s = this.store.state;
    this.started.set(this.first, this.startKey(config, s, workers));
    if (workers !== this.first.workers) this.first.start(config, workers);
    this.first.loadParams(config, params, step);
    this.store.loaded(preset, config);
  }
}
