// @ts-check
// The heatmap's elements: the figure with its title, axis titles, the focusable plot (cells
// and overlay canvases, label boxes), legend, tooltip, help text and live region.

import { el } from '../ui/dom.js';
import { buildLegend } from './heatmap-axes.js';
import { KEYS_HELP, cellsLabel } from './heatmap-keys.js';

let nextId = 0;

/**
 * Builds a heatmap's figure, appended to `container`, and returns its parts.
 * @param {HTMLElement} container
 * @param {string} title
 * @param {import('./heatmap-types.js').HeatmapScale} scale
 * @param {import('./heatmap-types.js').HeatmapAxes} axes
 * @param {string} colormap
 */
export function buildHeatmapDom(container, title, scale, axes, colormap) {
  const id = `ap-heatmap-${nextId++}`;

  const root = el('figure', 'ap-heatmap', container);
  const caption = el('figcaption', 'ap-title', root);
  caption.textContent = title;
  caption.hidden = !title;

  const main = el('div', 'ap-heatmap-main', root);
  el('div', 'ap-heatmap-ytitle', main).textContent = axes.rowTitle;
  const wrap = el('div', 'ap-heatmap-wrap', main);
  const plot = el('div', 'ap-heatmap-plot', wrap);
  plot.tabIndex = 0;
  plot.setAttribute('role', 'group');
  plot.setAttribute('aria-roledescription', 'heatmap');
  plot.setAttribute('aria-describedby', `${id}-help`);

  const cells = el('canvas', 'ap-heatmap-cells', plot);
  cells.width = 1;
  cells.height = 1;
  cells.setAttribute('role', 'img');
  cells.setAttribute('aria-label', cellsLabel(scale, axes, 0, 0));
  const ctx = cells.getContext('2d');
  if (!ctx) throw new Error('2D canvas is not available');

  const overlay = el('canvas', 'ap-heatmap-overlay', plot);
  overlay.setAttribute('aria-hidden', 'true');
  const octx = overlay.getContext('2d');
  if (!octx) throw new Error('2D canvas is not available');

  const yLabels = el('div', 'ap-heatmap-ylabels', plot);
  const xLabels = el('div', 'ap-heatmap-xlabels', plot);
  yLabels.setAttribute('aria-hidden', 'true');
  xLabels.setAttribute('aria-hidden', 'true');

  el('div', 'ap-heatmap-xtitle', root).textContent = axes.colTitle;

  const legend = buildLegend(root, scale.legend, colormap);

  const tooltip = el('div', 'ap-tooltip', root);
  tooltip.setAttribute('role', 'tooltip');
  tooltip.hidden = true;

  const help = el('span', 'ap-visually-hidden', root);
  help.id = `${id}-help`;
  help.textContent = KEYS_HELP;
  const live = el('span', 'ap-visually-hidden', root);
  live.setAttribute('aria-live', 'polite');

  return { root, wrap, plot, cells, ctx, overlay, octx, yLabels, xLabels, legend, tooltip, live };
}
