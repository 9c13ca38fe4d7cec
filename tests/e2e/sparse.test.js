// @ts-check
// End-to-end tests of the sparse lab through the page: it opens from a link; with enough
// samples the attention on the hidden positions rises as the test accuracy does; with too
// few the training set is memorised; the hidden-set toggle hides and shows the marks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { freshPage, shownRun, spearman } from './harness.js';
import { session } from './session.js';
import { PAGE_EXPERIMENT, scalingRows } from '../../scripts/figures.js';
import { FIGURES } from '../../www/labs/figures.js';

const env = session();

/** Plays the page's run to its preset's budget of `step` steps, where it pauses and says
 * what is true of the preset by then. @param {import('playwright-core').Page} page @param {number} step */
async function playTo(page, step) {
  await page.click('#play');
  await page.waitForFunction((n) => {
    const s = /** @type {any} */ (window).__ap.shown();
    return s?.step === n && !s.running;
  }, step, { timeout: 120_000, polling: 100 });
  assert.match(await page.locator('#status').innerText(), new RegExp(`within ${step} steps`));
}

test('the sparse lab opens from a link; attention on the hidden positions rises as the test accuracy does', async () => {
  const { context, page, errors } = await freshPage(env.browser, `${env.url}?v=1&lab=sparse&speed=16`);
  await shownRun(page);
  assert.match(await page.locator('#title').innerText(), /sparse variables/);
  assert.equal(await page.locator('#preset').inputValue(), 'and-3');
  // The explainer states the law per function, as the native runs' figures give it.
  const said = await page.locator('#explain-text').innerText();
  const f = (/** @type {string} */ name) => FIGURES[`sparse.scaling.${name}`].text;
  assert.ok(said.includes(`for majority of 3 ${f('majority-3.held-out')} predicted 512 and 1,024 best`), said);
  assert.ok(said.includes(`for AND of 3 ${f('and-3.held-out')} did, but resamples pick it in only ${f('and-3.held-out-share')}`), said);
  await playTo(page, 600);
  const history = await page.evaluate(() => /** @type {any} */ (window).__ap.history());
  const [first, last] = [history[0], history.at(-1)];
  // At step 0 attention is near even (3 of 32 positions: about 9%) and the labels a coin toss.
  assert.ok(first.mass < 0.15 && first.test_accuracy < 0.7, JSON.stringify(first));
  assert.ok(last.test_accuracy >= 0.95 && last.mass > 3 * first.mass && last.found === 1, JSON.stringify(last));
  // The gentle start's words: “to step 100, where the default run finds the hidden bits”.
  assert.match(await page.getAttribute('label[data-part="speed"]', 'title') ?? '', /to step 100, where the default run finds the hidden bits/);
  const found = history.find((/** @type {any} */ e) => e.found === 1);
  assert.ok(found && found.step <= 100, `found at ${JSON.stringify(found)}`);
  const rho = spearman(history.map((/** @type {any} */ e) => e.mass), history.map((/** @type {any} */ e) => e.test_accuracy));
  assert.ok(rho > 0.5, `mass and test accuracy rise together: Spearman ${rho}`);
  // The picture of attention over training has a row per kept evaluation, the hidden positions outlined.
  const maps = await page.evaluate(() => /** @type {any} */ (window).__ap.maps());
  assert.equal(maps.hidden.length, 3);
  assert.equal(maps.picture.length, maps.pictureSteps.length * 32);
  // Where attention is now: the three largest of the heads' mean are the hidden positions.
  const mean = Array.from({ length: 32 }, (_, t) => [0, 1, 2, 3].reduce((s, k) => s + maps.attention[k * 32 + t], 0));
  const top3 = mean.map((v, t) => [v, t]).sort((p, q) => q[0] - p[0]).slice(0, 3).map(([, t]) => t).sort((p, q) => p - q);
  assert.deepEqual(top3, maps.hidden);
  assert.deepEqual(errors, []);
  await context.close();
});

test('with too few samples the training set is memorised: train accuracy 100%, test accuracy below 90%', async () => {
  const { context, page, errors } = await freshPage(env.browser, `${env.url}?v=1&lab=sparse&preset=few&speed=1000`);
  await shownRun(page);
  await playTo(page, 600);
  const last = (await page.evaluate(() => /** @type {any} */ (window).__ap.history())).at(-1);
  assert.equal(last.train_accuracy, 1, JSON.stringify(last));
  assert.ok(last.test_accuracy < 0.9, JSON.stringify(last));
  assert.equal(await page.locator('#s-train').innerText(), '100.0%');
  assert.deepEqual(errors, []);
  await context.close();
});

test('the hidden-set toggle hides and shows the marks, in the picture and in the readout', async () => {
  const { context, page, errors } = await freshPage(env.browser, `${env.url}?v=1&lab=sparse`);
  await shownRun(page);
  assert.match(await page.locator('label:has(#show-marks)').innerText(), /mark the hidden positions/);
  const hidden = (await page.evaluate(() => /** @type {any} */ (window).__ap.maps())).hidden;
  const plot = page.locator('#positions .ap-heatmap-plot');
  /** The readout of position `t` of head 1, through the keyboard. @param {number} t */
  const readout = async (t) => {
    await plot.focus();
    await page.keyboard.press('Escape');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Home');
    for (let i = 0; i < t; i++) await page.keyboard.press('ArrowRight');
    return page.locator('#positions .ap-tooltip').innerText();
  };
  assert.match(await readout(hidden[0]), /hidden\s+yes/);
  assert.match(await readout(hidden[0] === 0 ? 1 : 0), /hidden\s+no/);
  const marked = await plot.screenshot();
  await page.uncheck('#show-marks');
  assert.match(await readout(hidden[0]), /hidden\s+not shown/);
  await page.keyboard.press('Escape');
  const unmarked = await plot.screenshot();
  assert.ok(!marked.equals(unmarked), 'the outline of the hidden positions went');
  await page.check('#show-marks');
  assert.match(await readout(hidden[0]), /hidden\s+yes/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('the protocol’s knobs: position codes and weight decay from a link and the form, each refusal naming its field and range', async () => {
  const { context, page, errors } = await freshPage(env.browser, `${env.url}?v=1&lab=sparse&positions=one-hot&weight_decay=2`);
  await shownRun(page);
  assert.match(await page.locator('#status').innerText(), /Position codes \(positions\): must be learned, sinusoidal or random when the width d \(16\) is less than the length T \(32\)/);
  let config = (await page.evaluate(() => /** @type {any} */ (window).__ap.shown())).config;
  assert.equal(config.positions, 'learned', 'the refused setting changed nothing');
  assert.equal(config.weight_decay, 2, 'the good one applied');
  await page.selectOption('#set-positions', 'sinusoidal');
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.shown()?.config.positions === 'sinusoidal');
  for (const bad of ['-1', '10.5', 'lots']) {
    await page.fill('#set-weight_decay', bad);
    await page.dispatchEvent('#set-weight_decay', 'change');
    assert.equal(await page.textContent('#err-weight_decay'), `Weight decay (weight_decay): must be a number from 0 to 10, got “${bad}”`);
  }
  await page.fill('#set-weight_decay', '0');
  await page.dispatchEvent('#set-weight_decay', 'change');
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.shown()?.config.weight_decay === 0);
  assert.equal(await page.isVisible('#err-weight_decay'), false);
  await page.click('#step-once');
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.shown()?.step === 1);
  config = (await page.evaluate(() => /** @type {any} */ (window).__ap.shown())).config;
  assert.equal(config.positions, 'sinusoidal');
  assert.match(page.url(), /positions=sinusoidal/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('the Lab menu opens the sparse lab in the same tab; a link to no lab says which there are', async () => {
  const { context, page, errors } = await freshPage(env.browser, `${env.url}?v=1&lab=nope`);
  await shownRun(page);
  assert.match(await page.locator('#status').innerText(), /Lab \(lab\): must be one of copying, sparse, got “nope”/);
  assert.equal(await page.locator('#lab').inputValue(), 'copying');
  await Promise.all([page.waitForURL(/lab=sparse/), page.selectOption('#lab', 'sparse')]);
  await shownRun(page);
  assert.match(await page.locator('#title').innerText(), /sparse variables/);
  assert.equal((await page.evaluate(() => /** @type {any} */ (window).__ap.shown())).config.function, 'and');
  assert.deepEqual(errors, []);
  await context.close();
});

test('the experiment trains in workers and fills the m*–T plot: m* for every length, as the native tool finds it', async () => {
  const { context, page, errors } = await freshPage(env.browser, `${env.url}?v=1&lab=sparse`);
  await shownRun(page);
  assert.equal(await page.locator('#experiment').isHidden(), true);
  await page.click('#experiment-button');
  assert.equal(await page.getAttribute('#experiment-button', 'aria-pressed'), 'true');
  assert.match(page.url(), /experiment=1/);
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.experiment()?.finished, null, { timeout: 240_000, polling: 500 });
  const e = await page.evaluate(() => /** @type {any} */ (window).__ap.experiment());
  assert.ok(e.done);
  assert.match(await page.locator('#experiment-status').innerText(), /Done: m\* found for 6 of 6 lengths, \d+ runs\. Finished in/);
  const rows = await page.locator('.scaling-table tbody tr').evaluateAll((trs) => trs.map((tr) => Array.from(tr.children, (td) => td.textContent)));
  assert.deepEqual(rows.map((r) => r[0]), ['8', '16', '32', '64', '128', '256']);
  // The same m* as `scaling --preset and-3 --lengths 8,16,32,64,128,256 --seeds 0-4` found
  // natively (its result file, which docs/sparse.md quotes).
  const native = scalingRows(PAGE_EXPERIMENT);
  assert.deepEqual(rows.map((r) => Number(r[0])), [...native.keys()]);
  assert.deepEqual(rows.map((r) => r[1]), [...native.values()].map((r) => r.m));
  // Each size tried is a row of the CSV, five seeds each.
  const csv = e.csv.trim().split('\n');
  const tried = rows.reduce((n, r) => n + (r[2] ?? '').split('),').length, 0);
  assert.equal(csv.length - 1, 5 * tried);
  // The three laws judged on m* (docs/sparse.md), each with its m* at the next length.
  assert.match(await page.locator('#scaling-fits').innerText(), /^On the lengths done, m\* fits (log T|linear in T|power of T) best: .*R² 0\.\d{3} .*at T = 512: \d+.*The paper’s claim: m\* grows like log T/);
  // Closed, its workers go and the link says so.
  await page.click('#experiment-close');
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.experiment() === null);
  assert.doesNotMatch(page.url(), /experiment=/);
  assert.deepEqual(errors, []);
  await context.close();
});
