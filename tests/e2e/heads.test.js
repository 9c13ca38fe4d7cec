// @ts-check
// End-to-end test of "which head found the diagonal", through the page: with several heads
// every evaluation has each head's attention accuracy, drawn in a chart of its own and
// written under each head's map; the CSV export carries them; one head has no such chart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { freshPage, atStep } from './harness.js';
import { session } from './session.js';

const env = session();

test('with eight heads, each head’s attention accuracy is in every evaluation, its chart and under its map', async () => {
  const { context, page, errors } = await freshPage(env.browser, `${env.url}?v=1&preset=small-heads&eval_every=2`);
  for (let i = 1; i <= 4; i++) {
    await page.click('#step-once');
    await atStep(page, i);
  }
  const history = await page.evaluate(() => /** @type {any} */ (window).__ap.history());
  assert.deepEqual(history.map((/** @type {any} */ e) => e.step), [0, 2, 4]);
  for (const e of history) {
    for (let k = 1; k <= 8; k++) {
      const v = e[`attention_accuracy_h${k}`];
      assert.ok(v >= 0 && v <= 1, `step ${e.step}, head ${k}: ${v}`);
    }
    assert.equal(e.attention_accuracy_h9, undefined);
  }
  // The heads differ: each is its own head's, not the average's.
  const last = history.at(-1);
  const values = Array.from({ length: 8 }, (_, k) => last[`attention_accuracy_h${k + 1}`]);
  assert.ok(new Set(values).size > 1, `heads' accuracies ${values}`);
  await page.locator('#heads-chart').waitFor({ state: 'visible' });
  assert.match(await page.locator('#heads-chart').innerText(), /head 1[\s\S]*head 8/);
  const under = await page.locator('.head-accuracy').allInnerTexts();
  assert.deepEqual(under, values.map((v) => `attention accuracy ${(100 * v).toFixed(1)}%`));
  // The history CSV has a column per head.
  await page.click('#export-menu summary');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-export="csv"]')]);
  const csv = readFileSync(/** @type {string} */ (await download.path()), 'utf8').split('\n');
  assert.match(csv[0], /,attention_accuracy_h1,.*,attention_accuracy_h8$/);
  // One head: no chart by head.
  await page.fill('#set-heads', '1');
  await page.press('#set-heads', 'Enter');
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.shown()?.config.heads === 1);
  await page.locator('#heads-chart').waitFor({ state: 'detached' });
  assert.deepEqual(errors, []);
  await context.close();
});
