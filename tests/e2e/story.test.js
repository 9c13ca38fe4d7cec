// @ts-check
// End-to-end tests of compare mode and the classroom story, through the page: a second run
// that differs in one setting with the same seed, both curves on the same charts; the story's
// steps setting up their runs and saying what to watch.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { freshPage, shown } from './harness.js';
import { session } from './session.js';

const env = session();

/** The compared run's settings (null before it has a snapshot). @param {import('playwright-core').Page} page */
const secondConfig = (page) => page.evaluate(() => /** @type {any} */ (window).__ap.runs()[1]?.config ?? null);

/** The settings that differ between two configs. @param {any} a @param {any} b */
const differing = (a, b) => Object.keys(a).filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k])).sort();

test('compare mode runs a second run that differs in one setting, same seed, on the same charts', async () => {
  const { context, page, errors } = await freshPage(env.browser, `${env.url}?compare=task&speed=16&seed=6`);
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.runs()[1] != null, null, { timeout: 30_000 });
  const a = (await shown(page)).config;
  const b = await secondConfig(page);
  assert.deepEqual(differing(a, b), ['vocab'], 'easy vs hard: V = 30 against V = L = 20');
  assert.equal(b.vocab, b.length);
  assert.equal(b.seed, 6, 'the same seed');
  assert.ok(await page.isVisible('#maps-b'));
  assert.match(await page.textContent('#name-b') ?? '', /hard task/);
  const legend = await page.textContent('#acc-chart .ap-chart-legend') ?? '';
  for (const want of ['attention accuracy, easy task', 'attention accuracy, hard task', 'KTIW accuracy, hard task']) {
    assert.ok(legend.includes(want), `the accuracy chart shows “${want}”: ${legend}`);
  }
  // Play drives both; both histories reach the charts.
  await page.click('#play');
  await page.waitForFunction(() => {
    const ap = /** @type {any} */ (window).__ap;
    return ap.history(0).length >= 4 && ap.history(1).length >= 4;
  }, null, { timeout: 60_000 });
  await page.click('#play');
  const described = await page.getAttribute('#loss-chart canvas', 'aria-label') ?? '';
  assert.match(described, /loss, easy task.*loss, hard task/s, described);
  // Another contrast: learned against uniform attention.
  await page.selectOption('#compare', 'attention');
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.runs()[1]?.config.attention === 'uniform', null, { timeout: 30_000 });
  assert.deepEqual(differing((await shown(page)).config, await secondConfig(page)), ['attention']);
  await page.waitForFunction(() => location.search.includes('compare=attention'));
  // A new setting restarts the pair on it, the contrast kept.
  await page.fill('#set-hidden', '32');
  await page.dispatchEvent('#set-hidden', 'change');
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.runs()[1]?.config.hidden === 32, null, { timeout: 30_000 });
  await page.selectOption('#compare', '');
  assert.equal(await page.isVisible('#maps-b'), false);
  await page.waitForFunction(() => !location.search.includes('compare'));
  assert.deepEqual(errors, []);
  await context.close();
});

test('the story steps set up their runs and say what to watch', async () => {
  const { context, page, errors } = await freshPage(env.browser, env.url);
  await page.click('#story-button');
  assert.match(await page.textContent('#story-title') ?? '', /^1 of 6: Attention starts out flat/);
  assert.equal(await page.isDisabled('#story-prev'), true);
  await page.click('#story-next');
  assert.match(await page.textContent('#story-title') ?? '', /^2 of 6: KTIW is learned first/);
  assert.match(await page.textContent('#story-text') ?? '', /KTIW accuracy \(dotted\) climbs/);
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.shown().running === true);
  await page.click('#story-next');
  await page.click('#story-next');
  assert.match(await page.textContent('#story-title') ?? '', /^4 of 6: The hard task stalls/);
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.runs()[1]?.config.vocab === 20, null, { timeout: 30_000 });
  await page.waitForFunction(() => location.search.includes('story=4') && location.search.includes('compare=task'));
  const link = page.url();
  await page.click('#story-next');
  await page.click('#story-next');
  assert.match(await page.textContent('#story-title') ?? '', /^6 of 6: Several heads rescue the hard task/);
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.runs()[1]?.config.heads === 8, null, { timeout: 30_000 });
  assert.equal((await shown(page)).config.vocab, 20, 'the hard task');
  assert.equal(await page.isDisabled('#story-next'), true);
  await page.click('#story-close');
  assert.equal(await page.isVisible('#story'), false);
  assert.deepEqual(errors, []);
  await context.close();
  // A teacher's link opens the story at its step, with its run.
  const again = await freshPage(env.browser, link);
  assert.match(await again.page.textContent('#story-title') ?? '', /^4 of 6/);
  await again.page.waitForFunction(() => /** @type {any} */ (window).__ap.runs()[1]?.config.vocab === 20, null, { timeout: 30_000 });
  await again.context.close();
});

test('a compared run autoplays with the first, follows a head it lacks, and restarts with the first run', async () => {
  const { context, page, errors } = await freshPage(env.browser, `${env.url}?preset=heads&compare=heads&autoplay=1&speed=4`);
  await page.waitForFunction(() => {
    const [a, b] = /** @type {any} */ (window).__ap.runs();
    return a?.step >= 5 && b?.step >= 5;
  }, null, { timeout: 60_000 });
  await page.click('#play');
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.runs()[1]?.running === false);
  // Head 4 of the 8-head run; the 1-head compared run shows its only head and goes on.
  await page.selectOption('#head', '3');
  const b0 = await page.evaluate(() => /** @type {any} */ (window).__ap.runs()[1].step);
  await page.click('#step-once');
  await page.waitForFunction((n) => /** @type {any} */ (window).__ap.runs()[1]?.step === n + 1, b0);
  assert.equal(await page.isVisible('#status'), false, 'no error from the compared run');
  // Other workers start the first run again; the compared one starts again with it.
  await page.selectOption('#workers', '2');
  await page.waitForFunction(() => {
    const [a, b] = /** @type {any} */ (window).__ap.runs();
    return a?.step === 0 && a.workers === 2 && b?.step === 0 && b.workers === 2;
  }, null, { timeout: 30_000 });
  assert.deepEqual(errors, []);
  await context.close();
});
