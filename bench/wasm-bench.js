// @ts-check
// The benchmark page: in a worker-free page, loads each wasm build in turn and measures its
// gemm (GFLOP/s at the paper-size step's shapes) and its training step (ms) on the small
// preset and, with ?paper=1, at the paper size. Results go to window.__bench as JSON.

const params = new URLSearchParams(location.search);
const variants = (params.get('variants') ?? 'scalar,simd128,relaxed-simd').split(',');
/** The products of the paper-size step that take its time (m, k, n, A read transposed, B
 * read transposed, what it is), by the native step's profile. */
const shapes = /** @type {const} */ ([
  [128, 256, 1024, false, true, 'LSTM step h·W_hhᵀ'],
  [128, 1024, 256, false, false, 'LSTM backward dgates·W_hh'],
  [1024, 5248, 256, true, false, 'dW_hh = dgatesᵀ·h'],
  [5248, 256, 256, false, true, 'W·[d; c] over all tokens'],
  [41, 256, 41, false, true, 'scores of one sequence'],
  [41, 41, 256, false, false, 'context α·h of one sequence'],
]);
/** @type {any[]} */
const results = [];
for (const v of variants) {
  const m = await import(`../pkg/${v}/attention_playground.js`);
  await m.default();
  /** @type {Record<string, number>} */
  const gflops = {};
  for (const [mm, k, n, ta, tb] of shapes) gflops[`${mm}×${k}·${k}×${n}`] = m.benchGemm(mm, n, k, ta, tb, 9);
  const peak = m.benchPeak(9);
  const small = m.benchStep(m.preset('small-easy'), 7);
  const paper = params.get('paper') === '1' ? m.benchStep(m.preset('easy'), 5) : null;
  results.push({ variant: m.kernelVariant(), peak, gflops, smallMs: small, paperMs: paper });
  /** @type {HTMLElement} */ (document.getElementById('out')).textContent = JSON.stringify(results, null, 1);
}
/** @type {any} */ (window).__bench = results;
export {};
