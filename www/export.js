// @ts-check
// Files in and out: the metric history as CSV and JSON, the run file (settings, seed,
// history, the final α and β; opened again to view), the weights file, PNGs of the figures,
// and the download itself. Formats (all JSON ones carry `format` and `version`):
// - run:     { format: 'attention-playground-run', version: 1, saved, link, preset, config,
//              step, history: { training_loss, loss_base, evaluations }, shown: Snapshot fields }
//   (training_loss[i] is step loss_base + i + 1's: loss_base is 0, or the step of loaded weights)
// - weights: { format: 'attention-playground-weights', version: 1, saved, preset, config,
//              step, count, params: base64 of little-endian f32 }

/** @typedef {import('./protocol.js').Snapshot} Snapshot */
/** @typedef {import('./protocol.js').Evaluation} Evaluation */

export const RUN_FORMAT = 'attention-playground-run';
export const WEIGHTS_FORMAT = 'attention-playground-weights';
const VERSION = 1;

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

/** The evaluation metrics, in their column order. */
const METRICS = /** @type {const} */ (['loss', 'token_accuracy', 'attention_accuracy', 'ktiw_accuracy', 'ktiw_score', 'agreement']);

/**
 * One row per step from `base` on: its training loss (empty for step `base`, before the
 * updates this run made) and, on steps that were evaluated, the evaluation's metrics
 * (`eval_loss` is the evaluation batch's).
 * @param {readonly number[]} losses training loss of steps base + 1, base + 2, …
 * @param {readonly Evaluation[]} history @param {number} [base] 0, or the step of loaded weights
 */
export function historyCsv(losses, history, base = 0) {
  const byStep = new Map(history.map((e) => [e.step, e]));
  const last = Math.max(base + losses.length, ...history.map((e) => e.step));
  const head = ['step', 'train_loss', ...METRICS.map((m) => (m === 'loss' ? 'eval_loss' : m))];
  const rows = [head.join(',')];
  for (let step = base; step <= last; step++) {
    const e = byStep.get(step);
    const i = step - base - 1;
    const train = i >= 0 && i < losses.length ? String(losses[i]) : '';
    rows.push([step, train, ...METRICS.map((m) => (e ? String(e[m]) : ''))].join(','));
  }
  return new Blob([`${rows.join('\n')}\n`], { type: 'text/csv' });
}

/** @param {Record<string, unknown>} config @param {readonly number[]} losses @param {readonly Evaluation[]} history
 * @param {number} [base] the step before the first loss */
export function historyJson(config, losses, history, base = 0) {
  return json({
    format: 'attention-playground-history', version: VERSION, config, training_loss: losses, loss_base: base,
    evaluations: history,
  });
}

/**
 * @param {{ link: string, preset: string, config: Record<string, unknown>, losses: readonly number[],
 *   history: readonly Evaluation[], shown: Snapshot }} run
 */
export function runFile(run) {
  const s = run.shown;
  return json({
    format: RUN_FORMAT,
    version: VERSION,
    saved: new Date().toISOString(),
    link: run.link,
    preset: run.preset,
    config: run.config,
    step: s.step,
    history: { training_loss: run.losses, loss_base: s.lossBase ?? 0, evaluations: run.history },
    shown: {
      step: s.step, loss: s.loss, seq: s.seq, head: s.head, shape: s.shape,
      alpha: Array.from(s.alpha), beta: Array.from(s.beta), perHead: s.perHead.map((a) => Array.from(a)),
      source: Array.from(s.source), target: Array.from(s.target), aligned: Array.from(s.aligned),
    },
  });
}

/**
 * Reads a run file back: the snapshot to show (not running), its history and settings.
 * @param {any} f parsed JSON
 * @returns {{ preset: string, config: Record<string, unknown>, link: string, losses: number[], history: Evaluation[], shown: Snapshot }}
 */
export function readRunFile(f) {
  if (f?.format !== RUN_FORMAT) throw new Error('not a run file of Attention Playground');
  if (f.version !== VERSION) throw new Error(`run file version ${f.version}; this page reads version ${VERSION}`);
  const s = f.shown;
  const cells = s?.shape?.tgtLen * s?.shape?.srcLen;
  if (!Number.isInteger(cells) || s.alpha?.length !== cells || s.beta?.length !== cells) {
    throw new Error('run file: α and β do not have the shape it gives');
  }
  if (!Array.isArray(f.history?.evaluations) || !Array.isArray(f.history?.training_loss)) {
    throw new Error('run file: no history');
  }
  /** @type {Snapshot} */
  const shown = {
    type: 'snapshot', step: s.step, loss: s.loss, stepsPerSecond: 0, running: false, seq: s.seq, head: s.head,
    shape: s.shape, historyFrom: 0, history: [], lossesFrom: 0, losses: [], lossBase: Number(f.history.loss_base) || 0,
    alpha: Float32Array.from(s.alpha), beta: Float32Array.from(s.beta),
    perHead: (s.perHead ?? []).map((/** @type {number[]} */ a) => Float32Array.from(a)),
    source: Uint32Array.from(s.source), target: Uint32Array.from(s.target), aligned: Uint32Array.from(s.aligned),
    config: f.config,
  };
  return {
    preset: f.preset, config: f.config, link: String(f.link ?? ''), losses: f.history.training_loss,
    history: f.history.evaluations, shown,
  };
}

/** @param {{ preset: string, config: Record<string, unknown>, step: number, params: Float32Array }} w */
export function weightsFile(w) {
  return json({
    format: WEIGHTS_FORMAT, version: VERSION, saved: new Date().toISOString(), preset: w.preset, config: w.config,
    step: w.step, count: w.params.length, params: f32ToBase64(w.params),
  });
}

/** @param {any} f parsed JSON @returns {{ preset: string, config: Record<string, unknown>, step: number, params: Float32Array }} */
export function readWeightsFile(f) {
  if (f?.format !== WEIGHTS_FORMAT) throw new Error('not a weights file of Attention Playground');
  if (f.version !== VERSION) throw new Error(`weights file version ${f.version}; this page reads version ${VERSION}`);
  const params = base64ToF32(String(f.params ?? ''));
  if (params.length !== f.count) throw new Error(`weights file: ${params.length} values, it says ${f.count}`);
  return { preset: f.preset, config: f.config, step: Number(f.step) || 0, params };
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
