// @ts-check
// The worker that trains a sweep's seeds batched on the browser's GPU (gpu-pool.js starts
// it): it instantiates the webgpu build it is given, takes the GPU once, and trains each
// group of seeds of one setting it is sent as GPU sweeps (the facade's `GpuSweep`) of at
// most as many seeds as the device holds at once, halving a chunk its memory refuses. It
// posts each chunk's step a few times a second and each seed's evaluations when they
// change. It knows no model: the lab and its settings come with the messages.

import { instantiate, kindOf } from './wasm.js';

/** @typedef {import('./protocol.js').ToGpuWorker} ToGpuWorker */
/** @typedef {import('./protocol.js').FromGpuWorker} FromGpuWorker */

/** @type {{ postMessage(msg: FromGpuWorker): void,
 *          addEventListener(type: 'message', f: (e: MessageEvent<ToGpuWorker>) => void): void }} */
const scope = /** @type {any} */ (self);

/** How long it trains between two progress messages (ms). */
const PROGRESS_MS = 250;
/** How a chunk too large for the device's memory is refused (src/copying/gpu/model.rs). */
const OUT_OF_MEMORY = 'the GPU has too little memory';

/** @type {any} the webgpu build's exports */
let wasm = null;
/** @type {any} the facade's GpuDevice */
let device = null;
let lab = '';
/** Whether it may train (the page holds it while out of sight or paused). */
let playing = true;
/** Resolves the wait of a held chunk when play comes. @type {(() => void) | null} */
let wakeUp = null;
/** Every group runs through this chain, one after the other. */
let chain = /** @type {Promise<unknown>} */ (Promise.resolve());

/** @param {FromGpuWorker} msg */
function post(msg) {
  scope.postMessage(msg);
}

/** Waits while it is held. */
async function whilePlaying() {
  while (!playing) await new Promise((resolve) => { wakeUp = () => resolve(undefined); });
}

/**
 * Trains seeds `seeds` of `config` to `steps`, chunk by chunk; a failure that leaves the GPU
 * unable to train them (no device, a refusal, a lost device) ends the group with `failed`.
 * @param {number} group @param {Record<string, unknown>} config @param {number[]} seeds @param {number} steps
 */
async function train(group, config, seeds, steps) {
  /** @type {any} the facade's GpuSweep of the chunk training */
  let sweep = null;
  try {
    let chunk = Math.max(1, device.capacity(lab, config));
    let from = 0;
    while (from < seeds.length) {
      const part = seeds.slice(from, from + chunk);
      try {
        sweep = await device.sweep(lab, config, part);
      } catch (e) {
        const message = /** @type {Error} */ (e).message ?? String(e);
        if (message.startsWith(OUT_OF_MEMORY) && part.length > 1) {
          chunk = part.length >> 1;
          continue;
        }
        throw e;
      }
      /** What was last posted of each seed: its evaluations' version, and whether it stopped. */
      const sent = part.map(() => ({ version: -1, stopped: false }));
      const report = () => {
        const step = sweep.step;
        post({
          type: 'progress', group, from, step,
          seeds: part.map((_, i) => {
            const version = sweep.version(i);
            const history = version === sent[i].version ? undefined : sweep.history(i);
            const stopped = sweep.stopped(i) ?? null;
            sent[i] = { version, stopped: stopped !== null };
            return { history, stopped };
          }),
        });
      };
      /** Whether a seed evaluated or stopped since the last message. */
      const news = () => part.some((_, i) => sweep.version(i) !== sent[i].version || (sweep.stopped(i) !== undefined) !== sent[i].stopped);
      report();
      let last = performance.now();
      while (sweep.step < steps && sent.some((s) => !s.stopped)) {
        await whilePlaying();
        await sweep.steps(1);
        const now = performance.now();
        // Each evaluation and each seed that stops go out at once; steps alone a few times
        // a second.
        if (now - last >= PROGRESS_MS || news()) {
          report();
          last = now;
        }
      }
      report();
      sweep.free();
      sweep = null;
      from += part.length;
    }
    post({ type: 'finished', group });
  } catch (e) {
    sweep?.free();
    const err = /** @type {Error} */ (e);
    post({ type: 'failed', group, kind: kindOf(err), message: err.message ?? String(err) });
  }
}

scope.addEventListener('message', (e) => {
  const msg = e.data;
  switch (msg.type) {
    case 'init':
      lab = msg.lab;
      chain = chain.then(async () => {
        try {
          wasm = await instantiate(msg.variant, msg.module);
          device = await wasm.gpuDevice();
          post({ type: 'device', name: device.name });
        } catch (err) {
          device = null;
          post({ type: 'failed', group: -1, kind: kindOf(err), message: /** @type {Error} */ (err).message ?? String(err) });
        }
      });
      break;
    case 'train':
      chain = chain.then(() => (device ? train(msg.group, msg.config, msg.seeds, msg.steps) : undefined));
      break;
    case 'play':
      playing = true;
      wakeUp?.();
      wakeUp = null;
      break;
    case 'pause':
      playing = false;
      break;
  }
});
