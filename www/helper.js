// @ts-check
// A helper worker of a data-parallel run: it holds a replica of the trainer, computes the
// gradient of its share of each batch when the leader (worker.js) asks, and applies the
// combined gradient the leader sends back, so every replica stays identical; when an
// evaluation is due it evaluates its share of the evaluation batch and sends that back.

/** @typedef {{ type: 'config', config: Record<string, unknown>, index: number, count: number }
 *   | { type: 'compute' } | { type: 'apply', grad: Float32Array, loss: number }
 *   | { type: 'reset', seed?: number } | { type: 'lr', value: number }
 *   | { type: 'load-params', params: Float32Array, step: number }} ToHelper */

/** @type {{ addEventListener(type: 'message', f: (e: MessageEvent) => void): void, __apLastPanic?: string }} */
const scope = /** @type {any} */ (self);
/** @type {any} */
let wasm = null;
/** @type {any} */
let trainer = null;

scope.addEventListener('message', async (e) => {
  if (e.data.type !== 'init-helper') return;
  /** @type {MessagePort} */
  const port = e.data.port;
  wasm = await import(`../pkg/${e.data.variant}/attention_playground.js`);
  await wasm.default();
  port.onmessage = (ev) => {
    /** @type {ToHelper} */
    const m = ev.data;
    try {
      switch (m.type) {
        case 'config':
          if (trainer) trainer.free();
          trainer = new wasm.Trainer(m.config);
          trainer.setShard(m.index, m.count);
          break;
        case 'compute': {
          const loss = trainer.shardGradient();
          const grad = new Float32Array(trainer.gradientView());
          port.postMessage({ type: 'grad', loss, weight: trainer.shardWeight, grad }, [grad.buffer]);
          break;
        }
        case 'apply': {
          trainer.gradientView().set(m.grad);
          trainer.applyGradient(m.loss);
          // The reply carries this replica's part of the evaluation, when one was due.
          const part = trainer.takeEvaluationPart();
          port.postMessage({ type: 'applied', part }, part ? [part.alpha.buffer, part.beta.buffer] : []);
          break;
        }
        case 'reset':
          trainer.reset(m.seed);
          break;
        case 'lr':
          trainer.setLearningRate(m.value);
          break;
        case 'load-params':
          trainer.loadParams(m.params, m.step);
          break;
      }
    } catch (err) {
      const panic = err instanceof WebAssembly.RuntimeError || Boolean(scope.__apLastPanic);
      port.postMessage({ type: 'error', panic, message: scope.__apLastPanic || /** @type {Error} */ (err).message });
    }
  };
});

export {};
