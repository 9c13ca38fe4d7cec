// @ts-check
// Where runs train, decided in one place: from the link's `backend` and `variant` (as the
// link reader passes them: valid or absent), the browser (relaxed SIMD, WebGPU and its
// adapter), the lab's backends and each run's settings. The page loads the build it names;
// runs, sweeps and workers read `Placement.for(config)` and nothing else.

/** @typedef {import('./protocol.js').Placement} RunPlacement */
/** @typedef {import('./variant.js').Variant} Variant */
/** @typedef {import('./variant.js').Build} Build */

export class Placement {
  /**
   * @param {{ gpu: boolean, reason: string, asked: import('../state/builds.js').Backend, variant: Variant,
   *   lab: { gpu?: import('../labs/index.js').Lab['gpu'] } }} o
   * `gpu`: whether runs may train on the browser's GPU; `reason`: why not, in words;
   * `asked`: the link's `backend`; `variant`: the CPU's wasm build.
   */
  constructor({ gpu, reason, asked, variant, lab }) {
    /** Whether runs may train on the GPU. */
    this.gpu = gpu;
    /** Why not, where they may not. */
    this.reason = reason;
    /** @readonly */ this.asked = asked;
    /** @private @readonly */ this.variant = variant;
    /** @private @readonly */ this.lab = lab;
  }

  /** The wasm build the page loads: the GPU's where runs may train there. @returns {Build} */
  get build() {
    return this.gpu ? 'webgpu' : this.variant;
  }

  /** The GPU build did not load: every run trains on the CPU, saying why. @param {string} reason */
  gpuFailed(reason) {
    this.gpu = false;
    this.reason = reason;
  }

  /** Where a run of `config` trains: on the GPU where runs may and (under `auto`) the lab
   * gives these settings to it, else on the CPU with the reason.
   * @param {Record<string, unknown>} config @returns {RunPlacement} */
  for(config) {
    if (!this.gpu) return { backend: 'cpu', reason: this.reason };
    const gpu = /** @type {NonNullable<import('../labs/index.js').Lab['gpu']>} */ (this.lab.gpu);
    if (this.asked === 'auto' && !gpu.suits(config)) {
      return { backend: 'cpu', reason: `under backend=auto, settings below ${gpu.rule} train on the CPU` };
    }
    return { backend: 'gpu', reason: '' };
  }
}

/**
 * Decides where runs may train: `cpu` asked, a lab without a GPU backend, a forced wasm build
 * or a browser without relaxed SIMD, WebGPU or an adapter keep them on the CPU; under `auto`
 * a software fallback adapter does too (slower than wasm SIMD on the same cores), where
 * `gpu` asked takes any adapter.
 * @param {{ asked: import('../state/builds.js').Backend, forced: Variant | null, detected: Variant,
 *   lab: { menuName: string, gpu?: import('../labs/index.js').Lab['gpu'] }, webgpu: any }} o
 * `forced`: the link's `variant`; `detected`: the best build this engine runs; `webgpu`:
 * the browser's `navigator.gpu` (undefined without WebGPU).
 * @returns {Promise<Placement>}
 */
export async function placeRuns({ asked, forced, detected, lab, webgpu }) {
  const variant = forced ?? detected;
  const cpu = (/** @type {string} */ reason) => new Placement({ gpu: false, reason, asked, variant, lab });
  if (asked === 'cpu') return cpu('the link asks for the CPU');
  if (!lab.gpu) return cpu(`the ${lab.menuName} lab trains on the CPU only`);
  if (forced) return cpu('the link asks for a wasm build');
  if (variant !== 'relaxed-simd') return cpu('the GPU build needs relaxed SIMD, which this browser lacks');
  if (!webgpu) return cpu('this browser has no WebGPU');
  /** @type {any} */
  let adapter = null;
  try {
    adapter = await webgpu.requestAdapter();
  } catch {
    adapter = null;
  }
  if (!adapter) return cpu('the browser gives no GPU adapter');
  if (asked === 'auto' && (adapter.info?.isFallbackAdapter ?? adapter.isFallbackAdapter)) {
    return cpu('the browser’s only GPU adapter is a software fallback, slower than wasm SIMD here');
  }
  return new Placement({ gpu: true, reason: '', asked, variant, lab });
}
