// @ts-check
// The sparse lab (Edelman et al. 2022): one self-attention layer learns a sparse Boolean
// function of a bit string by attending to its few hidden positions. This file is what the
// shell needs to know of it as data: its settings' help, presets' names, contrasts, story,
// metrics and charts (its settings themselves are the trainer's: src/sparse/config.rs).
// Its views are views.js; its model is the Rust crate's (the wasm facade's lab "sparse").
// Pure: no DOM here.

import { createViews } from './views.js';
import { outsideRange } from '../ranges.js';
import { quote } from '../quote.js';
import { scalingExperiment } from './scaling.js';
import { createScalingView } from './scaling-view.js';

/** @typedef {import('../index.js').Lab} Lab */

/** What each setting does, by key (its words and range are the trainer's). */
const HELP = {
  function: 'What the label is of the hidden bits.',
  length: 'Bits of an input.',
  sparsity: 'How many positions the label depends on (drawn from the seed).',
  samples: 'The fixed training set, drawn once.',
  test_samples: 'Fresh inputs the test accuracy is measured on.',
  width: 'Width of the embeddings, keys, queries and values.',
  positions: 'How a position is coded: learned, or fixed (sinusoidal, one-hot with d ≥ T, or random) and never trained.',
  heads: 'Attention heads; what they read is concatenated.',
  mlp: 'Units of the ReLU layer between the heads and the label.',
  batch: 'Training samples per step (a smaller training set is one batch).',
  learning_rate: 'Adam’s; applies at once, without restarting.',
  weight_decay: 'AdamW’s: each step shrinks what the next setting names by lr × this.',
  decay_scope: 'The weight matrices only, or every parameter but the biases: the embeddings too, as most AdamW code does.',
  seed: 'Same seed, same hidden set, data and run, bit for bit.',
  eval_every: 'Steps between two evaluations on the training and test sets (and one at step 0).',
};

/** Solid for the first run, dashed for the second. */
const RUN_DASH = [[], [6, 4]];

/** @param {number} x */
const pct = (x) => `${(100 * x).toFixed(1)}%`;

/** The accuracy chart's lines: [key, label]. */
const ACCURACIES = [
  ['test_accuracy', 'test accuracy'],
  ['train_accuracy', 'train accuracy'],
  ['mass', 'attention on S'],
];

/** What the page shows, a paragraph each (ui/dom.js's `prose`). */
const EXPLAINER = [
  'Each input is a string of *T* bits. Its label depends on only *s* of them, the *hidden positions* S, drawn once '
    + 'from the seed: for AND the label is 1 when all of them are 1. The model never sees S. It learns from a fixed '
    + 'training set of *m* labelled inputs and is tested on fresh ones.',
  '**The model** (Edelman et al., 2022): every position is a bit embedding plus a position embedding; one learned '
    + 'query, like a [CLS] token, attends over the positions with each head; what the heads read goes through a small '
    + 'ReLU layer to the label. To label right, the heads have to *find S*: look at the hidden positions and ignore the '
    + 'rest.',
  '**Attention over the positions**: how much each head looks at each position, averaged over the test set; the hidden '
    + 'positions are outlined (untick *mark the hidden positions* to guess them first). **Attention over training**: the '
    + 'same, averaged over heads, one row per evaluation from the first step (top) to now (bottom): the collapse onto S '
    + 'shows as bright columns.',
  quote('**The paper’s claim**: a head that attends to S needs weights that grow with *s* but not with *T*, so the '
    + 'samples it needs grow only like log T. Our own runs of this model (docs/sparse.md, over 20 seeds and T = 8 to '
    + '1,024) do not show one law for every function: fitted to T ≤ 256, for majority of 3 '
    + '{sparse.scaling.majority-3.held-out} predicted 512 and 1,024 best (picked in {sparse.scaling.majority-3.held-out-share} '
    + 'of resamples of the seeds; exponent {sparse.scaling.majority-3.exponent}), for AND of 3 {sparse.scaling.and-3.held-out} '
    + 'did, but resamples pick it in only {sparse.scaling.and-3.held-out-share}. The Samples needed experiment measures it on '
    + 'this computer. With enough samples attention collapses onto S and the test accuracy follows; with too few, the '
    + 'model may memorise its training set (train accuracy 100%, test far lower) without finding S. Parity is learned '
    + 'after a plateau near 50%, then suddenly.'),
  '**Colours**: from 0 to the largest attention shown in each picture, or to four times an even share if that is '
    + 'larger (its legend gives the range): an even attention over 32 positions, about 3% a position, is a calm dark '
    + 'band at the start.',
];

/** @type {Lab} */
export const sparse = {
  name: 'sparse',
  title: 'Attention Playground: sparse variables',
  menuName: 'Sparse variables (Edelman et al. 2022)',
  docs: 'docs/sparse.md',
  tagline: 'One self-attention layer finds the few bits a label depends on, live in your browser (Edelman et al., 2022).',
  help: HELP,
  presetLabels: {
    'and-3': 'AND of 3 bits, enough samples',
    'and-3-few': 'AND of 3 bits, too few samples',
    'and-3-one-head': 'AND of 3 bits, one head',
    'majority-3': 'Majority of 3 bits',
    'parity-2': 'Parity of 2 bits (a plateau, then a jump)',
  },
  presetAliases: { and: 'and-3', few: 'and-3-few', 'one-head': 'and-3-one-head', majority: 'majority-3', parity: 'parity-2' },
  defaultPreset: 'and-3',
  // From `scaling --preset NAME --lengths T --samples M --seeds 0-19 --steps N` (docs/sparse.md),
  // each figure quoted from figures.js (scripts/figures.js writes it from results/).
  budgets: {
    'and-3': { steps: 600, claim: quote('within 600 steps {sparse.and-3.test-100} seeds label the test set 100% right, with {sparse.and-3.mass} of their attention on the hidden bits') },
    'and-3-few': { steps: 600, claim: quote('within 600 steps {sparse.and-3-few.train-100} seeds label their 20 training samples 100% right, while the test accuracy is below 90% in {sparse.and-3-few.test-below-90}') },
    'and-3-one-head': { steps: 600, claim: quote('within 600 steps {sparse.and-3-one-head.test-100} seeds label the test set 100% right, their one head putting {sparse.and-3-one-head.mass} of its attention on the hidden bits') },
    'majority-3': { steps: 600, claim: quote('within 600 steps {sparse.majority-3.test-100} seeds label the test set 100% right') },
    'parity-2': { steps: 5000, claim: quote('within 5,000 steps {sparse.parity-2.reached} seeds reach 95% test accuracy, after a plateau near 50%; {sparse.parity-2.plateau} are still on it') },
  },
  contrasts: {
    samples: {
      label: 'enough vs too few samples',
      apply: (c) => ({ ...c, samples: c.samples >= 100 ? 20 : 200 }),
      names: (c) => (c.samples >= 100 ? [`m = ${c.samples}`, 'm = 20'] : [`m = ${c.samples}`, 'm = 200']),
    },
    heads: {
      label: 'one head vs four',
      apply: (c) => ({ ...c, heads: c.heads > 1 ? 1 : 4 }),
      names: (c) => (c.heads > 1 ? [`${c.heads} heads`, '1 head'] : ['1 head', '4 heads']),
    },
  },
  experiment: { ...scalingExperiment, createView: createScalingView },
  sweep: {
    success: { key: 'test_accuracy', at: 0.95, words: 'reached 95% test accuracy' },
    stall: { key: 'mass', below: 0.5, words: 'less than half the attention on S' },
    curves: [{ key: 'test_accuracy', label: 'test accuracy' }, { key: 'mass', label: 'attention on S' }],
    columns: [
      { key: 'train_loss', name: 'train_loss', digits: 6 },
      { key: 'train_accuracy', name: 'train_acc', digits: 4 },
      { key: 'test_loss', name: 'test_loss', digits: 6 },
      { key: 'test_accuracy', name: 'test_acc', digits: 4 },
      { key: 'mass', name: 'mass', digits: 4 },
      { key: 'found', name: 'found', digits: 0 },
    ],
    steps: 600,
  },
  story: [
    {
      title: 'A label that depends on three bits',
      text: 'Every input is 32 bits; its label is 1 when three hidden bits are all 1 (AND). The model has 200 labelled '
        + 'inputs to learn from. Before training, its attention is spread evenly over the positions. Untick “mark the '
        + 'hidden positions” and guess where the three are; press Next to train.',
      preset: 'and-3',
      play: false,
    },
    {
      title: 'Attention collapses onto the hidden bits',
      text: 'Watch the picture of attention over training: within a hundred steps or so three columns light up, the '
        + 'hidden positions, and the test accuracy rises with the attention on them. The run pauses once the model '
        + 'labels fresh inputs right and attends to the three hidden bits more than to any other.',
      preset: 'and-3',
      speed: 1,
      play: true,
      keep: true,
      point: (e) => (e[0] && e[0].test_accuracy >= 0.95 && e[0].found
        ? `test accuracy is at ${pct(e[0].test_accuracy)}, and the three positions with the most attention are the hidden ones (${pct(e[0].mass)} of it on them).`
        : null),
    },
    {
      title: 'Too few samples: memorised',
      text: quote('The same task with 200 samples (solid) and with 20 (dashed), same seed and hidden bits. With 20, many '
        + 'other triples of positions explain the labels as well as the hidden one, and the model may memorise: its train '
        + 'accuracy reaches 100% while its test accuracy stays low. Over 20 seeds within 600 steps, {sparse.and-3-few.train-100} '
        + 'memorise their training set, the test accuracy stays below 90% in {sparse.and-3-few.test-below-90}, and the attention '
        + 'settles on the hidden bits in only {sparse.and-3-few.found}; {sparse.and-3-few.test-100} label the test set 100% '
        + 'right. The runs pause once the 20-sample run has memorised its training set.'),
      preset: 'and-3',
      compare: 'samples',
      speed: 4,
      play: true,
      point: (e) => (e[1] && e[1].train_accuracy >= 1 && e[1].test_accuracy < 0.9 && e[1].step >= 300
        ? `with 20 samples the train accuracy is ${pct(e[1].train_accuracy)} and the test accuracy ${pct(e[1].test_accuracy)}.`
        : null),
    },
    {
      title: 'Parity: a plateau, then a jump',
      text: quote('The label is now the parity of 2 hidden bits out of 16: no single bit says anything about it. Slow motion: '
        + 'the test accuracy sits near 50% for a while as if nothing happened (about 50 steps for this seed), then jumps '
        + 'to nearly 100% within a few dozen steps, the attention on the hidden bits rising with it. Some seeds stay on '
        + 'the plateau far longer: {sparse.parity-2.plateau} are still on it after 5,000 steps. The run pauses once it has jumped.'),
      preset: 'parity-2',
      speed: 0.25,
      play: true,
      point: (e) => (e[0] && e[0].test_accuracy >= 0.9 ? `test accuracy jumped to ${pct(e[0].test_accuracy)} at step ${e[0].step}.` : null),
    },
    {
      title: 'One head, or four',
      text: quote('One head (solid) against four (dashed), same seed. Both learn here (the test set 100% right within 600 '
        + 'steps in {sparse.and-3-one-head.test-100} seeds with one head, {sparse.and-3.test-100} with four), but not '
        + 'alike: the single head has to spread its attention over all three hidden bits at once, while of four heads one '
        + 'or two may take them and the others look elsewhere. Compare the two pictures of attention over training. The runs '
        + 'pause at 600 steps.'),
      preset: 'and-3-one-head',
      compare: 'heads',
      speed: 4,
      play: true,
    },
  ],
  metrics: [
    { key: 'train_loss', label: 'train loss', format: (x) => x.toFixed(3), column: 'train_set_loss', range: [0, Infinity] },
    { key: 'train_accuracy', label: 'train accuracy', format: pct, range: [0, 1] },
    { key: 'test_loss', label: 'test loss', format: (x) => x.toFixed(3), range: [0, Infinity] },
    { key: 'test_accuracy', label: 'test accuracy', format: pct, range: [0, 1] },
    { key: 'mass', label: 'attention on the hidden positions', format: pct, range: [0, 1] },
    { key: 'found', label: 'hidden positions found', format: (x) => (x ? 'yes' : 'no'), range: [0, 1] },
  ],
  charts(names, compare, config) {
    void compare;
    const heads = Number(config?.heads ?? 1);
    /** @type {import('../index.js').ChartSpec[]} */
    const charts = [
      {
        id: 'loss-chart',
        label: 'loss chart',
        file: 'loss',
        title: 'Loss',
        series: names
          ? names.flatMap((n, r) => [['train_loss', 'train loss', 1], ['test_loss', 'test loss', 2]].map(([key, label, c]) => ({
            key: r ? `${key}_b` : String(key), label: `${label}, ${n}`, color: `var(--ap-series-${c})`, dash: RUN_DASH[r],
          })))
          : [{ key: 'train_loss', label: 'train loss' }, { key: 'test_loss', label: 'test loss' }],
        yRange: 'auto',
      },
      {
        id: 'acc-chart',
        label: 'accuracy chart',
        file: 'accuracy',
        title: 'Accuracy and attention on the hidden positions',
        series: names
          ? ACCURACIES.flatMap(([key, label], i) => names.map((n, r) => ({
            key: r ? `${key}_b` : key, label: `${label}, ${n}`, color: `var(--ap-series-${i + 1})`, dash: RUN_DASH[r],
          })))
          : ACCURACIES.map(([key, label]) => ({ key, label })),
        yRange: [0, 1],
      },
    ];
    if (!names && heads > 1) {
      charts.push({
        id: 'heads-chart',
        label: 'attention on S by head chart',
        file: 'heads',
        title: 'Attention on the hidden positions, by head',
        series: Array.from({ length: heads }, (_, k) => ({
          key: `mass_h${k + 1}`, label: `head ${k + 1}`, color: `var(--ap-series-${(k % 6) + 1})`, dash: k < 6 ? [] : [6, 3],
        })),
        yRange: [0, 1],
      });
    }
    return charts;
  },
  caption(e) {
    return `train accuracy ${pct(e.train_accuracy)}, test accuracy ${pct(e.test_accuracy)}, attention on S ${pct(e.mass)}`;
  },
  limits: (c) => ({ sequences: Math.min(16, Number(c.test_samples)), heads: 1 }),
  // A sparse step is small: it is not split over workers.
  workers: () => ({ most: 1, auto: 1 }),
  // The switch of the maps' marks was the part `aligned` until 2026-12.
  partAliases: { aligned: 'marks' },
  parts: ['positions', 'input', 'picture', 'compare-maps', 'metrics', 'loss-chart', 'acc-chart', 'heads-chart'],
  embedParts: ['positions', 'picture', 'compare-maps', 'metrics', 'acc-chart', 'heads-chart'],
  figures: [{ id: 'positions', label: 'attention over the positions' }, { id: 'picture', label: 'attention over training' }],
  marks: 'mark the hidden positions',
  arrays: {
    attention: 'f32', inputAttention: 'f32', input: 'u32', hidden: 'u32', label: 'f32', pictureSteps: 'f32', picture: 'f32',
  },
  checkSnapshot(s) {
    const { length, heads } = /** @type {Record<string, unknown>} */ (s.shape);
    const size = (/** @type {unknown} */ n, /** @type {number} */ max) => Number.isInteger(n) && /** @type {number} */ (n) >= 1 && /** @type {number} */ (n) <= max;
    // The longest input and the most heads the trainer takes (src/sparse/config.rs).
    if (!size(length, 2048) || !size(heads, 8)) {
      return `shown.shape must give length (1 to 2048) and heads (1 to 8) as whole numbers, got ${JSON.stringify(s.shape).slice(0, 60)}`;
    }
    const t = Number(length);
    const at = (/** @type {string} */ name) => /** @type {ArrayLike<number> | undefined} */ (/** @type {any} */ (s)[name])?.length ?? 0;
    for (const [name, n] of /** @type {[string, number][]} */ ([['attention', t * Number(heads)], ['inputAttention', t * Number(heads)], ['input', t], ['label', 1]])) {
      if (at(name) !== n) return `shown.${name} holds ${at(name)} values, its shape needs ${n}`;
    }
    if (at('hidden') < 1 || at('hidden') > t) return `shown.hidden holds ${at('hidden')} positions for a length of ${t}`;
    if (at('picture') !== at('pictureSteps') * t) return `shown.picture holds ${at('picture')} values for ${at('pictureSteps')} rows of ${t}`;
    // Attention is a distribution; bits and labels are 0 or 1; hidden positions are positions.
    const of = (/** @type {string} */ name) => /** @type {ArrayLike<number>} */ (/** @type {any} */ (s)[name]);
    return outsideRange('shown.attention', of('attention'), 0, 1)
      ?? outsideRange('shown.inputAttention', of('inputAttention'), 0, 1)
      ?? outsideRange('shown.picture', of('picture'), 0, 1)
      ?? outsideRange('shown.input', of('input'), 0, 1)
      ?? outsideRange('shown.label', of('label'), 0, 1)
      ?? outsideRange('shown.hidden', of('hidden'), 0, t - 1);
  },
  explainer: EXPLAINER,
  gentle: { steps: 100, why: 'where the default run finds the hidden bits' },
  createViews,
};
