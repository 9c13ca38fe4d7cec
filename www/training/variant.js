// @ts-check
// Picks the best wasm build the engine supports by validating tiny probe modules:
// relaxed-SIMD (fused multiply-add) > simd128 > scalar. Knows nothing of the trainer.

/** @typedef {import('../state/builds.js').Variant} Variant */

// The names a link may ask for are the state's (state/builds.js); re-exported for the
// page's boot and the npm package.
export { VARIANTS, BACKENDS } from '../state/builds.js';

/** A build of the trainer: a variant, or `webgpu` (the relaxed-SIMD build with the GPU
 * backend, loaded where a run may train on the GPU). @typedef {Variant | 'webgpu'} Build */

const HEADER = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
// type section: one type, () -> v128; function section: one function of type 0
const TYPES = [0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b, 0x03, 0x02, 0x01, 0x00];
/** v128.const 0 */
const V128_ZERO = [0xfd, 0x0c, ...new Array(16).fill(0)];

/** A module whose one function's body is `code` (no locals), then `end`.
 * @param {number[]} code */
function probe(code) {
  const body = [0x00, ...code, 0x0b];
  const section = [0x01, body.length, ...body];
  return new Uint8Array([...HEADER, ...TYPES, 0x0a, section.length, ...section]);
}

/** `v128.const 0` — needs simd128. */
export const SIMD_PROBE = probe(V128_ZERO);
/** `f32x4.relaxed_madd(0, 0, 0)` (opcode 0xfd 0x105) — needs relaxed-SIMD. */
export const RELAXED_PROBE = probe([...V128_ZERO, ...V128_ZERO, ...V128_ZERO, 0xfd, 0x85, 0x02]);

/**
 * The best variant this engine can run.
 * @param {{ validate(bytes: BufferSource): boolean }} [wasm] the WebAssembly namespace
 * @returns {Variant}
 */
export function detectVariant(wasm = WebAssembly) {
  if (wasm.validate(RELAXED_PROBE)) return 'relaxed-simd';
  if (wasm.validate(SIMD_PROBE)) return 'simd128';
  return 'scalar';
}
