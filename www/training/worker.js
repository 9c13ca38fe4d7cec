// @ts-check
// The worker that owns a run's trainer (run.js starts it): it instantiates the compiled
// wasm it is given, runs as many steps per frame as the speed asks, and has the trainer
// post one snapshot per frame with its typed arrays transferred. With replica workers
// (replica.js) it leads a data-parallel run: it carries the gradients and evaluation parts
// between the replicas; the reduction itself is the trainer's (src/copying/parallel.rs).
// It knows no model: the lab and its settings come with the messages.

import { instantiate, isPanic, kindOf, lastPanic } from './wasm.js';

/** @typedef {import('./protocol.js').ToWorker} ToWorker */
/** @typedef {import('./protocol.js').FromWorker} FromWorker */
/** @typedef {import('./protocol.js').FromReplica} FromReplica */

/** The worker's global scope, typed by hand (the DOM lib types `self` as a Window).
 * @type {{ postMessage(msg: FromWorker, transfer?: Transferable[]): void,
 *          addEventListener(type: 'message', f: (e: MessageEvent<ToWorker>) => void): void }} */
const scope = /** @type {any} */ (self);

/** @type {any} the wasm module's exports */
let wasm = null;
/** @type {any} the wasm Trainer */
let trainer = null;
let lab = '';
/** Where the page asks the trainer to train (`gpu` tries the browser's GPU first), and why
 * not on the GPU. @type {import('./protocol.js').Placement} */
let placement = { backend: 'cpu', reason: '' };
let running = false;
/** Steps per frame; below 1, one step every 1/speed frames (slow motion). */
let speed = 1;
let frameCredit = 0;
/** The step playing stops at (a budget, or a compared run it keeps pace with): it waits
 * there, playing, for a new limit. */
let limit = Infinity;
/** Whether the next frame goes on with the steps left of the current one (woken by a raised
 * limit) rather than starting a new frame's. */
let resume = false;
let seq = 0;
let head = -1;
/** Whether a snapshot with a new evaluation carries the whole evaluation batch's maps (a
 * comparison that measures the two runs together asks for them). */
let evaluationMaps = false;
/** The run's generation (run.js numbers each new start; snapshots carry it). */
let generation = 0;
/** The history version the page has (−1: send it whole with the next snapshot). */
let sentHistory = -1;
let dead = false;
/** Recent (time, step) pairs, for steps per second. @type {[number, number][]} */
let rate = [];
/** The id of the next frame's pending wake-up, 0 if none: a pause drops it, and a wake-up
 * that is no longer the pending one does nothing. */
let timer = 0;
let wakeUps = 0;
/** Wake-ups due now go through a message to this worker itself: a `setTimeout(…, 0)` set
 * from a timer's own callback is clamped to 4 ms once nested five deep, which at full speed
 * (a step longer than a frame's budget) would leave the worker idle 4 ms of every step. */
const wake = new MessageChannel();
wake.port1.onmessage = (/** @type {MessageEvent<number>} */ e) => fire(e.data);

/** @param {number} id */
function fire(id) {
  if (id === timer) enqueue(frame);
}

/** Runs the next frame after `delay` ms (at once, as the next task, if it is not positive). */
function schedule(/** @type {number} */ delay) {
  const id = ++wakeUps;
  timer = id;
  if (delay > 0) setTimeout(() => fire(id), delay);
  else wake.port2.postMessage(id);
}

/** Ports to the replica workers of a data-parallel run (empty: this worker trains alone).
 * @type {MessagePort[]} */
let replicas = [];
/** Per replica, the resolvers of the replies it owes, oldest first.
 * @type {((m: FromReplica) => void)[][]} */
let pending = [];
/** Every message and frame runs through this chain, one at a time, so a reset can never
 * land between a step's halves. */
let chain = /** @type {Promise<unknown>} */ (Promise.resolve());
/** @param {() => unknown} f */
function enqueue(f) {
  chain = chain.then(f).catch((e) => post({ type: 'error', where: 'worker', kind: 'internal', message: String(e) }));
}

const FRAME_MS = 1000 / 60;
/** Time a frame may spend training at full speed before its snapshot (ms; the run's, with
 * 'init' and 'frame': run.js). */
let budgetMs = 0;

/** Posts `msg`; a divergence or an error carries the start it happened in, so that the
 * page can drop one of an earlier start. @param {FromWorker} msg @param {Transferable[]} [transfer] */
function post(msg, transfer) {
  scope.postMessage(msg.type === 'diverged' || msg.type === 'error' ? { ...msg, generation } : msg, transfer ?? []);
}

/** Sends `msg` to every replica. @param {any} msg */
function toReplicas(msg) {
  for (const p of replicas) p.postMessage(msg);
}

/** If `err` is a trap (a Rust panic) here or in a replica, reports it and marks the module
 * dead: after a panic only a fresh worker can go on. Returns whether it was one.
 * @param {unknown} err @param {string} [replicaMessage] a replica's panic message */
function panicked(err, replicaMessage) {
  if (!(isPanic(err) || replicaMessage)) return false;
  dead = true;
  running = false;
  post({ type: 'panic', message: lastPanic() || replicaMessage || String(err) });
  return true;
}

/** Reports a step that failed and stops playing: a divergence as such, any other error with
 * its kind. @param {Error} err @param {number} step the step it failed at */
function stepFailed(err, step) {
  running = false;
  if (kindOf(err) === 'diverged') post({ type: 'diverged', message: err.message, step });
  else post({ type: 'error', where: 'step', kind: kindOf(err), message: err.message ?? String(err) });
}

/** Wraps a call into wasm: a JS error from Rust is a refusal, reported with its field and
 * kind; a trap is a panic.
 * @template T @param {string} where @param {() => T} f @returns {T | undefined} */
function guard(where, f) {
  if (dead) return undefined;
  try {
    return f();
  } catch (e) {
    return refused(where, e);
  }
}

/** Reports what a call into wasm threw: a panic as such, else a refusal with its kind.
 * @param {string} where @param {unknown} e @returns {undefined} */
function refused(where, e) {
  const err = /** @type {Error} */ (e);
  if (!panicked(err)) post({ type: 'error', where, kind: kindOf(err), message: err.message ?? String(err) });
  return undefined;
}

/** Awaits `f` (a call into wasm that may return a promise: a GPU run's), reporting a
 * refusal or a panic as `guard` does. @template T @param {string} where
 * @param {() => T | Promise<T>} f @returns {Promise<T | undefined>} */
async function settle(where, f) {
  if (dead) return undefined;
  try {
    return await f();
  } catch (e) {
    return refused(where, e);
  }
}

/** A trainer of `config` on the browser's GPU, or null with the reason it cannot be (a
 * refused setting is reported as the CPU trainer would, and is null without a reason).
 * @param {Record<string, unknown>} config @returns {Promise<{ t: any, reason: string }>} */
async function gpuTrainer(config) {
  if (!wasm.gpuTrainer) return { t: null, reason: 'this build has no GPU backend' };
  if (replicas.length) return { t: null, reason: 'its batches are shared by several workers' };
  try {
    return { t: await wasm.gpuTrainer(lab, config), reason: '' };
  } catch (e) {
    const err = /** @type {Error} */ (e);
    if (panicked(err)) return { t: null, reason: '' };
    if (kindOf(err) !== 'backend') {
      post({ type: 'error', where: 'config', kind: kindOf(err), message: err.message ?? String(err) });
      return { t: null, reason: '' };
    }
    return { t: null, reason: err.message };
  }
}

/** The GPU failed under a run (a lost device): the run goes on on the CPU from its last
 * evaluation (the GPU run's state then, its evaluations and losses up to it; the steps
 * after it are trained again), or, where that fails, starts again there; the page says
 * so, and it plays on if it played.
 * @param {Error} err @returns {Promise<boolean>} false: the frame stops */
async function lostGpu(err) {
  const gpu = trainer;
  placement = { backend: 'cpu', reason: '' };
  /** @type {any} */
  let cpu = null;
  try {
    cpu = gpu.toCpu();
  } catch (e) {
    if (panicked(e)) return false;
  }
  let reason = `The GPU stopped (${err.message})`;
  if (cpu) {
    trainer = cpu;
    gpu.free();
    restart();
    reason += `: the run goes on on the CPU from step ${cpu.step}, its last evaluation`;
  } else if (await build(gpu.config())) {
    reason += ': the run starts again on the CPU';
  } else {
    running = false;
    return false;
  }
  post({ type: 'backend', backend: 'cpu', device: '', reason, refused: true, lost: true });
  sendSnapshot();
  return running;
}

/** Builds a trainer for `config`, on the GPU where the page asks for it and the browser
 * gives one, else on the CPU; the current one stays if it is refused.
 * @param {Record<string, unknown>} config */
async function build(config) {
  const count = replicas.length + 1;
  let reason = placement.reason;
  let refused = false;
  let t = null;
  if (placement.backend === 'gpu') {
    ({ t, reason } = await gpuTrainer(config));
    if (!t && !reason) return false;
    refused = !t;
  }
  t ??= guard('config', () => new wasm.Trainer(lab, config, count));
  if (!t) return false;
  trainer?.free();
  trainer = t;
  const gpu = typeof t.device === 'string';
  post({ type: 'backend', backend: gpu ? 'gpu' : 'cpu', device: gpu ? t.device : '', reason, refused });
  replicas.forEach((p, i) => p.postMessage({ type: 'config', lab, config, index: i + 1, count }));
  restart();
  return true;
}

/** Takes the page's number for a new start of the run: its snapshots from now on carry
 * it (the page drops older ones), with the whole history, even if the start is refused.
 * @param {number} g */
function adopt(g) {
  generation = g;
  sentHistory = -1;
}

/** The run starts over: the history is sent whole, the rate is measured afresh. */
function restart() {
  sentHistory = -1;
  rate = [];
}

function sendSnapshot() {
  if (!trainer || dead) return;
  const now = performance.now();
  rate.push([now, trainer.step]);
  while (rate.length > 2 && now - rate[0][0] > 1000) rate.shift();
  const [t0, s0] = rate[0];
  const stepsPerSecond = now > t0 ? ((trainer.step - s0) * 1000) / (now - t0) : 0;
  const fields = { type: 'snapshot', running, stepsPerSecond, generation };
  const version = guard('snapshot', () => trainer.postSnapshot({ seq, head, history: sentHistory, evaluationMaps }, fields));
  if (version !== undefined) sentHistory = version;
}

/** Sends `msg` to replica `i` (transferring `transfer`) and resolves with its reply.
 * @param {number} i @param {any} msg @param {Transferable[]} [transfer] @returns {Promise<FromReplica>} */
function ask(i, msg, transfer = []) {
  return new Promise((resolve) => {
    pending[i].push(resolve);
    replicas[i].postMessage(msg, transfer);
  });
}

/** One data-parallel step: every replica computes its weighted gradient, the trainer sums
 * them and every replica applies the sum; an evaluation due is gathered from the replicas'
 * parts. Resolves false if the run diverged or a replica failed. */
async function parallelStep() {
  const before = trainer.step;
  const replies = replicas.map((_, i) => ask(i, { type: 'compute' }));
  let failure = null;
  try {
    trainer.computeGradient();
  } catch (e) {
    failure = /** @type {Error} */ (e);
  }
  const got = await Promise.all(replies);
  const bad = got.find((r) => r.type === 'error');
  if (panicked(failure, bad?.type === 'error' && bad.panic ? bad.message : undefined)) return false;
  if (failure) {
    stepFailed(failure, before);
    return false;
  }
  if (bad?.type === 'error') {
    stepFailed(Object.assign(new Error(bad.message), { kind: bad.kind }), before);
    return false;
  }
  for (const r of got) if (r.type === 'grad') trainer.addGradient(r.grad, r.loss);
  const sum = trainer.gradient();
  const applied = replicas.map((_, i) => {
    const copy = i === replicas.length - 1 ? sum : sum.slice();
    return ask(i, { type: 'apply', grad: copy }, [copy.buffer]).then((r) => {
      // A replica that failed to apply the update is no longer the same model: stop.
      if (r.type === 'error' && !dead) panicked(null, r.message);
      return r;
    });
  });
  trainer.apply();
  if (!trainer.evaluationPending) return true;
  const parts = await Promise.all(applied);
  if (dead) return false;
  return Boolean(guard('evaluation', () => {
    for (const r of parts) if (r.type === 'applied' && r.part) trainer.addEvaluationPart(r.part);
    return true;
  }));
}

/** Trains `n` steps, or until the frame's time budget is spent; false if it stopped. */
async function train(/** @type {number} */ n) {
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    if (replicas.length) {
      if (!(await parallelStep())) return false;
    } else {
      const before = trainer.step;
      try {
        await trainer.steps(1);
      } catch (e) {
        const err = /** @type {Error} */ (e);
        if (kindOf(err) === 'backend' && typeof trainer.device === 'string') return lostGpu(err);
        if (!panicked(err)) stepFailed(err, before);
        return false;
      }
    }
    if (performance.now() - start > budgetMs) break;
  }
  return true;
}

async function frame() {
  timer = 0;
  if (dead || !trainer || !running) return;
  const start = performance.now();
  // A new frame brings `speed` steps (of the last one's, only a fraction is kept: slow
  // motion); a frame woken by a raised limit goes on with what its frame has left.
  if (!resume) frameCredit = (frameCredit % 1) + speed;
  resume = false;
  const n = Math.min(Math.floor(frameCredit), Math.max(0, limit - trainer.step));
  const before = trainer.step;
  if (n > 0) await train(n);
  frameCredit -= trainer.step - before;
  sendSnapshot();
  // At the limit: wait for the next one ('limit' wakes it).
  if (trainer.step >= limit) return;
  // Steps left undone when the frame's time ran out: the speed asks for more than this
  // machine does, so the next frame starts at once instead of waiting for the display's.
  const behind = trainer.step - before < n;
  if (running) schedule(behind ? 0 : FRAME_MS - (performance.now() - start));
}

/** A playing run that waits at its limit goes on once it is below it: at once with what its
 * frame has left, else at the next frame. */
function leaveLimit() {
  if (!running || timer || !trainer || trainer.step >= limit) return;
  resume = frameCredit >= 1;
  schedule(resume ? 0 : FRAME_MS);
}

function play() {
  if (running || dead || !trainer) return;
  running = true;
  rate = [];
  frameCredit = Math.max(frameCredit, 1 - 1e-9);
  if (!timer) schedule(0);
}

function pause() {
  running = false;
  timer = 0;
  sendSnapshot();
}

/** Starts the run: its replicas' ports, the wasm instance, the trainer. @param {Extract<ToWorker, { type: 'init' }>} msg */
async function init(msg) {
  lab = msg.lab;
  placement = msg.placement;
  speed = msg.speed;
  budgetMs = msg.frameMs;
  generation = msg.generation;
  replicas = msg.ports;
  pending = replicas.map(() => []);
  replicas.forEach((p, i) => {
    p.onmessage = (/** @type {MessageEvent<FromReplica>} */ ev) => {
      const resolve = pending[i].shift();
      if (resolve) resolve(ev.data);
      // A replica that failed unasked (it could not start): the run cannot go on.
      else if (ev.data.type === 'error' && !(ev.data.panic && panicked(null, ev.data.message))) {
        post({ type: 'error', where: 'replica', kind: ev.data.kind, message: ev.data.message });
      }
    };
  });
  try {
    wasm = await instantiate(msg.variant, msg.module);
  } catch (err) {
    post({ type: 'error', where: 'load', kind: 'internal', message: `could not start the ${msg.variant} build: ${err}` });
    return;
  }
  post({ type: 'ready', variant: wasm.kernelVariant() });
  if (await build(msg.config)) sendSnapshot();
}

/** New settings: the model made anew (playing on if it was). @param {Extract<ToWorker, { type: 'config' }>} msg */
async function reconfigure(msg) {
  const wasRunning = running;
  adopt(msg.generation);
  placement = msg.placement;
  if (await build(msg.config)) {
    frameCredit = 0;
    sendSnapshot();
    if (wasRunning) {
      running = false;
      play();
    }
  }
}

/** Back to step 0, with the same seed or another. @param {Extract<ToWorker, { type: 'reset' }>} msg */
async function resetRun(msg) {
  adopt(msg.generation);
  const ok = await settle('seed', async () => {
    await trainer.reset(msg.seed);
    return true;
  });
  if (ok) {
    toReplicas({ type: 'reset', seed: msg.seed });
    restart();
    post({ type: 'reset' });
  }
  sendSnapshot();
  leaveLimit();
}

/** Posts the run's weights (read back from the GPU there), or why not. */
async function sendParams() {
  if (trainer && !dead) {
    const params = await settle('params', () => trainer.params());
    if (params) post({ type: 'params', params, step: trainer.step, config: trainer.config() }, [params.buffer]);
    else post({ type: 'refused', request: 'params', message: 'the weights could not be read from the GPU' });
  } else post({ type: 'refused', request: 'params', message: 'the run has no model to save (start it again)' });
}

/** Posts the run's training losses, or why not. */
function sendLosses() {
  if (trainer && !dead) {
    const losses = trainer.losses();
    post({ type: 'losses', losses }, [losses.step.buffer, losses.loss.buffer]);
  } else post({ type: 'refused', request: 'losses', message: 'the run has no history to save (start it again)' });
}

/** Saved weights: the model of their settings, then the weights as of their step; refused
 * weights leave the run as it was. @param {Extract<ToWorker, { type: 'load-params' }>} msg */
async function loadParams(msg) {
  if (dead) return;
  running = false;
  timer = 0;
  adopt(msg.generation);
  const current = trainer.config();
  const same = JSON.stringify(current) === JSON.stringify({ ...current, ...msg.config });
  // Checked against their settings first: refused weights leave the run as it was.
  const fits = guard('weights', () => {
    wasm.checkWeights(lab, same ? current : msg.config, msg.params);
    return true;
  });
  if (!fits) {
    sendSnapshot();
    return;
  }
  if (!same && !(await build(msg.config))) {
    sendSnapshot();
    return;
  }
  const ok = await settle('weights', async () => {
    await trainer.loadParams(msg.params, msg.step);
    return true;
  });
  if (ok) {
    toReplicas({ type: 'load-params', params: msg.params, step: msg.step });
    restart();
    post({ type: 'loaded', step: msg.step });
  }
  sendSnapshot();
}

scope.addEventListener('message', (e) => enqueue(() => handle(e.data)));

/** @param {ToWorker} msg */
async function handle(msg) {
  switch (msg.type) {
    case 'init':
      await init(msg);
      break;
    case 'config':
      await reconfigure(msg);
      break;
    case 'play':
      play();
      break;
    case 'pause':
      pause();
      break;
    case 'step':
      if (trainer && !dead) {
        running = false;
        timer = 0;
        await train(msg.n);
        sendSnapshot();
      }
      break;
    case 'speed':
      speed = msg.speed;
      break;
    case 'frame':
      budgetMs = msg.ms;
      break;
    case 'limit':
      limit = msg.step ?? Infinity;
      leaveLimit();
      break;
    case 'live': {
      const ok = guard(msg.key, () => {
        trainer.setLive(msg.key, msg.value);
        return true;
      });
      if (ok) {
        toReplicas({ type: 'live', key: msg.key, value: msg.value });
        if (!running) sendSnapshot();
      }
      break;
    }
    case 'reset':
      await resetRun(msg);
      break;
    case 'evaluation-maps':
      evaluationMaps = msg.on;
      // The next snapshot carries the latest evaluation again, with its maps.
      if (evaluationMaps) sentHistory = -1;
      sendSnapshot();
      break;
    case 'select':
      seq = msg.seq;
      head = msg.head;
      sendSnapshot();
      break;
    case 'get-params':
      await sendParams();
      break;
    case 'get-losses':
      sendLosses();
      break;
    case 'load-params':
      await loadParams(msg);
      break;
    case 'debug-panic':
      guard('debug', () => wasm.debugPanic());
      break;
    case 'debug-lose-gpu':
      if (typeof trainer?.device === 'string') guard('debug', () => trainer.debugLoseDevice());
      break;
  }
}

export {};
