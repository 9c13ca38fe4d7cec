// @ts-check
// End-to-end tests of the page in Debian's headless Chromium, through its UI as a person
// would use it: load cleanly and offline, play / pause / step / reset, learning on the easy
// preset, a refused setting, a forced divergence, and a panic in the worker.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { session } from './session.js';
import { shownRun, shown, atStep, drawn } from './harness.js';
import { FIGURES } from '../../www/labs/figures.js';

const env = session();

/** Opens the page and collects console errors and requests that leave its origin.
 * @param {string} [query] */
async function open(query = '') {
  const page = await env.context.newPage();
  /** @type {string[]} */
  const errors = [];
  /** @type {string[]} */
  const foreign = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  const origin = new URL(env.url).origin;
  page.on('request', (r) => {
    if (!r.url().startsWith(origin) && !r.url().startsWith('data:') && !r.url().startsWith('blob:')) foreign.push(r.url());
  });
  await page.goto(env.url + query);
  await page.waitForFunction(() => document.getElementById('variant')?.textContent !== 'loading…');
  await shownRun(page);
  return { page, errors, foreign };
}

/** @param {import('playwright-core').Page} page */
const stepOf = (page) => page.evaluate(() => Number(document.getElementById('step')?.textContent));

/** The attention heatmap's cell pixels. @param {import('playwright-core').Page} page */
const alphaPixels = (page) => page.evaluate(() => {
  const c = /** @type {HTMLCanvasElement} */ (document.querySelector('#alpha canvas'));
  return c.toDataURL();
});

/** @param {import('playwright-core').Page} page @param {string} value */
async function setSpeed(page, value) {
  await page.selectOption('#speed', value);
}

test('loads with no console error, offline, on the best wasm build', async () => {
  const { page, errors, foreign } = await open();
  assert.equal(await page.textContent('#variant'), 'relaxed-simd', 'Chromium supports relaxed SIMD');
  assert.equal(await stepOf(page), 0);
  assert.equal(await page.inputValue('#set-vocab'), '30', 'the default is the small easy preset');
  // The explainer's paragraphs, their marks as elements (not as asterisks) and their figures
  // quoted from the figures file.
  const explainer = page.locator('#explain-text');
  assert.equal(await explainer.locator('p').count(), 5);
  assert.deepEqual(await explainer.locator('strong').allInnerTexts(), ['Attention α', 'KTIW β', 'The story', 'Colours']);
  const said = await explainer.innerText();
  assert.ok(!said.includes('*'), said);
  assert.ok(said.includes(`within 400 steps ${FIGURES['copying.small-hard.reached'].text} seeds copy`), said);
  await page.waitForTimeout(300);
  assert.deepEqual(errors, []);
  assert.deepEqual(foreign, []);
  await page.close();
});

test('play advances the step counter and changes the heatmap; pause stops it', async () => {
  const { page, errors } = await open();
  const before = await alphaPixels(page);
  await page.click('#play');
  await page.waitForFunction(() => Number(document.getElementById('step')?.textContent) >= 30);
  assert.notEqual(await alphaPixels(page), before, 'the attention heatmap was redrawn');
  assert.equal(await page.textContent('#play'), 'Pause');
  await page.click('#play');
  await page.waitForTimeout(200);
  const paused = await stepOf(page);
  await page.waitForTimeout(600);
  assert.equal(await stepOf(page), paused, 'no steps while paused');
  await page.click('#step-once');
  await page.waitForFunction((s) => Number(document.getElementById('step')?.textContent) === s + 1, paused);
  assert.deepEqual(errors, []);
  await page.close();
});

test('on the easy preset attention and KTIW accuracy rise within a few hundred steps', async () => {
  const { page } = await open();
  await setSpeed(page, '1000');
  await page.click('#play');
  await page.waitForFunction(() => Number(document.getElementById('step')?.textContent) >= 400, null, { timeout: 60_000 });
  await page.click('#play');
  const h = await page.evaluate(() => /** @type {any} */ (window).__ap.history());
  const first = h[0];
  const last = h[h.length - 1];
  assert.equal(first.step, 0);
  assert.ok(last.step >= 390, `evaluated up to step ${last.step}`);
  assert.ok(last.attention_accuracy > 0.5 && last.attention_accuracy > first.attention_accuracy + 0.3,
    `attention accuracy ${first.attention_accuracy} → ${last.attention_accuracy}`);
  assert.ok(last.ktiw_accuracy > 0.5 && last.ktiw_accuracy > first.ktiw_accuracy + 0.3,
    `KTIW accuracy ${first.ktiw_accuracy} → ${last.ktiw_accuracy}`);
  const ktiwFirst = h.find((/** @type {any} */ e) => e.ktiw_accuracy > 0.5).step;
  const attnFirst = h.find((/** @type {any} */ e) => e.attention_accuracy > 0.5).step;
  assert.ok(ktiwFirst < attnFirst, `KTIW passes 0.5 at ${ktiwFirst}, before attention at ${attnFirst}`);
  await page.close();
});

test('a first Play at the default pace shows KTIW ahead of attention for a while, then speeds up (the window is printed)', async (t) => {
  const { page, errors } = await open();
  assert.equal(await page.inputValue('#speed'), '0', 'the gentle start is the default');
  assert.match(await page.getAttribute('label[data-part="speed"]', 'title') ?? '',
    /^Gentle start: 15 steps a second to step 200, where the default run learns KTIW and then attention, then 4 steps a frame$/);
  await page.click('#play');
  // What the page shows, sampled: when KTIW passes 50% with attention below it, and when
  // attention passes 50% too. Only the order is asserted; the seconds are this machine's.
  const samples = await page.evaluate(async () => {
    const out = [];
    const t0 = performance.now();
    for (;;) {
      const e = /** @type {any} */ (window).__ap.history().at(-1);
      out.push({ t: (performance.now() - t0) / 1000, step: e.step, ktiw: e.ktiw_accuracy, attention: e.attention_accuracy });
      if (e.attention_accuracy >= 0.5 || performance.now() - t0 > 120_000) return out;
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  const ahead = samples.find((x) => x.ktiw > 0.5 && x.attention < 0.5);
  const caught = samples.find((x) => x.attention >= 0.5);
  assert.ok(ahead && caught && ahead.step < caught.step, JSON.stringify(samples.slice(-3)));
  t.diagnostic(`KTIW ahead of attention on screen from ${ahead.t.toFixed(1)} s (step ${ahead.step}) to ${caught.t.toFixed(1)} s (step ${caught.step}) after Play: ${(caught.t - ahead.t).toFixed(1)} s`);
  // Past the gentle start the run goes 4 steps a frame.
  await page.waitForFunction(() => Number(document.getElementById('step')?.textContent) >= 260, null, { timeout: 60_000 });
  assert.deepEqual(errors, []);
  await page.close();
});

test('reset returns to step 0 and replays the same first-step loss', async () => {
  const { page } = await open();
  await page.click('#step-once');
  await atStep(page, 1);
  const loss1 = (await shown(page)).loss;
  await page.click('#play');
  await page.waitForFunction(() => Number(document.getElementById('step')?.textContent) >= 20);
  await page.click('#play');
  await page.click('#reset');
  await page.waitForFunction(() => Number(document.getElementById('step')?.textContent) === 0);
  await page.click('#step-once');
  await atStep(page, 1);
  const again = (await shown(page)).loss;
  assert.equal(again, loss1);
  await page.close();
});

test('a bad setting is refused in place and training carries on', async () => {
  const { page, errors } = await open();
  await page.click('#play');
  await page.waitForFunction(() => Number(document.getElementById('step')?.textContent) >= 5);
  await page.fill('#set-heads', 'abc');
  await page.dispatchEvent('#set-heads', 'change');
  await page.waitForSelector('#err-heads:not([hidden])');
  assert.match(await page.textContent('#err-heads') ?? '', /^Heads K \(heads\): must be a whole number from 1 to 16, got “abc”$/);
  await page.fill('#set-heads', '99');
  await page.dispatchEvent('#set-heads', 'change');
  await page.waitForFunction(() => /from 1 to 16/.test(document.getElementById('err-heads')?.textContent ?? ''));
  const s1 = await stepOf(page);
  await page.waitForFunction((s) => Number(document.getElementById('step')?.textContent) > s + 5, s1);
  assert.equal((await shown(page)).config.heads, 1, 'the run is unchanged');
  await page.fill('#set-learning_rate', '-1');
  await page.dispatchEvent('#set-learning_rate', 'change');
  await page.waitForFunction(() => /^Learning rate \(learning_rate\): must be a number greater than 0 and at most 100, got “-1”$/.test(document.getElementById('err-learning_rate')?.textContent ?? ''));
  assert.equal((await shown(page)).running, true);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a huge learning rate makes the run pause itself with a message', async () => {
  const { page } = await open();
  await setSpeed(page, '16');
  await page.click('#play');
  await page.waitForFunction(() => Number(document.getElementById('step')?.textContent) >= 3);
  await page.fill('#set-learning_rate', '100');
  await page.dispatchEvent('#set-learning_rate', 'change');
  await page.waitForSelector('#status:not([hidden])', { timeout: 30_000 });
  assert.match(await page.textContent('#status') ?? '', /diverged at step \d+/);
  assert.equal(await page.textContent('#play'), 'Play');
  // The frame's own snapshot follows the divergence's message: the step shown once it is drawn.
  await drawn(page);
  const s = await stepOf(page);
  await page.waitForTimeout(400);
  assert.equal(await stepOf(page), s, 'paused');
  await page.close();
});

test('a panic in the worker is shown with its message and the page can start again', async () => {
  const { page } = await open();
  await page.evaluate(() => /** @type {any} */ (window).__ap.debugPanic());
  await page.waitForSelector('#panic:not([hidden])');
  assert.match(await page.textContent('#panic-message') ?? '', /panic requested by debugPanic/);
  // What the run cannot give any more is refused with a message, not waited for.
  await page.click('#export-menu summary');
  await page.click('[data-export="csv"]');
  await page.waitForFunction(() => /^Export: .*start it again/.test(document.getElementById('status')?.textContent ?? ''));
  await page.click('#panic-reset');
  await page.waitForSelector('#panic', { state: 'hidden' });
  await page.click('#step-once');
  await page.waitForFunction(() => Number(document.getElementById('step')?.textContent) === 1);
  await page.close();
});

test('two workers sharing each batch and each evaluation reproduce the one-worker run up to summation order', async () => {
  /** @param {string} query */
  async function evals(query) {
    const { page, errors } = await open(query);
    // 45 single steps, so that both runs stop at the same step whatever the machine's load
    // (the latest evaluation is step 40's in both).
    for (let i = 1; i <= 45; i++) {
      await page.click('#step-once');
      await page.waitForFunction((n) => Number(document.getElementById('step')?.textContent) === n, i, { timeout: 60_000 });
    }
    const workers = await page.textContent('#workers-count');
    const h = await page.evaluate(() => /** @type {any} */ (window).__ap.history());
    // A sequence in the second half of the evaluation batch: the second replica evaluates it.
    await page.selectOption('#seq', '40');
    await page.waitForFunction(() => /** @type {any} */ (window).__ap.shown().seq === 40);
    const maps = await page.evaluate(() => {
      const ap = /** @type {any} */ (window).__ap;
      return { evaluated: ap.history().at(-1)?.step, ...ap.maps() };
    });
    assert.deepEqual(errors, []);
    await page.close();
    return { workers, h, maps };
  }
  const one = await evals('?workers=1');
  const two = await evals('?workers=2');
  assert.equal(one.workers, '1');
  assert.equal(two.workers, '2');
  for (const step of [0, 10, 20, 30, 40]) {
    const a = one.h.find((/** @type {any} */ e) => e.step === step);
    const b = two.h.find((/** @type {any} */ e) => e.step === step);
    assert.ok(a && b, `both evaluated step ${step}`);
    assert.ok(Math.abs(a.loss - b.loss) <= 1e-4 * a.loss, `step ${step}: loss ${a.loss} vs ${b.loss}`);
    // With two workers each evaluates half of the evaluation batch; the page shows the whole.
    for (const k of ['token_accuracy', 'attention_accuracy', 'ktiw_accuracy', 'ktiw_score', 'agreement']) {
      assert.ok(Math.abs(a[k] - b[k]) <= 1e-4, `step ${step}: ${k} ${a[k]} vs ${b[k]}`);
    }
  }
  assert.equal(one.maps.evaluated, 40);
  assert.equal(two.maps.evaluated, 40);
  const worst = (/** @type {number[]} */ x, /** @type {number[]} */ y) => Math.max(...x.map((v, i) => Math.abs(v - y[i])));
  assert.ok(worst(one.maps.alpha, two.maps.alpha) <= 1e-4, 'α of a sequence the second replica evaluated');
  assert.ok(worst(one.maps.beta, two.maps.beta) <= 1e-3, 'β of a sequence the second replica evaluated');
});

test('a second snapshot of the same step keeps the evaluations already drawn', async () => {
  const { page } = await open();
  assert.equal(await page.evaluate(() => /** @type {any} */ (window).__ap.history().length), 1, 'step 0 evaluated');
  await page.selectOption('#seq', '2');
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.shown().seq === 2);
  assert.equal(await page.evaluate(() => /** @type {any} */ (window).__ap.history().length), 1, 'still there');
  await page.close();
});
