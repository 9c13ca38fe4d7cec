// @ts-check
// The one loader of the trainer's wasm: the page compiles a build once and hands the
// compiled module to its workers, which only instantiate it. Which build to load is
// variant.js's choice; what the module does is the facade's (src/wasm/).

/** @typedef {import('./variant.js').Build} Variant */

/** The URL of a build's glue module (its `.wasm` lies beside it). @param {Variant} variant */
function glueUrl(variant) {
  return new URL(`../../pkg/${variant}/attention_playground.js`, import.meta.url).href;
}

/** Compiles a build's wasm (in the page; workers get the result). @param {Variant} variant */
export async function compile(variant) {
  const url = new URL(`../../pkg/${variant}/attention_playground_bg.wasm`, import.meta.url);
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url.pathname}: HTTP ${response.status}`);
  // A server that does not know the type of .wasm files rules out the streaming compile.
  if (response.headers.get('content-type')?.startsWith('application/wasm')) return WebAssembly.compileStreaming(response);
  return WebAssembly.compile(await response.arrayBuffer());
}

/**
 * The build's exports, its instance made from `module` (a compiled `WebAssembly.Module`).
 * @param {Variant} variant @param {WebAssembly.Module} module @returns {Promise<any>}
 */
export async function instantiate(variant, module) {
  const glue = await import(glueUrl(variant));
  await glue.default({ module_or_path: module });
  return glue;
}

/** The panic message the module left before it trapped, if any (see src/wasm/mod.rs start). */
export function lastPanic() {
  return /** @type {{ __apLastPanic?: string }} */ (/** @type {unknown} */ (globalThis)).__apLastPanic;
}

/** The kind of an error a call into the module threw: the run's own (`diverged`,
 * `weights`, `setting`, `internal`: src/run.rs), or `internal` for any other exception.
 * @param {unknown} err @returns {string} */
export function kindOf(err) {
  const kind = /** @type {{ kind?: unknown } | null} */ (err)?.kind;
  return typeof kind === 'string' ? kind : 'internal';
}

/** Whether `err`, thrown by a call into the module, was a panic (a trap): after one the
 * module must not be called again. @param {unknown} err */
export function isPanic(err) {
  return err instanceof WebAssembly.RuntimeError || Boolean(lastPanic());
}
