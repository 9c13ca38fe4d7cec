// @ts-check
// Which runs `backend=auto` trains on the GPU: those with enough work per step that the GPU's
// fixed cost per dispatch (a step is some 150–250 of them, a read-back each) is repaid. The
// bound is a rule of thumb, not yet measured on a GPU: the paper's size (H·B = 256·128) goes
// to the GPU, the small preset (64·32) stays with wasm SIMD.

/** Width × batch from which `auto` takes the GPU. */
export const GPU_MIN_WORK = 128 * 128;

/** @param {Record<string, unknown>} config */
export function gpuSized(config) {
  return Number(config.hidden) * Number(config.batch) >= GPU_MIN_WORK;
}
