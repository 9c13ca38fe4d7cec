// @ts-check
// A run: one training run in its worker (worker.js) and, for large batches, its replica
// workers (replica.js). It starts and stops them, sends them the commands (play, pause,
// step, reset, speed, learning rate, selection, weights), keeps the latest snapshot and the
// run's evaluation history (bounded by the trainer: src/series.rs), and tells its owner
// what happened. The first run, a compared one and each run of a sweep are all Runs.

import { evaluationsOf } from '../state/history.js';

/** The time a frame of a run on screen may train before its snapshot (ms): the rest of the
 * display's 16.7 ms frame is the snapshot's. */
const FRAME_TRAIN_MS = 12;

/** @typedef {import('./protocol.js').Snapshot} Snapshot */
/** @typedef {import('./protocol.js').FromWorker} FromWorker */
/** @typedef {import('./protocol.js').ToWorker} ToWorker */
/** @typedef {import('./protocol.js').History} History */
/** @typedef {import('./protocol.js').Losses} Losses */
/** @typedef {import('../state/history.js').Evaluation} Evaluation */
/** @typedef {import('./variant.js').Build} Variant */
/** @typedef {import('./protocol.js').Placement} Placement */

/**
 * What a run tells its owner: every message of its worker but a reply it was waiting for
 * (snapshots of an earlier start are dropped), and a worker that failed to start as a panic.
 * @typedef {(run: Run, msg: FromWorker) => void} RunEvents
 */

export class Run {
  /**
   * @param {{ lab: string, metrics: readonly string[], variant: Variant, module: WebAssembly.Module,
   *   onEvent: RunEvents, placementFor?: (config: Record<string, unknown>) => Placement }} o
   *   `placementFor`: where its worker trains a run of these settings (the GPU falls back to
   *   the CPU, saying why, where it cannot); the CPU by default
   */
  constructor({ lab, metrics, variant, module, onEvent, placementFor = () => ({ backend: 'cpu', reason: '' }) }) {
    /** @private */ this.lab = lab;
    /** @private */ this.placementFor = placementFor;
    /** @private */ this.metrics = metrics;
    /** @private */ this.variant = variant;
    /** @private */ this.module = module;
    /** @private */ this.onEvent = onEvent;
    /** @private @type {Worker | null} */ this.worker = null;
    /** @private @type {Worker[]} */ this.replicas = [];
    /** The settings it was last started on. @type {Record<string, unknown> | null} */
    this.config = null;
    /** Workers sharing each batch. */
    this.workers = 0;
    /** The start it is on: snapshots of an earlier one are dropped. */
    this.generation = 0;
    /** @type {Snapshot | null} */ this.latest = null;
    /** The run's evaluations, oldest first (every recent one, a thinned record before). @type {Evaluation[]} */
    this.evaluations = [];
    /** @type {{ stride: number, recentFrom: number }} */ this.resolution = { stride: 1, recentFrom: 0 };
    /** The latest snapshot that carried its whole evaluation batch's maps (asked for with
     * `setEvaluationMaps`), and the step of that evaluation. @type {{ step: number, snapshot: Snapshot } | null} */
    this.evaluated = null;
    /** @private */ this.evaluationMaps = false;
    /** Stopped for good (a panic, or a worker that could not load its build): only a fresh start goes on. */
    this.dead = false;
    /** @private */ this.speed = 4;
    /** The time a frame of its worker may train before the frame's snapshot (ms). @private */
    this.frameMs = FRAME_TRAIN_MS;
    /** @private */ this.selection = { seq: 0, head: -1 };
    /** @private */ this.playing = false;
    /** @private @type {number | null} */ this.limit = null;
    /** Stopped by a divergence: it plays again only when asked anew (`resume`) or started. */
    this.halted = false;
    /** Its last start was refused or its build did not load: it has no trainer of its
     * current settings (a compared run must not wait for it). */
    this.failed = false;
    /** @private @type {Map<string, { resolve(m: any): void, reject(e: Error): void }[]>} replies awaited, by type */
    this.waiting = new Map();
  }

  /**
   * (Re)starts the run on `config` with `workers` workers: in fresh workers when it has
   * none yet, another number, or died; else in the same ones. A playing run goes on playing.
   * @param {Record<string, unknown>} config @param {number} workers
   */
  start(config, workers) {
    this.config = config;
    this.generation++;
    this.halted = false;
    this.failed = false;
    if (!this.worker || this.dead || workers !== this.workers) this.spawn(config, workers);
    else this.send({ type: 'config', config, generation: this.generation, placement: this.placementFor(config) });
    if (this.playing) this.send({ type: 'play' });
  }

  /** @private @param {Record<string, unknown>} config @param {number} count */
  spawn(config, count) {
    this.terminate();
    this.dead = false;
    this.workers = count;
    /** @type {Worker} */
    let w;
    try {
      w = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
    } catch (err) {
      // An opaque origin (a sandbox without allow-same-origin) may start no worker.
      this.dead = true;
      const message = self.origin === 'null'
        ? 'This page cannot start its trainer here: it is in a sandboxed frame without allow-same-origin, where a page may not '
          + 'start workers. Embed it with sandbox="allow-scripts allow-same-origin" (as the Embed button’s snippet does).'
        : `could not start the trainer’s worker: ${err}`;
      this.onEvent(this, { type: 'error', where: 'load', kind: 'internal', message });
      return;
    }
    this.worker = w;
    w.addEventListener('message', (e) => this.receive(/** @type {MessageEvent<FromWorker>} */ (e).data));
    w.addEventListener('error', (e) => this.receive({ type: 'panic', message: e.message || 'the trainer’s worker failed to start' }));
    /** @type {MessagePort[]} */
    const ports = [];
    for (let i = 1; i < count; i++) {
      const r = new Worker(new URL('./replica.js', import.meta.url), { type: 'module' });
      r.addEventListener('error', (e) => this.receive({ type: 'panic', message: e.message || 'a replica worker failed to start' }));
      const channel = new MessageChannel();
      r.postMessage({ type: 'init-replica', variant: this.variant, module: this.module, port: channel.port1 }, [channel.port1]);
      this.replicas.push(r);
      ports.push(channel.port2);
    }
    /** @type {ToWorker} */
    const init = { type: 'init', lab: this.lab, variant: this.variant, module: this.module, config, ports, speed: this.speed, frameMs: this.frameMs, generation: this.generation, placement: this.placementFor(config) };
    w.postMessage(init, ports);
    this.send({ type: 'select', ...this.selection });
    if (this.limit !== null) this.send({ type: 'limit', step: this.limit });
    if (this.evaluationMaps) this.send({ type: 'evaluation-maps', on: true });
  }

  /** @private */
  terminate() {
    this.worker?.terminate();
    for (const r of this.replicas) r.terminate();
    this.worker = null;
    this.replicas = [];
    this.giveUp('the run’s workers stopped');
  }

  /** Every reply still awaited fails with `why`. @private @param {string} why */
  giveUp(why) {
    for (const list of this.waiting.values()) for (const w of list.splice(0)) w.reject(new Error(why));
  }

  /** @private @param {ToWorker} msg @param {Transferable[]} [transfer] */
  send(msg, transfer = []) {
    this.worker?.postMessage(msg, transfer);
  }

  /** @private @param {FromWorker} msg */
  receive(msg) {
    // A divergence or an error of an earlier start (a reset or new settings since) is over.
    if ((msg.type === 'diverged' || msg.type === 'error') && msg.generation !== undefined && msg.generation !== this.generation) return;
    if (msg.type === 'snapshot') {
      // A snapshot of an earlier start is dropped; the one shown stays until the new one comes.
      if (msg.generation !== this.generation) return;
      this.latest = msg;
      if (msg.history) {
        this.evaluations = evaluationsOf(msg.history, this.metrics);
        this.resolution = { stride: msg.history.stride, recentFrom: msg.history.recentFrom };
        const last = this.evaluations.at(-1);
        // A snapshot sent before the worker was asked for the maps has none: the next has.
        if (this.evaluationMaps && last && msg.evaluationMaps) this.evaluated = { step: last.step, snapshot: msg };
      }
    } else if (msg.type === 'panic') {
      this.dead = true;
      this.giveUp(`the run stopped: ${msg.message}`);
    } else if (msg.type === 'diverged' || (msg.type === 'error' && msg.where === 'step')) {
      this.playing = false;
      this.halted = true;
    } else if (msg.type === 'error' && (msg.where === 'config' || msg.where === 'load')) {
      this.failed = true;
      // A worker that could not load its build trains nothing until it is started again.
      if (msg.where === 'load') this.dead = true;
    } else if (msg.type === 'refused') {
      this.waiting.get(msg.request)?.shift()?.reject(new Error(msg.message));
      return;
    }
    const waiter = this.waiting.get(msg.type)?.shift();
    if (waiter) waiter.resolve(msg);
    else this.onEvent(this, msg);
  }

  /** Asks the worker for a reply of type `type`. @private @param {ToWorker} msg @param {string} type */
  ask(msg, type) {
    return new Promise((resolve, reject) => {
      if (!this.worker || this.dead) {
        reject(new Error('the run is not training: start it again'));
        return;
      }
      const list = this.waiting.get(type) ?? [];
      list.push({ resolve, reject });
      this.waiting.set(type, list);
      this.send(msg);
    });
  }

  /** Plays or pauses. @param {boolean} playing */
  setPlaying(playing) {
    if (playing === this.playing) return;
    this.playing = playing;
    this.send({ type: playing ? 'play' : 'pause' });
  }

  /** `n` steps, paused. @param {number} [n] */
  step(n = 1) {
    this.playing = false;
    this.halted = false;
    this.send({ type: 'step', n });
  }

  /** Back to step 0, with the same seed or `seed`. @param {number} [seed] */
  reset(seed) {
    this.generation++;
    this.halted = false;
    if (seed !== undefined && this.config) this.config = { ...this.config, seed };
    this.send({ type: 'reset', seed, generation: this.generation });
  }

  /** @param {number} speed steps per frame (below 1: one step every 1/speed frames) */
  setSpeed(speed) {
    if (speed === this.speed) return;
    this.speed = speed;
    this.send({ type: 'speed', speed });
  }

  /** How long a frame of the worker may train before it posts the frame's snapshot (ms):
   * a run on screen leaves room for 60 snapshots a second, one nobody watches frame by frame
   * (a seed of a sweep) spends less on them. @param {number} ms */
  setFrame(ms) {
    if (ms === this.frameMs) return;
    this.frameMs = ms;
    this.send({ type: 'frame', ms });
  }

  /** The step playing stops at, where the run waits, playing (null: none).
   * @param {number | null} step */
  setLimit(step) {
    if (step === this.limit) return;
    this.limit = step;
    this.send({ type: 'limit', step });
  }

  /** The step of its current start (0 until the start's first snapshot). */
  currentStep() {
    return this.latest && this.latest.generation === this.generation ? this.latest.step : 0;
  }

  /** Changes a live setting (one that applies to the running model) of the run.
   * @param {string} key @param {unknown} value */
  setLive(key, value) {
    if (this.config) this.config = { ...this.config, [key]: value };
    this.send({ type: 'live', key, value });
  }

  /** Whether snapshots with a new evaluation carry the whole evaluation batch's maps.
   * @param {boolean} on */
  setEvaluationMaps(on) {
    if (on === this.evaluationMaps) return;
    this.evaluationMaps = on;
    if (!on) this.evaluated = null;
    this.send({ type: 'evaluation-maps', on });
  }

  /** The evaluation sequence and head whose maps the snapshots carry. @param {number} seq @param {number} head */
  select(seq, head) {
    if (seq === this.selection.seq && head === this.selection.head) return;
    this.selection = { seq, head };
    this.send({ type: 'select', seq, head });
  }

  /**
   * Loads saved weights (a model of `config` as after `step` updates), paused; the worker
   * refuses weights that do not fit, and the run stays as it was.
   * @param {Record<string, unknown>} config @param {Float32Array} params @param {number} step
   */
  loadParams(config, params, step) {
    this.generation++;
    this.playing = false;
    this.halted = false;
    this.config = config;
    this.send({ type: 'load-params', config, params, step, generation: this.generation });
  }

  /** The model's weights, settings and step. @returns {Promise<{ params: Float32Array, step: number, config: Record<string, unknown> }>} */
  params() {
    return this.ask({ type: 'get-params' }, 'params');
  }

  /** The training loss of each update (every recent one, a thinned record before).
   * @returns {Promise<Losses>} */
  async losses() {
    const m = await this.ask({ type: 'get-losses' }, 'losses');
    return m.losses;
  }

  /** Makes the trainer panic (for tests of how a panic reaches the page). */
  debugPanic() {
    this.send({ type: 'debug-panic' });
  }

  /** Destroys the GPU device its trainer trains on (for tests of a lost GPU). */
  debugLoseGpu() {
    this.send({ type: 'debug-lose-gpu' });
  }

  /** Stops its workers for good. */
  stop() {
    this.terminate();
  }
}
