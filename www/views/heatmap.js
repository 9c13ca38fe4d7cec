// @ts-check
// The heatmap view of one matrix (an attention map, a probe's map): cells, axis labels,
// legend, the outline of marked cells (each row's marked cell, or whole columns) and the
// hover / touch / keyboard tooltip. What its rows, columns and values are is the caller's
// to say (a lab's views): the heatmap knows no lab.

import { colormapTable, cssGradient } from './colormap.js';
import { el } from '../ui/dom.js';

/**
 * @typedef {object} HeatmapOptions
 * @property {string} [title] shown above the cells
 * @property {HeatmapScale} scale what its values are
 * @property {string} [colormap='viridis'] a name from colormapNames
 * @property {HeatmapAxes} axes what its rows and columns are
 * @property {[number, number]} [aspect] the plot's width over its height is kept within
 *   these bounds (cells then are not square); by default cells are square
 */

/**
 * What a heatmap's rows and columns are, in words: each axis's title under or beside the
 * cells, and its name and symbol in the readout (`row`, `r`); and what a marked cell is.
 * @typedef {{ rowTitle: string, colTitle: string, row: [string, string], col: [string, string], mark: string }} HeatmapAxes
 */

/**
 * What a heatmap's values are: `share`, a fraction from 0 to 1 (shown as %, on a scale
 * from 0 to 1 unless told another), or `number` (two decimals of `unit`, on the scale of
 * the values' extent unless told another, and where a fixed scale is wider, the values'
 * own extent beside the legend); `name` says the map in words to assistive technology,
 * `symbol` in the readout, `legend` beside the colour bar.
 * @typedef {{ values: 'share' | 'number', name: string, symbol: string, legend: string, unit?: string }} HeatmapScale
 */


/**
 * @typedef {object} HeatmapData
 * @property {ArrayLike<number>} values rows × cols, row-major: values[t * cols + s]
 * @property {number} rows target steps (t)
 * @property {number} cols source positions (s)
 * @property {readonly string[]} [rowLabels] target token at each t (default: the index)
 * @property {readonly string[]} [colLabels] source token at each s (default: the index)
 * @property {ArrayLike<number>} [rowMarks] for each row, the column of its marked cell
 * @property {ArrayLike<number>} [marked] columns outlined over their whole height
 * @property {readonly [number, number] | null} [range] colour scale [min, max]; default: for
 *   shares [0, 1], for numbers the finite min / max of the values
 */

let nextId = 0;

/**
 * @param {readonly string[] | undefined} a
 * @param {readonly string[] | undefined} b
 */
function sameLabels(a, b) {
  if (a === b) return true;
  if (!a || !b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Whether the first `n` of `a` equal `b` (of length `n`), NaN equal to NaN.
 * @param {ArrayLike<number>} a @param {Float64Array} b @param {number} n */
function sameValues(a, b, n) {
  if (b.length !== n) return false;
  for (let i = 0; i < n; i++) {
    const x = a[i];
    const y = b[i];
    if (x !== y && (x === x || y === y)) return false;
  }
  return true;
}

/** @param {string} s */
function minus(s) {
  return s.replace(/^-/, '−');
}

export class Heatmap {
  /**
   * @param {HTMLElement} container the heatmap is appended to it
   * @param {HeatmapOptions} options
   */
  constructor(container, { title = '', scale, colormap = 'viridis', axes, aspect = [0, Infinity] }) {
    /** @readonly */ this.scale = scale;
    /** Whether its values are shares from 0 to 1 (shown as %). @private */
    this.shares = scale.values === 'share';
    /** @private */ this.axes = axes;
    /** @private */ this.aspect = aspect;
    /** @private */ this.cmapName = colormap;
    /** @private */ this.lut = colormapTable(colormap);
    /** @private */ this.showMarks = true;
    /** @private */ this.rows = 0;
    /** @private */ this.cols = 0;
    /** The matrix shown, (rows, cols): a copy, since a caller may refill its array.
     * @private @type {Float64Array} */ this.values = new Float64Array(0);
    /** @private */ this.stale = true;
    /** @private @type {readonly string[] | undefined} */ this.rowLabels = undefined;
    /** @private @type {readonly string[] | undefined} */ this.colLabels = undefined;
    /** @private @type {Int32Array} each row's marked column (−1: none) */ this.rowMarks = new Int32Array(0);
    /** @private @type {Int32Array} columns outlined whole */ this.marked = new Int32Array(0);
    /** @private */ this.min = 0;
    /** @private */ this.max = 1;
    /** Whether the colour scale is the caller's (fixed), not the values' extent. @private */
    this.fixed = false;
    /** The values' finite extent. @private @type {[number, number] | null} */
    this.extent = null;
    /** @private @type {ImageData | null} */ this.image = null;
    /** @private @type {{ r: number, c: number } | null} */ this.hover = null;
    /** @private */ this.hoverByKey = false;
    /** @private @type {{ x: number, y: number } | null} */ this.pointer = null;
    /** @private */ this.cssW = 0;
    /** @private */ this.cssH = 0;
    /** @private */ this.labelPx = { rowH: 0, colW: 0 };
    /** @private */ this.colStep = 1;
    /** @private */ this.needsMeasure = false;
    /** @private */ this.rowStep = 1;
    const id = `ap-heatmap-${nextId++}`;

    const root = el('figure', 'ap-heatmap', container);
    /** @readonly */ this.element = root;
    const caption = el('figcaption', 'ap-title', root);
    caption.textContent = title;
    caption.hidden = !title;

    const main = el('div', 'ap-heatmap-main', root);
    el('div', 'ap-heatmap-ytitle', main).textContent = axes.rowTitle;
    /** @private */ this.wrap = el('div', 'ap-heatmap-wrap', main);
    /** @private */ this.plot = el('div', 'ap-heatmap-plot', this.wrap);
    this.plot.tabIndex = 0;
    this.plot.setAttribute('role', 'group');
    this.plot.setAttribute('aria-roledescription', 'heatmap');
    this.plot.setAttribute('aria-describedby', `${id}-help`);

    /** @private */ this.cells = el('canvas', 'ap-heatmap-cells', this.plot);
    this.cells.width = 1;
    this.cells.height = 1;
    this.cells.setAttribute('role', 'img');
    this.cells.setAttribute('aria-label', `${scale.name}, no data`);
    const ctx = this.cells.getContext('2d');
    if (!ctx) throw new Error('2D canvas is not available');
    /** @private */ this.ctx = ctx;

    /** @private */ this.overlay = el('canvas', 'ap-heatmap-overlay', this.plot);
    this.overlay.setAttribute('aria-hidden', 'true');
    const octx = this.overlay.getContext('2d');
    if (!octx) throw new Error('2D canvas is not available');
    /** @private */ this.octx = octx;

    /** @private */ this.yLabels = el('div', 'ap-heatmap-ylabels', this.plot);
    /** @private */ this.xLabels = el('div', 'ap-heatmap-xlabels', this.plot);
    this.yLabels.setAttribute('aria-hidden', 'true');
    this.xLabels.setAttribute('aria-hidden', 'true');
    /** @private @type {HTMLSpanElement[]} */ this.rowSpans = [];
    /** @private @type {HTMLSpanElement[]} */ this.colSpans = [];

    el('div', 'ap-heatmap-xtitle', root).textContent = axes.colTitle;

    const legend = el('div', 'ap-legend', root);
    legend.setAttribute('aria-hidden', 'true');
    el('span', 'ap-legend-name', legend).textContent = scale.legend;
    /** @private */ this.legendMin = el('span', 'ap-legend-min', legend);
    /** @private */ this.legendBar = el('span', 'ap-legend-bar', legend);
    /** @private */ this.legendMax = el('span', 'ap-legend-max', legend);
    /** The values' own extent, where the scale is fixed and wider. @private */
    this.legendNow = el('span', 'ap-legend-now', legend);
    this.legendBar.style.background = cssGradient(colormap);

    /** @private */ this.tooltip = el('div', 'ap-tooltip', root);
    this.tooltip.setAttribute('role', 'tooltip');
    this.tooltip.hidden = true;

    const help = el('span', 'ap-visually-hidden', root);
    help.id = `${id}-help`;
    help.textContent = 'Arrow keys move between cells; Escape hides the readout.';
    /** @private */ this.live = el('span', 'ap-visually-hidden', root);
    this.live.setAttribute('aria-live', 'polite');

    /** @private */ this.resizeObserver = new ResizeObserver((entries) => {
      const box = entries[entries.length - 1].contentRect;
      this.cssW = box.width;
      this.cssH = box.height;
      if (this.needsMeasure && this.cssW > 0) this.measureLabels();
      this.layoutLabels();
      this.drawOverlay();
    });
    this.resizeObserver.observe(this.plot);

    this.onPointer = this.onPointer.bind(this);
    this.onLeave = this.onLeave.bind(this);
    this.onOutside = this.onOutside.bind(this);
    this.onKey = this.onKey.bind(this);
    this.onBlur = this.onBlur.bind(this);
    this.plot.addEventListener('pointermove', this.onPointer);
    this.plot.addEventListener('pointerdown', this.onPointer);
    this.plot.addEventListener('pointerleave', this.onLeave);
    this.plot.addEventListener('keydown', this.onKey);
    this.plot.addEventListener('blur', this.onBlur);
    document.addEventListener('pointerdown', this.onOutside);
    this.renderLegend();
  }

  /**
   * Draws a new matrix. Cheap when only the values change: labels are rebuilt only when they,
   * or the shape, change.
   * @param {HeatmapData} data
   */
  update({ values, rows, cols, rowLabels, colLabels, rowMarks, marked, range }) {
    if (!Number.isInteger(rows) || !Number.isInteger(cols) || rows < 0 || cols < 0) {
      throw new RangeError(`Heatmap: bad shape ${rows} × ${cols}`);
    }
    if (values.length < rows * cols) {
      throw new RangeError(`Heatmap: ${values.length} values for ${rows} × ${cols} cells`);
    }
    const reshaped = rows !== this.rows || cols !== this.cols;
    // A page redraws every frame, but α and β change only when the model is evaluated:
    // the same picture again is not painted again (nor its style read, which costs a
    // style recalculation), unless invalidate() said the page's colours changed.
    const n = rows * cols;
    let changed = reshaped || this.stale || !sameValues(values, this.values, n);
    this.stale = false;
    if (changed) {
      if (this.values.length !== n) this.values = new Float64Array(n);
      for (let i = 0; i < n; i++) this.values[i] = values[i];
    }
    if (reshaped) this.resize(rows, cols);

    if (this.rowMarks.length !== rows) {
      this.rowMarks = new Int32Array(rows);
      changed = true;
    }
    for (let r = 0; r < rows; r++) {
      const a = rowMarks && r < rowMarks.length ? rowMarks[r] : NaN;
      const c = Number.isInteger(a) && a >= 0 && a < cols ? a : -1;
      if (this.rowMarks[r] !== c) changed = true;
      this.rowMarks[r] = c;
    }
    const columns = Int32Array.from(marked ?? [], (c) => (Number.isInteger(c) && c >= 0 && c < cols ? c : -1));
    if (columns.length !== this.marked.length || columns.some((c, i) => c !== this.marked[i])) changed = true;
    this.marked = columns;

    const [lo, hi] = [this.min, this.max];
    this.setRange(range);
    if (this.min !== lo || this.max !== hi) changed = true;
    if (reshaped || !sameLabels(rowLabels, this.rowLabels) || !sameLabels(colLabels, this.colLabels)) {
      this.rowLabels = rowLabels ? rowLabels.slice() : undefined;
      this.colLabels = colLabels ? colLabels.slice() : undefined;
      this.buildLabels();
      changed = true;
    }
    if (!changed) return;
    this.paint();
    this.renderLegend();
    this.drawOverlay();
    if (this.hover) this.showTooltip(this.pointer?.x, this.pointer?.y);
  }

  /** The page's colours changed (its theme): the next update() redraws even the same matrix. */
  invalidate() {
    this.stale = true;
  }

  /**
   * Shows or hides the outline of the marked cells (shown at first).
   * @param {boolean} show
   */
  setShowMarks(show) {
    this.showMarks = !!show;
    this.drawOverlay();
    if (this.hover) this.showTooltip(this.pointer?.x, this.pointer?.y);
  }

  /**
   * Recolours with another colormap.
   * @param {string} name a name from colormapNames
   * @throws {RangeError} for an unknown name (the current colormap stays)
   */
  setColormap(name) {
    this.lut = colormapTable(name);
    this.cmapName = name;
    this.legendBar.style.background = cssGradient(name);
    this.paint();
  }

  /** Removes the heatmap from its container and drops its listeners. */
  destroy() {
    this.resizeObserver.disconnect();
    document.removeEventListener('pointerdown', this.onOutside);
    this.element.remove();
  }

  // ---- drawing ---------------------------------------------------------------------------

  /**
   * @private
   * @param {number} rows
   * @param {number} cols
   */
  resize(rows, cols) {
    this.rows = rows;
    this.cols = cols;
    this.hover = null;
    this.tooltip.hidden = true;
    const empty = rows === 0 || cols === 0;
    this.element.classList.toggle('ap-heatmap--empty', empty);
    this.cells.width = Math.max(1, cols);
    this.cells.height = Math.max(1, rows);
    this.image = empty ? null : this.ctx.createImageData(cols, rows);
    const [lo, hi] = this.aspect;
    this.plot.style.aspectRatio = empty ? '' : String(Math.min(hi, Math.max(lo, cols / rows)));
    this.cells.setAttribute(
      'aria-label',
      empty
        ? `${this.scale.name}, no data`
        : `${this.scale.name}, ${rows} ${this.axes.row[0]} row${rows === 1 ? '' : 's'} × ${cols} ${this.axes.col[0]} column${cols === 1 ? '' : 's'}`,
    );
  }

  /**
   * @private
   * @param {readonly [number, number] | null | undefined} range
   */
  setRange(range) {
    let lo = range ? range[0] : NaN;
    let hi = range ? range[1] : NaN;
    // The values' finite extent.
    let dlo = Infinity;
    let dhi = -Infinity;
    const v = this.values;
    for (let i = 0, n = this.rows * this.cols; i < n; i++) {
      const x = v[i];
      if (x < dlo && x !== -Infinity) dlo = x;
      if (x > dhi && x !== Infinity) dhi = x;
    }
    this.extent = dlo <= dhi ? [dlo, dhi] : null;
    this.fixed = Number.isFinite(lo) && Number.isFinite(hi) && hi > lo;
    if (!this.fixed) {
      if (this.shares && !range) {
        lo = 0;
        hi = 1;
      } else {
        lo = dlo;
        hi = dhi;
        if (!(lo <= hi)) {
          lo = 0; // no finite value
          hi = 1;
        } else if (lo === hi) {
          const pad = Math.abs(lo) > 1 ? Math.abs(lo) * 0.05 : 0.5;
          lo -= pad;
          hi += pad;
        }
      }
    }
    this.min = lo;
    this.max = hi;
  }

  /** @private */
  paint() {
    const img = this.image;
    if (!img) return;
    const px = img.data;
    const lut = this.lut;
    const top = lut.length / 4 - 1;
    const v = this.values;
    const lo = this.min;
    const k = top / (this.max - this.min);
    for (let i = 0, n = this.rows * this.cols; i < n; i++) {
      const x = v[i];
      const o = i * 4;
      if (x !== x) {
        px[o + 3] = 0; // NaN: transparent, the plot background shows through
        continue;
      }
      let j = Math.round((x - lo) * k);
      j = j < 0 ? 0 : j > top ? top : j;
      const q = j * 4;
      px[o] = lut[q];
      px[o + 1] = lut[q + 1];
      px[o + 2] = lut[q + 2];
      px[o + 3] = 255;
    }
    this.ctx.putImageData(img, 0, 0);
  }

  /** @private */
  drawOverlay() {
    const dpr = window.devicePixelRatio || 1;
    const w = Math.round(this.cssW * dpr);
    const h = Math.round(this.cssH * dpr);
    if (this.overlay.width !== w || this.overlay.height !== h) {
      this.overlay.width = w;
      this.overlay.height = h;
    }
    const g = this.octx;
    g.clearRect(0, 0, w, h);
    if (!this.image || w === 0 || h === 0) return;
    const cw = w / this.cols;
    const ch = h / this.rows;
    const style = getComputedStyle(this.element);
    if (this.showMarks) {
      this.strokeMarks(g, style, 0, 0, cw, ch, Math.max(1, Math.min(1.5 * dpr, Math.min(cw, ch) / 8)));
    }
    if (this.hover) {
      const { r, c } = this.hover;
      const lw = Math.max(1, 2 * dpr);
      const x0 = Math.round(c * cw);
      const y0 = Math.round(r * ch);
      const x1 = Math.round((c + 1) * cw);
      const y1 = Math.round((r + 1) * ch);
      g.lineWidth = lw;
      g.strokeStyle = style.getPropertyValue('--ap-hover').trim() || '#ff0';
      g.strokeRect(x0 - lw / 2, y0 - lw / 2, x1 - x0 + lw, y1 - y0 + lw);
      // Faint guides along the hovered row and column.
      g.fillStyle = 'rgba(255,255,255,0.12)';
      g.fillRect(0, y0, w, y1 - y0);
      g.fillRect(x0, 0, x1 - x0, h);
    }
  }

  /**
   * Outlines each row's marked cell on `g`, cells `cw` × `ch` from (x, y): a thin line of
   * dark and light dashes along the cell's edge, which reads on both ends of every colormap
   * and as an outline, not a filled cell, even on untrained (even) attention.
   * @private
   * @param {CanvasRenderingContext2D} g @param {CSSStyleDeclaration} style
   * @param {number} x @param {number} y @param {number} cw @param {number} ch @param {number} lw
   */
  strokeMarks(g, style, x, y, cw, ch, lw) {
    const dash = Math.max(2, Math.min(cw, ch) / 4);
    for (const [color, offset] of /** @type {[string, number][]} */ ([
      [style.getPropertyValue('--ap-mark-halo').trim() || 'rgba(0,0,0,.6)', 0],
      [style.getPropertyValue('--ap-mark').trim() || '#fff', dash],
    ])) {
      g.strokeStyle = color;
      g.lineWidth = lw;
      g.setLineDash([dash, dash]);
      g.lineDashOffset = offset;
      g.beginPath();
      for (let r = 0; r < this.rows; r++) {
        const c = this.rowMarks[r];
        if (c < 0) continue;
        const x0 = x + Math.round(c * cw);
        const y0 = y + Math.round(r * ch);
        const x1 = x + Math.round((c + 1) * cw);
        const y1 = y + Math.round((r + 1) * ch);
        g.rect(x0 + lw / 2, y0 + lw / 2, x1 - x0 - lw, y1 - y0 - lw);
      }
      for (const c of this.marked) {
        if (c < 0) continue;
        const x0 = x + Math.round(c * cw);
        const x1 = x + Math.round((c + 1) * cw);
        g.rect(x0 + lw / 2, y + lw / 2, Math.max(lw, x1 - x0 - lw), Math.round(this.rows * ch) - lw);
      }
      g.stroke();
    }
    g.setLineDash([]);
    g.lineDashOffset = 0;
  }

  /** @private */
  renderLegend() {
    const lo = this.format(this.min);
    const hi = this.format(this.max);
    if (this.legendMin.textContent !== lo) this.legendMin.textContent = lo;
    if (this.legendMax.textContent !== hi) this.legendMax.textContent = hi;
    // Numbers on a fixed scale: where this frame's values lie on it.
    const e = this.extent;
    const now = !this.shares && this.fixed && e ? `now ${this.format(e[0])} to ${this.format(e[1])}` : '';
    if (this.legendNow.textContent !== now) this.legendNow.textContent = now;
  }

  /**
   * @private
   * @param {number} v
   */
  format(v) {
    if (Number.isNaN(v)) return 'NaN';
    if (!Number.isFinite(v)) return v > 0 ? '+∞' : '−∞';
    if (this.shares) {
      const p = v * 100;
      const a = Math.abs(p);
      if (a === 0) return '0%';
      if (a < 0.01) return p > 0 ? '<0.01%' : '>−0.01%';
      return `${minus(p.toFixed(a < 1 ? 2 : 1).replace(/\.0+$/, ''))}%`;
    }
    return Math.abs(v) < 0.005 ? '0.00' : minus(v.toFixed(2));
  }

  /**
   * The heatmap as a standalone picture for export: title, cells (one block of `cell`
   * pixels each), the marks' outline, every k-th axis label and the colour legend, on the
   * page's background.
   * @param {number} [cell] pixels per cell (default: as large as shown, at least 12)
   * @returns {HTMLCanvasElement}
   */
  toCanvas(cell) {
    const dpr = window.devicePixelRatio || 1;
    const style = getComputedStyle(this.element);
    const size = Math.max(12, Math.round(cell ?? Math.min(this.cssW / Math.max(1, this.cols), this.cssH / Math.max(1, this.rows)) * dpr));
    const font = style.fontFamily || 'sans-serif';
    const px = (/** @type {number} */ n) => Math.round(n * dpr);
    const out = document.createElement('canvas');
    const g = /** @type {CanvasRenderingContext2D} */ (out.getContext('2d'));
    g.font = `${px(11)}px ${font}`;
    const label = (/** @type {readonly string[] | undefined} */ l, /** @type {number} */ i) => (l && i < l.length ? l[i] : String(i));
    let rowW = 0;
    for (let r = 0; r < this.rows; r++) rowW = Math.max(rowW, g.measureText(label(this.rowLabels, r)).width);
    const left = Math.ceil(rowW) + px(24);
    const top = px(28);
    const w = this.cols * size;
    const h = this.rows * size;
    out.width = left + w + px(12);
    out.height = top + h + px(64);
    g.fillStyle = getComputedStyle(document.body).backgroundColor || '#fff';
    g.fillRect(0, 0, out.width, out.height);
    const fg = style.color || '#222';
    g.fillStyle = fg;
    g.font = `600 ${px(14)}px ${font}`;
    g.textBaseline = 'top';
    g.fillText(/** @type {string} */ (this.element.querySelector('.ap-title')?.textContent), px(4), px(4));
    // Cells: the painted image, one pixel per cell, scaled up without smoothing.
    g.imageSmoothingEnabled = false;
    if (this.image) g.drawImage(this.cells, left, top, w, h);
    if (this.showMarks) this.strokeMarks(g, style, left, top, size, size, Math.max(1, Math.min(px(1.5), size / 8)));
    g.font = `${px(11)}px ${font}`;
    g.fillStyle = fg;
    g.textBaseline = 'middle';
    g.textAlign = 'right';
    const rowStep = Math.max(1, Math.ceil(px(13) / size));
    for (let r = 0; r < this.rows; r += rowStep) g.fillText(label(this.rowLabels, r), left - px(4), top + (r + 0.5) * size);
    g.textAlign = 'center';
    g.textBaseline = 'top';
    let colW = 0;
    for (let c = 0; c < this.cols; c++) colW = Math.max(colW, g.measureText(label(this.colLabels, c)).width);
    const colStep = Math.max(1, Math.ceil((colW + px(4)) / size));
    for (let c = 0; c < this.cols; c += colStep) g.fillText(label(this.colLabels, c), left + (c + 0.5) * size, top + h + px(3));
    g.fillText(this.axes.colTitle, left + w / 2, top + h + px(18));
    g.save();
    g.translate(px(8), top + h / 2);
    g.rotate(-Math.PI / 2);
    g.fillText(this.axes.rowTitle, 0, -px(6));
    g.restore();
    // Legend: the symbol and the low end, the colour bar, the high end.
    const barY = top + h + px(38);
    g.fillStyle = fg;
    g.textAlign = 'left';
    const low = `${this.scale.symbol} ${this.format(this.min)}`;
    const barX = px(4) + g.measureText(low).width + px(6);
    g.fillText(low, px(4), barY - px(1));
    const barW = Math.max(px(60), Math.min(w - barX + left - px(60), px(160)));
    const lut = this.lut;
    const n = lut.length / 4;
    for (let i = 0; i < barW; i++) {
      const j = Math.round((i / Math.max(1, barW - 1)) * (n - 1)) * 4;
      g.fillStyle = `rgb(${lut[j]}, ${lut[j + 1]}, ${lut[j + 2]})`;
      g.fillRect(barX + i, barY, 1, px(10));
    }
    g.fillStyle = fg;
    g.fillText(this.format(this.max), barX + barW + px(6), barY - px(1));
    return out;
  }

  // ---- labels ----------------------------------------------------------------------------

  /** @private */
  buildLabels() {
    /**
     * @param {HTMLElement} box
     * @param {number} n
     * @param {readonly string[] | undefined} labels
     * @param {'top' | 'left'} side
     */
    const build = (box, n, labels, side) => {
      box.textContent = '';
      /** @type {HTMLSpanElement[]} */
      const spans = [];
      const frag = document.createDocumentFragment();
      for (let i = 0; i < n; i++) {
        const s = document.createElement('span');
        s.textContent = labels && i < labels.length ? labels[i] : String(i);
        s.style[side] = `${((i + 0.5) / n) * 100}%`;
        frag.appendChild(s);
        spans.push(s);
      }
      box.appendChild(frag);
      return spans;
    };
    this.rowSpans = build(this.yLabels, this.rows, this.rowLabels, 'top');
    this.colSpans = build(this.xLabels, this.cols, this.colLabels, 'left');
    this.measureLabels();
  }

  /** @private */
  measureLabels() {
    // Measure once per label set: the widest row label sets the left margin, the widest
    // column label the spacing of the column labels.
    let rowW = 0;
    let colW = 0;
    let lineH = 0;
    for (const s of this.rowSpans) rowW = Math.max(rowW, s.offsetWidth);
    for (const s of this.colSpans) colW = Math.max(colW, s.offsetWidth);
    for (const s of this.rowSpans) lineH = Math.max(lineH, s.offsetHeight);
    this.element.style.setProperty('--ap-rowlabel-w', `${Math.ceil(rowW)}px`);
    this.element.style.setProperty('--ap-collabel-w', `${Math.ceil(colW)}px`);
    this.labelPx = { rowH: lineH || 12, colW: colW || 8 };
    // Not rendered yet (e.g. inside a hidden panel): measure again once it has a size.
    this.needsMeasure = this.rows > 0 && lineH === 0;
    this.rowStep = 0;
    this.colStep = 0;
    this.layoutLabels();
  }

  /** Shows every k-th label so that neighbours never overlap. @private */
  layoutLabels() {
    if (!this.rows || !this.cols || !this.cssW) return;
    const cellW = this.cssW / this.cols;
    const cellH = this.cssH / this.rows;
    const rowStep = Math.max(1, Math.ceil((this.labelPx.rowH * 0.9) / cellH));
    const colStep = Math.max(1, Math.ceil((this.labelPx.colW + 4) / cellW));
    if (rowStep !== this.rowStep) {
      this.rowStep = rowStep;
      this.rowSpans.forEach((s, i) => {
        s.hidden = i % rowStep !== 0;
      });
    }
    if (colStep !== this.colStep) {
      this.colStep = colStep;
      this.colSpans.forEach((s, i) => {
        s.hidden = i % colStep !== 0;
      });
    }
  }

  // ---- tooltip ---------------------------------------------------------------------------

  /**
   * @private
   * @param {PointerEvent} e
   */
  onPointer(e) {
    if (!this.image) return;
    const box = this.plot.getBoundingClientRect();
    const x = e.clientX - box.left;
    const y = e.clientY - box.top;
    if (x < 0 || y < 0 || x >= box.width || y >= box.height) {
      if (e.pointerType === 'mouse') this.onLeave(e);
      return;
    }
    const c = Math.min(this.cols - 1, Math.floor((x / box.width) * this.cols));
    const r = Math.min(this.rows - 1, Math.floor((y / box.height) * this.rows));
    this.hoverByKey = false;
    this.pointer = { x, y };
    if (!this.hover || this.hover.r !== r || this.hover.c !== c) {
      this.hover = { r, c };
      this.drawOverlay();
    }
    this.showTooltip(x, y);
  }

  /**
   * @private
   * @param {PointerEvent} e
   */
  onLeave(e) {
    // A lifted finger leaves the element too: keep the readout until the next tap elsewhere.
    if (e.pointerType !== 'mouse') return;
    this.hideTooltip();
  }

  /**
   * @private
   * @param {PointerEvent} e
   */
  onOutside(e) {
    if (this.hover && e.target instanceof Node && !this.plot.contains(e.target)) this.hideTooltip();
  }

  /** @private */
  onBlur() {
    if (this.hoverByKey) this.hideTooltip();
  }

  /**
   * @private
   * @param {KeyboardEvent} e
   */
  onKey(e) {
    if (!this.image) return;
    if (e.key === 'Escape') {
      this.hideTooltip();
      return;
    }
    /** @type {Record<string, [number, number]>} */
    const moves = {
      ArrowUp: [-1, 0],
      ArrowDown: [1, 0],
      ArrowLeft: [0, -1],
      ArrowRight: [0, 1],
      Home: [0, -Infinity],
      End: [0, Infinity],
    };
    const m = moves[e.key];
    if (!m) return;
    e.preventDefault();
    const at = this.hover ?? { r: 0, c: this.rowMarks[0] >= 0 ? this.rowMarks[0] : 0 };
    const r = this.hover ? Math.max(0, Math.min(this.rows - 1, at.r + m[0])) : at.r;
    const c = this.hover ? Math.max(0, Math.min(this.cols - 1, at.c + m[1])) : at.c;
    this.hover = { r, c };
    this.hoverByKey = true;
    this.pointer = null;
    this.drawOverlay();
    this.live.textContent = this.showTooltip()
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
  }

  /** @private */
  hideTooltip() {
    if (!this.hover && this.tooltip.hidden) return;
    this.hover = null;
    this.hoverByKey = false;
    this.pointer = null;
    this.tooltip.hidden = true;
    this.drawOverlay();
  }

  /**
   * Fills the tooltip for the hovered cell and places it near (x, y) in plot pixels, or near
   * the cell itself when no point is given.
   * @private
   * @param {number} [x]
   * @param {number} [y]
   * @returns {[string, string][]} the lines shown, as [key, value]
   */
  showTooltip(x, y) {
    const hv = this.hover;
    if (!hv) return [];
    const { r, c } = hv;
    const v = this.values[r * this.cols + c];
    const tok = (/** @type {readonly string[] | undefined} */ labels, /** @type {number} */ i) =>
      labels && i < labels.length ? labels[i] : '';
    const a = this.rowMarks[r];
    const { row: [rowName, rowVar], col: [colName, colVar], mark } = this.axes;
    // Marked columns whose marks are hidden are not told (a class guesses them first).
    const isMarked = this.showMarks && this.marked.includes(c);
    /** @type {[string, string][]} */
    const lines = [
      [this.scale.symbol, this.shares || !this.scale.unit ? this.format(v) : `${this.format(v)} ${this.scale.unit}`],
      [rowName, `${rowVar} = ${r}  “${tok(this.rowLabels, r)}”`],
      [colName, `${colVar} = ${c}  “${tok(this.colLabels, c)}”`],
      this.marked.length
        ? [mark, this.showMarks ? (isMarked ? 'yes' : 'no') : 'not shown']
        : [mark, a < 0 ? 'unknown' : a === c ? `yes, ${colVar} is the ${mark} position` : `no (${mark} ${colVar} = ${a})`],
    ];
    const t = this.tooltip;
    if (t.childElementCount !== lines.length) {
      t.textContent = '';
      for (let i = 0; i < lines.length; i++) {
        const row = el('div', 'ap-tooltip-row', t);
        el('span', 'ap-tooltip-key', row);
        el('span', 'ap-tooltip-value', row);
      }
    }
    for (let i = 0; i < lines.length; i++) {
      const row = /** @type {HTMLElement} */ (t.children[i]);
      const k = /** @type {HTMLElement} */ (row.children[0]);
      const val = /** @type {HTMLElement} */ (row.children[1]);
      if (k.textContent !== lines[i][0]) k.textContent = lines[i][0];
      if (val.textContent !== lines[i][1]) val.textContent = lines[i][1];
    }
    t.classList.toggle('ap-tooltip--marked', this.marked.length ? isMarked : a === c);
    t.hidden = false;

    // Place it inside the figure, beside the pointer (or the cell), flipping at the edges.
    const fig = this.element.getBoundingClientRect();
    const plot = this.plot.getBoundingClientRect();
    const cw = plot.width / this.cols;
    const ch = plot.height / this.rows;
    const px = plot.left - fig.left + (x ?? (c + 1) * cw);
    const py = plot.top - fig.top + (y ?? (r + 1) * ch);
    const tw = t.offsetWidth;
    const th = t.offsetHeight;
    const gap = 12;
    let left = px + gap;
    if (left + tw > fig.width) left = px - gap - tw - (x === undefined ? cw : 0);
    let top = py + gap;
    if (top + th > fig.height) top = py - gap - th - (y === undefined ? ch : 0);
    t.style.left = `${Math.max(0, Math.min(left, fig.width - tw))}px`;
    t.style.top = `${Math.max(0, top)}px`;
    return lines;
  }
}
