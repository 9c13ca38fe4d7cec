// @ts-check
// The copying lab (Snell et al. 2021): a seq2seq LSTM with attention learns to copy. This
// file is what the shell needs to know of it as data: its settings' help, presets' names,
// contrasts to compare, classroom story, metrics and charts (its settings themselves are the
// trainer's: src/copying/config.rs). Its views are views.js; its
// model is the Rust crate's (the wasm facade's lab "copying"). Pure: no DOM here.

import { createViews } from './views.js';
import { outsideRange } from '../ranges.js';
import { quote } from '../quote.js';

/** @typedef {import('../index.js').Lab} Lab */

/** What each setting does, by key (its words and range are the trainer's). */
const HELP = {
  task: 'What the target is made of.',
  distinct: 'Each source has L different tokens out of V; with V = L every source is a permutation (the hard task).',
  vocab: 'Number of ordinary tokens.',
  length: 'Tokens per source, before EOS.',
  hidden: 'Width of the embedding and both LSTMs.',
  batch: 'Fresh sequences per training step.',
  learning_rate: 'Applies at once, without restarting.',
  optimizer: 'Adam with PyTorch defaults, or plain SGD.',
  attention: 'Uniform forces every score to zero: the decoder sees the average of the source.',
  heads: 'Attention heads; their contexts are averaged.',
  bidirectional: 'Read the source both ways; outputs concatenated.',
  seed: 'Same seed, same run, bit for bit.',
  eval_every: 'Steps between two evaluations of the fixed evaluation batch (and one at step 0).',
  eval_batch: 'Sequences of the fixed evaluation batch that the metrics and maps are measured on.',
};

/** Heads of the several-heads contrast (as the small-heads preset). */
const MANY_HEADS = 8;

/** The accuracy metrics the chart draws (colours: the theme's series 1–4 in this order). */
const ACCURACIES = [
  ['token_accuracy', 'token accuracy'],
  ['attention_accuracy', 'attention accuracy'],
  ['ktiw_accuracy', 'KTIW accuracy'],
  ['ktiw_score', 'KTIW score'],
];
/** Solid for the first run, dashed for the second. */
const RUN_DASH = [[], [6, 4]];

// From reproduce's runs of each preset (docs/reproducing.md): each figure is quoted from
// figures.js, which scripts/figures.js writes from results/. A preset with no such
// measurement has no budget.
/** @type {Record<string, import('../index.js').Budget>} */
const BUDGETS = {
  'small-easy': { steps: 400, claim: quote('within 400 steps the easy task reaches 99% token accuracy in {copying.small-easy.reached} seeds (at steps {copying.small-easy.reached-steps})') },
  'small-hard': { steps: 400, claim: quote('within 400 steps the hard task reaches 99% token accuracy in only {copying.small-hard.reached} seeds; {copying.small-hard.stalled} others stall with attention accuracy at {copying.small-hard.stalled-attention}, and {copying.small-hard.learning} are still learning') },
  'small-uniform': { steps: 400, claim: quote('within 400 steps uniform attention’s KTIW accuracy passes 50% in {copying.small-uniform.ktiw-passed-400} seeds (at steps {copying.small-uniform.ktiw-steps-400}), while its token accuracy is at {copying.small-uniform.token-400} at step 400') },
  'small-reverse': { steps: 400, claim: quote('within 400 steps reversal reaches 99% token accuracy in {copying.small-reverse.reached} seeds (at steps {copying.small-reverse.reached-steps}), while attention accuracy ends at 0.1% or less in {copying.small-reverse.attention-near-0}') },
  'small-translate': { steps: 400, claim: quote('within 400 steps word translation reaches 99% token accuracy in {copying.small-translate.reached} seeds (at steps {copying.small-translate.reached-steps}), KTIW accuracy passing 50% before attention accuracy in {copying.small-translate.ktiw-first}') },
  'small-heads': { steps: 600, claim: quote('within 600 steps the hard task is stuck (attention accuracy below 20%) in {copying.small-heads.stuck} seeds with 8 heads, against {copying.small-hard-600.stuck} with one head') },
  easy: { steps: 200, claim: quote('within 200 steps the paper-size easy task reaches 99% token accuracy in {copying.easy.reached} seeds tried (at step {copying.easy.reached-steps}), as in the paper') },
  hard: { steps: 200, claim: quote('within 200 steps the paper-size hard task reaches 99% token accuracy in {copying.hard.reached} seeds (at steps {copying.hard.reached-steps}); the others are at {copying.hard.others-190} token accuracy at step 190 and still climbing (higher at step 200 than at step 100 in {copying.hard.others-rising})') },
};

/** What the page shows, a paragraph each (ui/dom.js's `prose`). */
const EXPLAINER = [
  'The model reads a sequence of tokens (the *source*, across the top of the maps) and must write it out again '
    + '(the *target*, down the side), one token per step.',
  '**Attention α**: at each output step, how much the model looks at each source position. Each row sums to 100%. '
    + 'When copying is learned it is a bright diagonal: to write token number *t* it looks at source position *t*.',
  '**KTIW β** ("knowledge to translate individual words"): for every cell we force the model to look *only* at that '
    + 'source position and ask how sure it then is of the right output (as log-odds). A bright diagonal here means the '
    + 'model already knows which source word gives which output word.',
  quote('**The story**: KTIW is learned first, while attention is still flat; then attention learns to look where KTIW '
    + 'is high. On the easy task {copying.small-easy.reached} seeds copy within 400 steps. On the hard task every source '
    + 'holds the same words in a new order, so co-occurrence teaches nothing, KTIW stays low, and attention, with '
    + 'nothing to follow, often does not find the diagonal: within 400 steps {copying.small-hard.reached} seeds copy '
    + '({copying.small-hard-600.reached} within 600 steps). With several heads fewer runs stay stuck ({copying.small-heads.stuck} '
    + 'within 600 steps, against {copying.small-hard-600.stuck} with one head), though fewer copy by then '
    + '({copying.small-heads.reached} against {copying.small-hard-600.reached}). Each preset pauses at its budget of '
    + 'steps and says so.'),
  '**Colours**: α from 0 to 100%; β on a fixed scale of log-odds from −8 to +8, the same at every step, with 0 (a 50% '
    + 'chance of the right token) in the middle; its legend gives this frame’s own range. The dashed outline marks the '
    + 'cell each row copies from, trained or not.',
];

/** @param {number} x */
const pct = (x) => `${(100 * x).toFixed(1)}%`;

/** @type {Lab} */
export const copying = {
  name: 'copying',
  title: 'Attention Playground',
  menuName: 'Copying (Snell et al. 2021)',
  docs: 'docs/reproducing.md',
  tagline: 'A seq2seq LSTM with attention learns to copy, live in your browser (Snell et al., 2021).',
  help: HELP,
  presetLabels: {
    'small-easy': 'Easy copying',
    'small-hard': 'Hard copying (permutations)',
    'small-uniform': 'Uniform attention',
    'small-heads': 'Several heads on the hard task',
    'small-reverse': 'Reversal',
    'small-translate': 'Word translation',
    easy: 'Easy copying, paper size (slow)',
    hard: 'Hard copying, paper size (slow)',
  },
  presetAliases: {
    'easy-copy': 'small-easy',
    'hard-copy': 'small-hard',
    uniform: 'small-uniform',
    heads: 'small-heads',
    reverse: 'small-reverse',
    translate: 'small-translate',
    'paper-easy': 'easy',
    'paper-hard': 'hard',
  },
  defaultPreset: 'small-easy',
  budgets: BUDGETS,
  contrasts: {
    task: {
      label: 'easy vs hard task',
      // Hard: every source a permutation of the vocabulary (V = L); easy: V = 1.5 L.
      apply: (c) => (c.distinct && c.vocab === c.length
        ? { ...c, vocab: Math.round(1.5 * c.length) }
        : { ...c, distinct: true, vocab: c.length }),
      names: (c) => (c.distinct && c.vocab === c.length ? ['hard task', 'easy task'] : ['easy task', 'hard task']),
    },
    attention: {
      label: 'learned vs uniform attention',
      apply: (c) => ({ ...c, attention: c.attention === 'uniform' ? 'learned' : 'uniform' }),
      names: (c) => (c.attention === 'uniform' ? ['uniform', 'learned'] : ['learned', 'uniform']),
      // KTIW predicts attention: the learned run's α against the uniform run's β (β^uf), on
      // the same evaluation batch (same settings, same seed); the shuffles of the chance
      // baseline are drawn from the evaluation's step.
      paired: {
        measure(wasm, first, second, step) {
          const [learned, uniform] = first.config.attention === 'uniform' ? [second, first] : [first, second];
          const { tgtLen, srcLen } = /** @type {{ tgtLen: number, srcLen: number }} */ (first.shape);
          const maps = (/** @type {import('../../training/protocol.js').Snapshot} */ s) => /** @type {Record<string, Float32Array>} */ (s.evaluationMaps);
          const [uf, shuffled] = wasm.copyingAgreement(maps(learned).alpha, maps(uniform).beta, tgtLen, srcLen, step);
          return { uf, uf_shuffled: shuffled };
        },
      },
    },
    heads: {
      label: `one head vs ${MANY_HEADS}`,
      apply: (c) => ({ ...c, heads: c.heads > 1 ? 1 : MANY_HEADS }),
      names: (c) => (c.heads > 1 ? [`${c.heads} heads`, '1 head'] : ['1 head', `${MANY_HEADS} heads`]),
    },
  },
  sweep: {
    success: { key: 'token_accuracy', at: 0.99, words: 'reached 99% token accuracy' },
    stall: { key: 'attention_accuracy', below: 0.2, words: 'attention accuracy below 20%' },
    curves: [{ key: 'token_accuracy', label: 'token accuracy' }, { key: 'attention_accuracy', label: 'attention accuracy' }],
    order: { first: 'ktiw_accuracy', then: 'attention_accuracy', at: 0.5, words: 'KTIW accuracy passed 50% before attention accuracy did', names: ['KTIW', 'attention'] },
    columns: [
      { key: 'loss', name: 'loss', digits: 6 },
      { key: 'token_accuracy', name: 'token_acc', digits: 4 },
      { key: 'attention_accuracy', name: 'attention_acc', digits: 4 },
      { key: 'ktiw_accuracy', name: 'ktiw_acc', digits: 4 },
      { key: 'ktiw_score', name: 'ktiw_score', digits: 4 },
      { key: 'agreement', name: 'agreement', digits: 4 },
    ],
    steps: 400,
  },
  story: [
    {
      title: 'Attention starts out flat',
      text: 'Before any training, look at the attention map α: every row is nearly even, so at each output step '
        + 'the model looks at all source positions alike. The KTIW map β is noise too, faint at this step. Press '
        + 'Next to start training.',
      preset: 'small-easy',
      play: false,
    },
    {
      title: 'KTIW is learned first',
      text: 'Slow motion. Watch the Accuracy chart: KTIW accuracy (dotted) climbs within the first few dozen steps '
        + 'while attention accuracy (dashed) stays low. The model learns which source word gives which output word '
        + 'before it learns where to look, and the β map grows its bright diagonal first. The run pauses once KTIW '
        + 'is ahead.',
      preset: 'small-easy',
      speed: 0.1,
      play: true,
      point: (e) => (e[0] && e[0].ktiw_accuracy >= 0.8 && e[0].attention_accuracy < 0.5
        ? `KTIW accuracy is at ${pct(e[0].ktiw_accuracy)} while attention accuracy is at ${pct(e[0].attention_accuracy)}.`
        : null),
    },
    {
      title: 'Attention locks onto the diagonal',
      text: 'The same run goes on, slowly: now attention follows KTIW. Over the next hundred steps or so the α map '
        + 'forms a bright diagonal and attention accuracy rises. Each output step looks at the source position it '
        + 'copies, because that is where the model already knows the answer. The run pauses once attention is there.',
      preset: 'small-easy',
      speed: 0.25,
      play: true,
      keep: true,
      point: (e) => (e[0] && e[0].attention_accuracy >= 0.9
        ? `attention accuracy is at ${pct(e[0].attention_accuracy)} and token accuracy at ${pct(e[0].token_accuracy)}.`
        : null),
    },
    {
      title: 'The hard task stalls',
      text: 'Two runs side by side, same seed, in step. In the second (dashed lines, lower maps) every source is a '
        + 'permutation of the same 20 words, so seeing a word in the source says nothing about which output comes '
        + 'next. KTIW stays low, and attention, with nothing to follow, often never finds the diagonal within the '
        + '400 steps that the easy task needs. The runs pause there.',
      preset: 'small-easy',
      compare: 'task',
      speed: 4,
      play: true,
      budget: { steps: 400, claim: quote('within 400 steps the easy task reaches 99% token accuracy in {copying.small-easy.reached} seeds, the hard one in only {copying.small-hard.reached}') },
    },
    {
      title: 'Uniform attention still learns KTIW',
      text: 'The second run has its attention forced to be even (it sees the average of the source). Its KTIW '
        + 'accuracy still rises past 50% within a few dozen steps: knowing which word translates to which does not '
        + 'need attention, and it is what attention later learns to follow. Its token accuracy stays low. The runs pause at '
        + '200 steps.',
      preset: 'small-easy',
      compare: 'attention',
      speed: 1,
      play: true,
      budget: { steps: 200, claim: quote('within 200 steps uniform attention’s KTIW accuracy passes 50% in {copying.small-uniform.ktiw-passed-200} seeds (at steps {copying.small-uniform.ktiw-steps-200}), while its token accuracy is at {copying.small-uniform.token-200} at step 200') },
    },
    {
      title: 'Several heads rescue the hard task',
      text: quote('Back to the hard task: one attention head (solid) against eight (dashed), in step. With several heads '
        + 'fewer runs stay stuck, and the heads do not learn alike: in this seed one head leads the way to the diagonal '
        + 'while another stays off it. Not every seed is rescued, and learning is slower: over seeds 0–19, within 600 steps {copying.small-heads.reached} '
        + 'reach 99% token accuracy with eight heads against {copying.small-hard-600.reached} with one. The runs pause at '
        + '600 steps. Try New seed to see another pair.'),
      preset: 'small-hard',
      compare: 'heads',
      speed: 16,
      play: true,
      budget: BUDGETS['small-heads'],
    },
    {
      title: 'One draw, or twenty',
      text: quote('Press Play on the hard task and you see one draw of a lottery: this seed learns to copy, that one stalls. '
        + 'Here are twenty seeds of it at once, trained side by side on this computer’s cores, each line one seed, green '
        + 'once it copies 99% of tokens, grey where attention never found the diagonal; the panel says how long they take on this computer. Count the '
        + 'green lines (in our runs of seeds 0–19, {copying.small-hard.reached} within 400 steps), look at how late they '
        + 'jump, and see KTIW lead attention in each (of the seeds whose attention passed 50%, {copying.small-hard.ktiw-led} '
        + 'had KTIW past it first). '
        + 'Click a line to open that seed as the run above the maps.'),
      preset: 'small-hard',
      seeds: '20',
      play: false,
    },
    {
      title: 'KTIW predicts attention',
      text: 'The paper’s central evidence. The same model trains twice, same seed, same test sentences: normally (solid '
        + 'lines, upper maps) and with attention forced to be even (dashed, lower maps). The even run can never look '
        + 'anywhere, yet its KTIW map β^uf grows a diagonal. The third chart counts how often the normal run’s attention α '
        + 'lands where β^uf is highest (top-5% agreement): it climbs far above chance (dotted: β^uf shuffled) as attention '
        + 'is learned. Where KTIW points, attention later goes. The run pauses once the agreement is clear.',
      preset: 'small-easy',
      compare: 'attention',
      speed: 4,
      play: true,
      budget: { steps: 400, claim: quote('within 400 steps the agreement of the learned attention with β^uf reaches {copying.uf.agreement-400} in seeds {copying.uf.seeds}, against {copying.uf.chance-400} by chance') },
      point: (_, paired) => (paired && paired.uf >= 0.5 && paired.uf - paired.uf_shuffled >= 0.3
        ? `the learned attention agrees with β^uf in ${pct(paired.uf)} of target steps, against ${pct(paired.uf_shuffled)} by chance.`
        : null),
    },
  ],
  metrics: [
    { key: 'loss', label: 'loss', format: (x) => x.toFixed(3), column: 'eval_loss', range: [0, Infinity] },
    { key: 'token_accuracy', label: 'token accuracy', format: pct, range: [0, 1] },
    { key: 'attention_accuracy', label: 'attention accuracy', format: pct, range: [0, 1] },
    { key: 'ktiw_accuracy', label: 'KTIW accuracy', format: pct, range: [0, 1] },
    { key: 'ktiw_score', label: 'KTIW score', format: pct, range: [0, 1] },
    { key: 'agreement', label: 'top-5% agreement of β with α', format: pct, range: [0, 1] },
  ],
  charts(names, compare, config) {
    const heads = Number(config?.heads ?? 1);
    /** @type {import('../index.js').ChartSpec[]} */
    const charts = [
      {
        id: 'loss-chart',
        label: 'loss chart',
        file: 'loss',
        title: 'Loss (evaluation batch)',
        series: names
          ? names.map((n, r) => ({ key: r ? 'loss_b' : 'loss', label: `loss, ${n}`, color: 'var(--ap-series-1)', dash: RUN_DASH[r] }))
          : [{ key: 'loss', label: 'loss' }],
        yRange: 'auto',
      },
      {
        id: 'acc-chart',
        label: 'accuracy chart',
        file: 'accuracy',
        title: 'Accuracy',
        series: names
          // Compare: token, attention and KTIW accuracy of both runs (the KTIW score would be an eighth line).
          ? ACCURACIES.slice(0, 3).flatMap(([key, label], i) => names.map((n, r) => ({
            key: r ? `${key}_b` : key, label: `${label}, ${n}`, color: `var(--ap-series-${i + 1})`, dash: RUN_DASH[r],
          })))
          : ACCURACIES.map(([key, label]) => ({ key, label })),
        yRange: [0, 1],
      },
    ];
    if (!names && heads > 1) {
      // Which head found the diagonal: each head's own attention accuracy.
      charts.push({
        id: 'heads-chart',
        label: 'attention accuracy by head chart',
        file: 'heads',
        title: 'Attention accuracy by head',
        series: Array.from({ length: heads }, (_, k) => ({
          key: `attention_accuracy_h${k + 1}`, label: `head ${k + 1}`,
          color: `var(--ap-series-${(k % 6) + 1})`, dash: k < 6 ? [] : [6, 3],
        })),
        yRange: [0, 1],
      });
    }
    if (names && compare === 'attention') {
      // The learned run's own agreement is the first run's or the second's.
      const own = names[0] === 'learned' ? 'agreement' : 'agreement_b';
      charts.push({
        id: 'agree-chart',
        label: 'agreement chart',
        file: 'agreement',
        title: 'KTIW predicts attention: top-5% agreement',
        series: [
          { key: 'uf', label: 'A(α, β^uf): learned attention against the uniform run’s KTIW', color: 'var(--ap-series-3)', dash: [] },
          { key: 'uf_shuffled', label: 'the same, β^uf shuffled (chance)', color: 'var(--ap-series-6)', dash: [2, 3] },
          { key: own, label: 'A(α, β) within the learned run', color: 'var(--ap-series-2)', dash: [7, 4] },
        ],
        yRange: [0, 1],
      });
    }
    return charts;
  },
  caption(e) {
    return `loss ${e.loss.toFixed(3)}, token accuracy ${pct(e.token_accuracy)}, attention accuracy ${pct(e.attention_accuracy)}, KTIW accuracy ${pct(e.ktiw_accuracy)}`;
  },
  limits: (c) => ({ sequences: Number(c.eval_batch), heads: Number(c.heads) }),
  // A batch splits by sequences; a large one (the paper size) over every core, up to 8; a
  // small one's step is too short to win from splitting.
  workers: (c, cores) => ({ most: Number(c.batch), auto: Number(c.batch) >= 64 ? Math.min(cores, 8) : 1 }),
  // The GPU from width × batch 128·128 on: the paper's size (256·128) goes there, the small
  // preset (64·32) stays with wasm SIMD. A rule of thumb, not yet measured on a GPU.
  gpu: { suits: (c) => Number(c.hidden) * Number(c.batch) >= 128 * 128, rule: 'a hidden size × batch of 16,384 (a rule of thumb, not a measurement)' },
  // The switch of the maps' marks was the part `aligned` until 2026-12.
  partAliases: { aligned: 'marks' },
  parts: ['alpha', 'beta', 'heads', 'compare-maps', 'metrics', 'loss-chart', 'acc-chart', 'heads-chart', 'agree-chart'],
  embedParts: ['alpha', 'beta', 'heads', 'compare-maps', 'metrics', 'loss-chart', 'acc-chart', 'heads-chart', 'agree-chart'],
  figures: [{ id: 'alpha', label: 'α heatmap' }, { id: 'beta', label: 'β heatmap' }],
  marks: 'outline the aligned cell',
  arrays: { alpha: 'f32', beta: 'f32', perHead: 'f32[]', source: 'u32', target: 'u32', aligned: 'u32' },
  checkSnapshot(s) {
    const { tgtLen, srcLen, heads } = /** @type {Record<string, unknown>} */ (s.shape);
    const size = (/** @type {unknown} */ n) => Number.isInteger(n) && /** @type {number} */ (n) >= 1 && /** @type {number} */ (n) <= 1024;
    if (!size(tgtLen) || !size(srcLen) || !size(heads)) {
      return `shown.shape must give tgtLen, srcLen and heads as whole numbers from 1 to 1024, got ${JSON.stringify(s.shape).slice(0, 60)}`;
    }
    const cells = Number(tgtLen) * Number(srcLen);
    const length = (/** @type {string} */ name, /** @type {number} */ n) => {
      const a = /** @type {ArrayLike<number> | undefined} */ (/** @type {any} */ (s)[name]);
      return a?.length === n ? null : `shown.${name} holds ${a?.length ?? 0} values, its shape ${tgtLen}×${srcLen} needs ${n}`;
    };
    const wrong = length('alpha', cells) ?? length('beta', cells) ?? length('source', Number(srcLen))
      ?? length('target', Number(tgtLen)) ?? length('aligned', Number(tgtLen));
    if (wrong) return wrong;
    const perHead = /** @type {Float32Array[]} */ (s.perHead);
    if (perHead.length !== 0 && perHead.length !== heads) return `shown.perHead holds ${perHead.length} maps for ${heads} heads`;
    if (perHead.some((m) => m.length !== cells)) return `a map of shown.perHead does not have the shape ${tgtLen}×${srcLen}`;
    // α is a distribution over the source, β a log-odds (any number, not NaN); the tokens are
    // of the vocabulary and EOS/SOS.
    const maps = [['alpha', s.alpha], ...perHead.map((m, k) => [`perHead[${k}]`, m])];
    for (const [name, values] of /** @type {[string, Float32Array][]} */ (maps)) {
      const bad = outsideRange(`shown.${name}`, values, 0, 1);
      if (bad) return bad;
    }
    const beta = outsideRange('shown.beta', /** @type {Float32Array} */ (s.beta), -Infinity, Infinity);
    if (beta) return beta;
    const tokens = Number(s.config.vocab) + 1;
    return outsideRange('shown.source', /** @type {Uint32Array} */ (s.source), 0, tokens)
      ?? outsideRange('shown.target', /** @type {Uint32Array} */ (s.target), 0, tokens)
      ?? outsideRange('shown.aligned', /** @type {Uint32Array} */ (s.aligned), 0, Number(srcLen) - 1);
  },
  explainer: EXPLAINER,
  gentle: { steps: 200, why: 'where the default run learns KTIW and then attention' },
  createViews,
};
