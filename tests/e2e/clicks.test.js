// @ts-check
// Click sequences, generated: presets, comparisons, speeds and worker counts switched
// faster than runs start (the paper-size presets among them). The state the user asked for
// survives any of them: a playing run ends playing, on the last preset chosen, and trains.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { freshPage, shown } from './harness.js';
import { session } from './session.js';
import { rng, pick } from '../unit/link-cases.js';

const env = session();

test('50 switches in about 5 s while playing: the run ends playing, on the last preset, and trains', async () => {
  const { context, page, errors } = await freshPage(env.browser, `${env.url}?speed=4`);
  const presets = Object.keys(await page.evaluate(() => /** @type {any} */ (window).__ap.presets()));
  const compares = await page.$$eval('#compare option', (os) => os.map((o) => /** @type {HTMLOptionElement} */ (o).value));
  const workers = await page.$$eval('#workers option', (os) => os.map((o) => /** @type {HTMLOptionElement} */ (o).value));
  const r = rng(5);
  for (let round = 0; round < 3; round++) {
    await page.click('#play');
    assert.equal(await page.getAttribute('#play', 'aria-pressed'), 'true');
    let preset = '';
    for (let i = 0; i < 50; i++) {
      const what = r();
      if (what < 0.7) await page.selectOption('#preset', (preset = pick(r, presets)));
      else if (what < 0.8) await page.selectOption('#compare', pick(r, compares));
      else if (what < 0.9) await page.selectOption('#workers', pick(r, workers));
      else await page.selectOption('#speed', pick(r, ['1', '4', '16']));
      await page.waitForTimeout(Math.floor(r() * 200));
    }
    if (!preset) preset = await page.inputValue('#preset');
    const context = `round ${round}, last preset ${preset}`;
    assert.equal(await page.getAttribute('#play', 'aria-pressed'), 'true', `${context}: the button still says playing`);
    assert.equal(await page.inputValue('#preset'), preset, context);
    const want = (await page.evaluate(() => /** @type {any} */ (window).__ap.presets()))[preset];
    await page.waitForFunction((c) => {
      const s = /** @type {any} */ (window).__ap.shown();
      return JSON.stringify(s?.config) === c && s.running && s.step >= 1;
    }, JSON.stringify(want), { timeout: 60_000 });
    const s0 = (await shown(page)).step;
    await page.waitForFunction((n) => /** @type {any} */ (window).__ap.shown().step > n, s0, { timeout: 60_000 });
    await page.click('#play');
    await page.waitForFunction(() => /** @type {any} */ (window).__ap.shown()?.running === false);
  }
  assert.equal(await page.isVisible('#panic'), false);
  assert.deepEqual(errors, []);
  await context.close();
});
