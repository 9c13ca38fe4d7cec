// @ts-check
// The heatmap's canvas drawing: the cells, one pixel each, painted through the colormap's
// lookup table, and the overlay canvas above them (the marked cells' outline, the hovered cell).

/**
 * Which cells are marked: each row's marked column (−1: none) and columns outlined whole.
 * @typedef {{ rows: number, rowMarks: Int32Array, marked: Int32Array }} HeatmapMarks
 */

/**
 * Paints the first `n` values into `img` (NaN transparent) and puts it on `ctx`.
 * @param {CanvasRenderingContext2D} ctx
 * @param {ImageData} img
 * @param {Uint8ClampedArray} lut the colormap's table, RGBA
 * @param {Float64Array} v
 * @param {number} n
 * @param {number} min the colour scale's low end
 * @param {number} max the colour scale's high end
 */
export function paintCells(ctx, img, lut, v, n, min, max) {
  const px = img.data;
  const top = lut.length / 4 - 1;
  const lo = min;
  const k = top / (max - min);
  for (let i = 0; i < n; i++) {
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
  ctx.putImageData(img, 0, 0);
}

/**
 * What the overlay shows, and where.
 * @typedef {HeatmapMarks & {
 *   overlay: HTMLCanvasElement, g: CanvasRenderingContext2D, element: HTMLElement,
 *   cssW: number, cssH: number, cols: number, image: ImageData | null,
 *   showMarks: boolean, hover: { r: number, c: number } | null }} HeatmapOverlay
 */

/**
 * Redraws the overlay canvas at the plot's size: the marks' outline (if shown) and the
 * hovered cell with faint guides along its row and column.
 * @param {HeatmapOverlay} o
 */
export function paintOverlay(o) {
  const dpr = window.devicePixelRatio || 1;
  const w = Math.round(o.cssW * dpr);
  const h = Math.round(o.cssH * dpr);
  if (o.overlay.width !== w || o.overlay.height !== h) {
    o.overlay.width = w;
    o.overlay.height = h;
  }
  const g = o.g;
  g.clearRect(0, 0, w, h);
  if (!o.image || w === 0 || h === 0) return;
  const cw = w / o.cols;
  const ch = h / o.rows;
  const style = getComputedStyle(o.element);
  if (o.showMarks) {
    strokeMarks(g, style, 0, 0, cw, ch, Math.max(1, Math.min(1.5 * dpr, Math.min(cw, ch) / 8)), o);
  }
  if (o.hover) {
    const { r, c } = o.hover;
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
 * @param {CanvasRenderingContext2D} g @param {CSSStyleDeclaration} style
 * @param {number} x @param {number} y @param {number} cw @param {number} ch @param {number} lw
 * @param {HeatmapMarks} marks
 */
export function strokeMarks(g, style, x, y, cw, ch, lw, { rows, rowMarks, marked }) {
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
    for (let r = 0; r < rows; r++) {
      const c = rowMarks[r];
      if (c < 0) continue;
      const x0 = x + Math.round(c * cw);
      const y0 = y + Math.round(r * ch);
      const x1 = x + Math.round((c + 1) * cw);
      const y1 = y + Math.round((r + 1) * ch);
      g.rect(x0 + lw / 2, y0 + lw / 2, x1 - x0 - lw, y1 - y0 - lw);
    }
    for (const c of marked) {
      if (c < 0) continue;
      const x0 = x + Math.round(c * cw);
      const x1 = x + Math.round((c + 1) * cw);
      g.rect(x0 + lw / 2, y + lw / 2, Math.max(lw, x1 - x0 - lw), Math.round(rows * ch) - lw);
    }
    g.stroke();
  }
  g.setLineDash([]);
  g.lineDashOffset = 0;
}
