// @ts-check
// Files in and out: the metric history as CSV and JSON, the run file (settings, seed,
// history, the shown sequence's maps; opened again to view), the weights file, PNGs of the
// figures, and the download itself. The formats are in docs/file-formats.md. The builders
// and readers are pure (tests/unit/export.test.js runs them in Node); download, panel and
// png need a page.

/** @typedef {import('./protocol.js').Snapshot} Snapshot */
/** @typedef {import('./protocol.js').History} History */

export const RUN_FORMAT = 'attention-playground-run';
export const WEIGHTS_FORMAT = 'attention-playground-weights';
const HISTORY_FORMAT = 'attention-playground-history';
const VERSION = 2;

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

/** The rows of a history's columns (protocol.js History). @param {History} h @param {readonly string[]} metrics
 * @returns {Evaluation[]} */
export function evaluationsOf(h, metrics) {
  const n = h.step.length;
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

/** @param {{ stride: number, recentFrom: number }} s @returns {Resolution} */
export const resolutionOf = (s) => ({ stride: s.stride, recent_from: s.recentFrom });

/** Saves `blob` as a file named `name` (the browser's download). @param {string} name @param {Blob} blob */
export function download(name, blob) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
}

/** @param {unknown} v */
const json = (v) => new Blob([JSON.stringify(v)], { type: 'application/json' });

/** 2nd, 4th, 32nd, … @param {number} n */
function ordinal(n) {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : ['th', 'st', 'nd', 'rd'][n % 10] ?? 'th';
  return `${n}${suffix}`;
}

/** A resolution in words. @param {string} what @param {Resolution} r */
function inWords(what, r) {
  return r.stride === 1 ? `${what}: every one` : `${what}: every one from step ${r.recent_from} on, every ${ordinal(r.stride)} before`;
}

/**
 * One row per step that has a training loss (the update that made the step) or an
 * evaluation (`eval_loss` is the evaluation batch's), in step order. A long run's series are
 * thinned (SavedRun.resolution); then a first line starting with `#` says how.
 * @param {SavedRun} run @param {readonly string[]} metrics the evaluation's columns
 */
export function historyCsv(run, metrics) {
  /** @type {Map<number, { train?: number, e?: Evaluation }>} */
  const rows = new Map();
  run.losses.step.forEach((step, i) => rows.set(step, { train: run.losses.loss[i] }));
  for (const e of run.evaluations) rows.set(e.step, { ...rows.get(e.step), e });
  const head = ['step', 'train_loss', ...metrics.map((m) => (m === 'loss' ? 'eval_loss' : m))];
  const lines = [];
  const r = run.resolution;
  if (r.training_loss.stride > 1 || r.evaluations.stride > 1) {
    lines.push(`# ${inWords('training losses', r.training_loss)}; ${inWords('evaluations', r.evaluations)}`);
  }
  lines.push(head.join(','));
  for (const step of [...rows.keys()].sort((a, b) => a - b)) {
    const { train, e } = /** @type {{ train?: number, e?: Evaluation }} */ (rows.get(step));
    lines.push([step, train === undefined ? '' : String(train), ...metrics.map((m) => (e ? String(e[m]) : ''))].join(','));
  }
  return new Blob([`${lines.join('\n')}\n`], { type: 'text/csv' });
}

/** The series of a run as the JSON files write them. @param {SavedRun} run */
function seriesJson(run) {
  return { training_loss: run.losses, evaluations: run.evaluations, resolution: run.resolution };
}

/** @param {SavedRun} run */
export function historyJson(run) {
  return json({ format: HISTORY_FORMAT, version: VERSION, lab: run.lab, config: run.config, ...seriesJson(run) });
}

/** The typed arrays of a lab's snapshots, by name (labs/index.js `Lab.arrays`).
 * @typedef {Record<string, 'f32' | 'u32' | 'f32[]'>} Arrays */

/** @param {SavedRun} run @param {Arrays} arrays */
export function runFile(run, arrays) {
  const s = run.shown;
  /** @type {Record<string, unknown>} */
  const shown = { step: s.step, loss: s.loss, seq: s.seq, head: s.head, shape: s.shape };
  for (const [name, kind] of Object.entries(arrays)) {
    const v = s[name];
    shown[name] = kind === 'f32[]' ? /** @type {Float32Array[]} */ (v).map((a) => Array.from(a)) : Array.from(/** @type {Float32Array} */ (v));
  }
  return json({
    format: RUN_FORMAT,
    version: VERSION,
    saved: new Date().toISOString(),
    lab: run.lab,
    link: run.link,
    preset: run.preset,
    config: run.config,
    step: s.step,
    history: seriesJson(run),
    shown,
  });
}

/** A number array of a file, or why not. @param {unknown} v @param {string} name */
function numbers(v, name) {
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'number')) throw new Error(`run file: ${name} is not a list of numbers`);
  return v;
}

/**
 * Reads a run file back (version 1 or 2): the run to show, not running. `lab` says what
 * its snapshot holds and whether it can be shown.
 * @param {any} f parsed JSON @param {{ arrays: Arrays, checkSnapshot(s: Snapshot): string | null }} lab
 * @returns {SavedRun}
 */
export function readRunFile(f, lab) {
  if (f?.format !== RUN_FORMAT) throw new Error('not a run file of Attention Playground');
  if (f.version !== 1 && f.version !== VERSION) throw new Error(`run file version ${f.version}; this page reads versions 1 and ${VERSION}`);
  const s = f.shown;
  if (typeof s !== 'object' || s === null) throw new Error('run file: nothing to show');
  const h = f.history;
  if (!Array.isArray(h?.evaluations)) throw new Error('run file: no history');
  /** @type {Losses} */
  let losses;
  /** @type {SavedRun['resolution']} */
  let resolution = { evaluations: { stride: 1, recent_from: 0 }, training_loss: { stride: 1, recent_from: 0 } };
  if (f.version === 1) {
    // Version 1: every training loss, from step loss_base + 1 on.
    if (!Array.isArray(h.training_loss)) throw new Error('run file: no history');
    const base = Number(h.loss_base) || 0;
    losses = { step: h.training_loss.map((/** @type {unknown} */ _, /** @type {number} */ i) => base + i + 1), loss: h.training_loss };
  } else {
    if (!Array.isArray(h.training_loss?.step) || !Array.isArray(h.training_loss?.loss)) throw new Error('run file: no history');
    losses = h.training_loss;
    resolution = h.resolution ?? resolution;
  }
  /** @type {Snapshot} */
  const shown = {
    type: 'snapshot', lab: String(f.lab ?? 'copying'), generation: 0, step: s.step, loss: s.loss, stepsPerSecond: 0,
    running: false, seq: s.seq, head: s.head, memory: 0, workers: 0, shape: s.shape, config: f.config,
  };
  for (const [name, kind] of Object.entries(lab.arrays)) {
    const v = s[name] ?? (kind === 'f32[]' ? [] : undefined);
    if (kind === 'f32[]') {
      if (!Array.isArray(v)) throw new Error(`run file: ${name} is not a list`);
      shown[name] = v.map((/** @type {unknown} */ a, /** @type {number} */ i) => Float32Array.from(numbers(a, `${name}[${i}]`)));
    } else {
      shown[name] = (kind === 'u32' ? Uint32Array : Float32Array).from(numbers(v, name));
    }
  }
  const problem = lab.checkSnapshot(shown);
  if (problem) throw new Error(`run file: ${problem}`);
  return {
    lab: String(f.lab ?? 'copying'), preset: f.preset, config: f.config, link: String(f.link ?? ''),
    evaluations: h.evaluations, losses, resolution, shown,
  };
}

/** @param {{ lab: string, preset: string, config: Record<string, unknown>, step: number, params: Float32Array }} w */
export function weightsFile(w) {
  return json({
    format: WEIGHTS_FORMAT, version: VERSION, saved: new Date().toISOString(), lab: w.lab, preset: w.preset,
    config: w.config, step: w.step, count: w.params.length, params: f32ToBase64(w.params),
  });
}

/** @param {any} f parsed JSON
 * @returns {{ lab: string, preset: string, config: Record<string, unknown>, step: number, params: Float32Array }} */
export function readWeightsFile(f) {
  if (f?.format !== WEIGHTS_FORMAT) throw new Error('not a weights file of Attention Playground');
  if (f.version !== 1 && f.version !== VERSION) throw new Error(`weights file version ${f.version}; this page reads versions 1 and ${VERSION}`);
  const params = base64ToF32(String(f.params ?? ''));
  if (params.length !== f.count) throw new Error(`weights file: ${params.length} values, it says ${f.count}`);
  const step = f.step ?? 0;
  if (!Number.isSafeInteger(step) || step < 0) throw new Error(`weights file: step must be a whole number from 0 to 2^53 − 1, got ${JSON.stringify(step)}`);
  return { lab: String(f.lab ?? 'copying'), preset: f.preset, config: f.config, step, params };
}

/** Little-endian f32 bytes as base64 (chunked: a big model has millions of values). @param {Float32Array} a */
export function f32ToBase64(a) {
  const bytes = new Uint8Array(a.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < a.length; i++) view.setFloat32(i * 4, a[i], true);
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

/** @param {string} b64 */
export function base64ToF32(b64) {
  const text = atob(b64);
  if (text.length % 4) throw new Error('weights file: not a whole number of f32 values');
  const view = new DataView(new ArrayBuffer(text.length));
  for (let i = 0; i < text.length; i++) view.setUint8(i, text.charCodeAt(i));
  const out = new Float32Array(text.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}

/**
 * Pictures laid out in rows on the page's background, with a caption line under them.
 * @param {HTMLCanvasElement[][]} rows @param {string} caption
 */
export function panel(rows, caption) {
  const dpr = window.devicePixelRatio || 1;
  const gap = Math.round(16 * dpr);
  const widths = rows.map((r) => r.reduce((w, c) => w + c.width, 0) + gap * (r.length - 1));
  const out = document.createElement('canvas');
  out.width = Math.max(...widths) + 2 * gap;
  out.height = rows.reduce((h, r) => h + Math.max(...r.map((c) => c.height)) + gap, gap) + Math.round(24 * dpr);
  const g = /** @type {CanvasRenderingContext2D} */ (out.getContext('2d'));
  const body = getComputedStyle(document.body);
  g.fillStyle = body.backgroundColor || '#fff';
  g.fillRect(0, 0, out.width, out.height);
  let y = gap;
  for (const r of rows) {
    let x = gap;
    for (const c of r) {
      g.drawImage(c, x, y);
      x += c.width + gap;
    }
    y += Math.max(...r.map((c) => c.height)) + gap;
  }
  g.fillStyle = body.color || '#222';
  g.font = `${Math.round(12 * dpr)}px ${body.fontFamily || 'sans-serif'}`;
  g.textBaseline = 'top';
  g.fillText(caption, gap, y);
  return out;
}

/** A canvas as a PNG blob. @param {HTMLCanvasElement} c @returns {Promise<Blob>} */
export function png(c) {
  return new Promise((resolve, reject) => c.toBlob((b) => (b ? resolve(b) : reject(new Error('PNG encoding failed'))), 'image/png'));
}
