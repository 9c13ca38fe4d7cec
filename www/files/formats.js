// @ts-check
// Files in and out: the metric history as CSV and JSON, the run file (settings, seed,
// history, the shown sequence's maps; opened again to view), the weights file, a canvas as
// a PNG, and the download itself. The formats are in docs/file-formats.md. The builders
// and readers are pure (tests/unit/export.test.js runs them in Node); download and png
// need a page.

import { quote } from '../state/url.js';


export const RUN_FORMAT = 'attention-playground-run';
export const WEIGHTS_FORMAT = 'attention-playground-weights';
const HISTORY_FORMAT = 'attention-playground-history';
const VERSION = 2;

/** @typedef {import('../state/history.js').Evaluation} Evaluation */
/** @typedef {import('../state/history.js').Resolution} Resolution */
/** @typedef {import('../state/history.js').SavedRun} SavedRun */
/** @typedef {import('../state/history.js').Snapshot} Snapshot */
/** @typedef {import('../state/history.js').History} History */
/** @typedef {import('../state/history.js').Losses} Losses */

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
 * evaluation, in step order: `step`, `train_loss` and a column per metric. A long run's
 * series are thinned (SavedRun.resolution); then a first line starting with `#` says how.
 * @param {SavedRun} run @param {readonly { key: string, name: string }[]} columns the
 *   evaluation's columns: each metric's key and its column's name
 */
export function historyCsv(run, columns) {
  /** @type {Map<number, { train?: number, e?: Evaluation }>} */
  const rows = new Map();
  run.losses.step.forEach((step, i) => rows.set(step, { train: run.losses.loss[i] }));
  for (const e of run.evaluations) rows.set(e.step, { ...rows.get(e.step), e });
  const head = ['step', 'train_loss', ...columns.map((c) => c.name)];
  const lines = [];
  const r = run.resolution;
  if (r.training_loss.stride > 1 || r.evaluations.stride > 1) {
    lines.push(`# ${inWords('training losses', r.training_loss)}; ${inWords('evaluations', r.evaluations)}`);
  }
  lines.push(head.join(','));
  for (const step of [...rows.keys()].sort((a, b) => a - b)) {
    const { train, e } = /** @type {{ train?: number, e?: Evaluation }} */ (rows.get(step));
    lines.push([step, train === undefined ? '' : String(train), ...columns.map((c) => (e ? String(e[c.key]) : ''))].join(','));
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
    // Where it trained: a GPU run follows the CPU's closely, not bit for bit.
    backend: s.backend ?? 'cpu',
    step: s.step,
    history: seriesJson(run),
    shown,
  });
}

/** The largest file Open… reads. */
export const MAX_FILE_BYTES = 256 * 1024 * 1024;
/** The most evaluations and training losses a run file may hold. */
const MAX_ENTRIES = 1_000_000;

/** What a file's value is, for a message: short JSON. @param {unknown} v */
function shown(v) {
  let text;
  try {
    text = v === undefined ? 'nothing' : JSON.stringify(v) ?? typeof v;
  } catch {
    text = typeof v;
  }
  return quote(text);
}

/**
 * Checks of a file's fields; each throws an Error that names the file's kind and the field.
 * @param {string} kind "run file", "weights file"
 */
function checker(kind) {
  /** @param {string} what @returns {never} */
  const refuse = (what) => {
    throw new Error(`${kind}: ${what}`);
  };
  return {
    refuse,
    /** @param {unknown} v @param {string} name */
    object(v, name) {
      if (typeof v !== 'object' || v === null || Array.isArray(v)) refuse(`${name} must be an object, got ${shown(v)}`);
      return /** @type {Record<string, any>} */ (v);
    },
    /** @param {unknown} v @param {string} name @param {number} [max] */
    list(v, name, max = MAX_ENTRIES) {
      if (!Array.isArray(v)) refuse(`${name} must be a list, got ${shown(v)}`);
      if (v.length > max) refuse(`${name} holds ${v.length} entries, at most ${max}`);
      return /** @type {unknown[]} */ (v);
    },
    /** A whole number from `min` to 2^53 − 1. @param {unknown} v @param {string} name @param {number} [min] */
    whole(v, name, min = 0) {
      if (!Number.isSafeInteger(v) || /** @type {number} */ (v) < min) refuse(`${name} must be a whole number from ${min} to 2^53 − 1, got ${shown(v)}`);
      return /** @type {number} */ (v);
    },
    /** A number; null (JSON's NaN) is read as NaN. @param {unknown} v @param {string} name */
    number(v, name) {
      if (v === null) return NaN;
      // JSON has no Infinity: a number too large for a double (1e309) reads as one.
      if (typeof v !== 'number' || !Number.isFinite(v)) refuse(`${name} must be a finite number, got ${typeof v === 'number' ? v : shown(v)}`);
      return /** @type {number} */ (v);
    },
    /** @param {unknown} v @param {string} name @param {number} [max] characters */
    text(v, name, max = 100) {
      if (typeof v !== 'string') refuse(`${name} must be text, got ${shown(v)}`);
      if (v.length > max) refuse(`${name} holds ${v.length} characters, at most ${max}`);
      return v;
    },
  };
}

/**
 * Reads a run file back (version 1 or 2): the run to show, not running. The whole file is
 * checked first; a file that is not whole is refused with a message that names the field.
 * `lab` says what its evaluations and snapshot hold; `validate` is the trainer's verdict on
 * its settings.
 * @param {any} f parsed JSON
 * @param {{ name: string, metrics: { key: string, range?: [number, number] }[], arrays: Arrays, checkSnapshot(s: Snapshot): string | null }} lab
 * @param {(config: Record<string, unknown>) => { config: Record<string, unknown> } | { error: string }} validate
 * @param {string} unnamed the lab of a file that names none (version 1 came before there were two)
 * @returns {SavedRun}
 */
export function readRunFile(f, lab, validate, unnamed) {
  const c = checker('run file');
  if (f?.format !== RUN_FORMAT) throw new Error('not a run file of Attention Playground');
  if (f.version !== 1 && f.version !== VERSION) c.refuse(`version ${shown(f.version)}; this page reads versions 1 and ${VERSION}`);
  const labName = f.lab === undefined ? unnamed : c.text(f.lab, 'lab');
  if (labName !== lab.name) c.refuse(`it is a run of the lab ${shown(labName)}, this page shows “${lab.name}”`);
  const preset = c.text(f.preset, 'preset');
  const verdict = validate(c.object(f.config, 'config'));
  if ('error' in verdict) throw new Error(`run file: its settings: ${verdict.error}`);
  const config = verdict.config;
  const link = f.link === undefined ? '' : c.text(f.link, 'link', 10_000);
  const h = c.object(f.history, 'history');
  const metrics = lab.metrics.map((m) => m.key);
  let last = -1;
  const evaluations = c.list(h.evaluations, 'history.evaluations').map((x, i) => {
    const name = `evaluation ${i + 1}`;
    const e = c.object(x, name);
    /** @type {Evaluation} */
    const out = { step: c.whole(e.step, `${name}: step`) };
    if (out.step <= last) c.refuse(`${name}: step ${out.step} does not come after step ${last}`);
    last = out.step;
    for (const { key: m, range } of lab.metrics) {
      if (!Object.hasOwn(e, m)) c.refuse(`${name} (step ${out.step}) has no ${m}`);
      const x = c.number(e[m], `${name}: ${m}`);
      if (range && (x < range[0] || x > range[1])) c.refuse(`${name}: ${m} must be a number from ${range[0]} to ${range[1]}, got ${x}`);
      out[m] = x;
    }
    // A metric by head (`attention_accuracy_h3`), where the run has several.
    for (const k of Object.keys(e)) {
      const by = /^(.+)_h([1-9]|1[0-6])$/.exec(k);
      if (by && metrics.includes(by[1])) out[k] = c.number(e[k], `${name}: ${k}`);
    }
    return out;
  });
  /** @type {Losses} */
  let losses;
  /** @type {SavedRun['resolution']} */
  let resolution = { evaluations: { stride: 1, recent_from: 0 }, training_loss: { stride: 1, recent_from: 0 } };
  if (f.version === 1) {
    // Version 1: every training loss, from step loss_base + 1 on.
    const base = h.loss_base === undefined ? 0 : c.whole(h.loss_base, 'history.loss_base');
    const loss = c.list(h.training_loss, 'history.training_loss').map((x, i) => c.number(x, `training loss ${i + 1}`));
    losses = { step: loss.map((_, i) => base + i + 1), loss };
  } else {
    const t = c.object(h.training_loss, 'history.training_loss');
    const step = c.list(t.step, 'history.training_loss.step');
    const loss = c.list(t.loss, 'history.training_loss.loss');
    if (step.length !== loss.length) c.refuse(`history.training_loss has ${step.length} steps and ${loss.length} losses`);
    let prev = 0;
    losses = {
      step: step.map((x, i) => {
        const n = c.whole(x, `training loss ${i + 1}: step`, 1);
        if (n <= prev && i > 0) c.refuse(`training loss ${i + 1}: step ${n} does not come after step ${prev}`);
        prev = n;
        return n;
      }),
      loss: loss.map((x, i) => c.number(x, `training loss ${i + 1}`)),
    };
    if (h.resolution !== undefined) {
      const r = c.object(h.resolution, 'history.resolution');
      /** @param {string} k @returns {Resolution} */
      const part = (k) => {
        const o = c.object(r[k], `history.resolution.${k}`);
        return { stride: c.whole(o.stride, `history.resolution.${k}.stride`, 1), recent_from: c.whole(o.recent_from, `history.resolution.${k}.recent_from`) };
      };
      resolution = { evaluations: part('evaluations'), training_loss: part('training_loss') };
    }
  }
  const s = c.object(f.shown, 'shown');
  /** @type {Snapshot} */
  const snapshot = {
    type: 'snapshot', lab: labName, generation: 0, step: c.whole(s.step, 'shown.step'), loss: c.number(s.loss ?? null, 'shown.loss'),
    stepsPerSecond: 0, running: false, seq: c.whole(s.seq, 'shown.seq'), head: c.whole(s.head, 'shown.head', -1), memory: 0,
    workers: 0, shape: c.object(s.shape, 'shown.shape'), config,
  };
  // Where it trained (files without it trained on the CPU); anything else is refused.
  if (f.backend !== undefined && f.backend !== 'cpu' && f.backend !== 'gpu') {
    c.refuse(`backend: must be cpu or gpu, got ${shown(f.backend)}`);
  }
  if (f.backend === 'gpu') snapshot.backend = 'gpu';
  for (const [name, kind] of Object.entries(lab.arrays)) {
    const v = s[name] ?? (kind === 'f32[]' ? [] : undefined);
    const numbers = (/** @type {unknown} */ a, /** @type {string} */ what) => c.list(a, what).map((x, i) => c.number(x, `${what}[${i}]`));
    if (kind === 'f32[]') {
      snapshot[name] = c.list(v, `shown.${name}`, 64).map((a, i) => Float32Array.from(numbers(a, `shown.${name}[${i}]`)));
    } else if (kind === 'u32') {
      snapshot[name] = Uint32Array.from(c.list(v, `shown.${name}`).map((x, i) => c.whole(x, `shown.${name}[${i}]`)));
    } else {
      snapshot[name] = Float32Array.from(numbers(v, `shown.${name}`));
    }
  }
  const problem = lab.checkSnapshot(snapshot);
  if (problem) c.refuse(problem);
  return { lab: labName, preset, config, link, evaluations, losses, resolution, shown: snapshot };
}

/** @param {{ lab: string, preset: string, config: Record<string, unknown>, step: number, params: Float32Array }} w */
export function weightsFile(w) {
  return json({
    format: WEIGHTS_FORMAT, version: VERSION, saved: new Date().toISOString(), lab: w.lab, preset: w.preset,
    config: w.config, step: w.step, count: w.params.length, params: f32ToBase64(w.params),
  });
}

/**
 * Reads a weights file: its settings (for the trainer to check), step and values.
 * @param {any} f parsed JSON
 * @param {string} unnamed the lab of a file that names none (version 1)
 * @returns {{ lab: string, preset: string, config: Record<string, unknown>, step: number, params: Float32Array }}
 */
export function readWeightsFile(f, unnamed) {
  const c = checker('weights file');
  if (f?.format !== WEIGHTS_FORMAT) throw new Error('not a weights file of Attention Playground');
  if (f.version !== 1 && f.version !== VERSION) c.refuse(`version ${shown(f.version)}; this page reads versions 1 and ${VERSION}`);
  const lab = f.lab === undefined ? unnamed : c.text(f.lab, 'lab');
  const preset = c.text(f.preset, 'preset');
  const config = c.object(f.config, 'config');
  const step = f.step === undefined ? 0 : c.whole(f.step, 'step');
  const count = c.whole(f.count, 'count');
  const params = base64ToF32(c.text(f.params, 'params', MAX_FILE_BYTES));
  if (params.length !== count) c.refuse(`${params.length} values, it says ${count}`);
  return { lab, preset, config, step, params };
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
  let text;
  try {
    text = atob(b64);
  } catch {
    throw new Error('weights file: params is not base64 text');
  }
  if (text.length % 4) throw new Error('weights file: not a whole number of f32 values');
  const view = new DataView(new ArrayBuffer(text.length));
  for (let i = 0; i < text.length; i++) view.setUint8(i, text.charCodeAt(i));
  const out = new Float32Array(text.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}

/** A canvas as a PNG blob. @param {HTMLCanvasElement} c @returns {Promise<Blob>} */
export function png(c) {
  return new Promise((resolve, reject) => c.toBlob((b) => (b ? resolve(b) : reject(new Error('PNG encoding failed'))), 'image/png'));
}
