// @ts-check
// End-to-end tests of sweeps, through the page: a sweep of the small easy preset chosen in
// the Seeds menu ends with every seed at 99% and says so; a sweep of the small hard preset
// from a link shows stalled and successful seeds, the same ones at the same steps as the
// native tool's (results/small-hard.md); a seed opened from the chart (by the pointer, and
// by the keys) is the run of that seed, its first losses those of a single run of it; the
// sweep's CSV has reproduce's columns; closing the sweep stops it; two sweeps compared
// (easy and hard task) train the same seeds side by side, a sweep of more seeds takes
// those trained already, and a paused sweep trains nothing until it goes on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { freshPage, atStep } from './harness.js';
import { session } from './session.js';

const env = session();

/** @param {string} query */
const open = (query) => freshPage(env.browser, env.url + query);

/** @param {import('playwright-core').Page} page */
const sweeps = (page) => page.evaluate(() => /** @type {any} */ (window).__ap.sweeps());

/** Waits until every seed of every sweep is done. @param {import('playwright-core').Page} page */
const finished = (page) => page.waitForFunction(
  () => { const s = /** @type {any} */ (window).__ap.sweeps(); return s.length > 0 && s.every((/** @type {any} */ w) => w.finished); },
  null, { timeout: 180_000 },
);

/** What reproduce said of each seed of the small hard preset: the step it reached 0.99 at, or null. */
function nativeHard() {
  const table = readFileSync(new URL('../../results/small-hard.md', import.meta.url), 'utf8');
  /** @type {Map<number, number | null>} */
  const at = new Map();
  for (const line of table.split('\n')) {
    const c = line.split('|').map((x) => x.trim());
    if (/^\d+$/.test(c[1] ?? '')) at.set(Number(c[1]), c[5] === 'never' ? null : Number(c[5]));
  }
  return at;
}

test('a sweep of the small easy preset, chosen in the Seeds menu, ends with every seed at 99% and says so', async () => {
  const { context, page, errors } = await open('?v=1');
  await page.selectOption('#seeds', '8');
  assert.match(page.url(), /[?&]seeds=8(&|$)/);
  await page.locator('#sweep').waitFor({ state: 'visible' });
  await finished(page);
  const [w] = await sweeps(page);
  assert.equal(w.seeds.length, 8);
  assert.deepEqual(w.seeds.map((/** @type {any} */ s) => s.seed), [0, 1, 2, 3, 4, 5, 6, 7]);
  assert.ok(w.seeds.every((/** @type {any} */ s) => s.step === 400 && s.evaluations.at(-1).step === 400), 'every seed trained its 400 steps');
  assert.equal(w.summary.reached, 8);
  await page.waitForFunction(() => /8 of 8 reached 99% token accuracy/.test(document.querySelector('.sweep-summary')?.textContent ?? ''));
  assert.match(await page.locator('#sweep-title').innerText(), /^8 seeds \(0–7\), 400 steps each: finished in \d+\.\d s$/);
  // The run on screen waited, paused, while the sweep trained.
  assert.equal((await page.evaluate(() => /** @type {any} */ (window).__ap.shown())).step, 0);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a sweep of the small hard preset shows stalled and successful seeds, the native tool’s, and opens each as the run on screen', async () => {
  const { context, page, errors } = await open('?v=1&preset=small-hard&seeds=0-7');
  await finished(page);
  const [w] = await sweeps(page);
  const native = nativeHard();
  const outcomes = w.results.map((/** @type {any} */ r) => r.outcome);
  assert.ok(outcomes.includes('stalled') && outcomes.includes('reached'), `outcomes: ${outcomes}`);
  for (const r of w.results) {
    assert.equal(r.reachedAt, native.get(r.seed), `seed ${r.seed} reaches 99% where reproduce's does`);
  }
  // The table says the same, one row per seed.
  const rows = await page.locator('.sweep-seeds tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-outcome')));
  assert.deepEqual(rows, outcomes);

  // The CSV: reproduce's columns, a row per seed and evaluation, the handle's values.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#sweep-csv')]);
  const csv = readFileSync(/** @type {string} */ (await download.path()), 'utf8').trim().split('\n');
  assert.equal(csv[0], 'seed,step,loss,token_acc,attention_acc,ktiw_acc,ktiw_score,agreement,backend');
  assert.equal(csv.length, 1 + 8 * 41);
  const row = csv.find((l) => l.startsWith('6,290,'));
  const e = w.seeds[6].evaluations.find((/** @type {any} */ x) => x.step === 290);
  assert.equal(row, `6,290,${e.loss.toFixed(6)},${e.token_accuracy.toFixed(4)},${e.attention_accuracy.toFixed(4)},`
    + `${e.ktiw_accuracy.toFixed(4)},${e.ktiw_score.toFixed(4)},${e.agreement.toFixed(4)},cpu`);

  // The pointer: over the chart's right end, the readout names the curve under it; a click
  // opens that seed.
  const plot = page.locator('.ap-sweep-plot').first();
  const box = /** @type {{ x: number, y: number, width: number, height: number }} */ (await plot.boundingBox());
  let named = null;
  for (let y = box.y + 4; y < box.y + box.height - 40 && named === null; y += 2) {
    await page.mouse.move(box.x + box.width - 12, y);
    const text = await page.locator('.ap-sweep-plot .ap-chart-readout').evaluate((el) => (/** @type {HTMLElement} */ (el).hidden ? '' : el.textContent ?? ''));
    const m = /^seed (\d+): /.exec(text);
    if (m) named = Number(m[1]);
  }
  assert.ok(named !== null, 'the readout names a seed somewhere along the chart’s right end');
  await page.mouse.down();
  await page.mouse.up();
  await page.waitForFunction((k) => /** @type {any} */ (window).__ap.state().config.seed === k, named);
  assert.match(page.url(), new RegExp(`[?&]seed=${named}(&|$)`));

  // The keys: the pointer gone and the chart focused, → three times chooses the third seed,
  // Enter opens it.
  await page.mouse.move(box.x - 20, box.y - 20);
  await plot.focus();
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.state().config.seed === 2);
  const state = await page.evaluate(() => /** @type {any} */ (window).__ap.state());
  assert.equal(state.playing, true, 'an opened seed replays from its seed');
  await page.waitForFunction(() => { const s = /** @type {any} */ (window).__ap.shown(); return s && s.config.seed === 2 && s.step >= 5; }, null, { timeout: 60_000 });
  const opened = await page.evaluate(() => /** @type {any} */ (window).__ap.losses());

  // The same seed as a single run, stepped by hand: the same first losses, bit for bit.
  const single = await open('?v=1&preset=small-hard&seed=2');
  for (let i = 1; i <= 5; i++) {
    await single.page.click('#step-once');
    await atStep(single.page, i);
  }
  const alone = await single.page.evaluate(() => /** @type {any} */ (window).__ap.losses());
  assert.deepEqual(opened.loss.slice(0, 5), alone.loss.slice(0, 5));
  assert.deepEqual(single.errors, []);
  await single.context.close();

  // Closing the sweep hides it and ends it.
  await page.click('#sweep-close');
  await page.locator('#sweep').waitFor({ state: 'hidden' });
  assert.deepEqual(await sweeps(page), []);
  assert.doesNotMatch(page.url(), /seeds=/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('two sweeps compared side by side: the easy and the hard task over the same seeds', async () => {
  const { context, page, errors } = await open('?v=1&seeds=3&compare=task');
  await finished(page);
  const [easy, hard] = await sweeps(page);
  assert.deepEqual([easy.name, hard.name], ['easy task', 'hard task']);
  assert.deepEqual(easy.seeds.map((/** @type {any} */ s) => s.seed), [0, 1, 2]);
  assert.deepEqual(hard.seeds.map((/** @type {any} */ s) => s.seed), [0, 1, 2]);
  assert.equal(easy.summary.reached, 3, 'every easy seed copies');
  const native = nativeHard();
  assert.deepEqual(hard.results.map((/** @type {any} */ r) => r.reachedAt), [0, 1, 2].map((k) => native.get(k)), 'the hard seeds are reproduce’s');
  assert.deepEqual(await page.locator('.sweep-column h3').allInnerTexts(), ['easy task', 'hard task']);
  assert.equal(await page.locator('.sweep-column .ap-sweep-plot').count(), 2);
  // More seeds: the three trained already are taken as they are, the others train.
  await page.selectOption('#seeds', '8');
  const more = await sweeps(page);
  assert.deepEqual(more.map((/** @type {any} */ w) => w.seeds.length), [8, 8]);
  for (const [i, w] of more.entries()) {
    assert.deepEqual(w.seeds.slice(0, 3).map((/** @type {any} */ x) => x.done), [true, true, true]);
    assert.deepEqual(w.seeds.slice(0, 3).map((/** @type {any} */ x) => x.evaluations), [easy, hard][i].seeds.map((/** @type {any} */ x) => x.evaluations));
  }
  // Paused, nothing trains; going on, it does.
  const steps = async () => (await sweeps(page)).flatMap((/** @type {any} */ w) => w.seeds.map((/** @type {any} */ x) => x.step));
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.sweeps()[0].seeds[3].step > 0, null, { timeout: 30_000 });
  await page.click('#sweep-pause');
  await page.waitForFunction(() => document.getElementById('sweep-pause')?.getAttribute('aria-pressed') === 'true');
  await page.waitForTimeout(300);
  const paused = await steps();
  await page.waitForTimeout(1000);
  assert.deepEqual(await steps(), paused, 'a paused sweep trains nothing');
  assert.match(await page.locator('#sweep-title').innerText(), /paused at \d+\.\d s$/);
  await page.click('#sweep-pause');
  await page.waitForFunction((before) => /** @type {any} */ (window).__ap.sweeps()
    .flatMap((/** @type {any} */ w) => w.seeds.map((/** @type {any} */ x) => x.step)).some((/** @type {number} */ x, /** @type {number} */ i) => x > before[i]), paused, { timeout: 30_000 });
  assert.deepEqual(errors, []);
  await context.close();
});
