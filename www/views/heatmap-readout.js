// @ts-check
// The heatmap's readout of one cell (hover, touch or keyboard): the cell under a pointer,
// the tooltip's lines (value, row, column, whether marked), filling it and placing it.

import { el } from '../ui/dom.js';

/**
 * The cell under (x, y), in plot pixels, of a plot `box` of rows × cols cells.
 * @param {number} x @param {number} y @param {DOMRect} box @param {number} rows @param {number} cols
 */
export function cellAt(x, y, box, rows, cols) {
  const c = Math.min(cols - 1, Math.floor((x / box.width) * cols));
  const r = Math.min(rows - 1, Math.floor((y / box.height) * rows));
  return { r, c };
}

/**
 * What the readout says of cell (r, c).
 * @typedef {{
 *   values: Float64Array, cols: number, rowLabels: readonly string[] | undefined,
 *   colLabels: readonly string[] | undefined, rowMarks: Int32Array, marked: Int32Array,
 *   showMarks: boolean, shares: boolean, axes: import('./heatmap.js').HeatmapAxes,
 *   scale: import('./heatmap.js').HeatmapScale, format: (v: number) => string }} ReadoutData
 */

/**
 * The readout's lines for cell (r, c), as [key, value], and whether the cell is marked.
 * @param {ReadoutData} d @param {number} r @param {number} c
 * @returns {{ lines: [string, string][], isMarkedCell: boolean }}
 */
export function readoutLines(d, r, c) {
  const v = d.values[r * d.cols + c];
  const tok = (/** @type {readonly string[] | undefined} */ labels, /** @type {number} */ i) =>
    labels && i < labels.length ? labels[i] : '';
  const a = d.rowMarks[r];
  const { row: [rowName, rowVar], col: [colName, colVar], mark } = d.axes;
  // Marked columns whose marks are hidden are not told (a class guesses them first).
  const isMarked = d.showMarks && d.marked.includes(c);
  /** @type {[string, string][]} */
  const lines = [
    [d.scale.symbol, d.shares || !d.scale.unit ? d.format(v) : `${d.format(v)} ${d.scale.unit}`],
    [rowName, `${rowVar} = ${r}  “${tok(d.rowLabels, r)}”`],
    [colName, `${colVar} = ${c}  “${tok(d.colLabels, c)}”`],
    d.marked.length
      ? [mark, d.showMarks ? (isMarked ? 'yes' : 'no') : 'not shown']
      : [mark, a < 0 ? 'unknown' : a === c ? `yes, ${colVar} is the ${mark} position` : `no (${mark} ${colVar} = ${a})`],
  ];
  return { lines, isMarkedCell: d.marked.length ? isMarked : a === c };
}

/**
 * Writes `lines` into the tooltip `t` (a row of key and value each, rebuilt only when their
 * number changes) and shows it.
 * @param {HTMLElement} t @param {[string, string][]} lines @param {boolean} marked
 */
export function fillTooltip(t, lines, marked) {
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
  t.classList.toggle('ap-tooltip--marked', marked);
  t.hidden = false;
}

/**
 * Places the tooltip `t` inside the figure `element`, beside (x, y) in plot pixels or, when
 * no point is given, beside cell (r, c) itself, flipping at the edges.
 * @param {HTMLElement} t @param {HTMLElement} element @param {HTMLElement} plotEl
 * @param {number} rows @param {number} cols @param {number} r @param {number} c
 * @param {number} [x] @param {number} [y]
 */
export function placeTooltip(t, element, plotEl, rows, cols, r, c, x, y) {
  const fig = element.getBoundingClientRect();
  const plot = plotEl.getBoundingClientRect();
  const cw = plot.width / cols;
  const ch = plot.height / rows;
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
}
