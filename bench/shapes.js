// @ts-check
// The products of the paper-size step that take its time, by the native step's profile: what
// the benchmark pages (wasm-bench.js, ab.js) time the gemm on.

/** (m, k, n, A read transposed, B read transposed, what it is). */
export const shapes = /** @type {const} */ ([
  [128, 256, 1024, false, true, 'LSTM step h·W_hhᵀ'],
  [128, 1024, 256, false, false, 'LSTM backward dgates·W_hh'],
  [1024, 5248, 256, true, false, 'dW_hh = dgatesᵀ·h'],
  [5248, 256, 256, false, true, 'W·[d; c] over all tokens'],
  [41, 256, 41, false, true, 'scores of one sequence'],
  [41, 41, 256, false, false, 'context α·h of one sequence'],
]);

/** @param {readonly [number, number, number, ...any[]]} s  the label of a shape */
export const shapeName = ([m, k, n]) => `${m}×${k}·${k}×${n}`;
