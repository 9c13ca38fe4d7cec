// @ts-check
// End-to-end tests of the link (www/state/url.js through the page): the address bar follows the
// run, a copied link opened in a fresh browser reproduces the run bit for bit, and a link's
// unusable keys are reported once and ignored while the rest applies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { freshPage, shown, pastStep } from './harness.js';
import { session } from './session.js';

const env = session();

/** @param {string} url @param {string[]} [permissions] */
const fresh = (url, permissions = []) => freshPage(env.browser, url, { permissions });

/** Plays at full speed to step ≥ n, pauses, and returns the first n training losses.
 * @param {import('playwright-core').Page} page @param {number} n */
async function lossesTo(page, n) {
  await page.selectOption('#speed', '1000');
  await page.click('#play');
  await pastStep(page, n, 60_000);
  await page.click('#play');
  const l = await page.evaluate(() => /** @type {any} */ (window).__ap.losses());
  assert.deepEqual(l.step.slice(0, n), Array.from({ length: n }, (_, i) => i + 1), 'every step’s loss');
  return /** @type {number[]} */ (l.loss.slice(0, n));
}

test('a copied link opened in a fresh browser context reproduces the first 100 losses exactly', async () => {
  const a = await fresh(env.url, ['clipboard-read', 'clipboard-write']);
  await a.page.selectOption('#preset', 'small-hard');
  await a.page.waitForFunction(() => {
    const ap = /** @type {any} */ (window).__ap;
    return ap.shown()?.config.vocab === ap.presets()['small-hard'].vocab;
  });
  await a.page.fill('#set-seed', '7');
  await a.page.dispatchEvent('#set-seed', 'change');
  await a.page.waitForFunction(() => /** @type {any} */ (window).__ap.shown()?.config.seed === 7);
  await a.page.fill('#set-learning_rate', '0.002');
  await a.page.dispatchEvent('#set-learning_rate', 'change');
  await a.page.waitForFunction(() => Math.abs(/** @type {any} */ (window).__ap.shown()?.config.learning_rate - 0.002) < 1e-6);
  await a.page.selectOption('#seq', '3');
  await a.page.waitForFunction(() => /** @type {any} */ (window).__ap.shown().seq === 3);
  // The address bar follows the run.
  await a.page.waitForFunction(() => location.search.includes('seed=7') && location.search.includes('seq=3'));
  await a.page.click('#copy-link');
  const link = await a.page.evaluate(() => navigator.clipboard.readText());
  const q = new URL(link).searchParams;
  assert.equal(q.get('v'), '1', 'format version');
  assert.equal(q.get('preset'), 'small-hard');
  assert.equal(q.get('seed'), '7');
  assert.equal(q.get('learning_rate'), '0.002', 'the float in its shortest form');
  assert.equal(q.get('seq'), '3');
  assert.equal(q.get('vocab'), null, 'only what differs from the preset');
  assert.equal(await a.page.inputValue('#link-text'), link, 'the link is also shown');
  const want = await lossesTo(a.page, 100);
  assert.deepEqual(a.errors, []);
  await a.context.close();

  const b = await fresh(link);
  assert.equal(await b.page.inputValue('#set-seed'), '7');
  assert.equal(await b.page.inputValue('#preset'), 'custom', 'the seed differs from the preset');
  assert.equal((await shown(b.page)).seq, 3);
  const got = await lossesTo(b.page, 100);
  assert.equal(got.length, 100);
  assert.deepEqual(got, want, 'the same 100 training losses, bit for bit');
  assert.deepEqual(b.errors, []);
  await b.context.close();
});

test("a link's unknown and malformed keys are reported once and ignored; the rest applies", async () => {
  const query = '?v=1&preset=small-hard&seed=5&bogus=1&hidden=abc&heads=99&speed=3&workers=1';
  const { context, page, errors } = await fresh(env.url + query);
  const presets = await page.evaluate(() => /** @type {any} */ (window).__ap.presets());
  const presetVocab = presets['small-hard'].vocab;
  const presetHidden = presets['small-hard'].hidden;
  await page.waitForSelector('#status:not([hidden])');
  const status = await page.textContent('#status') ?? '';
  assert.match(status, /unknown key “bogus”/);
  assert.match(status, /Width H \(hidden\): must be a whole number from 1 to 1024, got “abc”/);
  assert.match(status, /Heads K \(heads\): must be a whole number from 1 to 16, got “99”/, 'a range the trainer refuses');
  assert.match(status, /Speed, steps per frame \(speed\): must be one of/);
  assert.equal(status.split('bogus').length, 2, 'said once');
  const config = (await shown(page)).config;
  assert.equal(config.seed, 5, 'the seed of the link');
  assert.equal(config.vocab, presetVocab, 'the preset of the link');
  assert.equal(config.hidden, presetHidden, 'the malformed width is ignored');
  assert.equal(config.heads, 1, 'the refused head count is ignored');
  await page.waitForFunction(() => !location.search.includes('bogus'));
  const written = new URLSearchParams(await page.evaluate(() => location.search));
  assert.deepEqual([...written.keys()].sort(), ['preset', 'seed', 'v', 'workers'], `written back: ${written}`);
  await page.click('#step-once');
  await page.waitForFunction(() => Number(document.getElementById('step')?.textContent) === 1);
  assert.equal((await page.textContent('#status') ?? '').split('bogus').length, 2, 'not repeated');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a link asking for a sequence or head the run lacks is reported and the run still trains', async () => {
  const { context, page, errors } = await fresh(`${env.url}?seq=500&head=3&toString=1`);
  await page.waitForSelector('#status:not([hidden])');
  const status = await page.textContent('#status') ?? '';
  assert.match(status, /Sequence shown \(seq\): must be a whole number from 0 to 49 \(this run evaluates 50 sequences\), got 500/);
  assert.match(status, /Head shown \(head\): must be a whole number from −1 \(the average\) to 0 \(this run has 1 head\), got 3/);
  assert.match(status, /unknown key “toString”/);
  await page.click('#play');
  await page.waitForFunction(() => Number(document.getElementById('step')?.textContent) >= 5);
  assert.equal((await shown(page)).seq, 49, 'the last sequence instead');
  assert.deepEqual(errors, []);
  await context.close();
});
