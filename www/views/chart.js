// @ts-check
// The line chart of training curves over steps (loss; accuracies): axes, legend, gaps for
// non-finite values, decimation to the canvas width and the hover / touch readout.

import { Colors } from './colors.js';
import { el } from '../ui/dom.js';

/**
 * @typedef {object} ChartSeries
 * @property {string} key the property of each point that holds this series' value
 * @property {string} label shown in the legend and the readout
 * @property {string} [color] a CSS colour, or `var(--name)` read from the page's styles;
 *   default `var(--ap-series-N)` (N = 1, 2, … in order; Okabe–Ito colours in views.css)
 * @property {number[]} [dash] canvas line dash in CSS pixels; default by order: solid,
 *   dashed, dotted, dash-dot
 */

/** @typedef {{ step: number, [key: string]: number }} ChartPoint */

/**
 * @typedef {object} LineChartOptions
 * @property {string} [title]
 * @property {ChartSeries[]} series
 * @property {readonly [number, number] | 'auto'} [yRange='auto'] fixed [min, max], or fit the data
 * @property {(v: number) => string} [format] how a value is written in the readout
 * @property {string} [xLabel='training step']
 */

/** @type {number[][]} */
const DASHES = [[], [7, 4], [1.5, 3], [9, 3, 2, 3], [3, 3], [12, 4]];

const LINE_WIDTH = 1.75;

/** @param {string} s */
function minus(s) {
  return s.replace(/^-/, '−');
}

/** @param {number} v */
function defaultFormat(v) {
  if (!Number.isFinite(v)) return '—';
  const a = Math.abs(v);
  if (a >= 1000) return minus(String(Math.round(v)));
  if (a !== 0 && a < 1e-3) return minus(v.toExponential(2));
  return minus(v.toPrecision(4));
}

/**
 * Round tick values covering [lo, hi] with about `count` intervals.
 * @param {number} lo
 * @param {number} hi
 * @param {number} count
 * @param {boolean} [integer] ticks only at integers
 * @returns {{ ticks: number[], step: number }}
 */
function niceTicks(lo, hi, count, integer = false) {
  const span = hi - lo;
  const raw = span / Math.max(1, count);
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const f = raw / mag;
  let step = (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * mag;
  if (integer) step = Math.max(1, Math.round(step));
  const first = Math.ceil(lo / step - 1e-9);
  const last = Math.floor(hi / step + 1e-9);
  /** @type {number[]} */
  const ticks = [];
  for (let i = first; i <= last && ticks.length < 100; i++) ticks.push(i * step);
  return { ticks, step };
}

/**
 * @param {number} v
 * @param {number} step the tick spacing, which sets the decimals
 */
function tickLabel(v, step) {
  if (Math.abs(v) >= 1e4 && step >= 1000) {
    const k = v / 1000;
    return minus(`${+k.toFixed(Math.max(0, -Math.floor(Math.log10(step / 1000))))}k`);
  }
  const decimals = Math.max(0, Math.min(8, -Math.floor(Math.log10(step) + 1e-9)));
  return minus(v.toFixed(decimals));
}

export class LineChart {
  /**
   * @param {HTMLElement} container the chart is appended to it
   * @param {LineChartOptions} options
   */
  constructor(container, { title = '', series, yRange = 'auto', format, xLabel = 'training step' }) {
    /** @private */
    this.series = series.map((s, i) => ({
      key: s.key,
      label: s.label,
      color: s.color ?? `var(--ap-series-${i + 1})`,
      dash: s.dash ?? DASHES[i % DASHES.length],
    }));
    /** @private */ this.yRange = yRange;
    /** @private */ this.format = format ?? defaultFormat;
    /** @private @type {readonly ChartPoint[]} */ this.points = [];
    /** The array last passed to update(). @private @type {readonly ChartPoint[] | null} */ this.given = null;
    /** Whether the next update() draws even the same points (the colours changed). @private */ this.stale = true;
    /** @private */ this.cssW = 0;
    /** @private */ this.cssH = 0;
    /** @private */ this.layout = { left: 0, top: 0, w: 0, h: 0, x0: 0, x1: 1, y0: 0, y1: 1 };
    /** @private @type {number | null} plot x of the pointer, CSS px */ this.hoverX = null;
    /** @private */ this.title = title;

    const root = el('figure', 'ap-chart', container);
    /** @readonly */ this.element = root;
    const caption = el('figcaption', 'ap-title', root);
    caption.textContent = title;
    caption.hidden = !title;

    const legend = el('ul', 'ap-chart-legend', root);
    for (const s of this.series) {
      const li = el('li', '', legend);
      li.appendChild(swatch(s.color, s.dash));
      el('span', '', li).textContent = s.label;
    }

    /** @private */ this.plot = el('div', 'ap-chart-plot', root);
    /** @private */ this.canvas = el('canvas', 'ap-chart-canvas', this.plot);
    this.canvas.setAttribute('role', 'img');
    this.canvas.setAttribute('aria-label', `${title}: no data yet`);
    /** @private */ this.hoverCanvas = el('canvas', 'ap-chart-canvas', this.plot);
    this.hoverCanvas.setAttribute('aria-hidden', 'true');
    const g = this.canvas.getContext('2d');
    const h = this.hoverCanvas.getContext('2d');
    if (!g || !h) throw new Error('2D canvas is not available');
    /** @private */ this.g = g;
    /** @private */ this.h = h;
    /** @private */ this.readout = el('div', 'ap-tooltip ap-chart-readout', this.plot);
    this.readout.hidden = true;
    this.readout.setAttribute('aria-hidden', 'true');
    el('div', 'ap-chart-xtitle', root).textContent = xLabel;

    /** @private */ this.style = getComputedStyle(this.plot);
    /** Colours as the browser resolved them: its owner says when they change (invalidate():
     * a theme, or the system's colour scheme). @private */
    this.colors = new Colors(root);

    /** @private */ this.resizeObserver = new ResizeObserver((entries) => {
      const box = entries[entries.length - 1].contentRect;
      this.cssW = box.width;
      this.cssH = box.height;
      this.draw();
    });
    this.resizeObserver.observe(this.plot);


    this.onPointer = this.onPointer.bind(this);
    this.onLeave = this.onLeave.bind(this);
    this.onOutside = this.onOutside.bind(this);
    this.plot.addEventListener('pointermove', this.onPointer);
    this.plot.addEventListener('pointerdown', this.onPointer);
    this.plot.addEventListener('pointerleave', this.onLeave);
    document.addEventListener('pointerdown', this.onOutside);
  }

  /**
   * Redraws with the whole history. Points should be in increasing step order (others are
   * sorted first); non-finite values leave gaps.
   * @param {readonly ChartPoint[]} points
   */
  update(points) {
    // The same points as last drawn (the owner redraws every frame, the history changes
    // when the model is evaluated): nothing to draw, unless the colours changed.
    if (points === this.given && !this.stale) return;
    this.given = points;
    this.stale = false;
    let sorted = true;
    for (let i = 1; i < points.length; i++) {
      if (points[i].step < points[i - 1].step) {
        sorted = false;
        break;
      }
    }
    this.points = sorted ? points : points.slice().sort((a, b) => a.step - b.step);
    this.draw();
    this.describe();
  }

  /**
   * The chart as a standalone picture for export: title, legend and the plot as drawn,
   * on the page's background, at the canvas's own resolution.
   * @returns {HTMLCanvasElement}
   */
  toCanvas() {
    const dpr = window.devicePixelRatio || 1;
    const src = this.canvas;
    const pad = Math.round(8 * dpr);
    const line = Math.round(18 * dpr);
    const out = document.createElement('canvas');
    const g = /** @type {CanvasRenderingContext2D} */ (out.getContext('2d'));
    const font = this.style.fontFamily || 'sans-serif';
    // Legend items (a dashed sample and the label of each series), wrapped into rows.
    g.font = `${Math.round(12 * dpr)}px ${font}`;
    const width = src.width + 2 * pad;
    /** @type {{ s: { label: string, color: string, dash: number[] }, x: number, row: number }[]} */
    const items = [];
    let x = pad;
    let row = 0;
    for (const s of this.series) {
      const w = 28 * dpr + g.measureText(s.label).width;
      if (x > pad && x + w > width - pad) {
        x = pad;
        row++;
      }
      items.push({ s, x, row });
      x += w + 14 * dpr;
    }
    const legendH = (row + 1) * line;
    out.width = width;
    out.height = pad + line + legendH + Math.round(6 * dpr) + src.height + pad;
    // The page's background, as the page shows the chart.
    g.fillStyle = getComputedStyle(document.body).backgroundColor || this.resolve('var(--ap-bg, #fff)');
    g.fillRect(0, 0, out.width, out.height);
    g.fillStyle = this.resolve('var(--ap-fg, #222)');
    g.font = `600 ${Math.round(14 * dpr)}px ${font}`;
    g.textBaseline = 'top';
    g.fillText(this.title, pad, pad);
    g.font = `${Math.round(12 * dpr)}px ${font}`;
    for (const { s, x: ix, row: r } of items) {
      const y = pad + line + r * line;
      g.strokeStyle = this.resolve(s.color);
      g.lineWidth = LINE_WIDTH * dpr;
      g.setLineDash(s.dash.map((d) => d * dpr));
      g.beginPath();
      g.moveTo(ix, y + 6 * dpr);
      g.lineTo(ix + 24 * dpr, y + 6 * dpr);
      g.stroke();
      g.setLineDash([]);
      g.fillStyle = this.resolve('var(--ap-muted, #555)');
      g.fillText(s.label, ix + 28 * dpr, y);
    }
    g.drawImage(src, pad, pad + line + legendH + Math.round(6 * dpr));
    return out;
  }

  /** Empties the chart. */
  clear() {
    this.points = [];
    this.hoverX = null;
    this.draw();
    this.describe();
  }

  /** Removes the chart from its container and drops its listeners. */
  destroy() {
    this.resizeObserver.disconnect();
    document.removeEventListener('pointerdown', this.onOutside);
    this.element.remove();
  }

  // ---- drawing ---------------------------------------------------------------------------

  /** @private */
  describe() {
    const n = this.points.length;
    let text = `${this.title}: no data yet`;
    if (n > 0) {
      const last = this.points[n - 1];
      const parts = this.series.map((s) => `${s.label} ${this.format(last[s.key])}`);
      const { y0, y1 } = this.layout;
      text = `${this.title}: ${n} points, steps ${this.points[0].step} to ${last.step}; latest ${parts.join(', ')}; `
        + `axis from ${this.format(y0)} to ${this.format(y1)}`;
    }
    this.canvas.setAttribute('aria-label', text);
  }

  /** @private @param {string} color */
  resolve(color) {
    return this.colors.resolve(color);
  }

  /** The page's colours changed (its theme or the system's colour scheme): the next
   * drawing resolves them again. */
  invalidate() {
    this.colors.clear();
    this.stale = true;
  }

  /**
   * @private
   * @param {HTMLCanvasElement} c
   * @param {number} dpr
   */
  fit(c, dpr) {
    const w = Math.max(1, Math.round(this.cssW * dpr));
    const h = Math.max(1, Math.round(this.cssH * dpr));
    if (c.width !== w || c.height !== h) {
      c.width = w;
      c.height = h;
    }
  }

  /** @private */
  draw() {
    if (this.cssW <= 0 || this.cssH <= 0) return;
    const dpr = window.devicePixelRatio || 1;
    this.fit(this.canvas, dpr);
    this.fit(this.hoverCanvas, dpr);
    const g = this.g;
    g.setTransform(1, 0, 0, 1, 0, 0);
    g.clearRect(0, 0, this.canvas.width, this.canvas.height);
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    const st = this.style;
    const fontSize = parseFloat(st.fontSize) || 11;
    g.font = `${fontSize}px ${st.fontFamily || 'sans-serif'}`;

    const domain = this.domain();
    const ticks = this.place(domain, fontSize);
    this.drawAxes(ticks, dpr, fontSize);
    if (domain.empty) {
      g.textAlign = 'center';
      g.textBaseline = 'middle';
      const L = this.layout;
      g.fillText('no data yet', L.left + L.w / 2, L.top + L.h / 2);
      this.drawHover();
      return;
    }
    const L = this.layout;
    g.save();
    g.beginPath();
    g.rect(L.left - 1, L.top - 1, L.w + 2, L.h + 2);
    g.clip();
    g.lineWidth = LINE_WIDTH;
    g.lineJoin = 'round';
    g.lineCap = 'butt';
    for (const s of this.series) this.drawSeries(s);
    g.restore();
    this.drawHover();
  }

  /** The steps and values the points span (a fitted y range padded a little, never below 0
   * for data that is never negative), or a placeholder range with none.
   * @private @returns {{ x0: number, x1: number, y0: number, y1: number, floor: number, empty: boolean }} */
  domain() {
    const pts = this.points;
    const first = pts.find((p) => Number.isFinite(p.step));
    let last;
    for (let i = pts.length - 1; i >= 0 && !last; i--) if (Number.isFinite(pts[i].step)) last = pts[i];
    const empty = !first;
    let x0 = first?.step ?? 0;
    let x1 = last?.step ?? 100;
    if (!empty && x1 <= x0) x1 = x0 + 1;
    if (empty) [x0, x1] = [0, 100];
    /** The fitted axis' lowest value: 0 for data that is never negative (a loss). */
    let floor = -Infinity;
    let y0 = Infinity;
    let y1 = -Infinity;
    if (this.yRange !== 'auto') {
      [y0, y1] = this.yRange;
    } else {
      for (const p of pts) {
        for (const s of this.series) {
          const v = p[s.key];
          if (Number.isFinite(v)) {
            if (v < y0) y0 = v;
            if (v > y1) y1 = v;
          }
        }
      }
      if (y0 >= 0) floor = 0;
      if (!(y0 <= y1)) {
        y0 = 0;
        y1 = 1;
      } else {
        const pad = y0 === y1 ? (Math.abs(y0) > 0 ? Math.abs(y0) * 0.1 : 1) : (y1 - y0) * 0.04;
        y0 -= pad;
        y1 += pad;
      }
    }
    return { x0, x1, y0: Math.max(y0, floor), y1, floor, empty };
  }

  /** Lays the plot out in the box (the y tick labels set the left margin; a fitted range
   * snaps out to whole ticks where that costs little room) into `this.layout`, and returns
   * the y ticks with their labels.
   * @private @param {{ x0: number, x1: number, y0: number, y1: number, floor: number }} d @param {number} fontSize */
  place(d, fontSize) {
    const g = this.g;
    let { y0, y1 } = d;
    const top = Math.ceil(fontSize * 0.6);
    const bottom = Math.ceil(fontSize * 1.7);
    const h = Math.max(10, this.cssH - top - bottom);
    const count = Math.max(2, Math.floor(h / (fontSize * 3)));
    let yt = niceTicks(y0, y1, count);
    if (this.yRange === 'auto' && yt.ticks.length > 1) {
      const lo = Math.max(d.floor, Math.floor(y0 / yt.step + 1e-9) * yt.step);
      const hi = Math.ceil(y1 / yt.step - 1e-9) * yt.step;
      if (hi - lo <= (y1 - y0) * 1.35) {
        [y0, y1] = [lo, hi];
        yt = niceTicks(y0, y1, count);
      }
    }
    const labels = yt.ticks.map((v) => tickLabel(v, yt.step));
    let labelW = 0;
    for (const t of labels) labelW = Math.max(labelW, g.measureText(t).width);
    const left = Math.ceil(labelW + 8);
    const right = Math.ceil(fontSize * 1.2);
    const w = Math.max(10, this.cssW - left - right);
    const moved = y0 !== this.layout.y0 || y1 !== this.layout.y1;
    this.layout = { left, top, w, h, x0: d.x0, x1: d.x1, y0, y1 };
    if (moved) this.describe();
    return { yt, labels };
  }

  /** The grid, the axes and their tick labels, in the layout.
   * @private @param {{ yt: { ticks: number[], step: number }, labels: string[] }} y @param {number} dpr @param {number} fontSize */
  drawAxes(y, dpr, fontSize) {
    const g = this.g;
    const { left, top, w, h, x0, x1, y0, y1 } = this.layout;
    const X = (/** @type {number} */ s) => left + ((s - x0) / (x1 - x0)) * w;
    const Y = (/** @type {number} */ v) => top + (1 - (v - y0) / (y1 - y0)) * h;
    /** Snaps a CSS coordinate to the middle of a device pixel, for crisp 1-px lines. */
    const crisp = (/** @type {number} */ v) => (Math.round(v * dpr) + 0.5) / dpr;
    g.lineWidth = 1 / dpr;
    g.strokeStyle = this.resolve('var(--ap-grid, rgba(0,0,0,.1))');
    g.fillStyle = this.resolve('var(--ap-muted, #555)');
    g.textAlign = 'right';
    g.textBaseline = 'middle';
    g.beginPath();
    y.yt.ticks.forEach((v, i) => {
      const yy = crisp(Y(v));
      g.moveTo(left, yy);
      g.lineTo(left + w, yy);
      g.fillText(y.labels[i], left - 5, Y(v));
    });
    const xt = niceTicks(x0, x1, Math.max(2, Math.floor(w / (fontSize * 7))), true);
    g.textAlign = 'center';
    g.textBaseline = 'top';
    let lastRight = -Infinity;
    for (const v of xt.ticks) {
      const x = crisp(X(v));
      g.moveTo(x, top);
      g.lineTo(x, top + h);
      const label = tickLabel(v, xt.step);
      const tw = g.measureText(label).width;
      const lx = Math.min(Math.max(X(v), tw / 2), this.cssW - tw / 2);
      if (lx - tw / 2 > lastRight + 4) {
        g.fillText(label, lx, top + h + 4);
        lastRight = lx + tw / 2;
      }
    }
    g.stroke();
    g.strokeStyle = this.resolve('var(--ap-axis, #888)');
    g.beginPath();
    g.moveTo(crisp(left), top);
    g.lineTo(crisp(left), crisp(top + h));
    g.lineTo(left + w, crisp(top + h));
    g.stroke();
  }

  /** One series, decimated to one column per CSS pixel: each column keeps its first, lowest,
   * highest and last value, so spikes survive and the cost follows the width, not the
   * history. A gap (a missing value) breaks the line; a lone point is a dot.
   * @private @param {{ key: string, color: string, dash: number[] }} s */
  drawSeries(s) {
    const g = this.g;
    const pts = this.points;
    const { left, top, w, h, x0, x1, y0, y1 } = this.layout;
    const kx = w / (x1 - x0);
    const yMin = -10 * this.cssH;
    const yMax = 11 * this.cssH;
    const Yc = (/** @type {number} */ v) => Math.min(yMax, Math.max(yMin, top + (1 - (v - y0) / (y1 - y0)) * h));
    const color = this.resolve(s.color);
    g.strokeStyle = color;
    g.fillStyle = color;
    g.setLineDash(s.dash);
    g.beginPath();
    let col = NaN;
    let nCol = 0;
    let fx = 0;
    let fv = 0;
    let lx = 0;
    let lv = 0;
    let mn = 0;
    let mx = 0;
    let mnAt = 0; // where in the column the lowest and the highest value came
    let mxAt = 0;
    let segLen = 0; // points drawn in the current unbroken segment
    let segX = 0;
    let segY = 0;
    const emit = (/** @type {number} */ x, /** @type {number} */ y) => {
      if (segLen === 0) {
        g.moveTo(x, y);
        segX = x;
        segY = y;
      } else g.lineTo(x, y);
      segLen++;
    };
    const flush = () => {
      if (nCol === 0) return;
      emit(fx, Yc(fv));
      if (nCol > 2) {
        const cx = (fx + lx) / 2;
        if (mnAt <= mxAt) {
          emit(cx, Yc(mn));
          emit(cx, Yc(mx));
        } else {
          emit(cx, Yc(mx));
          emit(cx, Yc(mn));
        }
      }
      if (nCol > 1) emit(lx, Yc(lv));
      nCol = 0;
    };
    const breakSegment = () => {
      flush();
      if (segLen === 1) g.fillRect(segX - 1.25, segY - 1.25, 2.5, 2.5); // a lone point
      segLen = 0;
    };
    for (let i = 0; i < pts.length; i++) {
      const p = pts[i];
      const step = p.step;
      if (!Number.isFinite(step)) continue;
      const v = p[s.key];
      if (!Number.isFinite(v)) {
        breakSegment();
        continue;
      }
      const x = left + (step - x0) * kx;
      const c = Math.floor(x);
      if (c !== col) {
        flush();
        col = c;
      }
      if (nCol === 0) {
        [fx, fv, mn, mx, mnAt, mxAt] = [x, v, v, v, 0, 0];
      } else {
        if (v < mn) [mn, mnAt] = [v, nCol];
        if (v > mx) [mx, mxAt] = [v, nCol];
      }
      lx = x;
      lv = v;
      nCol++;
    }
    breakSegment();
    g.stroke();
  }

  // ---- hover readout ---------------------------------------------------------------------

  /**
   * Index of the point whose step is nearest to `step`.
   * @private
   * @param {number} step
   */
  nearest(step) {
    const pts = this.points;
    let lo = 0;
    let hi = pts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (pts[mid].step < step) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0 && Math.abs(pts[lo - 1].step - step) <= Math.abs(pts[lo].step - step)) lo--;
    return lo;
  }

  /** @private */
  drawHover() {
    const hc = this.h;
    hc.setTransform(1, 0, 0, 1, 0, 0);
    hc.clearRect(0, 0, this.hoverCanvas.width, this.hoverCanvas.height);
    const L = this.layout;
    if (this.hoverX === null || this.points.length === 0) {
      this.readout.hidden = true;
      return;
    }
    const dpr = window.devicePixelRatio || 1;
    hc.setTransform(dpr, 0, 0, dpr, 0, 0);
    const step = L.x0 + ((this.hoverX - L.left) / L.w) * (L.x1 - L.x0);
    const p = this.points[this.nearest(step)];
    const x = L.left + ((p.step - L.x0) / (L.x1 - L.x0)) * L.w;
    const xs = (Math.round(x * dpr) + 0.5) / dpr;
    hc.strokeStyle = this.resolve('var(--ap-fg, #222)');
    hc.globalAlpha = 0.6;
    hc.lineWidth = 1 / dpr;
    hc.beginPath();
    hc.moveTo(xs, L.top);
    hc.lineTo(xs, L.top + L.h);
    hc.stroke();
    hc.globalAlpha = 1;
    const bg = this.resolve('var(--ap-bg, #fff)');
    for (const s of this.series) {
      const v = p[s.key];
      if (!Number.isFinite(v) || v < L.y0 || v > L.y1) continue;
      const y = L.top + (1 - (v - L.y0) / (L.y1 - L.y0)) * L.h;
      hc.beginPath();
      hc.arc(x, y, 3.5, 0, 2 * Math.PI);
      hc.fillStyle = this.resolve(s.color);
      hc.strokeStyle = bg;
      hc.lineWidth = 1.5;
      hc.fill();
      hc.stroke();
    }

    // The readout box: step, then one row per series.
    const r = this.readout;
    if (r.childElementCount !== this.series.length + 1) {
      r.textContent = '';
      el('div', 'ap-tooltip-head', r);
      for (const s of this.series) {
        const row = el('div', 'ap-tooltip-row', r);
        row.appendChild(swatch(s.color, s.dash));
        el('span', 'ap-tooltip-key', row).textContent = s.label;
        el('span', 'ap-tooltip-value', row);
      }
    }
    const head = `step ${p.step}`;
    if (r.children[0].textContent !== head) r.children[0].textContent = head;
    this.series.forEach((s, i) => {
      const val = /** @type {HTMLElement} */ (r.children[i + 1].lastElementChild);
      const text = this.format(p[s.key]);
      if (val.textContent !== text) val.textContent = text;
    });
    r.hidden = false;
    const rw = r.offsetWidth;
    let left = x + 10;
    if (left + rw > this.cssW) left = x - 10 - rw;
    r.style.left = `${Math.max(0, left)}px`;
    r.style.top = `${L.top + 2}px`;
  }

  /**
   * @private
   * @param {PointerEvent} e
   */
  onPointer(e) {
    const box = this.plot.getBoundingClientRect();
    const x = e.clientX - box.left;
    const L = this.layout;
    if (x < L.left - 4 || x > L.left + L.w + 4 || this.points.length === 0) {
      if (this.hoverX !== null) {
        this.hoverX = null;
        this.drawHover();
      }
      return;
    }
    this.hoverX = Math.max(L.left, Math.min(L.left + L.w, x));
    this.drawHover();
  }

  /**
   * @private
   * @param {PointerEvent} e
   */
  onLeave(e) {
    if (e.pointerType !== 'mouse') return; // touch: keep the readout until a tap elsewhere
    this.hoverX = null;
    this.drawHover();
  }

  /**
   * @private
   * @param {PointerEvent} e
   */
  onOutside(e) {
    if (this.hoverX !== null && e.target instanceof Node && !this.plot.contains(e.target)) {
      this.hoverX = null;
      this.drawHover();
    }
  }
}

/**
 * A short line sample in a series' colour and dash, for the legend and the readout.
 * @param {string} color
 * @param {number[]} dash
 * @returns {SVGSVGElement}
 */
function swatch(color, dash) {
  const NS = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(NS, 'svg');
  svg.setAttribute('class', 'ap-swatch');
  svg.setAttribute('viewBox', '0 0 28 8');
  svg.setAttribute('aria-hidden', 'true');
  const line = document.createElementNS(NS, 'line');
  line.setAttribute('x1', '1');
  line.setAttribute('y1', '4');
  line.setAttribute('x2', '27');
  line.setAttribute('y2', '4');
  line.setAttribute('stroke-width', String(LINE_WIDTH + 0.25));
  if (dash.length) line.setAttribute('stroke-dasharray', dash.join(' '));
  line.style.stroke = color;
  svg.appendChild(line);
  return svg;
}
