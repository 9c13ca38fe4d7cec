// @ts-check
// A replica worker of a data-parallel run: it holds one replica of the run's model (the
// facade's Replica), computes its share of each batch's gradient when the leading worker
// (worker.js) asks, and applies the summed gradient the leader sends back, with its part of
// an evaluation when one is due. It talks only to the leader, through a MessagePort.

import { instantiate, isPanic, kindOf, lastPanic } from './wasm.js';

/** @typedef {import('./protocol.js').ToReplica} ToReplica */
/** @typedef {import('./protocol.js').FromReplica} FromReplica */

/** @type {{ addEventListener(type: 'message', f: (e: MessageEvent) => void): void }} */
const scope = /** @type {any} */ (self);

scope.addEventListener('message', async (e) => {
  if (e.data.type !== 'init-replica') return;
  /** @type {MessagePort} */
  const port = e.data.port;
  /** @param {FromReplica} m @param {Transferable[]} [transfer] */
  const reply = (m, transfer = []) => port.postMessage(m, transfer);
  /** @type {any} */
  let wasm = null;
  /** @type {any} */
  let replica = null;
  // Messages that arrive while the module loads wait for it, in order.
  /** @type {ToReplica[]} */
  const early = [];
  port.onmessage = (ev) => early.push(ev.data);
  try {
    wasm = await instantiate(e.data.variant, e.data.module);
  } catch (err) {
    // Said at once, and again in answer to whatever the leader asks.
    const failed = /** @type {FromReplica} */ ({ type: 'error', panic: true, kind: 'internal', message: `a replica could not start the ${e.data.variant} build: ${err}` });
    reply(failed);
    port.onmessage = () => reply(failed);
    for (const m of early.splice(0)) if (m.type === 'compute' || m.type === 'apply') reply(failed);
    return;
  }
  /** @param {ToReplica} m */
  const handle = (m) => {
    try {
      switch (m.type) {
        case 'config':
          replica?.free();
          replica = new wasm.Replica(m.lab, m.config, m.index, m.count);
          break;
        case 'compute': {
          const loss = replica.computeGradient();
          const grad = replica.gradient();
          reply({ type: 'grad', loss, grad }, [grad.buffer]);
          break;
        }
        case 'apply': {
          const part = replica.applySum(m.grad);
          const arrays = part ? Object.values(part).filter((v) => ArrayBuffer.isView(v)) : [];
          reply({ type: 'applied', part }, arrays.map((a) => /** @type {ArrayBufferView} */ (a).buffer));
          break;
        }
        case 'reset':
          replica.reset(m.seed);
          break;
        case 'live':
          replica.setLive(m.key, m.value);
          break;
        case 'load-params':
          replica.loadParams(m.params, m.step);
          break;
      }
    } catch (err) {
      reply({ type: 'error', panic: isPanic(err), kind: kindOf(err), message: lastPanic() || /** @type {Error} */ (err).message });
    }
  };
  port.onmessage = (ev) => handle(ev.data);
  for (const m of early.splice(0)) handle(m);
});

export {};
