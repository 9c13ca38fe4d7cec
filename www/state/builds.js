// @ts-check
// The wasm builds and the backends a link may ask for (`variant=`, `backend=`), by name.
// Imports nothing: training/variant.js picks among them, and the npm package ships this
// file beside it (scripts/package.js).

/** A wasm build of the trainer by its instruction set. @typedef {'relaxed-simd' | 'simd128' | 'scalar'} Variant */
/** The variants, best first. @type {Variant[]} */
export const VARIANTS = ['relaxed-simd', 'simd128', 'scalar'];

/** Where runs may train, as a link asks (`backend=`): `auto` (the GPU where the browser
 * has a real one, else the CPU), `gpu` (the GPU where it can, else the CPU, saying why) or
 * `cpu`. */
export const BACKENDS = /** @type {const} */ (['auto', 'gpu', 'cpu']);
/** @typedef {typeof BACKENDS[number]} Backend */
