// @ts-check
// The GPU backend in the page (headless Chromium's WebGPU, SwiftShader's software adapter):
// `backend=gpu` trains the run on the GPU and its losses follow a CPU run's; a browser
// without WebGPU, and `backend=auto` on a software adapter, train on the CPU and say why; a
// bad `backend=` is refused by name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { session } from './session.js';
import { freshPage, atStep } from './harness.js';

const env = session();

/** A small run of the copying lab: both directions, two heads, evaluated every 5 steps. */
const RUN = '?v=1&preset=small-easy&hidden=16&length=6&vocab=9&batch=8&eval_batch=4&eval_every=5&heads=2&bidirectional=1';

/** The page's losses and the backend it shows, after `n` steps taken with the Step button.
 * @param {import('playwright-core').Page} page @param {number} n */
async function steps(page, n) {
  for (let i = 0; i < n; i++) {
    await page.click('#step-once');
    await atStep(page, i + 1, 60_000);
  }
  const losses = await page.evaluate(() => /** @type {any} */ (window).__ap.losses());
  return { losses: /** @type {number[]} */ (losses.loss), backend: await page.textContent('#backend') };
}

test('backend=gpu trains on the GPU, close to the CPU run of the same link', async () => {
  const gpu = await freshPage(env.browser, `${env.url}/${RUN}&backend=gpu`);
  const cpu = await freshPage(env.browser, `${env.url}/${RUN}&backend=cpu`);
  try {
    const a = await steps(cpu.page, 6);
    const b = await steps(gpu.page, 6);
    assert.equal(a.backend, 'CPU');
    assert.equal(b.backend, 'GPU', 'the backend shown');
    assert.match(await gpu.page.getAttribute('#backend', 'title') ?? '', /\S/, 'the device named');
    assert.equal(b.losses.length, 6);
    b.losses.forEach((l, i) => assert.ok(Math.abs(l - a.losses[i]) <= 1e-4 * a.losses[i], `step ${i + 1}: ${l} on the GPU, ${a.losses[i]} on the CPU`));
    // Its evaluations, as the CPU's.
    const [ha, hb] = await Promise.all([cpu.page, gpu.page].map((p) => p.evaluate(() => /** @type {any} */ (window).__ap.history())));
    assert.equal(hb.length, ha.length);
    hb.forEach((/** @type {any} */ e, /** @type {number} */ i) => assert.ok(Math.abs(e.loss - ha[i].loss) <= 1e-3, `evaluation ${e.step}`));
    // Played, then reset: the GPU run goes on and starts again as a CPU run does.
    await gpu.page.click('#play');
    await gpu.page.waitForFunction(() => /** @type {any} */ (window).__ap.shown()?.step >= 9, null, { timeout: 60_000 });
    await gpu.page.click('#play');
    await gpu.page.click('#reset');
    await atStep(gpu.page, 0, 60_000);
    assert.equal(await gpu.page.textContent('#backend'), 'GPU');
    const status = await gpu.page.$eval('#status', (el) => (/** @type {HTMLElement} */ (el).hidden ? '' : `${el.className} ${el.textContent}`));
    assert.doesNotMatch(status, /error|failed/, 'no failure said');
    // The GPU lost after step 7: the run goes on on the CPU from its evaluation at step 5,
    // with the GPU run's curves up to it, and trains on as the GPU run did.
    const before = await steps(gpu.page, 7);
    await gpu.page.evaluate(() => /** @type {any} */ (window).__ap.debugLoseGpu());
    await gpu.page.click('#step-once');
    await gpu.page.waitForFunction(() => document.querySelector('#backend')?.textContent === 'CPU', null, { timeout: 60_000 });
    await atStep(gpu.page, 5);
    assert.match(await gpu.page.textContent('#status') ?? '', /the run goes on on the CPU from step 5, its last evaluation/);
    assert.deepEqual((await gpu.page.evaluate(() => /** @type {any} */ (window).__ap.history())).map((/** @type {any} */ e) => e.step), [0, 5]);
    for (let i = 6; i <= 7; i++) {
      await gpu.page.click('#step-once');
      await atStep(gpu.page, i);
    }
    const after = /** @type {number[]} */ ((await gpu.page.evaluate(() => /** @type {any} */ (window).__ap.losses())).loss);
    assert.equal(after.length, 7);
    after.forEach((l, i) => assert.ok(Math.abs(l - before.losses[i]) <= 1e-4 * before.losses[i], `step ${i + 1}: ${l} on the CPU, ${before.losses[i]} on the GPU`));
    assert.deepEqual(gpu.errors, []);
  } finally {
    await gpu.context.close();
    await cpu.context.close();
  }
});

test('without WebGPU, backend=gpu says so and trains on the CPU', async () => {
  const context = await env.browser.newContext();
  await context.addInitScript(() => {
    delete /** @type {any} */ (Navigator.prototype).gpu;
  });
  const page = await context.newPage();
  try {
    await page.goto(`${env.url}/${RUN}&backend=gpu`);
    await page.waitForFunction(() => /** @type {any} */ (window).__ap?.shown() != null);
    assert.equal(await page.textContent('#backend'), 'CPU');
    assert.match(await page.textContent('#status') ?? '', /Training on the CPU: this browser has no WebGPU/);
    const { losses } = await steps(page, 2);
    assert.equal(losses.length, 2);
  } finally {
    await context.close();
  }
});

test('backend=auto on a software adapter trains on the CPU; a bad backend is refused by name', async () => {
  const auto = await freshPage(env.browser, `${env.url}/${RUN}`);
  try {
    assert.equal(await auto.page.textContent('#backend'), 'CPU');
    assert.match(await auto.page.getAttribute('#backend', 'title') ?? '', /software fallback/);
  } finally {
    await auto.context.close();
  }
  const bad = await freshPage(env.browser, `${env.url}/${RUN}&backend=tpu`);
  try {
    assert.match(await bad.page.textContent('#status') ?? '', /Backend \(backend\): must be one of auto, gpu, cpu, got “tpu”/);
    assert.equal(await bad.page.textContent('#backend'), 'CPU');
  } finally {
    await bad.context.close();
  }
});

/** Every seed of every sweep of the page, once all are done. @param {import('playwright-core').Page} page */
async function sweepDone(page) {
  await page.waitForFunction(() => {
    const s = /** @type {any} */ (window).__ap?.sweeps() ?? [];
    return s.length > 0 && s.every((/** @type {any} */ w) => w.finished);
  }, null, { timeout: 300_000 });
  return page.evaluate(() => /** @type {any} */ (window).__ap.sweeps());
}

test('a sweep on the GPU trains its seeds batched, as the CPU sweep of the same link; a GPU worker that cannot start hands its seeds to the CPU', async () => {
  const link = `${env.url}/${RUN}&seeds=3-4`;
  const gpu = await freshPage(env.browser, `${link}&backend=gpu`);
  const cpu = await freshPage(env.browser, `${link}&backend=cpu`);
  try {
    const [a] = await sweepDone(cpu.page);
    assert.equal(a.backend, 'cpu');
    // The GPU's seeds to step 50 (a software GPU trains them 100 times slower than wasm SIMD).
    await gpu.page.waitForFunction(() => /** @type {any} */ (window).__ap.sweeps()[0]?.seeds
      .every((/** @type {any} */ s) => s.evaluations.at(-1)?.step >= 50), null, { timeout: 120_000 });
    const [b] = await gpu.page.evaluate(() => /** @type {any} */ (window).__ap.sweeps());
    assert.equal(b.backend, 'gpu');
    assert.match(b.device, /\S/, 'the device named');
    assert.match(await gpu.page.locator('#sweep-title').innerText(), /^2 seeds \(3–4\), 400 steps each, batched on the GPU: training, \d+\.\d s$/);
    assert.deepEqual(b.seeds.map((/** @type {any} */ s) => [s.seed, s.failed]), [[3, null], [4, null]]);
    // Two seeds batched, each its own run: early on the GPU's sums round otherwise than the
    // CPU's only in the last bits.
    b.seeds.forEach((/** @type {any} */ s, /** @type {number} */ k) => {
      const ref = a.seeds[k].evaluations;
      for (const e of s.evaluations.filter((/** @type {any} */ x) => x.step <= 50)) {
        const r = ref.find((/** @type {any} */ x) => x.step === e.step);
        assert.ok(r && Math.abs(e.loss - r.loss) <= 1e-3 * r.loss, `seed ${s.seed} at step ${e.step}: loss ${e.loss} on the GPU, ${r?.loss} on the CPU`);
      }
      assert.equal(s.evaluations.filter((/** @type {any} */ x) => x.step <= 50).length, 11, `seed ${s.seed}: evaluations 0, 5, …, 50`);
    });
    // Its CSV names the backend of every row.
    const [download] = await Promise.all([gpu.page.waitForEvent('download'), gpu.page.click('#sweep-csv')]);
    const csv = readFileSync(/** @type {string} */ (await download.path()), 'utf8').trim().split('\n');
    assert.match(csv[0], /,backend$/);
    assert.ok(csv.length > 2 && csv.slice(1).every((l) => l.endsWith(',gpu')), csv.join('\n'));
    assert.deepEqual(gpu.errors, []);
  } finally {
    await gpu.context.close();
    await cpu.context.close();
  }
  // A GPU worker that cannot start: the seeds train on the CPU, and the sweep says why.
  const context = await env.browser.newContext();
  await context.addInitScript(() => {
    const Real = window.Worker;
    window.Worker = /** @type {any} */ (class extends Real {
      /** @param {string | URL} url @param {WorkerOptions} [o] */
      constructor(url, o) {
        if (String(url).includes('gpu-worker')) throw new Error('workers refused by the test');
        super(url, o);
      }
    });
  });
  const page = await context.newPage();
  try {
    await page.goto(`${link}&backend=gpu`);
    const [w] = await sweepDone(page);
    assert.equal(w.backend, 'cpu');
    assert.match(w.reason, /workers refused by the test/);
    assert.ok(w.seeds.every((/** @type {any} */ s) => s.step === 400 && !s.failed), 'every seed trained on the CPU');
    assert.match(await page.locator('#sweep-title').innerText(), /on the CPU \(the GPU could not train it: no worker could start/);
  } finally {
    await context.close();
  }
});
