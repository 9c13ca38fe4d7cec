// @ts-check
// End-to-end tests of embedding, in headless Chromium: embed mode and its hide= list in a
// sandboxed iframe that its host sizes from the height message; pausing out of view and
// resuming; the Embed button's snippet; two <attention-playground> elements training on their
// own, and only while in view.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { session } from './session.js';
import { shownRun } from './harness.js';

const env = session();

/** The frame of the page inside a host, once its run is built.
 * @param {import('playwright-core').Page} page @param {string} selector the iframe (or element) */
async function frameOf(page, selector) {
  const handle = await page.waitForSelector(selector);
  const iframe = (await handle.evaluateHandle((el) => el.shadowRoot?.querySelector('iframe') ?? el)).asElement();
  const frame = await /** @type {import('playwright-core').ElementHandle} */ (iframe).contentFrame();
  assert.ok(frame, `${selector} has a frame`);
  await shownRun(frame);
  return frame;
}

/** @param {import('playwright-core').Frame} f */
const stepIn = (f) => f.evaluate(() => /** @type {any} */ (window).__ap.shown().step);
/** @param {import('playwright-core').Frame} f */
const runningIn = (f) => f.evaluate(() => /** @type {any} */ (window).__ap.shown().running);
/** Whether the element is displayed. @param {import('playwright-core').Frame} f @param {string} sel */
const shown = (f, sel) => f.evaluate((s) => {
  const el = document.querySelector(s);
  // A visually hidden element (1 px, clipped) is there for screen readers, not shown.
  return !!el && getComputedStyle(el).display !== 'none' && el.getBoundingClientRect().height > 1;
}, sel);

test('embed mode in a sandboxed iframe: only figures and play / step / reset, sized by its message, paused out of view', async () => {
  const page = await env.context.newPage();
  /** @type {string[]} */
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${env.url}tests/e2e/embed-host.html?embed=1&autoplay=1&speed=4`);
  const f = await frameOf(page, '#frame');
  for (const sel of ['#play', '#step-once', '#reset', '#alpha canvas', '#beta canvas', '#loss-chart', '#acc-chart', '.metrics', '#step']) {
    assert.ok(await shown(f, sel), `${sel} is shown`);
  }
  for (const sel of ['#preset', '#speed', '#new-seed', '#copy-link', '#embed-button', '#settings', '.explain', 'h1', '#variant']) {
    assert.equal(await shown(f, sel), false, `${sel} is hidden`);
  }
  // The title, not shown, is still the page's heading for a screen reader.
  assert.equal(await f.evaluate(() => document.querySelector('h1')?.classList.contains('ap-visually-hidden')), true);
  // The host sized the iframe to the page's height.
  await page.waitForFunction(() => /** @type {any} */ (window).heights.length > 0);
  const inner = await f.evaluate(() => Math.ceil(document.documentElement.getBoundingClientRect().height));
  await page.waitForFunction((h) => Math.abs(/** @type {HTMLElement} */ (document.getElementById('frame')).getBoundingClientRect().height - h) <= 1, inner);
  assert.ok(inner > 400, `a real height (${inner} px), not the iframe's default 150`);
  assert.equal(await f.evaluate(() => document.documentElement.scrollHeight <= window.innerHeight + 1), true, 'no inner scrollbar');
  // Autoplay, in view: it trains.
  await f.waitForFunction(() => /** @type {any} */ (window).__ap.shown().step >= 10, null, { timeout: 30_000 });
  // Scrolled out of view: it pauses.
  await page.evaluate(() => window.scrollTo(0, 4000));
  await f.waitForFunction(() => /** @type {any} */ (window).__ap.shown().running === false, null, { timeout: 10_000 });
  const s = await stepIn(f);
  await page.waitForTimeout(700);
  assert.equal(await stepIn(f), s, 'no steps while out of view');
  // Back in view: it resumes.
  await page.evaluate(() => window.scrollTo(0, 0));
  await f.waitForFunction((n) => /** @type {any} */ (window).__ap.shown().step > n + 5, s, { timeout: 30_000 });
  assert.equal(await runningIn(f), true);
  assert.deepEqual(errors, []);
  await page.close();
});

test('with the maps hidden an embedded page still autoplays, and hidden buttons take no shortcut', async () => {
  const page = await env.context.newPage();
  await page.goto(`${env.url}tests/e2e/embed-host.html?embed=1&autoplay=1&speed=4&hide=alpha,beta,reset`);
  const f = await frameOf(page, '#frame');
  await f.waitForFunction(() => /** @type {any} */ (window).__ap.shown().step >= 5, null, { timeout: 30_000 });
  await f.click('#play');
  await f.waitForFunction(() => /** @type {any} */ (window).__ap.shown().running === false);
  await f.locator('body').focus();
  await f.press('body', 'r');
  await page.waitForTimeout(300);
  assert.ok(await stepIn(f) > 0, 'R does not reset when the reset button is hidden');
  await page.close();
});

test('a hide= list hides the parts it names, and a wrong name is reported', async () => {
  const page = await env.context.newPage();
  await page.goto(`${env.url}tests/e2e/embed-host.html?embed=1&hide=reset,metrics,nosuch`);
  const f = await frameOf(page, '#frame');
  assert.equal(await shown(f, '#reset'), false);
  assert.equal(await shown(f, '.metrics'), false);
  assert.ok(await shown(f, '#play'));
  await f.waitForSelector('#status:not([hidden])');
  assert.match(await f.textContent('#status') ?? '', /Hidden parts \(hide\): must be names of parts \(.*\), got “nosuch”/);
  // Not embedded, hide= works on the full page too.
  const full = await env.context.newPage();
  await full.goto(`${env.url}?hide=settings,explain,new-seed`);
  await shownRun(full);
  const main = /** @type {import('playwright-core').Frame} */ (full.mainFrame());
  assert.equal(await shown(main, '#settings'), false);
  assert.equal(await shown(main, '#new-seed'), false);
  assert.ok(await shown(main, '#preset'));
  await page.close();
  await full.close();
});

test("the Embed button gives an iframe snippet of this run that works as given", async () => {
  const page = await env.context.newPage();
  await page.goto(`${env.url}?preset=small-hard&seed=4`);
  await shownRun(page);
  await page.click('#embed-button');
  const snippet = await page.inputValue('#embed-text');
  assert.match(snippet, /<iframe src="[^"]*embed=1[^"]*"/);
  assert.match(snippet, /sandbox="allow-scripts allow-same-origin allow-popups allow-popups-to-escape-sandbox"/);
  assert.match(snippet, /seed=4/);
  // A host page made of the snippet alone, served from the same origin.
  await page.route(`${env.url}snippet-host.html`, (r) => r.fulfill({ contentType: 'text/html', body: `<!doctype html><title>host</title><body>${snippet}<div style="height:3000px"></div></body>` }));
  await page.goto(`${env.url}snippet-host.html`);
  const f = await frameOf(page, 'iframe');
  assert.equal(await f.evaluate(() => /** @type {any} */ (window).__ap.shown().config.seed), 4);
  await f.waitForFunction(() => /** @type {any} */ (window).__ap.shown().step >= 3, null, { timeout: 30_000 });
  await page.waitForFunction(() => /** @type {HTMLElement} */ (document.querySelector('iframe')).getBoundingClientRect().height > 400);
  await page.close();
});

test('two <attention-playground> elements train independently, and only while in view', async () => {
  const page = await env.context.newPage();
  /** @type {string[]} */
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${env.url}tests/e2e/element-host.html`);
  const easy = await frameOf(page, '#easy');
  const hard = await frameOf(page, '#hard');
  await easy.waitForFunction(() => /** @type {any} */ (window).__ap.shown().step >= 20, null, { timeout: 30_000 });
  await hard.waitForFunction(() => /** @type {any} */ (window).__ap.shown().step >= 20, null, { timeout: 30_000 });
  const ce = /** @type {any} */ (await easy.evaluate(() => /** @type {any} */ (window).__ap.shown().config));
  const ch = /** @type {any} */ (await hard.evaluate(() => /** @type {any} */ (window).__ap.shown().config));
  assert.equal(ce.seed, 1);
  assert.equal(ch.seed, 2);
  assert.notEqual(ce.vocab, ch.vocab, 'the easy and the hard preset');
  assert.equal(await shown(hard, '.metrics'), false, 'the second element hides its metrics');
  assert.ok(await shown(easy, '.metrics'));
  // Each runs its own worker: pausing one leaves the other training.
  await easy.click('#play');
  await easy.waitForFunction(() => /** @type {any} */ (window).__ap.shown().running === false);
  const e0 = await stepIn(easy);
  const h0 = await stepIn(hard);
  await hard.waitForFunction((n) => /** @type {any} */ (window).__ap.shown().step > n + 10, h0, { timeout: 30_000 });
  assert.equal(await stepIn(easy), e0, 'the paused one stays');
  // The third, far below, has not started; scrolled into view it trains and the others pause.
  await page.evaluate(() => document.getElementById('later')?.scrollIntoView());
  const later = await frameOf(page, '#later');
  await later.waitForFunction(() => /** @type {any} */ (window).__ap.shown().step >= 10, null, { timeout: 30_000 });
  await hard.waitForFunction(() => /** @type {any} */ (window).__ap.shown().running === false, null, { timeout: 10_000 });
  assert.deepEqual(errors, []);
  await page.close();
});
