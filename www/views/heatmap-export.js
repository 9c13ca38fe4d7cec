// @ts-check
// The heatmap as a standalone picture for export (toCanvas): title, cells, the marks'
// outline, every k-th axis label, the axes' titles and the colour legend, on one canvas.

import { strokeMarks } from './heatmap-cells.js';

/**
 * What the picture shows: the heatmap's elements and state.
 * @typedef {import('./heatmap-cells.js').HeatmapMarks & {
 *   element: HTMLElement, cells: HTMLCanvasElement, image: ImageData | null,
 *   cols: number, cssW: number, cssH: number,
 *   rowLabels: readonly string[] | undefined, colLabels: readonly string[] | undefined,
 *   axes: import('./heatmap.js').HeatmapAxes, scale: import('./heatmap.js').HeatmapScale,
 *   lut: Uint8ClampedArray, min: number, max: number, showMarks: boolean,
 *   format: (v: number) => string }} HeatmapPicture
 */

/**
 * The heatmap `p` as a picture on the page's background.
 * @param {HeatmapPicture} p
 * @param {number} [cell] pixels per cell (default: as large as shown, at least 12)
 * @returns {HTMLCanvasElement}
 */
export function heatmapCanvas(p, cell) {
  const dpr = window.devicePixelRatio || 1;
  const style = getComputedStyle(p.element);
  const size = Math.max(12, Math.round(cell ?? Math.min(p.cssW / Math.max(1, p.cols), p.cssH / Math.max(1, p.rows)) * dpr));
  const font = style.fontFamily || 'sans-serif';
  const px = (/** @type {number} */ n) => Math.round(n * dpr);
  const out = document.createElement('canvas');
  const g = /** @type {CanvasRenderingContext2D} */ (out.getContext('2d'));
  g.font = `${px(11)}px ${font}`;
  const label = (/** @type {readonly string[] | undefined} */ l, /** @type {number} */ i) => (l && i < l.length ? l[i] : String(i));
  let rowW = 0;
  for (let r = 0; r < p.rows; r++) rowW = Math.max(rowW, g.measureText(label(p.rowLabels, r)).width);
  const left = Math.ceil(rowW) + px(24);
  const top = px(28);
  const w = p.cols * size;
  const h = p.rows * size;
  out.width = left + w + px(12);
  out.height = top + h + px(64);
  g.fillStyle = getComputedStyle(document.body).backgroundColor || '#fff';
  g.fillRect(0, 0, out.width, out.height);
  const fg = style.color || '#222';
  g.fillStyle = fg;
  g.font = `600 ${px(14)}px ${font}`;
  g.textBaseline = 'top';
  g.fillText(/** @type {string} */ (p.element.querySelector('.ap-title')?.textContent), px(4), px(4));
  // Cells: the painted image, one pixel per cell, scaled up without smoothing.
  g.imageSmoothingEnabled = false;
  if (p.image) g.drawImage(p.cells, left, top, w, h);
  if (p.showMarks) strokeMarks(g, style, left, top, size, size, Math.max(1, Math.min(px(1.5), size / 8)), p);
  g.font = `${px(11)}px ${font}`;
  g.fillStyle = fg;
  g.textBaseline = 'middle';
  g.textAlign = 'right';
  const rowStep = Math.max(1, Math.ceil(px(13) / size));
  for (let r = 0; r < p.rows; r += rowStep) g.fillText(label(p.rowLabels, r), left - px(4), top + (r + 0.5) * size);
  g.textAlign = 'center';
  g.textBaseline = 'top';
  let colW = 0;
  for (let c = 0; c < p.cols; c++) colW = Math.max(colW, g.measureText(label(p.colLabels, c)).width);
  const colStep = Math.max(1, Math.ceil((colW + px(4)) / size));
  for (let c = 0; c < p.cols; c += colStep) g.fillText(label(p.colLabels, c), left + (c + 0.5) * size, top + h + px(3));
  g.fillText(p.axes.colTitle, left + w / 2, top + h + px(18));
  g.save();
  g.translate(px(8), top + h / 2);
  g.rotate(-Math.PI / 2);
  g.fillText(p.axes.rowTitle, 0, -px(6));
  g.restore();
  // Legend: the symbol and the low end, the colour bar, the high end.
  const barY = top + h + px(38);
  g.fillStyle = fg;
  g.textAlign = 'left';
  const low = `${p.scale.symbol} ${p.format(p.min)}`;
  const barX = px(4) + g.measureText(low).width + px(6);
  g.fillText(low, px(4), barY - px(1));
  const barW = Math.max(px(60), Math.min(w - barX + left - px(60), px(160)));
  const lut = p.lut;
  const n = lut.length / 4;
  for (let i = 0; i < barW; i++) {
    const j = Math.round((i / Math.max(1, barW - 1)) * (n - 1)) * 4;
    g.fillStyle = `rgb(${lut[j]}, ${lut[j + 1]}, ${lut[j + 2]})`;
    g.fillRect(barX + i, barY, 1, px(10));
  }
  g.fillStyle = fg;
  g.fillText(p.format(p.max), barX + barW + px(6), barY - px(1));
  return out;
}
