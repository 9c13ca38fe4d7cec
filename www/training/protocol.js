// @ts-check
// The typed messages between a run (run.js), its worker (worker.js) and the worker's
// replicas (replica.js); the snapshot the trainer posts is state/history.js's. Types only:
// nothing here runs.

/** @typedef {import('../state/history.js').SeriesColumns} SeriesColumns */
/** @typedef {import('../state/history.js').History} History */
/** @typedef {import('../state/history.js').LossColumns} Losses */
/** @typedef {import('../state/history.js').Snapshot} Snapshot */

/** Where a run's steps train: the browser's GPU (the webgpu build's `gpuTrainer`) or wasm
 * SIMD on the CPU. @typedef {'gpu' | 'cpu'} Backend */
/** Where the page asks a run to train, and if on the CPU, why.
 * @typedef {{ backend: Backend, reason: string }} Placement */

/**
 * @typedef {{ type: 'init', lab: string, variant: import('./variant.js').Build, module: WebAssembly.Module,
 *     config: Record<string, unknown>, ports: MessagePort[], speed: number, frameMs: number, generation: number,
 *     placement: Placement }
 *   | { type: 'config', config: Record<string, unknown>, generation: number, placement: Placement }
 *   | { type: 'play' } | { type: 'pause' } | { type: 'step', n: number }
 *   | { type: 'speed', speed: number } | { type: 'frame', ms: number } | { type: 'live', key: string, value: unknown } | { type: 'limit', step: number | null }
 *   | { type: 'reset', seed?: number, generation: number } | { type: 'select', seq: number, head: number }
 *   | { type: 'evaluation-maps', on: boolean }
 *   | { type: 'get-params' } | { type: 'get-losses' }
 *   | { type: 'load-params', config: Record<string, unknown>, params: Float32Array, step: number, generation: number }
 *   | { type: 'debug-panic' } | { type: 'debug-lose-gpu' }} ToWorker
 */

/**
 * @typedef {Snapshot
 *   | { type: 'ready', variant: string }
 *   | { type: 'backend', backend: 'gpu' | 'cpu', device: string, reason: string, refused: boolean, lost?: boolean }
 *   | { type: 'error', where: string, kind: string, message: string, generation?: number }
 *   | { type: 'diverged', message: string, step: number, generation?: number }
 *   | { type: 'panic', message: string }
 *   | { type: 'reset' }
 *   | { type: 'params', params: Float32Array, step: number, config: Record<string, unknown> }
 *   | { type: 'losses', losses: Losses }
 *   | { type: 'refused', request: 'params' | 'losses', message: string }
 *   | { type: 'loaded', step: number }} FromWorker
 */

/**
 * An evaluation part of a replica's rows (the facade's `Replica.applySum`): its metrics, its
 * rows and the lab's typed arrays of them.
 * @typedef {{ evaluation: Record<string, number>, lo: number, hi: number, [array: string]: unknown }} EvaluationPart
 */

/**
 * @typedef {{ type: 'config', lab: string, config: Record<string, unknown>, index: number, count: number }
 *   | { type: 'compute' } | { type: 'apply', grad: Float32Array }
 *   | { type: 'reset', seed?: number } | { type: 'live', key: string, value: unknown }
 *   | { type: 'load-params', params: Float32Array, step: number }} ToReplica
 */

/**
 * @typedef {{ type: 'grad', loss: number, grad: Float32Array }
 *   | { type: 'applied', part: EvaluationPart | undefined }
 *   | { type: 'error', panic: boolean, kind: string, message: string }} FromReplica
 */

/**
 * The messages to the worker that trains a sweep's seeds batched on the GPU (gpu-worker.js):
 * `train` trains group `group`, the seeds `seeds` of `config`, to `steps`.
 * @typedef {{ type: 'init', lab: string, variant: import('./variant.js').Build, module: WebAssembly.Module }
 *   | { type: 'train', group: number, config: Record<string, unknown>, seeds: number[], steps: number }
 *   | { type: 'play' } | { type: 'pause' }} ToGpuWorker
 */

/**
 * What it says: the GPU it took; a chunk's step, with each of its seeds (the group's from
 * `from` on) its evaluations when they changed since the last message and why it stopped, if
 * it did; a group trained to its end; a group the GPU could not train (group −1: no GPU at all).
 * @typedef {{ type: 'device', name: string }
 *   | { type: 'progress', group: number, from: number, step: number,
 *       seeds: { history: History | undefined, stopped: string | null }[] }
 *   | { type: 'finished', group: number }
 *   | { type: 'failed', group: number, kind: string, message: string }} FromGpuWorker
 */

export {};
