// @ts-check
// The link format (www/state/url.js) in Node: what a link says is read back from what is written,
// bit for bit for floats; every key a link gets wrong is named, the rest applies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readLink, writeLink, formatValue, summarize, DEFAULT_VIEW } from '../../www/state/url.js';
import { copying } from '../../www/labs/copying/lab.js';
import { storySetup } from '../../www/labs/index.js';
import wasm from './wasm-node.js';

const presets = wasm.presets('copying');
const defaults = { defaultLab: 'copying', lab: copying, presets };

test('a written link reads back as the same preset, settings and view', () => {
  const config = { ...presets['small-hard'], seed: 7, learning_rate: Math.fround(0.002), heads: 3, bidirectional: true };
  const view = { ...DEFAULT_VIEW, speed: 16, seq: 3, head: 2, workers: /** @type {const} */ (2), colormap: 'grey', theme: 'dark', compare: 'task', story: 4 };
  const q = writeLink({ lab: 'copying', preset: 'small-hard', config, view, passthrough: [['embed', '1']] }, defaults);
  const back = readLink(q, copying, presets);
  assert.deepEqual(back.problems, []);
  assert.equal(back.preset, 'small-hard');
  assert.deepEqual(back.overrides, { seed: '7', learning_rate: '0.002', heads: '3', bidirectional: '1' }, 'as text, for the trainer to read');
  const read = wasm.validateConfig('copying', { ...presets['small-hard'], ...back.overrides });
  assert.deepEqual(read, config, 'the same settings, the same f32 learning rate');
  assert.deepEqual(back.view, { speed: 16, seq: 3, head: 2, workers: 2, colormap: 'grey', theme: 'dark', compare: 'task', story: 4 });
  assert.deepEqual(back.passthrough, [['embed', '1']]);
  assert.equal(new URLSearchParams(q).get('vocab'), null, 'only what differs from the preset');
});

test('story=N alone opens the run of step N (its preset, contrast and speed), and a written story link is as short', () => {
  copying.story.forEach((st, k) => {
    const setup = storySetup(copying, k);
    const back = readLink(`?story=${k + 1}`, copying, presets);
    assert.deepEqual(back.problems, []);
    assert.equal(back.preset, setup.preset, `step ${k + 1}`);
    assert.equal(back.view.compare, setup.compare, `step ${k + 1}`);
    if (st.keep) assert.equal(setup.preset, storySetup(copying, k - 1).preset, 'a step that goes on keeps its predecessor’s run');
    else assert.equal(setup.preset, st.preset);
    if (st.speed !== undefined) assert.equal(back.view.speed, st.speed);
    const view = { ...DEFAULT_VIEW, ...back.view };
    const q = writeLink({ lab: 'copying', preset: back.preset, config: presets[back.preset], view }, defaults);
    assert.equal(q, `?v=1&story=${k + 1}`);
  });
  // The link's own keys win over the step's; a comparison turned off reads back.
  const own = readLink('?story=6&preset=small-easy&compare=none&speed=1', copying, presets);
  assert.deepEqual([own.preset, own.view.compare, own.view.speed], ['small-easy', '', 1]);
  const q = writeLink({ lab: 'copying', preset: 'small-hard', config: presets['small-hard'], view: { ...DEFAULT_VIEW, story: 6, compare: '' } }, defaults);
  assert.equal(readLink(q, copying, presets).view.compare, '');
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
  const q = '?v=2&preset=nope&seed=5&bogus=1&hidden=abc&speed=3&seed=6&workers=0&colormap=jet&compare=x&story=99&theme=neon&embed=yes&variant=x';
  const link = readLink(q, copying, presets);
  const said = link.problems.join('\n');
  for (const want of ['Link format (v): must be 1, got “2”', 'Preset (preset): must be one of small-easy', 'unknown key “bogus”',
    'Speed, steps per frame (speed): must be one of 0 (gentle start), 0.1, 0.25, 1, 4, 16, 1000, got “3”', '“seed” is given twice',
    'Workers (workers): must be auto or a whole number from 1 to 16, got “0”', 'Colour map (colormap): must be one of',
    'Compare (compare): must be one of', `Story step (story): must be a step from 1 to ${copying.story.length}, got “99”`, 'Theme (theme): must be one of',
    'Embed mode (embed): must be 1 or 0, got “yes”', 'WebAssembly build (variant): must be one of relaxed-simd, simd128, scalar, got “x”']) {
    assert.ok(said.includes(want), `“${want}” in:\n${said}`);
  }
  assert.equal(link.preset, copying.defaultPreset);
  assert.deepEqual(link.overrides, { seed: '5', hidden: 'abc' }, 'the trainer reads and checks the settings');
});

test('a preset may be named by its alias, and is written back by its own name', () => {
  const link = readLink('?preset=hard-copy', copying, presets);
  assert.equal(link.preset, 'small-hard');
  assert.deepEqual(link.problems, []);
});

test('what a message echoes is cut, and repeats are counted', () => {
  const link = readLink(`?${'seed=1&'.repeat(500)}speed=${'9'.repeat(20_000)}&${'q'.repeat(20_000)}=1`, copying, presets);
  assert.ok(link.problems.includes('“seed” is given 500 times; the first value is used'), link.problems.join('\n'));
  assert.ok(link.problems.every((p) => p.length < 200), link.problems.map((p) => p.length).join());
  assert.equal(summarize(Array.from({ length: 20 }, (_, i) => `p${i}`)), 'p0; p1; p2; p3; p4; p5; p6; p7; and 12 more');
});

test('experiment=1 opens a lab’s experiment; a lab without one refuses it but takes experiment=0', async () => {
  const { sparse } = await import('../../www/labs/sparse/lab.js');
  const sparsePresets = wasm.presets('sparse');
  const q = writeLink({ lab: 'sparse', preset: 'and-3', config: sparsePresets['and-3'], view: { ...DEFAULT_VIEW, experiment: true } },
    { defaultLab: 'copying', lab: sparse, presets: sparsePresets });
  assert.equal(q, '?v=1&lab=sparse&experiment=1');
  assert.deepEqual(readLink(q, sparse, sparsePresets).view, { experiment: true });
  assert.deepEqual(readLink('?v=1&experiment=0', copying, presets).problems, []);
  assert.deepEqual(readLink('?v=1&experiment=1', copying, presets).problems,
    ['Experiment (experiment): must be 0 (the copying lab has no experiment), got “1”']);
  assert.deepEqual(readLink('?v=1&lab=sparse&experiment=2', sparse, sparsePresets).problems, ['Experiment (experiment): must be 1 or 0, got “2”']);
});
