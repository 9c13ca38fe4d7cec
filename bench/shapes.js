// @ts-check
// The products of the paper-size step that take its time, by the native step's profile: what
// the benchmark pages (wasm-bench.js, ab.js) time the gemm on.

/** (m, k, n, A read transposed, B read transposed, what it is, how many sequences apart the
 * rows of A, B and C are). The products of one sequence read its encoder outputs dense (the
 * step keeps them (B, L, H)) and its queries and contexts in the step's (L, B, H) buffers,
 * whose rows are the batch (128) times their width apart: the benchmark lays them out so
 * too. */
export const shapes = /** @type {const} */ ([
  [128, 256, 1024, false, true, 'LSTM step h·W_hhᵀ', [1, 1, 1]],
  [128, 1024, 256, false, false, 'LSTM backward dgates·W_hh', [1, 1, 1]],
  [1024, 5248, 256, true, false, 'dW_hh = dgatesᵀ·h', [1, 1, 1]],
  [5248, 256, 256, false, true, 'W·[d; c] over all tokens', [1, 1, 1]],
  [41, 256, 41, false, true, 'scores of one sequence', [128, 1, 1]],
  [41, 41, 256, false, false, 'context α·h of one sequence', [1, 1, 128]],
]);

/** The benchmark call of `shape` on wasm module `m`: its GFLOP/s, best of `reps` timings.
 * A build from before `benchGemm` took the rows' spacing (scripts/bench-ab builds old git
 * revisions) would read the spacing as `reps` and time dense operands: it is refused.
 * @param {any} m @param {typeof shapes[number]} s @param {number} reps */
export const benchShape = (m, s, reps) => {
  if (m.benchGemm.length !== 9) throw new Error('this build\'s benchGemm does not take the rows\' spacing (a build from before 54260a7): its gemm figures would not be comparable');
  return m.benchGemm(s[0], s[2], s[1], s[3], s[4], ...s[6], reps);
};

/** @param {readonly [number, number, number, ...any[]]} s  the label of a shape */
export const shapeName = ([m, k, n]) => `${m}×${k}·${k}×${n}`;
