// @ts-check
// The link format (www/url.js) in Node: what a link says is read back from what is written,
// bit for bit for floats; every key a link gets wrong is named, the rest applies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readLink, writeLink, formatValue, DEFAULT_VIEW } from '../../www/url.js';
import { copying } from '../../www/labs/copying/lab.js';
import wasm from './wasm-node.js';

const presets = wasm.presets('copying');
const defaults = { defaultLab: 'copying', defaultPreset: copying.defaultPreset, presets };

test('a written link reads back as the same preset, settings and view', () => {
  const config = { ...presets['small-hard'], seed: 7, learning_rate: Math.fround(0.002), heads: 3, bidirectional: true };
  const view = { ...DEFAULT_VIEW, speed: 16, seq: 3, head: 2, workers: /** @type {const} */ (2), colormap: 'grey', theme: 'dark', compare: 'task', story: 4 };
  const q = writeLink({ lab: 'copying', preset: 'small-hard', config, view, passthrough: [['embed', '1']] }, defaults);
  const back = readLink(q, copying, presets);
  assert.deepEqual(back.problems, []);
  assert.equal(back.preset, 'small-hard');
  assert.deepEqual(back.overrides, { seed: 7, learning_rate: 0.002, heads: 3, bidirectional: true });
  assert.equal(Math.fround(/** @type {number} */ (back.overrides.learning_rate)), config.learning_rate, 'the same f32');
  assert.deepEqual(back.view, { speed: 16, seq: 3, head: 2, workers: 2, colormap: 'grey', theme: 'dark', compare: 'task', story: 4 });
  assert.deepEqual(back.passthrough, [['embed', '1']]);
  assert.equal(new URLSearchParams(q).get('vocab'), null, 'only what differs from the preset');
});

test('floats are written with the fewest digits that give back the same f32', () => {
  // Generated: f32 values across magnitudes.
  let x = 12345;
  for (let i = 0; i < 2000; i++) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    const v = Math.fround((x / 2 ** 31) * 10 ** ((i % 12) - 6));
    if (Number.isInteger(v)) continue;
    const text = formatValue(v);
    assert.equal(Math.fround(Number(text)), v, `${v} → ${text}`);
    assert.ok(text.replace(/e.*$/, '').replace(/[-.]/g, '').replace(/^0+/, '').length <= 9, text);
  }
});

test('every key a link gets wrong is named once, and the rest applies', () => {
  const q = '?v=2&preset=nope&seed=5&bogus=1&hidden=abc&speed=3&seed=6&workers=0&colormap=jet&compare=x&story=99&theme=neon&embed=yes';
  const link = readLink(q, copying, presets);
  const said = link.problems.join('\n');
  for (const want of ['v=2', 'preset “nope”', 'unknown key “bogus”', 'hidden: must be a number', 'speed: must be one of',
    '“seed” is given twice', 'workers: must be auto or 1 to 16', 'colormap: must be one of', 'compare: must be one of',
    'story: must be a step from 1 to 6', 'theme: must be one of', 'embed: must be 1 or 0']) {
    assert.ok(said.includes(want), `“${want}” in:\n${said}`);
  }
  assert.equal(link.preset, copying.defaultPreset);
  assert.deepEqual(link.overrides, { seed: 5 });
});

test('a preset may be named by its alias, and is written back by its own name', () => {
  const link = readLink('?preset=hard-copy', copying, presets);
  assert.equal(link.preset, 'small-hard');
  assert.deepEqual(link.problems, []);
});
