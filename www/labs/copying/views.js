// @ts-check
// The copying lab's views: the α and β heatmaps of the shown evaluation sequence (and of
// the compared run), one small α map per head and the latest metrics. They draw what the
// shell hands them; the charts are the shell's (the explainer is lab.js's text).

import { Heatmap } from '../../views/heatmap.js';
import { h, setText } from '../../ui/dom.js';

/**
 * The copying lab's snapshot: α and β of the shown evaluation sequence (row-major tgtLen ×
 * srcLen; α of the shown head, or averaged), each head's α when K > 1, its tokens and the
 * source position each target step is aligned with (src/wasm/copying.rs).
 * @typedef {import('../../training/protocol.js').Snapshot & { shape: { tgtLen: number, srcLen: number, heads: number, evalSeqs: number },
 *   alpha: Float32Array, beta: Float32Array, perHead: Float32Array[], source: Uint32Array, target: Uint32Array,
 *   aligned: Uint32Array }} Snapshot
 */
/** @typedef {import('../index.js').LabFrame} LabFrame */
/** @typedef {import('../index.js').LabViews} LabViews */

/** The token's name on an axis: 0..V−1 as numbers, then EOS and SOS.
 * @param {number} tok @param {number} vocab */
function tokenName(tok, vocab) {
  if (tok === vocab) return 'EOS';
  if (tok === vocab + 1) return 'SOS';
  return String(tok);
}

/** What a heatmap needs of a snapshot besides its values. @param {Snapshot} s */
function axes(s) {
  const vocab = Number(s.config.vocab);
  return {
    rows: s.shape.tgtLen,
    cols: s.shape.srcLen,
    rowLabels: Array.from(s.target, (t) => tokenName(t, vocab)),
    colLabels: Array.from(s.source, (t) => tokenName(t, vocab)),
    rowMarks: s.aligned,
  };
}

/** The readouts of a run's latest evaluation, each with its one-line definition:
 * [element id (the compared run's ends in -b), metric, words, definition]. */
const READOUTS = [
  ['m-loss', 'loss', 'loss',
    'Cross-entropy of the right token at each target step, fed the right tokens before it, averaged over the evaluation batch.'],
  ['m-token', 'token_accuracy', 'token accuracy',
    'Share of target tokens the model gets right (its most likely token), fed the right tokens before each.'],
  ['m-attn', 'attention_accuracy', 'attention accuracy',
    'Share of target steps whose strongest attention is on the source position they copy (the outlined cell).'],
  ['m-ktiw', 'ktiw_accuracy', 'KTIW accuracy',
    'Share of target steps whose highest β is on the source position they copy: made to look at one position, the model is surest at the right one.'],
  ['m-score', 'ktiw_score', 'KTIW score',
    'The probability the model gives the right token when made to look only at the position it copies, averaged over target steps.'],
];

/** The maps' rows and columns: a target step by a source position; the outlined cell is the
 * position the step copies. @type {import('../../views/heatmap.js').HeatmapAxes} */
const AXES = { rowTitle: 'target step t', colTitle: 'source position s', row: ['target', 't'], col: ['source', 's'], mark: 'aligned' };
/** What α's values are: attention weights. @type {import('../../views/heatmap.js').HeatmapScale} */
const ATTENTION = { values: 'share', name: 'attention', symbol: 'α', legend: 'α' };
/** What β's values are: log-odds of the right token. @type {import('../../views/heatmap.js').HeatmapScale} */
const KTIW = { values: 'number', name: 'ktiw', symbol: 'β', legend: 'β (log-odds)', unit: 'log-odds' };

/** β's colour scale, in log-odds: p = ½ (0) at its middle, the same at every step. */
const BETA_RANGE = /** @type {const} */ ([-8, 8]);

/**
 * Builds the views into `box`.
 * @param {HTMLElement} box @param {{ colormap: string, showMarks: boolean }} options
 * @returns {LabViews}
 */
export function createViews(box, { colormap, showMarks }) {
  const nameA = h('p', { id: 'name-a', class: 'run-name', hidden: true });
  const alphaBox = h('div', { id: 'alpha', class: 'map', 'data-part': 'alpha' });
  const betaBox = h('div', { id: 'beta', class: 'map', 'data-part': 'beta' });
  const headsBox = h('div', { id: 'heads', class: 'head-maps', 'data-part': 'heads', hidden: true });
  const nameB = h('p', { id: 'name-b', class: 'run-name' });
  const alphaBoxB = h('div', { id: 'alpha-b', class: 'map' });
  const betaBoxB = h('div', { id: 'beta-b', class: 'map' });
  /** Each run's numbers, under its maps: element id → its readout. @type {Record<string, HTMLElement>} */
  const readout = {};
  /** @param {string} suffix '' for the first run, '-b' for the compared one */
  const numbers = (suffix) => h('dl', { class: 'metrics', 'data-part': 'metrics' },
    ...READOUTS.map(([id, , words, definition]) => {
      readout[id + suffix] = h('dd', { id: id + suffix }, '–');
      return h('div', { title: definition }, h('dt', {}, words), readout[id + suffix]);
    }));
  const legend = h('details', { class: 'metric-help', 'data-part': 'metrics' },
    h('summary', {}, 'What these numbers mean'),
    h('dl', {}, ...READOUTS.flatMap(([, , words, definition]) => [h('dt', {}, words), h('dd', {}, definition)])));
  const mapsB = h('div', { id: 'maps-b', class: 'maps-b', 'data-part': 'compare-maps', hidden: true },
    nameB, h('div', { class: 'maps' }, alphaBoxB, betaBoxB), numbers('-b'));
  box.append(nameA, h('div', { class: 'maps' }, alphaBox, betaBox), headsBox, numbers(''), legend, mapsB);

  const alpha = new Heatmap(alphaBox, { title: 'Attention α', scale: ATTENTION, axes: AXES, colormap });
  const beta = new Heatmap(betaBox, { title: 'KTIW β (log-odds)', scale: KTIW, axes: AXES, colormap });
  const alphaB = new Heatmap(alphaBoxB, { title: 'Attention α', scale: ATTENTION, axes: AXES, colormap });
  const betaB = new Heatmap(betaBoxB, { title: 'KTIW β (log-odds)', scale: KTIW, axes: AXES, colormap });
  /** @type {Heatmap[]} */
  let headMaps = [];
  /** @type {HTMLElement[]} each head map's accuracy line */
  let headAccuracy = [];
  let cmap = colormap;
  let marks = showMarks;
  const maps = () => [alpha, beta, alphaB, betaB, ...headMaps];
  for (const m of maps()) m.setShowMarks(marks);

  /** One small α map per head when K > 1 (replaced, not leaked, when K changes), with the
   * head's attention accuracy under it. @param {Snapshot} s @param {Record<string, number> | undefined} evaluation */
  function syncHeads(s, evaluation) {
    if (headMaps.length !== s.perHead.length) {
      for (const m of headMaps) m.destroy();
      headsBox.replaceChildren();
      headAccuracy = [];
      headMaps = s.perHead.map((_, k) => {
        const div = h('div', { class: 'head-map' });
        const acc = h('p', { class: 'head-accuracy', 'data-head': k + 1 }, '–');
        headsBox.append(div);
        const map = new Heatmap(div, { title: `Head ${k + 1} α`, scale: ATTENTION, axes: AXES, colormap: cmap });
        div.append(acc);
        headAccuracy.push(acc);
        return map;
      });
      headsBox.hidden = headMaps.length === 0;
      for (const m of headMaps) m.setShowMarks(marks);
    }
    const common = axes(s);
    s.perHead.forEach((a, k) => headMaps[k].update({ ...common, values: a, range: [0, 1] }));
    // Which head found the diagonal: each head's attention accuracy over the evaluation batch.
    headAccuracy.forEach((el, k) => {
      const v = evaluation?.[`attention_accuracy_h${k + 1}`];
      setText(el, v === undefined ? '–' : `attention accuracy ${(100 * v).toFixed(1)}%`);
    });
  }

  return {
    /** @param {LabFrame} frame */
    update(frame) {
      const [a, b] = frame.runs.map((r) => ({ ...r, snapshot: /** @type {Snapshot} */ (r.snapshot) }));
      const common = axes(a.snapshot);
      alpha.update({ ...common, values: a.snapshot.alpha, range: [0, 1] });
      beta.update({ ...common, values: a.snapshot.beta, range: BETA_RANGE });
      syncHeads(a.snapshot, a.evaluation);
      mapsB.hidden = !b;
      nameA.hidden = !b;
      if (b) {
        setText(nameA, `First run: ${a.name}`);
        setText(nameB, `Second run: ${b.name} (same seed; solid and dashed lines on the charts)`);
        const cb = axes(b.snapshot);
        alphaB.update({ ...cb, values: b.snapshot.alpha, range: [0, 1] });
        betaB.update({ ...cb, values: b.snapshot.beta, range: BETA_RANGE });
      }
      frame.runs.forEach((run, i) => {
        for (const [id, key] of READOUTS) {
          const v = run.evaluation?.[key];
          setText(readout[id + (i ? '-b' : '')], v === undefined ? '–' : key === 'loss' ? v.toFixed(3) : `${(100 * v).toFixed(1)}%`);
        }
      });
    },
    setColormap(name) {
      cmap = name;
      for (const m of maps()) m.setColormap(name);
    },
    setShowMarks(show) {
      marks = show;
      for (const m of maps()) m.setShowMarks(show);
    },
    invalidate() {
      for (const m of maps()) m.invalidate();
    },
    figure(id) {
      const m = id === 'alpha' ? alpha : id === 'beta' ? beta : null;
      return m ? m.toCanvas() : null;
    },
    destroy() {
      for (const m of maps()) m.destroy();
      box.replaceChildren();
    },
  };
}
