// @ts-check
// The chart of a sweep: one thin curve per seed over the training steps, coloured by the
// seed's outcome, the threshold drawn across, and below it a strip of each seed's latest
// value. A pointer over a curve names its seed; a click on it, or Enter on the chart after
// choosing a seed with the arrow keys, opens that seed. Draws only when given new curves
// or when its size or colours change.

import { Colors } from '../views/colors.js';

/**
 * One seed's curve: its points (step, value) in step order, its outcome's colour (a CSS
 * colour or `var(--name)`) and what the readout says of it.
 * @typedef {{ seed: number, steps: Float64Array | number[], values: Float64Array | number[], color: string, words: string }} SeedCurve
 */

/**
 * @typedef {{ curves: SeedCurve[], steps: number, threshold: number, label: string,
 *   shown: number | null }} SweepChartData
 * `steps`: the x axis's end; `threshold`: drawn across; `label`: the metric's words;
 * `shown`: the seed on screen as the run, drawn thick.
 */

const PAD = { left: 34, right: 8, top: 8, bottom: 22 };
const STRIP_H = 26;

export class SweepChart {
  /**
   * @param {HTMLElement} parent
   * @param {{ onOpen: (seed: number) => void }} o
   */
  constructor(parent, { onOpen }) {
    /** @private */ this.onOpen = onOpen;
    /** @private */ this.root = document.createElement('figure');
    this.root.className = 'ap-sweep-chart';
    parent.append(this.root);
    /** @private */ this.plot = document.createElement('div');
    this.plot.className = 'ap-sweep-plot';
    this.plot.tabIndex = 0;
    this.plot.setAttribute('role', 'img');
    /** @private */ this.canvas = document.createElement('canvas');
    /** @private */ this.readout = document.createElement('div');
    this.readout.className = 'ap-tooltip ap-chart-readout';
    this.readout.hidden = true;
    /** What the keys chose, read out. @private */ this.said = document.createElement('span');
    this.said.className = 'ap-visually-hidden';
    this.said.setAttribute('aria-live', 'polite');
    this.plot.append(this.canvas, this.readout, this.said);
    this.root.append(this.plot);
    /** @private */ this.g = /** @type {CanvasRenderingContext2D} */ (this.canvas.getContext('2d'));
    /** @private */ this.colors = new Colors(this.root);
    /** @private @type {SweepChartData | null} */ this.data = null;
    /** The seed under the pointer or chosen by the keys. @private @type {number | null} */
    this.hover = null;
    /** @private */ this.w = 0;
    /** @private */ this.h = 0;
    /** @private */ this.resize = new ResizeObserver((entries) => {
      const box = entries[entries.length - 1].contentRect;
      this.w = box.width;
      this.h = box.height;
      this.draw();
    });
    this.resize.observe(this.plot);
    this.plot.addEventListener('pointermove', (e) => this.point(e));
    this.plot.addEventListener('pointerleave', () => this.choose(null));
    this.plot.addEventListener('click', (e) => {
      this.point(e);
      if (this.hover !== null) this.onOpen(this.hover);
    });
    this.plot.addEventListener('keydown', (e) => this.key(e));
    this.plot.addEventListener('blur', () => this.choose(null));
  }

  /** New curves (the owner gives new arrays when they change). @param {SweepChartData} data */
  update(data) {
    this.data = data;
    const c = data.curves.find((k) => k.seed === this.hover);
    if (c) this.readout.textContent = `seed ${c.seed}: ${c.words}`;
    this.draw();
    this.plot.setAttribute('aria-label', `${data.label} of ${data.curves.length} seeds over ${data.steps} steps; `
      + 'arrow keys choose a seed, Enter opens it');
  }

  /** The page's colours changed. */
  invalidate() {
    this.colors.clear();
    this.draw();
  }

  /** @private @param {string} color */
  color(color) {
    return this.colors.resolve(color);
  }

  /** The plot's area in CSS pixels (the strip below it). @private */
  area() {
    return { x0: PAD.left, x1: this.w - PAD.right, y0: PAD.top, y1: this.h - PAD.bottom - STRIP_H };
  }

  /** @private */
  draw() {
    const { w, h, g, data } = this;
    if (w <= 0 || h <= 0) return;
    const dpr = window.devicePixelRatio || 1;
    const cw = Math.round(w * dpr);
    const ch = Math.round(h * dpr);
    if (this.canvas.width !== cw || this.canvas.height !== ch) {
      this.canvas.width = cw;
      this.canvas.height = ch;
    }
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, w, h);
    const a = this.area();
    if (a.x1 <= a.x0 || a.y1 <= a.y0 || !data) return;
    const sx = (/** @type {number} */ s) => a.x0 + (s / Math.max(1, data.steps)) * (a.x1 - a.x0);
    const sy = (/** @type {number} */ v) => a.y1 - v * (a.y1 - a.y0);
    // Axes: 0, 50%, 100% and the threshold; steps at the ends and the middle.
    g.font = `11px ${getComputedStyle(this.root).fontFamily || 'sans-serif'}`;
    g.fillStyle = this.color('var(--ap-muted, #666)');
    g.strokeStyle = this.color('var(--ap-grid, #ddd)');
    g.lineWidth = 1;
    g.textAlign = 'right';
    g.textBaseline = 'middle';
    for (const v of [0, 0.5, 1]) {
      g.beginPath();
      g.moveTo(a.x0, sy(v));
      g.lineTo(a.x1, sy(v));
      g.stroke();
      g.fillText(`${v * 100}%`, a.x0 - 4, sy(v));
    }
    g.setLineDash([4, 3]);
    g.strokeStyle = this.color('var(--ap-axis, #888)');
    g.beginPath();
    g.moveTo(a.x0, sy(data.threshold));
    g.lineTo(a.x1, sy(data.threshold));
    g.stroke();
    g.setLineDash([]);
    g.textAlign = 'center';
    g.textBaseline = 'top';
    for (const s of [0, data.steps / 2, data.steps]) g.fillText(String(Math.round(s)), sx(s), a.y1 + 4);
    // The curves, the highlighted ones last (on top).
    const top = [this.hover, data.shown];
    const order = [...data.curves].sort((p, q) => Number(top.includes(p.seed)) - Number(top.includes(q.seed)));
    for (const c of order) {
      const strong = top.includes(c.seed);
      g.strokeStyle = this.color(c.color);
      g.globalAlpha = strong || this.hover === null ? 0.85 : 0.35;
      g.lineWidth = strong ? 2.75 : 1.25;
      g.beginPath();
      for (let i = 0; i < c.steps.length; i++) {
        const x = sx(c.steps[i]);
        const y = sy(c.values[i]);
        if (i === 0) g.moveTo(x, y);
        else g.lineTo(x, y);
      }
      g.stroke();
    }
    g.globalAlpha = 1;
    // The strip: each seed's latest value on the same 0–1 scale, across.
    const ty = this.h - STRIP_H / 2 - 2;
    g.strokeStyle = this.color('var(--ap-grid, #ddd)');
    g.beginPath();
    g.moveTo(a.x0, ty);
    g.lineTo(a.x1, ty);
    g.stroke();
    g.fillStyle = this.color('var(--ap-muted, #666)');
    g.textAlign = 'right';
    g.textBaseline = 'middle';
    g.fillText('now', a.x0 - 4, ty);
    const bx = (/** @type {number} */ v) => a.x0 + v * (a.x1 - a.x0);
    data.curves.forEach((c, i) => {
      const v = c.values.at(-1);
      if (v === undefined) return;
      g.fillStyle = this.color(c.color);
      g.beginPath();
      g.arc(bx(v), ty + ((i % 5) - 2) * 2.5, top.includes(c.seed) ? 4 : 2.75, 0, 2 * Math.PI);
      g.fill();
    });
  }

  /** The curve nearest the pointer, within 8 px. @private @param {PointerEvent | MouseEvent} e */
  point(e) {
    const data = this.data;
    if (!data) return;
    const r = this.plot.getBoundingClientRect();
    const x = e.clientX - r.left;
    const y = e.clientY - r.top;
    const a = this.area();
    const step = ((x - a.x0) / (a.x1 - a.x0)) * data.steps;
    let best = null;
    let dist = 8;
    for (const c of data.curves) {
      const v = valueAt(c, step);
      if (v === null) continue;
      const d = Math.abs(a.y1 - v * (a.y1 - a.y0) - y);
      if (d < dist) {
        dist = d;
        best = c.seed;
      }
    }
    this.choose(best, x, y);
  }

  /** Arrow keys choose a seed, Enter or Space opens it, Escape lets go. @private @param {KeyboardEvent} e */
  key(e) {
    const curves = this.data?.curves ?? [];
    if (!curves.length) return;
    const i = curves.findIndex((c) => c.seed === this.hover);
    const n = curves.length;
    if (e.key === 'ArrowRight' || e.key === 'ArrowDown') this.choose(curves[(i + 1) % n].seed);
    else if (e.key === 'ArrowLeft' || e.key === 'ArrowUp') this.choose(curves[i < 0 ? n - 1 : (i - 1 + n) % n].seed);
    else if (e.key === 'Enter' || e.key === ' ') {
      // Space here is the chart's, never the page's play shortcut.
      if (this.hover !== null) this.onOpen(this.hover);
    } else if (e.key === 'Escape') this.choose(null);
    else return;
    if (e.key.startsWith('Arrow')) this.said.textContent = this.readout.textContent;
    e.preventDefault();
    e.stopPropagation();
  }

  /** Highlights seed `seed` (null: none) and says what it is beside (x, y), or at the
   * plot's top left. @private @param {number | null} seed @param {number} [x] @param {number} [y] */
  choose(seed, x, y) {
    const c = this.data?.curves.find((k) => k.seed === seed);
    this.hover = c ? c.seed : null;
    this.readout.hidden = !c;
    if (c) {
      this.readout.textContent = `seed ${c.seed}: ${c.words}`;
      this.readout.style.left = `${Math.min((x ?? PAD.left) + 10, Math.max(0, this.w - 200))}px`;
      this.readout.style.top = `${Math.max(0, (y ?? PAD.top) - 30)}px`;
    }
    this.plot.style.cursor = c ? 'pointer' : '';
    this.draw();
  }

  destroy() {
    this.resize.disconnect();
    this.root.remove();
  }
}

/** The curve's value at `step` (linear between its points), null outside them.
 * @param {SeedCurve} c @param {number} step */
function valueAt(c, step) {
  const n = c.steps.length;
  if (n === 0 || step < c.steps[0] || step > c.steps[n - 1]) return null;
  let i = 1;
  while (i < n && c.steps[i] < step) i++;
  if (i >= n) return c.values[n - 1];
  const [s0, s1] = [c.steps[i - 1], c.steps[i]];
  const t = s1 > s0 ? (step - s0) / (s1 - s0) : 0;
  return c.values[i - 1] + t * (c.values[i] - c.values[i - 1]);
}
