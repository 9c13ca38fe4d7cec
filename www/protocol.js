// @ts-check
// The typed messages between the page (main.js) and the trainer's worker (worker.js).
// Types only: nothing here runs.

/**
 * @typedef {{ step: number, loss: number, token_accuracy: number, attention_accuracy: number,
 *   ktiw_accuracy: number, ktiw_score: number, agreement: number }} Evaluation
 */

/**
 * @typedef {{ type: 'init', variant: string, config: Record<string, unknown> | null, speed: number, play: boolean }
 *   | { type: 'config', config: Record<string, unknown> }
 *   | { type: 'play' } | { type: 'pause' } | { type: 'step', n: number }
 *   | { type: 'speed', speed: number } | { type: 'lr', value: number }
 *   | { type: 'reset', seed?: number } | { type: 'select', seq: number, head: number }
 *   | { type: 'helpers', ports: MessagePort[] }
 *   | { type: 'get-params' }
 *   | { type: 'load-params', config: Record<string, unknown>, params: Float32Array, step: number }
 *   | { type: 'debug-panic' }} ToWorker
 */

/**
 * One frame's worth of the run: the step, the evaluations from index `historyFrom` of the
 * run's history on (0 after a new run or a reset), the training losses from index
 * `lossesFrom` on (likewise; loss `i` is step `lossBase + i + 1`'s), and α / β of the selected
 * evaluation sequence (row-major, tgtLen × srcLen).
 * @typedef {{ type: 'snapshot', step: number, loss: number, stepsPerSecond: number, running: boolean,
 *   seq: number, head: number,
 *   shape: { tgtLen: number, srcLen: number, heads: number, evalSeqs: number },
 *   historyFrom: number, history: Evaluation[], lossesFrom: number, losses: number[], lossBase: number, alpha: Float32Array, beta: Float32Array, perHead: Float32Array[],
 *   source: Uint32Array, target: Uint32Array, aligned: Uint32Array,
 *   config: Record<string, unknown> }} Snapshot
 */

/**
 * @typedef {Snapshot
 *   | { type: 'ready', variant: string, presets: Record<string, Record<string, unknown>> }
 *   | { type: 'error', where: string, message: string, field?: string }
 *   | { type: 'diverged', message: string, step: number }
 *   | { type: 'panic', message: string }
 *   | { type: 'reset', seed: number }
 *   | { type: 'lr', value: number }
 *   | { type: 'params', params: Float32Array, step: number, config: Record<string, unknown> }
 *   | { type: 'loaded', step: number }} FromWorker
 */

export {};
