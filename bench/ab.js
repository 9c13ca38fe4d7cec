// @ts-check
// The A/B page: loads the builds named in ?builds=a,b (directories of pkg/, made with the
// `bench` feature: scripts/bench-ab's pkg/ab-<rev>; a bare variant name, such as relaxed-simd,
// stands for its benchmark build pkg/bench-<variant> of scripts/build --bench) and, in
// alternating rounds (?rounds=N) so that a busy minute on a shared machine falls on every
// build alike, times their training step on ?preset= (after two untimed rounds) or, with
// ?gemm=1, their gemm at the paper-size step's shapes (bench/shapes.js; ?shape=m×k·k×n for
// one of them) and their multiply-add peak. Result in window.__ab: per build, every round's
// figure — ms per step (see `benchStep`), or GFLOP/s per shape and of the peak (`benchGemm`,
// `benchPeak`).
// window.__abStep(i, reps) times one more round of build i's step (for rounds that alternate
// with something outside the page: scripts/bench-interleaved.js).

import { shapes, shapeName, benchShape } from './shapes.js';

const params = new URLSearchParams(location.search);
const builds = (params.get('builds') ?? '').split(',').filter(Boolean);
const preset = params.get('preset') ?? 'easy';
const rounds = Number(params.get('rounds') ?? 7);
const gemm = params.get('gemm') === '1';
/** ?shape=m×k·k×n: only that product (and the peak). */
const only = params.get('shape');
/** @type {any[]} */
const modules = [];
const VARIANTS = ['scalar', 'simd128', 'relaxed-simd'];
for (const b of builds) {
  const m = await import(`../pkg/${VARIANTS.includes(b) ? `bench-${b}` : b}/attention_playground.js`);
  if (typeof m.benchStep !== 'function') throw new Error(`pkg/${b} is a product build, without the benchmark's entry points (build it with the bench feature)`);
  await m.default();
  modules.push(m);
}
/** One round's figures of build `m`: { series name: value }. @param {any} m */
const measure = (m) => {
  if (!gemm) return { 'ms / step': m.benchStep(m.preset(preset), 1) };
  /** @type {Record<string, number>} */
  const out = { 'peak GFLOP/s': m.benchPeak(3) };
  for (const s of shapes.filter((x) => !only || shapeName(x) === only)) out[`${shapeName(s)} GFLOP/s`] = benchShape(m, s, 3);
  return out;
};
// Two untimed rounds first: V8 optimises a wasm function only after its first calls.
if (!gemm) for (let r = 0; r < 2; r++) modules.forEach((m) => m.benchStep(m.preset(preset), 1));
/** @type {Record<string, number[]>[]} */
const series = builds.map(() => ({}));
for (let r = 0; r < rounds; r++) {
  modules.forEach((m, i) => {
    for (const [name, v] of Object.entries(measure(m))) (series[i][name] ??= []).push(v);
  });
  /** @type {HTMLElement} */ (document.getElementById('out')).textContent = `round ${r + 1} of ${rounds}`;
}
/** @type {any} */ (window).__abStep = (/** @type {number} */ i, /** @type {number} */ reps) =>
  modules[i].benchStep(modules[i].preset(preset), reps);
/** @type {any} */ (window).__ab = builds.map((name, i) => ({ name, series: series[i] }));
export {};
