// @ts-check
// What a run shows, as data: the snapshot its trainer posts (with its history as columns)
// and the page's reading of that history as evaluations, and a run as it is saved or
// viewed again. Types and one pure translation; the file formats are files/formats.js's.

/**
 * A series of the run as columns (src/series.rs): every entry from step `recentFrom` on,
 * every `stride`-th before that; `version` changes whenever the series does.
 * @typedef {{ version: number, stride: number, recentFrom: number, step: Float64Array }} SeriesColumns
 */

/**
 * The evaluations of a run: a column per metric (the lab names them) beside `step`.
 * @typedef {SeriesColumns & { [metric: string]: Float64Array | Float32Array | number }} History
 */

/** The training loss of each update, as columns. @typedef {SeriesColumns & { loss: Float32Array }} LossColumns */

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

/** One evaluation: its step and a value per metric. @typedef {{ step: number, [metric: string]: number }} Evaluation */

/**
 * What a series holds of a run (src/series.rs): every entry from step `recent_from` on,
 * every `stride`-th entry before it.
 * @typedef {{ stride: number, recent_from: number }} Resolution
 */

/** The training loss of each update, by the step it made. @typedef {{ step: number[], loss: number[] }} Losses */

/**
 * A run as the exports see it: a live run's, or one read from a run file.
 * @typedef {{ name?: string, lab: string, preset: string, config: Record<string, unknown>, link: string,
 *   evaluations: Evaluation[], losses: Losses,
 *   resolution: { evaluations: Resolution, training_loss: Resolution }, shown: Snapshot }} SavedRun
 */

/** The rows of a history's columns (History): the lab's metrics and any other
 * column the run has (each head's attention accuracy, with several heads).
 * @param {History} h @param {readonly string[]} metrics @returns {Evaluation[]} */
export function evaluationsOf(h, metrics) {
  const n = h.step.length;
  const extra = Object.keys(h).filter((k) => k !== 'step' && !metrics.includes(k) && ArrayBuffer.isView(h[k]));
  if (extra.length) metrics = [...metrics, ...extra];
  /** @type {Evaluation[]} */
  const out = new Array(n);
  for (let i = 0; i < n; i++) {
    /** @type {Evaluation} */
    const e = { step: h.step[i] };
    for (const m of metrics) e[m] = /** @type {Float32Array} */ (h[m])[i];
    out[i] = e;
  }
  return out;
}

