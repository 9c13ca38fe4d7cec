// @ts-check
// Generated links through the page's store (www/state/store.js with www/state/url.js) and the trainer's
// own verdicts (the simd128 build in Node): 1,500 links of known keys with good and bad
// values, unknown keys and repeated keys (link-cases.js). Nothing throws; every bad key is
// named once, in words, with what it must be; every good key applies; every message is
// bounded; the link the page writes back reads without a word.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Store } from '../../www/state/store.js';
import { summarize } from '../../www/state/url.js';
import { copying } from '../../www/labs/copying/lab.js';
import { KEYS, rng, names, generateLink } from './link-cases.js';
import wasm, { validator, trainer } from './wasm-node.js';

const presets = wasm.presets('copying');

test('1,500 generated links: every bad key named once with its range, every good key applied, messages bounded', () => {
  const r = rng(20261204);
  const store = new Store(copying, trainer('copying'), 'copying');
  let bad = 0;
  let good = 0;
  for (let i = 0; i < 1500; i++) {
    const { pairs, preset, want } = generateLink(r, Object.keys(presets));
    const search = `?${new URLSearchParams(pairs)}`;
    const context = `link ${i}: ${search.slice(0, 300)}`;
    const problems = store.readLink(search);
    const s = store.state;
    const base = presets[s.preset];
    if (preset) assert.equal(s.preset, copying.presetAliases[preset] ?? preset, context);
    for (const p of problems) assert.ok(p.length <= 400, `${context}: a message of ${p.length} characters: ${p.slice(0, 200)}`);
    assert.ok(summarize(problems).length <= 8 * 400 + 40, context);
    for (const [key, w] of want) {
      const spec = KEYS[key];
      const naming = problems.filter(names(key));
      if (!w.ok) {
        bad++;
        assert.equal(naming.length, 1, `${context}: ${key} named once, in: ${problems.join(' | ').slice(0, 2000)}`);
        if (spec.kind === 'config') assert.equal(s.config[key], base[key], `${context}: ${key} keeps the preset's value`);
        continue;
      }
      good++;
      assert.equal(naming.length, 0, `${context}: ${key} applies, but: ${naming.join(' | ')}`);
      if (spec.kind === 'config') {
        assert.equal(s.config[key], w.value, `${context}: ${key}`);
      } else if (spec.kind === 'view') {
        assert.equal(/** @type {any} */ (s)[key], w.value, `${context}: ${key}`);
      } else {
        assert.ok(s.passthrough.some(([k, v]) => k === key && v === w.value), `${context}: ${key} passes through`);
      }
    }
    // Every key given more than once is named as such, with its count.
    const counts = new Map();
    for (const [k] of pairs) counts.set(k, (counts.get(k) ?? 0) + 1);
    for (const [k, c] of counts) {
      if (c > 1) assert.ok(problems.some((p) => p.includes(c === 2 ? 'is given twice' : `is given ${c} times`)), `${context}: ${k} repeated`);
    }
    // A link the page writes of this state reads back as the same state.
    const again = new Store(copying, trainer('copying'), 'copying');
    assert.deepEqual(again.readLink(store.link()), [], `${context}: its own link reads without a word`);
    assert.deepEqual(again.state.config, s.config, context);
  }
  assert.ok(bad > 1000 && good > 1000, `${bad} bad and ${good} good keys`);
});
