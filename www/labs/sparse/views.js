// @ts-check
// The sparse lab's views: each head's [CLS] attention over the positions (averaged over the
// test set) with the hidden positions outlined, the same for one test input with its bits,
// the picture of attention over training (evaluation × position) and the latest metrics.
// They draw what the shell hands them; the charts are the shell's (the explainer is lab.js's
// text).

import { Heatmap } from '../../views/heatmap.js';
import { h, setText } from '../../ui/dom.js';

/**
 * The sparse lab's snapshot (src/wasm/sparse.rs): each head's attention (K, T) averaged
 * over the test set; test input `seq`'s bits (T), its label and its attention (K, T); the
 * hidden positions (s); the picture of attention over training, averaged over heads (n, T)
 * with the step of each row (n).
 * @typedef {import('../../training/protocol.js').Snapshot & { shape: { length: number, heads: number, examples: number,
 *   rejected: number, ambiguous: boolean }, attention: Float32Array, inputAttention: Float32Array,
 *   input: Uint32Array, hidden: Uint32Array, label: Float32Array, pictureSteps: Float32Array,
 *   picture: Float32Array }} Snapshot
 */
/** @typedef {import('../index.js').LabFrame} LabFrame */
/** @typedef {import('../index.js').LabViews} LabViews */

/** What the maps' values are: attention weights. @type {import('../../views/heatmap.js').HeatmapScale} */
const ATTENTION = { values: 'share', name: 'attention', symbol: 'α', legend: 'α' };
/** @type {import('../../views/heatmap.js').HeatmapAxes} */
const BY_HEAD = { rowTitle: 'head', colTitle: 'position t', row: ['head', 'k'], col: ['position', 't'], mark: 'hidden' };
/** @type {import('../../views/heatmap.js').HeatmapAxes} */
const OVER_TRAINING = { rowTitle: 'training step', colTitle: 'position t', row: ['evaluation', 'row'], col: ['position', 't'], mark: 'hidden' };

/** The readouts of a run's latest evaluation, each with its one-line definition:
 * [element id (the compared run's ends in -b), metric, words, definition]. */
const READOUTS = [
  ['s-train', 'train_accuracy', 'train accuracy', 'Share of the fixed training set the model labels right.'],
  ['s-test', 'test_accuracy', 'test accuracy', 'Share of fresh inputs, never trained on, the model labels right.'],
  ['s-train-loss', 'train_loss', 'train loss', 'Logistic loss on the training set.'],
  ['s-test-loss', 'test_loss', 'test loss', 'Logistic loss on the test set.'],
  ['s-mass', 'mass', 'attention on S', 'The share of the attention that falls on the hidden positions, averaged over the test set and the heads.'],
  ['s-found', 'found', 'found S', 'Yes when the s positions with the most attention are exactly the hidden ones.'],
];

/** A metric's readout. @param {string} key @param {number | undefined} v */
function format(key, v) {
  if (v === undefined) return '–';
  if (key === 'found') return v ? 'yes' : 'no';
  return key.endsWith('loss') ? v.toFixed(3) : `${(100 * v).toFixed(1)}%`;
}

/** The top of a picture's colour scale: its largest value, but at least four times an even
 * share of the `t` positions, so that near-even attention (before training) is painted as the
 * calm band it is, not stretched into full-contrast noise. @param {Float32Array} xs @param {number} t */
function top(xs, t) {
  let m = Math.min(1, 4 / t);
  for (const x of xs) if (x > m) m = x;
  return m;
}

/**
 * The views of one run: its attention by head, one test input's, the picture over
 * training and its numbers, in `box`.
 * @param {HTMLElement} box @param {string} suffix '' or '-b' @param {string} colormap
 */
function runViews(box, suffix, colormap) {
  const positionsBox = h('div', { id: `positions${suffix}`, class: 'map', 'data-part': suffix ? undefined : 'positions' });
  const inputBox = h('div', { id: `input${suffix}`, class: 'map', 'data-part': suffix ? undefined : 'input' });
  const pictureBox = h('div', { id: `picture${suffix}`, class: 'map', 'data-part': suffix ? undefined : 'picture' });
  const note = h('p', { class: 'hint', id: `training-set${suffix}` });
  /** @type {Record<string, HTMLElement>} */
  const readout = {};
  const numbers = h('dl', { class: 'metrics', 'data-part': 'metrics' },
    ...READOUTS.map(([id, , words, definition]) => {
      readout[id] = h('dd', { id: id + suffix }, '–');
      return h('div', { title: definition }, h('dt', {}, words), readout[id]);
    }));
  // The picture under the map of positions, column for column; the numbers beside it.
  box.append(h('div', { class: 'maps' }, positionsBox, inputBox, pictureBox, h('div', {}, numbers, note)));
  // A row per head, a column per position: neither a sliver at T = 2,048 nor a tower at T = 2.
  const positions = new Heatmap(positionsBox, { title: 'Attention over the positions (test set)', scale: ATTENTION, colormap, axes: BY_HEAD, aspect: [2, 16] });
  const input = new Heatmap(inputBox, { title: 'One test input', scale: ATTENTION, colormap, axes: BY_HEAD, aspect: [2, 16] });
  // As wide as the map above it, position for position; at most half as high as wide.
  const picture = new Heatmap(pictureBox, { title: 'Attention over training', scale: ATTENTION, colormap, axes: OVER_TRAINING, aspect: [2, 8] });
  const maps = [positions, input, picture];
  const inputTitle = /** @type {HTMLElement} */ (inputBox.querySelector('.ap-title'));
  return {
    maps,
    positions,
    picture,
    /** @param {Snapshot} s @param {Record<string, number> | undefined} evaluation */
    update(s, evaluation) {
      const { length: t, heads: k } = s.shape;
      const headLabels = Array.from({ length: k }, (_, i) => `head ${i + 1}`);
      const marked = s.hidden;
      positions.update({ values: s.attention, rows: k, cols: t, rowLabels: headLabels, marked, range: [0, top(s.attention, t)] });
      input.update({
        values: s.inputAttention, rows: k, cols: t, rowLabels: headLabels, marked,
        colLabels: Array.from(s.input, String), range: [0, top(s.inputAttention, t)],
      });
      setText(inputTitle, `Test input ${s.seq + 1}: its bits along the bottom, label ${s.label[0]}`);
      const rows = s.pictureSteps.length;
      picture.update({
        values: s.picture, rows, cols: t, marked,
        rowLabels: Array.from(s.pictureSteps, (x) => String(x)), range: [0, top(s.picture, t)],
      });
      for (const [id, key] of READOUTS) setText(readout[id], format(key, evaluation?.[key]));
      const { rejected, ambiguous } = s.shape;
      setText(note, ambiguous
        ? `No training set of ${s.config.samples} samples that only S explains was found in ${rejected + 1} draws: this one is explained by other hidden sets too.`
        : rejected > 0 ? `The training set was drawn ${rejected + 1} times: ${rejected} draw${rejected === 1 ? ' was' : 's were'} explained by another hidden set too.` : '');
    },
  };
}

/**
 * Builds the views into `box`.
 * @param {HTMLElement} box @param {{ colormap: string, showMarks: boolean }} options
 * @returns {LabViews}
 */
export function createViews(box, { colormap, showMarks }) {
  const nameA = h('p', { id: 'name-a', class: 'run-name', hidden: true });
  const first = h('div', { class: 'sparse-run' });
  const nameB = h('p', { id: 'name-b', class: 'run-name' });
  const second = h('div', { class: 'sparse-run' });
  const mapsB = h('div', { id: 'maps-b', class: 'maps-b', 'data-part': 'compare-maps', hidden: true }, nameB, second);
  box.append(nameA, first, mapsB);
  const a = runViews(first, '', colormap);
  const b = runViews(second, '-b', colormap);
  const maps = () => [...a.maps, ...b.maps];
  for (const m of maps()) m.setShowMarks(showMarks);
  return {
    update(frame) {
      const [ra, rb] = frame.runs;
      a.update(/** @type {Snapshot} */ (ra.snapshot), ra.evaluation);
      mapsB.hidden = !rb;
      nameA.hidden = !rb;
      if (rb) {
        setText(nameA, `First run: ${ra.name}`);
        setText(nameB, `Second run: ${rb.name} (same seed, same hidden set; solid and dashed lines on the charts)`);
        b.update(/** @type {Snapshot} */ (rb.snapshot), rb.evaluation);
      }
    },
    setColormap(name) {
      for (const m of maps()) m.setColormap(name);
    },
    setShowMarks(show) {
      for (const m of maps()) m.setShowMarks(show);
    },
    invalidate() {
      for (const m of maps()) m.invalidate();
    },
    figure(id) {
      const m = id === 'positions' ? a.positions : id === 'picture' ? a.picture : null;
      return m ? m.toCanvas() : null;
    },
    destroy() {
      for (const m of maps()) m.destroy();
      box.replaceChildren();
    },
  };
}
