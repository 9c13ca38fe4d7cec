// @ts-check
// The benchmark page: in a worker-free page, loads the benchmark build of every wasm variant
// (pkg/bench-<variant>, scripts/build --bench: the product builds have no benchmark entry
// points) and measures, in passes that go round the builds, each one's multiply-add peak, its
// gemm (GFLOP/s at the paper-size step's shapes), its micro-kernel alone and its training step
// (ms) on the small preset and, with ?paper=1, at the paper size. Results go to
// window.__bench as JSON.

import { shapes, shapeName, benchShape } from './shapes.js';

const params = new URLSearchParams(location.search);
const variants = (params.get('variants') ?? 'scalar,simd128,relaxed-simd').split(',');
/** @type {any[]} */
const modules = [];
for (const v of variants) {
  const m = await import(`../pkg/bench-${v}/attention_playground.js`);
  await m.default();
  modules.push(m);
}
/** @param {string} text */
const progress = (text) => { /** @type {HTMLElement} */ (document.getElementById('out')).textContent = text; };
/** @param {number[]} xs */
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
// Every figure is taken in passes that go round the builds in turn, so that a busy minute of
// this shared machine falls on every build alike, and a build's kernel and its peak on the
// same minutes. Kernel figures: the best of five passes of 3 timings each (timings of tens of
// milliseconds: on this host a shape's timings range over ±25% from one minute to the next,
// and three passes were not always enough to meet an undisturbed one; the peak is taken the
// same way, so that a figure and its bound come from the same passes).
const PASSES = 5;
const kernels = modules.map(() => ({ peak: 0, /** @type {Record<string, number>} */ gflops: {}, /** @type {Record<string, number>} the micro-kernel alone, by depth */ tile: {} }));
/** @param {Record<string, number>} into @param {string} key @param {number} v */
const keep = (into, key, v) => { into[key] = Math.max(into[key] ?? 0, v); };
for (let pass = 0; pass < PASSES; pass++) {
  modules.forEach((m, i) => {
    const k = kernels[i];
    k.peak = Math.max(k.peak, m.benchPeak(3));
    for (const s of shapes) keep(k.gflops, shapeName(s), benchShape(m, s, 3));
    for (const kc of [256, 41]) keep(k.tile, String(kc), m.benchTile(kc, 3));
  });
  progress(`kernels: pass ${pass + 1} of ${PASSES}`);
}
// Training steps: the median of rounds, each round every build's median of a few steps (a
// fresh trainer and one untimed step each: see `benchStep`).
/** @param {string} preset @param {number} rounds @param {number} reps */
const steps = (preset, rounds, reps) => {
  /** @type {number[][]} */
  const perBuild = modules.map(() => []);
  for (let r = 0; r < rounds; r++) {
    modules.forEach((m, i) => perBuild[i].push(m.benchStep(m.preset(preset), reps)));
    progress(`${preset}: round ${r + 1} of ${rounds}`);
  }
  return perBuild.map(median);
};
const small = steps('small-easy', 3, 5);
const paper = params.get('paper') === '1' ? steps('easy', 3, 2) : null;
const results = modules.map((m, i) => ({ variant: m.kernelVariant(), ...kernels[i], smallMs: small[i], paperMs: paper ? paper[i] : null }));
progress(JSON.stringify(results, null, 1));
/** @type {any} */ (window).__bench = results;
export {};
