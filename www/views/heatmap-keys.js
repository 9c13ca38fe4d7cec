// @ts-check
// The heatmap's keyboard and assistive-technology side: which cell an arrow, Home or End key
// moves to, the plot's help text, the cells' accessible name and the spoken readout.

/** What the keys do, read out to assistive technology. */
export const KEYS_HELP = 'Arrow keys move between cells; Escape hides the readout.';

/** @type {Record<string, [number, number]>} each key's move, [rows, columns] */
const moves = {
  ArrowUp: [-1, 0],
  ArrowDown: [1, 0],
  ArrowLeft: [0, -1],
  ArrowRight: [0, 1],
  Home: [0, -Infinity],
  End: [0, Infinity],
};

/**
 * The cell that `key` moves to from `hover` (none hovered: the first row's marked cell, or
 * its first), or null for a key that moves nothing.
 * @param {string} key
 * @param {{ r: number, c: number } | null} hover
 * @param {Int32Array} rowMarks
 * @param {number} rows
 * @param {number} cols
 * @returns {{ r: number, c: number } | null}
 */
export function keyMove(key, hover, rowMarks, rows, cols) {
  const m = moves[key];
  if (!m) return null;
  const at = hover ?? { r: 0, c: rowMarks[0] >= 0 ? rowMarks[0] : 0 };
  const r = hover ? Math.max(0, Math.min(rows - 1, at.r + m[0])) : at.r;
  const c = hover ? Math.max(0, Math.min(cols - 1, at.c + m[1])) : at.c;
  return { r, c };
}

/**
 * The cells' accessible name: the map, and its rows and columns.
 * @param {import('./heatmap.js').HeatmapScale} scale
 * @param {import('./heatmap.js').HeatmapAxes} axes
 * @param {number} rows
 * @param {number} cols
 */
export function cellsLabel(scale, axes, rows, cols) {
  const empty = rows === 0 || cols === 0;
  return empty
    ? `${scale.name}, no data`
    : `${scale.name}, ${rows} ${axes.row[0]} row${rows === 1 ? '' : 's'} × ${cols} ${axes.col[0]} column${cols === 1 ? '' : 's'}`;
}

/**
 * The readout's lines as one sentence, for a live region.
 * @param {[string, string][]} lines
 */
export function spoken(lines) {
  return lines.map(([k, v]) => `${k} ${v}`).join(', ');
}
