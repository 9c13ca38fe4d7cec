// @ts-check
// The shell knows no lab: no file of www/ outside www/labs/ names a lab, a lab's setting
// (but `seed`, which every lab's settings have: the Run contract), a lab's map (its
// snapshots' typed arrays) or a lab's metric, as a string or as a property. And a third lab,
// a toy one written here, plugs into the shell's pure parts (store, link, sweep) with no
// change to them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LABS } from '../../www/labs/index.js';
import wasm from './wasm-node.js';

const WWW = fileURLToPath(new URL('../../www/', import.meta.url));
/** Names of the shell's own that a lab's name happens to equal: `seed` (every lab's settings
 * have one: the Run trait's reset takes it), `loss` (a snapshot's training loss and the
 * losses' column: `Run::last_loss`, `Run::losses`) and `train_loss` (the history CSV's column
 * of those losses, which a lab's metric column must not take: labs.test.js). */
const CONTRACT = new Set(['seed', 'loss', 'train_loss']);
/** Names that are the DOM's or the language's own (elements, attributes, properties):
 * not checked. */
const DOM = new Set(['length', 'hidden', 'label', 'input', 'width', 'function']);
/** Names that are the DOM's own properties (`event.target`): checked as strings only. */
const PROPERTIES = new Set(['target', 'source', 'step']);

/** Every .js file under `dir`. @param {string} dir @returns {string[]} */
function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.js') ? [path] : [];
  });
}

/** The names a lab owns: its own name, its settings, its maps, its metrics. */
function labNames() {
  /** @type {Map<string, string>} */
  const owner = new Map();
  for (const lab of Object.values(LABS)) {
    owner.set(lab.name, `the lab ${lab.name}`);
    for (const f of wasm.settings(lab.name)) owner.set(f.key, `a setting of ${lab.name}`);
    for (const k of Object.keys(lab.arrays)) owner.set(k, `a map of ${lab.name}`);
    for (const m of lab.metrics) owner.set(m.key, `a metric of ${lab.name}`);
  }
  for (const k of [...CONTRACT, ...DOM]) owner.delete(k);
  return owner;
}

test('no shell file names a lab, its settings, its maps or its metrics', () => {
  const owner = labNames();
  const found = [];
  for (const path of files(WWW).filter((p) => !relative(WWW, p).startsWith('labs'))) {
    const text = readFileSync(path, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '') // comments say what they like
      .replace(/\/\/.*$/gm, '');
    for (const [name, what] of owner) {
      const string = new RegExp(`['"\`]${name}['"\`]`);
      const property = new RegExp(`\\.${name}\\b(?!\\()`);
      if (string.test(text) || (!PROPERTIES.has(name) && property.test(text))) found.push(`${relative(WWW, path)}: ${name} (${what})`);
    }
  }
  assert.deepEqual(found, []);
});

// A third lab, a toy: two settings and a seed, two presets, a contrast, a one-step story, a
// sweep spec, one metric, one chart, one map. Its trainer's part (fields, presets, verdict)
// is written here as the facade would give it.
/** @type {import('../../www/labs/index.js').Lab} */
const toy = {
  name: 'toy', title: 'Toy', menuName: 'A toy lab', tagline: 'Nothing learns here.', docs: 'docs/toy.md',
  help: { width: 'How wide.', rate: 'How fast.', seed: 'Which draw.' },
  presetLabels: { small: 'Small toy', big: 'Big toy' }, presetAliases: { tiny: 'small' }, defaultPreset: 'small',
  budgets: { big: { steps: 50, claim: 'the big toy is done by step 50' } },
  contrasts: { width: { label: 'narrow vs wide', apply: (c) => ({ ...c, width: Number(c.width) > 2 ? 1 : 4 }), names: () => ['this', 'other'] } },
  sweep: {
    success: { key: 'score', at: 0.9, words: 'scored 90%' }, stall: { key: 'score', below: 0.1, words: 'score below 10%' },
    curves: [{ key: 'score', label: 'score' }], columns: [{ key: 'score', name: 'score', digits: 2 }], steps: 30,
  },
  story: [{ title: 'Look', text: 'It does nothing.', preset: 'big', play: true }],
  metrics: [{ key: 'score', label: 'score', format: (x) => x.toFixed(2) }],
  charts: () => [{ id: 'score-chart', label: 'score chart', file: 'score', title: 'Score', series: [{ key: 'score', label: 'score' }], yRange: [0, 1] }],
  caption: (e) => `score ${e.score}`,
  limits: () => ({ sequences: 3, heads: 1 }),
  workers: () => ({ most: 1, auto: 1 }),
  parts: ['toy-map', 'score-chart'], embedParts: ['toy-map'],
  figures: [{ id: 'toy-map', label: 'toy map' }], marks: 'mark nothing',
  arrays: { grid: 'f32' },
  checkSnapshot: () => null,
  explainer: [],
  gentle: { steps: 10, why: 'where nothing happens' },
  createViews: () => ({ update() {}, setColormap() {}, setShowMarks() {}, invalidate() {}, figure: () => null, destroy() {} }),
};

/** @type {import('../../www/labs/index.js').Field[]} */
const TOY_FIELDS = [
  { key: 'width', words: 'Width w', live: false, kind: 'whole', min: 1, max: 8 },
  { key: 'rate', words: 'Rate r', live: true, kind: 'positive', min: 0, max: 1 },
  { key: 'seed', words: 'Seed', live: false, kind: 'whole', min: 0, max: 1000 },
];

/** The toy trainer's verdict, field by field, with the trainer's words. @type {import('../../www/state/store.js').Validate} */
function validateToy(config) {
  /** @type {Record<string, unknown>} */
  const out = { width: 2, rate: 0.1, seed: 0 };
  for (const [key, raw] of Object.entries(config)) {
    const f = TOY_FIELDS.find((x) => x.key === key);
    if (!f) return { error: `${key}: is not a setting`, field: key };
    const x = typeof raw === 'number' ? raw : /^\d+(\.\d+)?$/.test(String(raw).trim()) ? Number(raw) : NaN;
    const ok = f.kind === 'whole' ? Number.isInteger(x) && x >= /** @type {number} */ (f.min) && x <= /** @type {number} */ (f.max) : x > 0 && x <= /** @type {number} */ (f.max);
    if (!ok) return { error: `${f.words} (${key}): must be ${f.kind === 'whole' ? `a whole number from ${f.min} to ${f.max}` : `a number greater than 0 and at most ${f.max}`}, got “${raw}”`, field: key };
    out[key] = x;
  }
  return { config: out };
}

test('a third lab plugs into the shell as it is: its settings, link, presets, story, sweep, parts and charts', async () => {
  const { Store } = await import('../../www/state/store.js');
  const { settingInputs } = await import('../../www/ui/form.js');
  const { hiddenParts } = await import('../../www/embed/embed.js');
  const { summarize, sweepCsv } = await import('../../www/sweeps/seeds.js');
  const { mergeHistories } = await import('../../www/ui/figures.js');
  const presets = { small: { width: 2, rate: 0.1, seed: 0 }, big: { width: 6, rate: 0.1, seed: 0 } };
  const store = new Store(toy, { fields: TOY_FIELDS, presets, validate: validateToy }, 'copying');

  // Its settings: the form, a refusal in its words, a live one and one that starts a new run.
  assert.deepEqual(settingInputs(TOY_FIELDS, toy.help).map((s) => [s.key, s.element, s.label, s.help]),
    [['width', 'text', 'Width w', 'How wide.'], ['rate', 'text', 'Rate r', 'How fast.'], ['seed', 'text', 'Seed', 'Which draw.']]);
  // Its link: a preset by its alias, a setting, a bad setting named, an unknown key named.
  const problems = store.readLink('?v=1&preset=tiny&rate=0.5&width=99&depth=3&compare=width');
  assert.equal(store.state.preset, 'small');
  assert.deepEqual(store.state.config, { width: 2, rate: 0.5, seed: 0 });
  assert.equal(store.state.compare, 'width');
  assert.ok(problems.some((p) => p.startsWith('Width w (width): must be a whole number from 1 to 8')), problems.join('\n'));
  assert.ok(problems.some((p) => p.includes('“depth”')), problems.join('\n'));
  const link = store.link();
  assert.match(link, /lab=toy/);
  const again = new Store(toy, { fields: TOY_FIELDS, presets, validate: validateToy }, 'copying');
  assert.deepEqual(again.readLink(link), []);
  assert.deepEqual(again.state.config, store.state.config, 'the link is the run');
  const fresh = store.state.fresh;
  assert.equal(store.setSetting('rate', '0.25'), null);
  assert.equal(store.state.fresh, fresh, 'a live setting applies to the running model');
  assert.equal(store.isCustom(), false);
  assert.equal(store.setSetting('width', '9'), 'Width w (width): must be a whole number from 1 to 8, got “9”');
  assert.equal(store.setSetting('width', '3'), null);
  assert.equal(store.state.fresh, fresh + 1, 'a new run');
  assert.equal(store.isCustom(), true);
  // Its presets and story: the story step sets its preset up, with the preset's budget.
  store.showStory(0);
  assert.equal(store.state.preset, 'big');
  assert.deepEqual(store.budget(), toy.budgets.big);
  // Its parts: embed mode shows its map, hides its chart; a bad part is named.
  const parts = hiddenParts(true, 'score-chart,gears', toy);
  assert.ok(parts.hidden.includes('score-chart') && !parts.hidden.includes('toy-map'));
  assert.match(parts.problems.join(''), /got “gears”/);
  // Its sweep: its seeds read with its own spec, and its CSV.
  const seeds = [0, 1].map((seed) => ({ seed, evaluations: [{ step: 0, score: 0 }, { step: 30, score: seed ? 0.95 : 0.05 }], step: 30, done: true, failed: null }));
  const sum = summarize(seeds, toy.sweep, 30);
  assert.deepEqual([sum.reached, sum.counts.stalled], [1, 1]);
  assert.equal(sweepCsv(seeds, toy.sweep).split('\n')[0], 'seed,step,score');
  // Its charts compare two runs by its metric.
  const points = mergeHistories([{ step: 0, score: 0.5 }], [{ step: 0, score: 0.25 }], toy.metrics.map((m) => m.key));
  assert.deepEqual(points, [{ step: 0, score: 0.5, score_b: 0.25 }]);
});
