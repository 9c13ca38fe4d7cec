// @ts-check
// A sweep's words and numbers (www/sweeps/seeds.js) in Node: the seed ranges a link may give
// (generated, good and bad), each seed's outcome, and the summary and CSV of the committed
// native sweep of the small hard preset (results/small-hard.csv), which must say what
// `reproduce` said of it (results/small-hard.md) and write its CSV back byte for byte.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseSeeds, formatSeeds, seedResult, summarize, sweepCsv, MIN_SEEDS, MAX_SEEDS } from '../../www/sweeps/seeds.js';
import { readLink } from '../../www/state/url.js';
import { copying } from '../../www/labs/copying/lab.js';
import wasm from './wasm-node.js';

const spec = copying.sweep;
const root = new URL('../../', import.meta.url);

test('a seed range is a count or a range A-B of 2 to 100 seeds, written back in its shortest form', () => {
  assert.deepEqual(parseSeeds('20'), { from: 0, count: 20 });
  assert.deepEqual(parseSeeds('20-39'), { from: 20, count: 20 });
  assert.deepEqual(parseSeeds('0-7'), { from: 0, count: 8 });
  assert.equal(formatSeeds({ from: 0, count: 8 }), '8');
  assert.equal(formatSeeds({ from: 5, count: 3 }), '5-7');
  for (let n = 0; n <= 120; n++) {
    const ok = n >= MIN_SEEDS && n <= MAX_SEEDS;
    assert.equal(parseSeeds(String(n)) !== null, ok, `seeds=${n}`);
    if (ok) assert.equal(formatSeeds(/** @type {any} */ (parseSeeds(String(n)))), String(n));
  }
  // Generated: every range of a few sizes at many starts round-trips; bad text is none.
  for (let from = 0; from < 999_999; from = from * 3 + 7) {
    for (const count of [1, 2, 3, 50, 100, 101]) {
      const text = `${from}-${from + count - 1}`;
      const r = parseSeeds(text);
      assert.equal(r !== null, count >= 2 && count <= 100, text);
      if (r) assert.deepEqual(parseSeeds(formatSeeds(r)), r);
    }
  }
  for (const bad of ['', ' 20', '20 ', '-5', '2e1', '0x14', '20.0', '39-20', '1-1', '1000000-1000001', '20-', '-', 'NaN', '٢٠', '1,2']) {
    assert.equal(parseSeeds(bad), null, JSON.stringify(bad));
  }
});

test('a link names a bad seed range with the key in words and its range, and keeps the rest', () => {
  const presets = wasm.presets('copying');
  const ok = readLink('?v=1&seeds=0-19&preset=small-hard', copying, presets);
  assert.equal(ok.view.seeds, '20');
  assert.deepEqual(ok.problems, []);
  const bad = readLink('?v=1&seeds=500&preset=small-hard', copying, presets);
  assert.equal(bad.preset, 'small-hard');
  assert.equal(bad.view.seeds, undefined);
  assert.equal(bad.problems.length, 1);
  assert.match(bad.problems[0], /^Seeds in a sweep \(seeds\): must be none, a count from 2 to 100 .*, got “500”$/);
  // A story step's sweep, closed, is written as none and read back so.
  const story = copying.story.findIndex((st) => st.seeds) + 1;
  assert.ok(story > 0, 'a story step opens a sweep');
  const closed = readLink(`?v=1&story=${story}&seeds=none`, copying, presets);
  assert.equal(closed.view.seeds, '');
  assert.deepEqual(closed.problems, []);
  assert.equal(readLink(`?v=1&story=${story}`, copying, presets).view.seeds, '20');
});

/** @param {number} step @param {number} token @param {number} [ktiw] @param {number} [attention] */
const ev = (step, token, ktiw = 0, attention = 0) => ({ step, token_accuracy: token, ktiw_accuracy: ktiw, attention_accuracy: attention });

test('a seed reached the threshold at its first evaluation at or above it; else it stalls or is still learning', () => {
  const run = (/** @type {any[]} */ evaluations, done = true) => ({ seed: 1, evaluations, step: evaluations.at(-1)?.step ?? 0, done, failed: null });
  const reached = seedResult(run([ev(0, 0.1), ev(10, 0.995), ev(20, 0.98)]), spec, 400);
  assert.equal(reached.outcome, 'reached');
  assert.equal(reached.reachedAt, 10);
  // 0.99 as an f32 (0.9900000095…) is below the threshold as a double, and counts.
  assert.equal(seedResult(run([ev(0, Math.fround(0.99))]), spec, 400).outcome, 'reached');
  assert.notEqual(seedResult(run([ev(0, 0.9899999)]), spec, 400).outcome, 'reached');
  // Attention accuracy under 20% at half the steps (200 of 400) or later: stalled.
  assert.equal(seedResult(run([ev(0, 0.1), ev(200, 0.5, 0, 0.19)]), spec, 400).outcome, 'stalled');
  assert.equal(seedResult(run([ev(0, 0.1), ev(200, 0.5, 0, 0.2)]), spec, 400).outcome, 'learning');
  // Too young to tell: learning; no evaluation yet: waiting; a run that stopped: failed.
  assert.equal(seedResult(run([ev(0, 0.1), ev(190, 0.1)], false), spec, 400).outcome, 'learning');
  assert.equal(seedResult(run([], false), spec, 400).outcome, 'waiting');
  assert.equal(seedResult({ ...run([ev(0, 0.1)]), failed: 'diverged' }, spec, 400).outcome, 'failed');
  // Which passed 50% first: KTIW at 20, attention at 30 (strictly above the mark).
  const order = seedResult(run([ev(0, 0, 0.5, 0.5), ev(20, 0, 0.6, 0.4), ev(30, 0, 0.7, 0.51)]), spec, 400);
  assert.deepEqual([order.firstAt, order.thenAt], [20, 30]);
});

/** The committed native sweep's rows, by seed. */
function nativeSweep(/** @type {string} */ name) {
  const [head, ...rows] = readFileSync(new URL(`results/${name}.csv`, root), 'utf8').trim().split('\n');
  const cols = head.split(',');
  const byName = Object.fromEntries(spec.columns.map((c) => [c.name, c.key]));
  /** @type {Map<number, any[]>} */
  const seeds = new Map();
  for (const row of rows) {
    const v = row.split(',').map(Number);
    const seed = v[0];
    const e = { step: v[1] };
    cols.slice(2).forEach((c, i) => { /** @type {any} */ (e)[byName[c]] = v[i + 2]; });
    seeds.set(seed, [...(seeds.get(seed) ?? []), e]);
  }
  const runs = [...seeds].map(([seed, evaluations]) => ({ seed, evaluations, step: evaluations.at(-1).step, done: true, failed: null }));
  return { text: `${head}\n${rows.join('\n')}\n`, runs };
}

test('the summary of the native small hard sweep says what reproduce said of it, and its CSV is the same file', () => {
  const { text, runs } = nativeSweep('small-hard');
  assert.equal(sweepCsv(runs, spec), text);
  // With the backend last, as reproduce now writes it: the CPU's unless a seed says otherwise.
  const named = text.trim().split('\n').map((l, i) => `${l},${i === 0 ? 'backend' : 'cpu'}`);
  assert.equal(sweepCsv(runs, spec, true), `${named.join('\n')}\n`);
  const gpu = sweepCsv(runs.map((r) => ({ ...r, backend: /** @type {const} */ ('gpu') })), spec, true).trim().split('\n');
  assert.ok(gpu.slice(1).every((l) => l.endsWith(',gpu')));
  const sum = summarize(runs, spec, 400);
  const table = readFileSync(new URL('results/small-hard.md', root), 'utf8');
  const rows = table.split('\n').filter((l) => /^\| \d+ \|/.test(l)).map((l) => l.split('|').map((c) => c.trim()));
  assert.equal(rows.length, 20);
  for (const r of sum.results) {
    const row = /** @type {string[]} */ (rows.find((x) => Number(x[1]) === r.seed));
    assert.equal(r.reachedAt === null ? 'never' : String(r.reachedAt), row[5], `seed ${r.seed}: reached 0.99 at`);
    assert.equal(r.firstAt === null ? 'never' : String(r.firstAt), row[6], `seed ${r.seed}: KTIW > 0.5 at`);
    assert.equal(r.thenAt === null ? 'never' : String(r.thenAt), row[7], `seed ${r.seed}: attention > 0.5 at`);
  }
  const line = /reached token acc 0\.99: (\d+)\/20 seeds; KTIW acc passed 0\.5 strictly before attention acc in (\d+)\/(\d+)/.exec(table);
  assert.ok(line);
  assert.deepEqual([sum.reached, sum.orderFirst, sum.orderBoth], [Number(line[1]), Number(line[2]), Number(line[3])]);
  assert.equal(sum.done, 20);
  // Seeds 0, 2, 8, 10, 16 and 17 end with attention accuracy at most 0.101 (results/small-hard.md).
  assert.deepEqual(sum.results.filter((r) => r.outcome === 'stalled').map((r) => r.seed), [0, 2, 8, 10, 16, 17]);
  assert.equal(sum.counts.reached + sum.counts.learning + sum.counts.stalled, 20);
});
