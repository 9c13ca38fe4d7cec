// @ts-check
// The figures: the lab's views of the shown run (and the compared one), the charts of their
// histories, and the step and rate readouts. Redrawn at most once per animation frame, and
// only when a snapshot or an option changed (calmly, with reduced motion). What is shown
// comes from the caller; nothing here changes a run or the store.

import { LineChart } from '../views/chart.js';
import { byId, setText } from './dom.js';
import { redrawLoop } from './redraw.js';

/** @typedef {import('../labs/index.js').Lab} Lab */
/** @typedef {import('../labs/index.js').LabFrame} LabFrame */
/** @typedef {import('../state/history.js').Evaluation} Evaluation */

/**
 * What to draw: each shown run's latest snapshot, its evaluations and its name, the
 * contrast they are compared by ('' for none), and the contrast's paired measurements.
 * @typedef {{ runs: { snapshot: import('../training/protocol.js').Snapshot, evaluations: readonly Evaluation[], name: string }[],
 *   names: [string, string] | null, compare: string, paired: readonly Evaluation[] }} Shown
 */

/** With reduced motion, the views change at most this often (ms) instead of every frame. */
const CALM_REDRAW_MS = 500;

/**
 * One chart point per evaluated step with both runs' metrics: the first run's under their
 * own keys, the second's with the suffix `_b`, and the pair's measurements under theirs; a
 * step only one run reached has gaps.
 * @param {readonly Evaluation[]} a @param {readonly Evaluation[]} b @param {readonly string[]} keys
 * @param {readonly Evaluation[]} [paired]
 */
export function mergeHistories(a, b, keys, paired = []) {
  /** @type {Map<number, Evaluation>} */
  const at = new Map();
  const row = (/** @type {number} */ step) => {
    let r = at.get(step);
    if (!r) {
      r = { step };
      at.set(step, r);
      for (const k of keys) {
        r[k] = NaN;
        r[`${k}_b`] = NaN;
      }
    }
    return r;
  };
  for (const e of a) for (const k of keys) row(e.step)[k] = e[k];
  for (const e of b) for (const k of keys) row(e.step)[`${k}_b`] = e[k];
  for (const e of paired) Object.assign(row(e.step), e);
  return [...at.values()].sort((x, y) => x.step - y.step);
}

export class Figures {
  /**
   * @param {Lab} lab @param {() => Shown | null} shown what to draw, asked for each frame
   * @param {{ colormap: string, showMarks: boolean, hidden: string[] }} options `hidden`: the
   *   parts not to show (embed.js)
   */
  constructor(lab, shown, options) {
    /** @private */ this.lab = lab;
    /** @private */ this.shown = shown;
    /** @private */ this.hidden = options.hidden;
    /** @readonly */ this.views = lab.createViews(byId('lab-figures'), options);
    /** @private @type {LineChart[]} */ this.charts = [];
    /** The charts shown now. @type {import('../labs/index.js').ChartSpec[]} */ this.specs = [];
    /** @private @type {string} */ this.chartNames = '?';
    /** Whether what is shown changed since it was drawn. */
    this.dirty = true;
    /** @private @type {{ a: readonly Evaluation[], b: readonly Evaluation[], paired: readonly Evaluation[], points: Evaluation[] } | null} */
    this.merged = null;
    /** Called after each drawing with what was drawn and when (the recorder's frames).
     * @type {((shown: Shown, now: number) => void) | null} */
    this.onDrawn = null;
    /** @private */ this.reducedMotion = window.matchMedia('(prefers-reduced-motion: reduce)');
    redrawLoop({
      dirty: () => this.dirty,
      // With reduced motion, a running run redraws calmly.
      minMs: () => (this.reducedMotion.matches && this.shown()?.runs[0].snapshot.running ? CALM_REDRAW_MS : 0),
      draw: (now) => this.draw(now),
    });
    this.syncCharts(null, '', null);
  }

  /** The charts the lab draws of one run (of settings `config`) or of two compared, made
   * anew when they change.
   * @private @param {[string, string] | null} names @param {string} compare
   * @param {Record<string, unknown> | null} config */
  syncCharts(names, compare, config) {
    const specs = this.lab.charts(names, compare, config);
    const key = JSON.stringify(specs.map((c) => [c.id, c.title, c.series, c.yRange]));
    if (key === this.chartNames) return;
    this.chartNames = key;
    for (const c of this.charts) c.destroy();
    const box = byId('charts');
    box.replaceChildren();
    this.specs = specs;
    this.charts = specs.map((spec) => {
      const div = document.createElement('div');
      div.id = spec.id;
      div.className = 'chart';
      div.dataset.part = spec.id;
      div.classList.toggle('ap-part-hidden', this.hidden.includes(spec.id));
      box.append(div);
      return new LineChart(div, { title: spec.title, series: spec.series, yRange: spec.yRange });
    });
  }

  /** A chart's picture (for the exports), by its id. @param {string} id */
  chart(id) {
    const i = this.specs.findIndex((spec) => spec.id === id);
    return i >= 0 ? this.charts[i].toCanvas() : null;
  }

  /** The lab's figures and the charts shown as one picture with `caption` under them (the
   * "all figures" export, a recording's frame), on `into` when given.
   * @param {string} caption @param {HTMLCanvasElement} [into] */
  composed(caption, into) {
    const maps = this.lab.figures.map((f) => this.views.figure(f.id));
    const charts = this.specs.map((c) => this.chart(c.id));
    const rows = [maps, charts].map((r) => /** @type {HTMLCanvasElement[]} */ (r.filter(Boolean))).filter((r) => r.length);
    return panel(rows, caption, into);
  }

  /** The charts' points: one run's evaluations, or both runs' merged with the pair's
   * measurements (made anew only when one of them changes, so that the charts redraw only
   * then). @private @param {readonly Evaluation[]} a @param {readonly Evaluation[] | undefined} b
   * @param {readonly Evaluation[]} paired */
  points(a, b, paired) {
    if (!b) return a;
    const m = this.merged;
    if (m?.a === a && m.b === b && m.paired === paired) return m.points;
    const points = mergeHistories(a, b, this.lab.metrics.map((x) => x.key), paired);
    this.merged = { a, b, paired, points };
    return points;
  }

  /** The page's colours changed: everything redraws. */
  invalidate() {
    this.views.invalidate();
    for (const c of this.charts) c.invalidate();
    this.dirty = true;
  }

  /** @private @param {number} now */
  draw(now) {
    const shown = this.shown();
    if (!shown) return;
    const [a, b] = shown.runs;
    this.dirty = false;
    this.syncCharts(shown.names, shown.compare, a.snapshot.config);
    /** @type {LabFrame} */
    const frame = { runs: shown.runs.map((r) => ({ snapshot: r.snapshot, evaluation: r.evaluations.at(-1), name: r.name })) };
    this.views.update(frame);
    for (const c of this.charts) c.update(this.points(a.evaluations, b?.evaluations, shown.paired));
    setText(byId('step'), String(a.snapshot.step));
    setText(byId('rate'), a.snapshot.running ? a.snapshot.stepsPerSecond.toFixed(0) : '–');
    this.onDrawn?.(shown, now);
  }
}

/**
 * Pictures laid out in rows on the page's background, with a caption line under them, on
 * `into` (resized) or a new canvas.
 * @param {HTMLCanvasElement[][]} rows @param {string} caption @param {HTMLCanvasElement} [into]
 */
export function panel(rows, caption, into) {
  const dpr = window.devicePixelRatio || 1;
  const gap = Math.round(16 * dpr);
  const widths = rows.map((r) => r.reduce((w, c) => w + c.width, 0) + gap * (r.length - 1));
  const out = into ?? document.createElement('canvas');
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
