// @ts-check
// The trainer's simd128 build (pkg/, made by scripts/build) loaded in Node, for the unit
// tests of the modules that ask it for presets and verdicts on settings.
import { readFile } from 'node:fs/promises';

const glue = new URL('../../pkg/simd128/attention_playground.js', import.meta.url);
/** @type {any} */
const wasm = await import(glue.href);
await wasm.default({ module_or_path: await readFile(new URL('attention_playground_bg.wasm', glue)) });

/** The module's exports. */
export default wasm;

/** The trainer's verdict on settings of `lab`, as the page's store asks for it.
 * @param {string} lab @returns {import('../../www/state/store.js').Validate} */
export function validator(lab) {
  return (config) => {
    try {
      return { config: wasm.validateConfig(lab, config) };
    } catch (e) {
      const err = /** @type {Error & { field?: string }} */ (e);
      return { error: err.message, field: err.field };
    }
  };
}

/** What the trainer says of lab `lab`'s settings, as the page's store takes it.
 * @param {string} lab @returns {import('../../www/state/store.js').Trainer} */
export function trainer(lab) {
  return { fields: wasm.settings(lab), presets: wasm.presets(lab), validate: validator(lab) };
}
