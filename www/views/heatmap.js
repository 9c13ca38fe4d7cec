// @ts-check
// The heatmap view of one matrix (an attention map, a probe's map): cells, axis labels,
// legend, the outline of marked cells (each row's marked cell, or whole columns) and the
// hover / touch / keyboard tooltip. What its rows, columns and values are is the caller's
// to say (a lab's views): the heatmap knows no lab. This file holds its state and public
// API; the parts live beside it: heatmap-types.js (what callers pass), heatmap-dom.js (its
// elements), heatmap-scale.js (colour scale, value format), heatmap-cells.js (canvas drawing),
// heatmap-axes.js (labels, legend), heatmap-readout.js (tooltip), heatmap-keys.js (keyboard,
// accessibility), heatmap-export.js (toCanvas).

import { colormapTable, cssGradient } from './colormap.js';
import { formatValue, scaleRange } from './heatmap-scale.js';
import { paintCells, paintOverlay } from './heatmap-cells.js';
import { buildLabelSpans, labelSteps, measureLabelSpans, renderLegendTexts, showEvery } from './heatmap-axes.js';
import { cellAt, fillTooltip, placeTooltip, readoutLines } from './heatmap-readout.js';
import { cellsLabel, keyMove, spoken } from './heatmap-keys.js';
import { buildHeatmapDom } from './heatmap-dom.js';
import { heatmapCanvas } from './heatmap-export.js';

/** @typedef {import('./heatmap-types.js').HeatmapOptions} HeatmapOptions */
/** @typedef {import('./heatmap-types.js').HeatmapAxes} HeatmapAxes */
/** @typedef {import('./heatmap-types.js').HeatmapScale} HeatmapScale */
/** @typedef {import('./heatmap-types.js').HeatmapData} HeatmapData */

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
    const dom = buildHeatmapDom(container, title, scale, axes, colormap);
    /** @readonly */ this.element = dom.root;
    /** @private */ this.wrap = dom.wrap;
    /** @private */ this.plot = dom.plot;
    /** @private */ this.cells = dom.cells;
    /** @private */ this.ctx = dom.ctx;
    /** @private */ this.overlay = dom.overlay;
    /** @private */ this.octx = dom.octx;
    /** @private */ this.yLabels = dom.yLabels;
    /** @private */ this.xLabels = dom.xLabels;
    /** @private @type {HTMLSpanElement[]} */ this.rowSpans = [];
    /** @private @type {HTMLSpanElement[]} */ this.colSpans = [];
    /** The legend's low end, bar, high end and (`now`) the values' own extent, where the
     * scale is fixed and wider. @private */
    this.legend = dom.legend;
    /** @private */ this.tooltip = dom.tooltip;
    /** @private */ this.live = dom.live;

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
    this.legend.bar.style.background = cssGradient(name);
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
    this.cells.setAttribute('aria-label', cellsLabel(this.scale, this.axes, rows, cols));
  }

  /**
   * @private
   * @param {readonly [number, number] | null | undefined} range
   */
  setRange(range) {
    const s = scaleRange(this.values, this.rows * this.cols, range, this.shares);
    this.extent = s.extent;
    this.fixed = s.fixed;
    this.min = s.min;
    this.max = s.max;
  }

  /** @private */
  paint() {
    const img = this.image;
    if (!img) return;
    paintCells(this.ctx, img, this.lut, this.values, this.rows * this.cols, this.min, this.max);
  }

  /** @private */
  drawOverlay() {
    paintOverlay(this.parts());
  }

  /** What the parts draw and read from: its elements and state, now. @private */
  parts() {
    const { overlay, octx: g, element, cells, image, rows, cols, cssW, cssH, values, rowLabels, colLabels } = this;
    const { rowMarks, marked, showMarks, shares, hover, axes, scale, lut, min, max } = this;
    const format = (/** @type {number} */ v) => this.format(v);
    return {
      overlay, g, element, cells, image, rows, cols, cssW, cssH, values, rowLabels, colLabels,
      rowMarks, marked, showMarks, shares, hover, axes, scale, lut, min, max, format,
    };
  }

  /** @private */
  renderLegend() {
    // Numbers on a fixed scale: where this frame's values lie on it.
    const e = this.extent;
    const now = !this.shares && this.fixed && e ? `now ${this.format(e[0])} to ${this.format(e[1])}` : '';
    renderLegendTexts(this.legend, this.format(this.min), this.format(this.max), now);
  }

  /**
   * @private
   * @param {number} v
   */
  format(v) {
    return formatValue(v, this.shares);
  }

  /**
   * The heatmap as a standalone picture for export: title, cells (one block of `cell`
   * pixels each), the marks' outline, every k-th axis label and the colour legend, on the
   * page's background.
   * @param {number} [cell] pixels per cell (default: as large as shown, at least 12)
   * @returns {HTMLCanvasElement}
   */
  toCanvas(cell) {
    return heatmapCanvas(this.parts(), cell);
  }

  // ---- labels ----------------------------------------------------------------------------

  /** @private */
  buildLabels() {
    this.rowSpans = buildLabelSpans(this.yLabels, this.rows, this.rowLabels, 'top');
    this.colSpans = buildLabelSpans(this.xLabels, this.cols, this.colLabels, 'left');
    this.measureLabels();
  }

  /** @private */
  measureLabels() {
    // Measure once per label set: the widest row label sets the left margin, the widest
    // column label the spacing of the column labels.
    const { rowW, colW, lineH } = measureLabelSpans(this.rowSpans, this.colSpans);
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
    const { rowStep, colStep } = labelSteps(this.labelPx, cellW, cellH);
    if (rowStep !== this.rowStep) {
      this.rowStep = rowStep;
      showEvery(this.rowSpans, rowStep);
    }
    if (colStep !== this.colStep) {
      this.colStep = colStep;
      showEvery(this.colSpans, colStep);
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
    const { r, c } = cellAt(x, y, box, this.rows, this.cols);
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
    const next = keyMove(e.key, this.hover, this.rowMarks, this.rows, this.cols);
    if (!next) return;
    e.preventDefault();
    this.hover = next;
    this.hoverByKey = true;
    this.pointer = null;
    this.drawOverlay();
    this.live.textContent = spoken(this.showTooltip());
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
    const { lines, isMarkedCell } = readoutLines(this.parts(), r, c);
    fillTooltip(this.tooltip, lines, isMarkedCell);
    placeTooltip(this.tooltip, this.element, this.plot, this.rows, this.cols, r, c, x, y);
    return lines;
  }
}
