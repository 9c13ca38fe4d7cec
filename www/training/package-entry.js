// @ts-check
// The entry point of pkg/ as an npm package, copied there as index.js by scripts/package.js
// (the page does not use it): the trainer compiled to WebAssembly in three builds (scalar,
// simd128, relaxed-SIMD), and a fourth, `webgpu` (the relaxed-SIMD build with the copying
// lab's GPU backend: gpuTrainer, gpuDevice). `load()` picks the best of the three the engine
// validates and initialises it; `load('webgpu')` loads the fourth. The module's exports are
// those the page's workers use (labs, presets, validateConfig, Trainer, Replica,
// kernelVariant, …: src/wasm/mod.rs and src/wasm/gpu.rs).

import { detectVariant } from './variant.js';

export { detectVariant, VARIANTS } from './variant.js';

/**
 * Loads and initialises one build (by default the best this engine supports).
 * @param {import('./variant.js').Build} [variant]
 */
export async function load(variant = detectVariant()) {
  const m = await import(`./${variant}/attention_playground.js`);
  const wasm = new URL(`./${variant}/attention_playground_bg.wasm`, import.meta.url);
  if (wasm.protocol === 'file:') {
    // Node: fetch() cannot read files, so hand over the bytes.
    const { readFile } = await import('node:fs/promises');
    await m.default({ module_or_path: await readFile(wasm) });
  } else {
    await m.default({ module_or_path: wasm });
  }
  return m;
}
