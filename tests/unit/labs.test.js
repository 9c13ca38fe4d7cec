// @ts-check
// Each lab's page side against its trainer (the simd128 build): the settings' fields come
// from the trainer, and the lab's help text covers exactly those fields; the presets the
// lab names are the trainer's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LABS } from '../../www/labs/index.js';
import wasm from './wasm-node.js';

for (const lab of Object.values(LABS)) {
  test(`the ${lab.name} lab: help for every field the trainer defines, and for nothing else`, () => {
    /** @type {import('../../www/labs/index.js').Field[]} */
    const fields = wasm.settings(lab.name);
    assert.ok(fields.length > 0);
    assert.deepEqual(Object.keys(lab.help).sort(), fields.map((f) => f.key).sort());
    for (const f of fields) {
      assert.ok(f.words.length > 0, `${f.key} has words`);
      if (f.kind === 'whole' || f.kind === 'positive' || f.kind === 'nonnegative') assert.ok(/** @type {number} */ (f.max) > /** @type {number} */ (f.min), `${f.key}: a range`);
      if (f.kind === 'choice') assert.ok((f.choices ?? []).length >= 2, `${f.key}: choices`);
    }
    assert.ok(fields.some((f) => f.key === 'seed' && f.kind === 'whole'), 'every lab has a seed');
  });

  test(`the ${lab.name} lab: its metrics' columns in the history CSV are each its own`, () => {
    const names = ['step', 'train_loss', ...lab.metrics.map((m) => m.column ?? m.key)];
    assert.equal(new Set(names).size, names.length, names.join(','));
  });

  test(`the ${lab.name} lab: its preset words, aliases and default name the trainer's presets`, () => {
    const presets = Object.keys(wasm.presets(lab.name));
    for (const name of [...Object.keys(lab.presetLabels), ...Object.values(lab.presetAliases), lab.defaultPreset, ...Object.keys(lab.budgets)]) {
      assert.ok(presets.includes(name), `${name} is a preset of the trainer's`);
    }
  });
}

test('hide=aligned, the marks switch\'s older name, still hides it in both labs', async () => {
  const { hiddenParts } = await import('../../www/embed/embed.js');
  for (const lab of Object.values(LABS)) {
    const parts = hiddenParts(false, 'aligned', lab);
    assert.deepEqual(parts.problems, [], lab.name);
    assert.ok(parts.hidden.includes('marks'), lab.name);
  }
});

test('every story step that plays says when it will pause; every one that does not says what to press', () => {
  for (const lab of Object.values(LABS)) {
    lab.story.forEach((step, i) => {
      if (step.play) assert.match(step.text, /paus/, `${lab.name} step ${i + 1}: “${step.text.slice(0, 60)}…”`);
      else assert.match(step.text, /[Pp]ress (Next|Play)/, `${lab.name} step ${i + 1}`);
    });
  }
});
