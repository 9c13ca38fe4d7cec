// @ts-check
// The benchmark page: in a worker-free page, loads each wasm build in turn and measures its
// gemm (GFLOP/s at the paper-size step's shapes) and its training step (ms) on the small
// preset and, with ?paper=1, at the paper size. Results go to window.__bench as JSON.

import { shapes, shapeName } from './shapes.js';

const params = new URLSearchParams(location.search);
const variants = (params.get('variants') ?? 'scalar,simd128,relaxed-simd').split(',');
/** @type {any[]} */
const results = [];
for (const v of variants) {
  const m = await import(`../pkg/${v}/attention_playground.js`);
  await m.default();
  /** @type {Record<string, number>} */
  const gflops = {};
  for (const s of shapes) gflops[shapeName(s)] = m.benchGemm(s[0], s[2], s[1], s[3], s[4], 9);
  const peak = m.benchPeak(9);
  const small = m.benchStep(m.preset('small-easy'), 7);
  const paper = params.get('paper') === '1' ? m.benchStep(m.preset('easy'), 5) : null;
  results.push({ variant: m.kernelVariant(), peak, gflops, smallMs: small, paperMs: paper });
  /** @type {HTMLElement} */ (document.getElementById('out')).textContent = JSON.stringify(results, null, 1);
}
/** @type {any} */ (window).__bench = results;
export {};
