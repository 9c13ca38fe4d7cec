// @ts-check
// End-to-end tests of runs, through the page: a compared run shares its batches among
// replica workers as the first run does and equals its one-worker self; thousands of steps
// at full speed keep the page's memory flat (JS heap and wasm memory); replacing the per-head maps
// leaves no listener behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { freshPage, atStep } from './harness.js';
import { session } from './session.js';

const env = session();

/** @param {string} query */
const open = (query) => freshPage(env.browser, env.url + query);

test('a compared run on two replica workers equals, as the first run does, the same runs on one worker', async () => {
  /** @param {string} workers */
  async function both(workers) {
    const { context, page, errors } = await open(`?compare=heads&preset=small-hard&workers=${workers}&seed=2`);
    await page.waitForFunction(() => /** @type {any} */ (window).__ap.runs()[1] != null, null, { timeout: 30_000 });
    for (let i = 1; i <= 21; i++) {
      await page.click('#step-once');
      await page.waitForFunction((n) => /** @type {any} */ (window).__ap.runs().every((/** @type {any} */ r) => r?.step === n), i, { timeout: 60_000 });
    }
    const out = await page.evaluate(() => {
      const ap = /** @type {any} */ (window).__ap;
      return { runs: ap.runs(), histories: [ap.history(0), ap.history(1)] };
    });
    assert.deepEqual(errors, []);
    await context.close();
    return out;
  }
  const one = await both('1');
  const two = await both('2');
  assert.deepEqual(one.runs.map((/** @type {any} */ r) => r.workers), [1, 1]);
  assert.deepEqual(two.runs.map((/** @type {any} */ r) => r.workers), [2, 2], 'both runs share each batch between two workers');
  assert.deepEqual(two.runs.map((/** @type {any} */ r) => r.config.heads), [1, 8], 'one head against eight');
  for (const r of [0, 1]) {
    for (const step of [0, 10, 20]) {
      const a = one.histories[r].find((/** @type {any} */ e) => e.step === step);
      const b = two.histories[r].find((/** @type {any} */ e) => e.step === step);
      assert.ok(a && b, `run ${r}: both evaluated step ${step}`);
      assert.ok(Math.abs(a.loss - b.loss) <= 1e-4 * a.loss, `run ${r}, step ${step}: loss ${a.loss} vs ${b.loss}`);
      for (const k of ['token_accuracy', 'attention_accuracy', 'ktiw_accuracy', 'ktiw_score', 'agreement']) {
        assert.ok(Math.abs(a[k] - b[k]) <= 1e-4, `run ${r}, step ${step}: ${k} ${a[k]} vs ${b[k]}`);
      }
    }
  }
});

test('thousands of steps at full speed keep the JS heap and the wasm memory flat', async () => {
  // Every step evaluated (on a small evaluation batch), so that the run's series pass their
  // capacity (2,560 evaluations) several times over and are thinned.
  const { context, page, errors } = await open('?hidden=32&eval_every=1&eval_batch=8&speed=1000');
  const cdp = await context.newCDPSession(page);
  await page.click('#play');
  /** The page's JS heap after a full collection, and the run's wasm memory and step, once
   * the run has passed step `n` (however long that takes on this machine). @param {number} n */
  const sample = async (n) => {
    await page.waitForFunction((k) => /** @type {any} */ (window).__ap.shown()?.step >= k, n, { timeout: 300_000 });
    await cdp.send('HeapProfiler.collectGarbage');
    const heap = /** @type {{ usedSize: number }} */ (await cdp.send('Runtime.getHeapUsage')).usedSize;
    const s = await page.evaluate(() => /** @type {any} */ (window).__ap.shown());
    const evaluations = await page.evaluate(() => /** @type {any} */ (window).__ap.history().length);
    return { heap, wasm: s.memory, step: s.step, evaluations };
  };
  // Past the first thinning of the series, then every 500 steps (scripts/soak.js watches
  // ten minutes of it).
  const samples = [];
  for (let n = 3000; n <= 6000; n += 500) samples.push(await sample(n));
  await page.click('#play');
  console.log(`memory from step 3,000 to 6,000 at full speed: ${JSON.stringify(samples)}`);
  const first = samples[0];
  for (const s of samples) {
    assert.equal(s.wasm, first.wasm, `wasm memory ${s.wasm} bytes at step ${s.step}, ${first.wasm} at ${first.step}`);
    assert.ok(s.evaluations <= 2048 + 512, `${s.evaluations} evaluations kept`);
  }
  // The kept evaluations swing between about 1,500 and 2,560 as the series thin, and the
  // heap with them; a leak shows as a floor that rises from the first samples to the last.
  const heaps = samples.map((s) => s.heap);
  const spread = Math.max(...heaps) - Math.min(...heaps);
  assert.ok(spread < 3 * 1024 * 1024, `the JS heap moved by ${spread} bytes (${heaps.join(', ')})`);
  const floor = (/** @type {number[]} */ h) => Math.min(...h);
  assert.ok(floor(heaps.slice(-3)) <= floor(heaps.slice(0, 3)) + 512 * 1024, `the JS heap's floor rose: ${heaps.join(', ')}`);
  assert.deepEqual(errors, []);
  await context.close();
});

test('changing the number of heads replaces the per-head maps without leaving listeners behind', async () => {
  const { context, page, errors } = await open('');
  const cdp = await context.newCDPSession(page);
  /** The document's pointerdown listeners (each heatmap and chart has one, to hide its
   * readout; several heads add a map each and the chart by head). */
  const listeners = async () => {
    const doc = /** @type {any} */ (await cdp.send('Runtime.evaluate', { expression: 'document' })).result;
    const { listeners: all } = /** @type {any} */ (await cdp.send('DOMDebugger.getEventListeners', { objectId: doc.objectId }));
    return all.filter((/** @type {any} */ l) => l.type === 'pointerdown').length;
  };
  /** @param {string} heads */
  const setHeads = async (heads) => {
    await page.fill('#set-heads', heads);
    await page.dispatchEvent('#set-heads', 'change');
    await page.waitForFunction((k) => /** @type {any} */ (window).__ap.shown()?.config.heads === k, Number(heads));
    await page.waitForFunction((k) => document.querySelectorAll('#heads .ap-heatmap').length === (k > 1 ? k : 0), Number(heads));
  };
  const base = await listeners();
  await setHeads('8');
  const eight = await listeners();
  assert.equal(eight, base + 8 + 1, 'one listener per head map, and one for the chart by head');
  for (const k of ['3', '8', '2', '5', '1', '8']) await setHeads(k);
  assert.equal(await listeners(), eight, 'as many as the eight maps shown need');
  await setHeads('1');
  assert.equal(await listeners(), base, 'none left by the maps that went');
  await page.click('#step-once');
  await atStep(page, 1);
  assert.deepEqual(errors, []);
  await context.close();
});
