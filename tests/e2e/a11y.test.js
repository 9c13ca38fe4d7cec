// @ts-check
// End-to-end tests of access and comfort, through the page in headless Chromium: the
// keyboard shortcuts, an axe-core audit (light and dark: the default page, embed mode, a
// finished sweep with its seed table open), the
// theme and colormap choices, and a layout without horizontal scrolling from 360 px up.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { freshPage, shownRun, shown } from './harness.js';
import { session } from './session.js';

const AXE = fileURLToPath(new URL('../../node_modules/axe-core/axe.min.js', import.meta.url));

const env = session();

/** @param {string} [query] @param {{ width?: number, scheme?: 'light' | 'dark', reducedMotion?: 'reduce' | 'no-preference' }} [o] */
const open = (query = '', o = {}) => freshPage(env.browser, env.url + query, o);

/** @param {import('playwright-core').Page} page */
const stepOf = (page) => page.evaluate(() => Number(document.getElementById('step')?.textContent));

test('keyboard shortcuts: Space plays and pauses, → steps, R resets, ? opens the help', async () => {
  const { context, page, errors } = await open();
  await page.locator('body').focus();
  await page.keyboard.press('Space');
  await page.waitForFunction(() => Number(document.getElementById('step')?.textContent) >= 3);
  assert.equal(await page.textContent('#play'), 'Pause');
  await page.keyboard.press('Space');
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.shown().running === false);
  await page.waitForTimeout(200);
  const s = await stepOf(page);
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction((n) => Number(document.getElementById('step')?.textContent) === n + 1, s);
  await page.keyboard.press('r');
  await page.waitForFunction(() => Number(document.getElementById('step')?.textContent) === 0);
  await page.keyboard.press('?');
  await page.waitForSelector('#help[open]');
  assert.match(await page.textContent('#help') ?? '', /Space.*play \/ pause/s);
  await page.keyboard.press('Escape');
  await page.waitForSelector('#help:not([open])', { state: 'attached' });
  // Typing in a field is not a shortcut.
  await page.focus('#set-seed');
  await page.keyboard.press('r');
  assert.equal(await page.inputValue('#set-seed'), '0r');
  // Tab reaches a heatmap, whose arrow keys read cells out instead of stepping.
  await page.focus('#alpha .ap-heatmap-plot');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  assert.match(await page.textContent('#alpha [aria-live]') ?? '', /α \d+(\.\d)?%.*target t = 0.*source s = 1/);
  assert.equal(await stepOf(page), 0, 'arrows on a heatmap do not step');
  assert.deepEqual(errors, []);
  await context.close();
});

for (const [name, query] of [['the default page with the Record panel open', ''], ['embed mode', '?embed=1'], ['a finished sweep with its seed table open', '?v=1&lab=sparse&seeds=3']]) {
  for (const scheme of /** @type {const} */ (['light', 'dark'])) {
    test(`axe-core finds no moderate, serious or critical violation in ${name}, ${scheme}`, async () => {
      const { context, page } = await open(query, { scheme });
      await page.click('#step-once');
      await page.waitForFunction(() => Number(document.getElementById('step')?.textContent) === 1);
      if (query === '') await page.click('#record-button');
      if (query.includes('seeds=')) {
        await page.waitForFunction(() => /** @type {any} */ (window).__ap.sweeps()[0]?.finished, null, { timeout: 120_000 });
        await page.click('.sweep-table summary');
        await page.waitForSelector('.sweep-seeds tbody tr[data-outcome="reached"]');
      }
      // Through the DevTools protocol: the page's CSP blocks an injected <script>.
      await page.evaluate(readFileSync(AXE, 'utf8'));
      const violations = await page.evaluate(async () => {
        const r = await /** @type {any} */ (window).axe.run(document);
        return r.violations.map((/** @type {any} */ v) => ({ id: v.id, impact: v.impact, where: v.nodes.map((/** @type {any} */ n) => n.target.join(' ')).slice(0, 5) }));
      });
      const bad = violations.filter((/** @type {any} */ v) => ['moderate', 'serious', 'critical'].includes(v.impact));
      assert.deepEqual(bad, [], JSON.stringify(violations));
      await context.close();
    });
  }
}

test('the theme toggle and the colormap change what is drawn, and the link keeps them', async () => {
  const { context, page } = await open();
  const bg = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const alpha = () => page.evaluate(() => /** @type {HTMLCanvasElement} */ (document.querySelector('#alpha canvas')).toDataURL());
  const chart = () => page.evaluate(() => /** @type {HTMLCanvasElement} */ (document.querySelector('#loss-chart canvas')).toDataURL());
  assert.equal(await bg(), 'rgb(255, 255, 255)');
  const light = await chart();
  await page.selectOption('#theme', 'dark');
  assert.equal(await bg(), 'rgb(18, 18, 22)');
  // The charts cache the colours they resolve: a new theme must still redraw them in its own.
  await page.waitForFunction((b) => /** @type {HTMLCanvasElement} */ (document.querySelector('#loss-chart canvas')).toDataURL() !== b, light, { timeout: 5000 });
  const before = await alpha();
  await page.selectOption('#colormap', 'grey');
  await page.waitForFunction((b) => /** @type {HTMLCanvasElement} */ (document.querySelector('#alpha canvas')).toDataURL() !== b, before);
  await page.waitForFunction(() => location.search.includes('theme=dark') && location.search.includes('colormap=grey'));
  const link = page.url();
  await context.close();
  const again = await open(new URL(link).search);
  assert.equal(await again.page.evaluate(() => getComputedStyle(document.body).backgroundColor), 'rgb(18, 18, 22)');
  assert.equal(await again.page.inputValue('#colormap'), 'grey');
  await again.context.close();
});

for (const width of [360, 1280]) {
  test(`at ${width} px wide nothing scrolls sideways`, async () => {
    const { context, page } = await open('', { width });
    await page.click('#step-once');
    await page.waitForFunction(() => Number(document.getElementById('step')?.textContent) === 1);
    const { scroll, inner } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
    assert.ok(scroll <= inner, `page is ${scroll} px wide in a ${inner} px window`);
    await context.close();
  });
}

test('on a 360 × 740 phone the controls fold to one row and the attention map is on the first screen; More opens the rest, by keys too', async () => {
  const context = await env.browser.newContext({ viewport: { width: 360, height: 740 }, hasTouch: true, isMobile: true });
  const page = await context.newPage();
  await page.goto(env.url);
  await shownRun(page);
  const top = await page.evaluate(() => /** @type {HTMLElement} */ (document.querySelector('#alpha')).getBoundingClientRect().top);
  assert.ok(top < 740 - 100, `the attention map starts at ${top} px of a 740 px screen`);
  for (const id of ['#play', '#step-once', '#reset', '#more-controls']) assert.equal(await page.isVisible(id), true, `${id} on the first row`);
  assert.equal(await page.isVisible('#preset'), false, 'the rest folded');
  assert.equal(await page.getAttribute('#more-controls', 'aria-expanded'), 'false');
  await page.focus('#more-controls');
  await page.keyboard.press('Enter');
  assert.equal(await page.getAttribute('#more-controls', 'aria-expanded'), 'true');
  assert.equal(await page.isVisible('#preset'), true);
  await page.selectOption('#preset', 'small-hard');
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.shown()?.config.vocab === 20);
  await page.click('#more-controls');
  assert.equal(await page.isVisible('#preset'), false);
  assert.equal(await page.getAttribute('#more-controls', 'aria-expanded'), 'false');
  // The shortcuts work on the folded page.
  await page.evaluate(() => /** @type {HTMLElement} */ (document.activeElement).blur());
  await page.keyboard.press('Space');
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.state().playing === true);
  await context.close();
});

test('with reduced motion the views redraw calmly but still follow the run', async () => {
  const { context, page } = await open('', { reducedMotion: 'reduce' });
  await page.selectOption('#speed', '16');
  await page.click('#play');
  await page.waitForFunction(() => Number(document.getElementById('step')?.textContent) >= 40, null, { timeout: 30_000 });
  // Count redraws of the step counter over 2 s: at most every CALM_REDRAW_MS (500 ms).
  const changes = await page.evaluate(() => new Promise((resolve) => {
    let n = 0;
    const el = /** @type {HTMLElement} */ (document.getElementById('step'));
    const obs = new MutationObserver(() => n++);
    obs.observe(el, { childList: true, characterData: true, subtree: true });
    setTimeout(() => { obs.disconnect(); resolve(n); }, 2000);
  }));
  await page.click('#play');
  assert.ok(/** @type {number} */ (changes) >= 2 && /** @type {number} */ (changes) <= 6, `${changes} redraws in 2 s`);
  await context.close();
});

test('touching a heatmap cell shows its value, on a phone-sized touch screen', async () => {
  const context = await env.browser.newContext({ viewport: { width: 360, height: 780 }, hasTouch: true, isMobile: true });
  const page = await context.newPage();
  await page.goto(env.url);
  await shownRun(page);
  // On a phone the controls fill the first screen: the map is a scroll away.
  await page.locator('#alpha .ap-heatmap-plot').scrollIntoViewIfNeeded();
  const box = /** @type {{ x: number, y: number, width: number, height: number }} */ (await page.locator('#alpha .ap-heatmap-plot').boundingBox());
  // The cell of row 2, column 3.
  const { tgtLen: rows, srcLen: cols } = (await shown(page)).shape;
  await page.touchscreen.tap(box.x + (3.5 / cols) * box.width, box.y + (2.5 / rows) * box.height);
  await page.waitForSelector('#alpha .ap-tooltip:not([hidden])');
  const text = await page.textContent('#alpha .ap-tooltip') ?? '';
  assert.match(text, /α\s*\d+(\.\d+)?%/);
  assert.match(text, /t = 2/);
  assert.match(text, /s = 3/);
  await context.close();
});
