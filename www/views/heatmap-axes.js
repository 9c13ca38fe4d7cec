// @ts-check
// The heatmap's axes and legend: the row and column label spans (built, measured, and every
// k-th shown so that neighbours never overlap) and the colour legend under the cells.

import { cssGradient } from './colormap.js';
import { el } from '../ui/dom.js';

/**
 * One span per row (side 'top') or column (side 'left') in `box`, placed at its cell's middle.
 * @param {HTMLElement} box
 * @param {number} n
 * @param {readonly string[] | undefined} labels
 * @param {'top' | 'left'} side
 */
export function buildLabelSpans(box, n, labels, side) {
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
}

/**
 * The widest row label, the widest column label and the tallest row label, in CSS pixels
 * (0 where not rendered yet).
 * @param {HTMLSpanElement[]} rowSpans
 * @param {HTMLSpanElement[]} colSpans
 */
export function measureLabelSpans(rowSpans, colSpans) {
  let rowW = 0;
  let colW = 0;
  let lineH = 0;
  for (const s of rowSpans) rowW = Math.max(rowW, s.offsetWidth);
  for (const s of colSpans) colW = Math.max(colW, s.offsetWidth);
  for (const s of rowSpans) lineH = Math.max(lineH, s.offsetHeight);
  return { rowW, colW, lineH };
}

/**
 * Every how many rows and columns a label is shown, for cells of `cellW` × `cellH`.
 * @param {{ rowH: number, colW: number }} labelPx a row label's height, a column label's width
 * @param {number} cellW
 * @param {number} cellH
 */
export function labelSteps(labelPx, cellW, cellH) {
  const rowStep = Math.max(1, Math.ceil((labelPx.rowH * 0.9) / cellH));
  const colStep = Math.max(1, Math.ceil((labelPx.colW + 4) / cellW));
  return { rowStep, colStep };
}

/**
 * Shows every `step`-th span, hides the rest.
 * @param {HTMLSpanElement[]} spans
 * @param {number} step
 */
export function showEvery(spans, step) {
  spans.forEach((s, i) => {
    s.hidden = i % step !== 0;
  });
}

/**
 * The legend in `root`: the scale's name, its low end, the colour bar, its high end and
 * (numbers on a fixed scale) where the values lie on it.
 * @param {HTMLElement} root
 * @param {string} name the scale's `legend`
 * @param {string} colormap
 */
export function buildLegend(root, name, colormap) {
  const legend = el('div', 'ap-legend', root);
  legend.setAttribute('aria-hidden', 'true');
  el('span', 'ap-legend-name', legend).textContent = name;
  const min = el('span', 'ap-legend-min', legend);
  const bar = el('span', 'ap-legend-bar', legend);
  const max = el('span', 'ap-legend-max', legend);
  const now = el('span', 'ap-legend-now', legend);
  bar.style.background = cssGradient(colormap);
  return { min, bar, max, now };
}

/**
 * Sets the legend's texts, each only where it changed.
 * @param {{ min: HTMLElement, max: HTMLElement, now: HTMLElement }} legend
 * @param {string} lo the low end
 * @param {string} hi the high end
 * @param {string} now where the values lie on a fixed scale ('' for none)
 */
export function renderLegendTexts(legend, lo, hi, now) {
  if (legend.min.textContent !== lo) legend.min.textContent = lo;
  if (legend.max.textContent !== hi) legend.max.textContent = hi;
  if (legend.now.textContent !== now) legend.now.textContent = now;
}
