// @ts-check
// The benchmark page: in a worker-free page, loads each wasm build in turn and measures its
// gemm (GFLOP/s at the paper-size step's shapes), its micro-kernel alone and its training
// step (ms) on the small preset and, with ?paper=1, at the paper size. Results go to
// window.__bench as JSON.

import { shapes, shapeName, benchShape } from './shapes.js';

const params = new URLSearchParams(location.search);
const variants = (params.get('variants') ?? 'scalar,simd128,relaxed-simd').split(',');
/** @type {any[]} */
const results = [];
for (const v of variants) {
  const m = await import(`../pkg/${v}/attention_playground.js`);
  await m.default();
  // Kernel figures: the best of three passes of 3 timings each, the passes some seconds
  // apart, so that one busy second of this shared machine does not set a shape's figure.
  /** @type {Record<string, number>} */
  const gflops = {};
  /** @type {Record<string, number>} the micro-kernel alone, by depth */
  const tile = {};
  let peak = 0;
  /** @param {Record<string, number>} into @param {string} key @param {number} v */
  const keep = (into, key, v) => { into[key] = Math.max(into[key] ?? 0, v); };
  for (let pass = 0; pass < 3; pass++) {
    peak = Math.max(peak, m.benchPeak(3));
    for (const s of shapes) keep(gflops, shapeName(s), benchShape(m, s, 3));
    for (const kc of [256, 41]) keep(tile, String(kc), m.benchTile(kc, 3));
  }
  const small = m.benchStep(m.preset('small-easy'), 7);
  const paper = params.get('paper') === '1' ? m.benchStep(m.preset('easy'), 5) : null;
  results.push({ variant: m.kernelVariant(), peak, gflops, tile, smallMs: small, paperMs: paper });
  /** @type {HTMLElement} */ (document.getElementById('out')).textContent = JSON.stringify(results, null, 1);
}
/** @type {any} */ (window).__bench = results;
export {};
