// @ts-check
// The typed messages between a run (run.js), its worker (worker.js) and the worker's
// replicas (replica.js), and the snapshot the trainer posts. Types only: nothing here runs.

/**
 * A series of the run as columns (src/series.rs): every entry from step `recentFrom` on,
 * every `stride`-th before that; `version` changes whenever the series does.
 * @typedef {{ version: number, stride: number, recentFrom: number, step: Float64Array }} SeriesColumns
 */

/**
 * The evaluations of a run: a column per metric (the lab names them) beside `step`.
 * @typedef {SeriesColumns & { [metric: string]: Float64Array | Float32Array | number }} History
 */

/** The training loss of each update. @typedef {SeriesColumns & { loss: Float32Array }} Losses */

/**
 * One frame of a run, posted by the trainer (src/wasm/): the step, the settings as the
 * trainer has them, the selected evaluation sequence and head, the lab's shapes and typed
 * arrays of them (the lab's `arrays` name them: labs/index.js), the history when it changed
 * since the last snapshot (with, when asked for, the whole evaluation batch's maps by name
 * in `evaluationMaps`), the replicas that share its batches (`workers`), the wasm
 * memory's size, and the worker's fields (`running`,
 * `stepsPerSecond`, `generation`).
 * @typedef {{ type: 'snapshot', lab: string, generation: number, step: number, loss: number,
 *   stepsPerSecond: number, running: boolean, seq: number, head: number, memory: number, workers: number,
 *   shape: Record<string, number>, history?: History, config: Record<string, unknown>,
 *   [array: string]: unknown }} Snapshot
 */

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
