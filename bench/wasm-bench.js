// @ts-check
// The benchmark page: in a worker-free page, loads each wasm build in turn and measures its
// gemm (GFLOP/s at the paper-size step's shapes) and its training step (ms) on the small
// preset and, with ?paper=1, at the paper size. Results go to window.__bench as JSON.

const params = new URLSearchParams(location.search);
const variants = (params.get('variants') ?? 'scalar,simd128,relaxed-simd').split(',');
const shapes = [
  [128, 1024, 256],
  [256, 64, 64],
  [1024, 256, 5248],
  [5248, 256, 256],
];
/** @type {any[]} */
const results = [];
for (const v of variants) {
  const m = await import(`../pkg/${v}/attention_playground.js`);
  await m.default();
  /** @type {Record<string, number>} */
  const gflops = {};
  for (const [a, b, c] of shapes) gflops[`${a}x${c}x${b}`] = m.benchGemm(a, b, c, 5);
  const small = m.benchStep(m.preset('small-easy'), 15);
  const paper = params.get('paper') === '1' ? m.benchStep(m.preset('easy'), 3) : null;
  results.push({ variant: m.kernelVariant(), gflops, smallMs: small, paperMs: paper });
  /** @type {HTMLElement} */ (document.getElementById('out')).textContent = JSON.stringify(results, null, 1);
}
/** @type {any} */ (window).__bench = results;
export {};
