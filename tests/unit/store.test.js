// @ts-check
// The page's store (www/state/store.js) in Node, with the trainer's own verdicts on settings (the
// simd128 build): a link's settings that the trainer refuses are dropped one by one and
// named; a refused setting changes nothing; the story and the presets set whole runs up.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Store } from '../../www/state/store.js';
import { copying } from '../../www/labs/copying/lab.js';
import { storySetup, budgetOf } from '../../www/labs/index.js';
import wasm, { validator, trainer } from './wasm-node.js';
import { DEFAULT_SPEED } from '../../www/state/options.js';

const fresh = () => new Store(copying, trainer('copying'), 'copying');

test('a link applies what the trainer accepts and names the rest', () => {
  const store = fresh();
  const problems = store.readLink('?preset=small-hard&seed=5&heads=99&hidden=9999&seq=500&head=3');
  assert.equal(store.state.preset, 'small-hard');
  assert.equal(store.state.config.seed, 5);
  assert.equal(store.state.config.heads, 1);
  assert.equal(store.state.config.hidden, 64);
  assert.equal(store.state.seq, 49, 'the last sequence instead');
  assert.equal(store.state.head, -1);
  const said = problems.join('\n');
  for (const want of ['Heads K (heads): must be a whole number from 1 to 16, got “99”', 'Width H (hidden): must be a whole number from 1 to 1024',
    'Sequence shown (seq): must be a whole number from 0 to 49 (this run evaluates 50 sequences), got 500',
    'Head shown (head): must be a whole number from −1 (the average) to 0 (this run has 1 head), got 3']) {
    assert.ok(said.includes(want), `“${want}” in:\n${said}`);
  }
  assert.equal(new URLSearchParams(store.link()).get('seed'), '5');
});

test('a rule between settings that the link breaks drops the setting that breaks it, and the rest applies', () => {
  const store = fresh();
  // Distinct tokens with L > V: the trainer names `length`, which the link did not set.
  const problems = store.readLink('?vocab=10&seed=7');
  assert.deepEqual(problems, ['Length L (length): must be at most vocab (10) when tokens are distinct, got 20, so vocab=“10” is not applied']);
  assert.equal(store.state.config.vocab, 30);
  assert.equal(store.state.config.seed, 7);
  // A setting that needs another first applies when that one does, whatever the order.
  assert.deepEqual(store.readLink('?length=50&vocab=60&seed=7'), []);
  assert.deepEqual([store.state.config.length, store.state.config.vocab], [50, 60]);
});

test('a refused setting changes nothing; an accepted one starts a new run unless it is live', () => {
  const store = fresh();
  store.readLink('');
  const before = store.state;
  assert.equal(store.setSetting('vocab', '1'), 'Vocabulary V (vocab): must be a whole number from 2 to 500, got “1”');
  assert.equal(store.setSetting('seed', '-5'), 'Seed (seed): must be a whole number from 0 to 9007199254740991, got “-5”');
  assert.equal(store.setSetting('learning_rate', 'fast'), 'Learning rate (learning_rate): must be a number greater than 0 and at most 100, got “fast”');
  assert.equal(store.state, before, 'the same state');
  assert.equal(store.setSetting('learning_rate', '0.01'), null);
  assert.equal(store.state.fresh, before.fresh, 'the learning rate applies to the running model');
  assert.equal(store.isCustom(), false, 'a live setting keeps the preset');
  assert.equal(store.setSetting('hidden', ' 32 '), null);
  assert.equal(store.state.fresh, before.fresh + 1, 'a new run');
  assert.equal(store.isCustom(), true);
  assert.equal(new URLSearchParams(store.link()).get('hidden'), '32');
});

test('story steps set their runs up; a kept step keeps the run and its playing', () => {
  const store = fresh();
  store.readLink('');
  store.showStory(3);
  assert.deepEqual([store.state.story, store.state.compare, store.state.speed, store.state.playing], [4, 'task', copying.story[3].speed, true]);
  store.showStory(1);
  store.setPlaying(true);
  const fresh1 = store.state.fresh;
  store.showStory(2);
  assert.equal(store.state.fresh, fresh1, 'step 3 keeps the run of step 2');
  assert.equal(store.state.compare, '');
  store.showStory(99);
  assert.equal(store.state.story, 3, 'no such step: nothing changes');
});

test('a step that goes on with the one before keeps the run only when reached from it', () => {
  const store = fresh();
  store.readLink('');
  const keep = copying.story.findIndex((st) => st.keep);
  assert.ok(keep > 0);
  store.showStory(keep - 1);
  const before = store.state.fresh;
  store.showStory(keep);
  assert.equal(store.state.fresh, before, 'forward: the same run');
  store.showStory(keep + 1);
  store.showStory(keep);
  const setup = storySetup(copying, keep);
  assert.ok(store.state.fresh > before, 'back: a fresh run');
  assert.deepEqual([store.state.preset, store.state.compare], [setup.preset, setup.compare], 'the step’s own run, as its link opens it');
});

test('a story step’s budget holds for its own run only; a preset’s for its preset', () => {
  copying.story.forEach((st, k) => {
    const { preset, compare } = storySetup(copying, k);
    const own = budgetOf(copying, preset, compare, k + 1);
    assert.deepEqual(own, st.budget ?? copying.budgets[preset] ?? null, `step ${k + 1}`);
    if (st.budget) {
      assert.deepEqual(budgetOf(copying, 'small-easy', '', k + 1), copying.budgets['small-easy'], `step ${k + 1} over another run`);
    }
  });
  for (const name of Object.keys(wasm.presets('copying'))) {
    const b = budgetOf(copying, name, '', 0);
    assert.ok(b && b.steps > 0 && b.claim.startsWith(`within ${b.steps} steps`), `${name}: a budget, its claim “within N steps”`);
  }
});

test('every listener sees each change once, with the state before it', () => {
  const store = fresh();
  /** @type {[number, number][]} */
  const seen = [];
  store.subscribe((s, prev) => seen.push([prev.speed, s.speed]));
  store.setView({ speed: 16 });
  store.setView({ speed: 1 });
  assert.deepEqual(seen, [[DEFAULT_SPEED, 16], [16, 1]]);
  store.setView({ compare: 'no such contrast' });
  assert.equal(seen.length, 2, 'an unknown contrast is not a change');
});
