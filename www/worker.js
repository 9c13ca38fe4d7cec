// @ts-check
// The Web Worker that owns the trainer: it loads the chosen wasm build, runs as many steps
// per frame as the speed asks, and posts one small snapshot per frame (matrices as
// transferable buffers). It draws nothing; the page does.

/** @typedef {import('./protocol.js').ToWorker} ToWorker */
/** @typedef {import('./protocol.js').FromWorker} FromWorker */
/** @typedef {import('./protocol.js').Snapshot} Snapshot */

/** The worker's global scope, typed by hand (the DOM lib types `self` as a Window).
 * @type {{ postMessage(msg: FromWorker, transfer?: Transferable[]): void,
 *          addEventListener(type: 'message', f: (e: MessageEvent<ToWorker>) => void): void,
 *          __apLastPanic?: string }} */
const scope = /** @type {any} */ (self);

/** @type {any} the wasm module's exports */
let wasm = null;
/** @type {any} the wasm Trainer */
let trainer = null;
/** @type {Record<string, unknown> | null} */
let config = null;
let running = false;
/** Steps per frame; below 1, one step every 1/speed frames (slow motion). */
let speed = 1;
let frameCredit = 0;
let seq = 0;
let head = -1;
let sentHistory = 0;
/** The training loss of every step of the run, in order: `losses[i]` is step
 * `lossBase + i + 1`'s (lossBase is 0, or the step of loaded weights). @type {number[]} */
let losses = [];
let sentLosses = 0;
let lossBase = 0;
let dead = false;
/** Recent (time, step) pairs, for steps per second. @type {[number, number][]} */
let rate = [];
/** The id of the next frame's pending wake-up, 0 if none: a pause drops it, and a wake-up
 * that is no longer the pending one does nothing. */
let timer = 0;
let wakeUps = 0;
/** Wake-ups due now go through a message to this worker itself: a `setTimeout(…, 0)` set
 * from a timer's own callback is clamped to 4 ms once nested five deep, which at full speed
 * (a step longer than a frame's budget) left the worker idle 4 ms of every step. */
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
/** Ports to the helper workers of a data-parallel run (empty: this worker trains alone).
 * @type {MessagePort[]} */
let helpers = [];
/** Per helper, the resolvers of the replies it owes, oldest first.
 * @type {((m: any) => void)[][]} */
let pending = [];
/** Every message and frame runs through this chain, one at a time, so a reset can never
 * land between a step's halves. */
let chain = /** @type {Promise<unknown>} */ (Promise.resolve());
/** @param {() => unknown} f */
function enqueue(f) {
  chain = chain.then(f).catch((e) => post({ type: 'error', where: 'worker', message: String(e) }));
}

const FRAME_MS = 1000 / 60;
/** Time a frame may spend training at full speed, leaving room for the snapshot. */
const BUDGET_MS = 12;

/** @param {FromWorker} msg @param {Transferable[]} [transfer] */
function post(msg, transfer) {
  scope.postMessage(msg, transfer ?? []);
}

/** If `err` is a trap (a Rust panic), reports it and marks the module dead: after a panic
 * only a fresh worker can go on. Returns whether it was one.
 * @param {unknown} err @param {string} [helperMessage] a helper's panic message */
function panicked(err, helperMessage) {
  if (!(err instanceof WebAssembly.RuntimeError || scope.__apLastPanic || helperMessage)) return false;
  dead = true;
  running = false;
  post({ type: 'panic', message: scope.__apLastPanic || helperMessage || String(err) });
  return true;
}

/** Wraps a call into wasm: a JS error from Rust is a refusal, reported with its field; a
 * trap is a panic.
 * @template T @param {string} where @param {() => T} f @returns {T | undefined} */
function guard(where, f) {
  if (dead) return undefined;
  try {
    return f();
  } catch (e) {
    const err = /** @type {Error} */ (e);
    if (!panicked(err)) {
      post({ type: 'error', where, message: err.message ?? String(err), field: fieldOf(err.message) });
    }
    return undefined;
  }
}

/** The settings field a message names ("heads: must be …" → "heads").
 * @param {string | undefined} message */
function fieldOf(message) {
  const m = /^([a-z_]+): /.exec(message ?? '');
  return m ? m[1] : undefined;
}

/** Builds a trainer for `next`; the current one stays if `next` is refused.
 * @param {Record<string, unknown>} next */
function build(next) {
  const ok = guard('config', () => {
    wasm.validateConfig(next);
    const t = new wasm.Trainer(next);
    if (trainer) trainer.free();
    trainer = t;
    return true;
  });
  if (!ok) return false;
  config = trainer.config();
  if (helpers.length) {
    const count = helpers.length + 1;
    trainer.setShard(0, count);
    helpers.forEach((p, i) => p.postMessage({ type: 'config', config, index: i + 1, count }));
  }
  restartSeries(0);
  clampSelection();
  return true;
}

/** A run starts over (new model, reset, loaded weights at `base`): the history and the
 * losses are sent from their beginning, the rate is measured afresh. @param {number} base */
function restartSeries(base) {
  sentHistory = 0;
  losses = [];
  sentLosses = 0;
  lossBase = base;
  rate = [];
}

/** Keeps the shown sequence and head inside this run's (a link or another run may ask for
 * more than it has). */
function clampSelection() {
  const [, , heads, evalSeqs] = trainer.shape();
  seq = Math.max(0, Math.min(seq, evalSeqs - 1));
  head = head >= -1 && head < heads ? head : -1;
}

/** The snapshot of the selected evaluation sequence. @returns {Snapshot} */
function snapshot() {
  const [lt, ls, heads, evalSeqs] = trainer.shape();
  const alpha = new Float32Array(trainer.attention(seq, head));
  const beta = new Float32Array(trainer.ktiw(seq));
  /** @type {Float32Array[]} */
  const perHead = [];
  if (heads > 1) for (let k = 0; k < heads; k++) perHead.push(new Float32Array(trainer.attention(seq, k)));
  const historyFrom = sentHistory;
  const history = trainer.historySince(historyFrom);
  sentHistory = trainer.historyLength;
  const lossesFrom = sentLosses;
  const newLosses = losses.slice(lossesFrom);
  sentLosses = losses.length;
  const now = performance.now();
  rate.push([now, trainer.step]);
  while (rate.length > 2 && now - rate[0][0] > 1000) rate.shift();
  const [t0, s0] = rate[0];
  const stepsPerSecond = now > t0 ? ((trainer.step - s0) * 1000) / (now - t0) : 0;
  return {
    type: 'snapshot',
    step: trainer.step,
    loss: trainer.lastLoss,
    stepsPerSecond,
    running,
    seq,
    head,
    shape: { tgtLen: lt, srcLen: ls, heads, evalSeqs },
    historyFrom,
    history,
    lossesFrom,
    losses: newLosses,
    lossBase,
    alpha,
    beta,
    perHead,
    source: new Uint32Array(trainer.sourceTokens(seq)),
    target: new Uint32Array(trainer.targetTokens(seq)),
    aligned: new Uint32Array(trainer.aligned()),
    config: /** @type {Record<string, unknown>} */ (config),
  };
}

function sendSnapshot() {
  const snap = guard('snapshot', snapshot);
  if (!snap) return;
  post(snap, [snap.alpha.buffer, snap.beta.buffer, ...snap.perHead.map((a) => a.buffer)]);
}

/** Sends `msg` to helper `i` (transferring `transfer`) and resolves with its reply.
 * @param {number} i @param {any} msg @param {Transferable[]} [transfer] */
function ask(i, msg, transfer = []) {
  return new Promise((resolve) => {
    pending[i].push(resolve);
    helpers[i].postMessage(msg, transfer);
  });
}

/** One data-parallel step: every replica computes its share's gradient, the leader sums
 * them by weight and sends the sum to the helpers, and every replica applies the same update.
 * Resolves false if the run diverged or a replica failed. */
async function parallelStep() {
  const before = trainer.step;
  const replies = helpers.map((_, i) => ask(i, { type: 'compute' }));
  let own;
  let failure = null;
  try {
    own = trainer.shardGradient();
  } catch (e) {
    failure = /** @type {Error} */ (e);
  }
  const got = await Promise.all(replies);
  const bad = got.find((r) => r.type === 'error');
  if (panicked(failure, bad?.panic ? bad.message : undefined)) return false;
  if (failure || bad) {
    running = false;
    post({ type: 'diverged', message: failure?.message ?? bad.message, step: before });
    return false;
  }
  // The weighted sum of the replicas' gradients, formed in wasm; the helpers get it
  // before the leader applies it, so that every replica updates at the same time.
  trainer.scaleGradient(trainer.shardWeight);
  let loss = trainer.shardWeight * own;
  for (const r of got) {
    trainer.inboxView().set(r.grad);
    trainer.addInbox(r.weight);
    loss += r.weight * r.loss;
  }
  const sum = new Float32Array(trainer.gradientView());
  const applied = helpers.map((_, i) => {
    const copy = i === helpers.length - 1 ? sum : sum.slice();
    return ask(i, { type: 'apply', grad: copy, loss }, [copy.buffer]).then((r) => {
      // A replica that failed to apply the update is no longer the same model: stop.
      if (r.type === 'error' && !dead) panicked(null, r.message);
      return r;
    });
  });
  trainer.applyGradient(loss);
  losses.push(trainer.lastLoss);
  if (!trainer.evaluationPending) return true;
  // Every replica evaluated its share of the evaluation batch: gather the parts.
  const parts = await Promise.all(applied);
  if (dead) return false;
  return Boolean(
    guard('evaluation', () => {
      for (const r of parts) {
        if (r.part) trainer.addEvaluationPart(r.part.evaluation, r.part.lo, r.part.hi, r.part.alpha, r.part.beta);
      }
      trainer.finishEvaluation();
      return true;
    }),
  );
}

/** [`train`] for a data-parallel run. @param {number} n */
async function trainParallel(n) {
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    if (!(await parallelStep())) return false;
    if (performance.now() - start > BUDGET_MS) break;
  }
  return true;
}

/** Trains `n` steps (or until the frame's time budget is spent); false if it diverged. */
function train(/** @type {number} */ n) {
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    const before = trainer.step;
    let diverged = false;
    try {
      losses.push(trainer.steps(1));
    } catch (e) {
      const err = /** @type {Error} */ (e);
      if (panicked(err)) return false;
      diverged = true;
      running = false;
      post({ type: 'diverged', message: err.message, step: before });
    }
    if (diverged) return false;
    if (performance.now() - start > BUDGET_MS) break;
  }
  return true;
}

async function frame() {
  timer = 0;
  if (dead || !trainer || !running) return;
  const start = performance.now();
  frameCredit += speed;
  const n = Math.floor(frameCredit);
  frameCredit -= n;
  const before = trainer.step;
  if (n > 0) {
    if (helpers.length) await trainParallel(n);
    else train(n);
  }
  sendSnapshot();
  // Steps left undone when the budget ran out: the speed asks for more than this machine
  // does, so the next frame starts at once instead of waiting for the display's.
  const behind = trainer.step - before < n;
  if (running) schedule(behind ? 0 : FRAME_MS - (performance.now() - start));
}

function play() {
  if (running || dead) return;
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

scope.addEventListener('message', (e) => enqueue(() => handle(e.data)));

/** @param {ToWorker} msg */
async function handle(msg) {
  switch (msg.type) {
    case 'init': {
      try {
        wasm = await import(`../pkg/${msg.variant}/attention_playground.js`);
        await wasm.default();
      } catch (err) {
        post({ type: 'error', where: 'load', message: `could not load the ${msg.variant} build: ${err}` });
        return;
      }
      speed = msg.speed;
      /** @type {Record<string, Record<string, unknown>>} */
      const presets = {};
      for (const name of wasm.presets()) presets[name] = wasm.preset(name);
      post({ type: 'ready', variant: wasm.kernelVariant(), presets });
      if (msg.config && build(msg.config)) sendSnapshot();
      if (msg.play) play();
      break;
    }
    case 'config': {
      const wasRunning = running;
      if (build(msg.config)) {
        frameCredit = 0;
        sendSnapshot();
        if (wasRunning) play();
      }
      break;
    }
    case 'play':
      play();
      break;
    case 'pause':
      pause();
      break;
    case 'step':
      if (trainer && !dead) {
        running = false;
        if (helpers.length) await trainParallel(msg.n);
        else train(msg.n);
        sendSnapshot();
      }
      break;
    case 'helpers':
      helpers = msg.ports;
      pending = helpers.map(() => []);
      helpers.forEach((p, i) => {
        p.onmessage = (ev) => {
          const resolve = pending[i].shift();
          if (resolve) resolve(ev.data);
          else if (ev.data.type === 'error') post({ type: 'error', where: 'helper', message: ev.data.message });
        };
      });
      if (trainer && config) build(config);
      break;
    case 'speed':
      speed = msg.speed;
      break;
    case 'lr': {
      const ok = guard('learning_rate', () => {
        trainer.setLearningRate(msg.value);
        return true;
      });
      if (ok && config) config = { ...config, learning_rate: msg.value };
      if (ok) for (const p of helpers) p.postMessage({ type: 'lr', value: msg.value });
      if (ok) post({ type: 'lr', value: msg.value });
      // The page's link and form follow the config in the snapshots.
      if (ok && !running) sendSnapshot();
      break;
    }
    case 'reset': {
      const ok = guard('seed', () => {
        trainer.reset(msg.seed);
        return true;
      });
      if (ok) {
        for (const p of helpers) p.postMessage({ type: 'reset', seed: msg.seed });
        if (msg.seed !== undefined && config) config = { ...config, seed: msg.seed };
        restartSeries(0);
        post({ type: 'reset', seed: /** @type {number} */ ((config ?? {}).seed) });
        sendSnapshot();
      }
      break;
    }
    case 'select':
      seq = msg.seq;
      head = msg.head;
      if (trainer && !dead) {
        clampSelection();
        sendSnapshot();
      }
      break;
    case 'get-params':
      if (trainer && !dead) {
        const params = new Float32Array(trainer.params());
        post({ type: 'params', params, step: trainer.step, config: /** @type {Record<string, unknown>} */ (config) }, [params.buffer]);
      }
      break;
    case 'load-params': {
      // Saved weights: the model of their settings, then the weights as of their step.
      if (dead) break;
      const same = config && JSON.stringify(config) === JSON.stringify({ ...config, ...msg.config });
      // Checked against their settings first: refused weights leave the run as it was.
      const fits = guard('weights', () => {
        wasm.checkWeights(same ? config : msg.config, msg.params);
        return true;
      });
      if (!fits) break;
      pause();
      if (!same && !build(msg.config)) break;
      const ok = guard('weights', () => {
        trainer.loadParams(msg.params, msg.step);
        return true;
      });
      if (ok) {
        for (const p of helpers) p.postMessage({ type: 'load-params', params: msg.params, step: msg.step });
        restartSeries(msg.step);
        post({ type: 'loaded', step: msg.step });
      }
      sendSnapshot();
      break;
    }
    case 'debug-panic':
      guard('debug', () => wasm.debugPanic());
      break;
  }
}

export {};
