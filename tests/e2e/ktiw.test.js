// @ts-check
// End-to-end test of "KTIW predicts attention" through the page: comparing learned with
// uniform attention draws the agreement chart, whose values equal the top-5% agreement
// (docs/science.md 1.4, written again here from its definition) of the learned run's α with the
// uniform run's β^uf over the evaluation batch whose maps the page shows; the agreement
// rises far above its shuffled baseline as attention is learned.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { freshPage } from './harness.js';
import { session } from './session.js';

const env = session();

/**
 * The mean over sequences and target steps of: 1 if fewer than ceil(0.05 · Ls) source
 * positions have `b` above `b` at the argmax of `a`'s row.
 * @param {number[]} a @param {number[]} b @param {number} lt @param {number} ls
 */
function agreement(a, b, lt, ls) {
  const allowed = Math.ceil(0.05 * ls);
  const seqs = a.length / (lt * ls);
  let total = 0;
  for (let q = 0; q < seqs; q++) {
    let hits = 0;
    for (let t = 0; t < lt; t++) {
      const row = (q * lt + t) * ls;
      let best = 0;
      for (let s = 1; s < ls; s++) if (a[row + s] > a[row + best]) best = s;
      let larger = 0;
      for (let s = 0; s < ls; s++) if (b[row + s] > b[row + best]) larger++;
      if (larger < allowed) hits++;
    }
    total += hits / lt;
  }
  return total / seqs;
}

test('learned against uniform attention: the agreement chart is A(α, β^uf) of the maps shown, and rises above chance', async () => {
  const { context, page, errors } = await freshPage(env.browser, `${env.url}?v=1&compare=attention&speed=16`);
  await page.locator('#agree-chart').waitFor({ state: 'visible' });
  assert.match(await page.locator('#agree-chart').innerText(), /A\(α, β\^uf\)/);
  await page.click('#play');
  await page.waitForFunction(() => (/** @type {any} */ (window).__ap.paired().at(-1)?.step ?? 0) >= 250, null, { timeout: 120_000 });
  await page.click('#play');
  // Paused: both runs' latest evaluations, and the pair's measurement of them.
  await page.waitForFunction(() => {
    const ap = /** @type {any} */ (window).__ap;
    const [a, b] = [ap.evaluationMaps(0), ap.evaluationMaps(1)];
    return a && b && a.step === b.step && ap.paired().at(-1)?.step === a.step;
  }, null, { timeout: 30_000 });
  const got = await page.evaluate(() => {
    const ap = /** @type {any} */ (window).__ap;
    const [learned, uniform] = [ap.evaluationMaps(0), ap.evaluationMaps(1)];
    return { learned: { ...learned.maps, shape: learned.shape }, uniform: { ...uniform.maps, shape: uniform.shape }, paired: ap.paired(), runs: ap.runs(), shown: [ap.maps(0), ap.maps(1)] };
  });
  assert.deepEqual(got.runs.map((/** @type {any} */ r) => r.config.attention), ['learned', 'uniform']);
  const { tgtLen, srcLen, evalSeqs } = got.learned.shape;
  assert.equal(got.learned.alpha.length, evalSeqs * tgtLen * srcLen);
  // The maps shown (sequence 1 of the batch) are the batch's first sequence.
  const first = tgtLen * srcLen;
  assert.deepEqual(got.shown[0].alpha, got.learned.alpha.slice(0, first), 'the learned run’s α shown');
  assert.deepEqual(got.shown[1].beta, got.uniform.beta.slice(0, first), 'the uniform run’s β^uf shown');
  const last = got.paired.at(-1);
  const want = agreement(got.learned.alpha, got.uniform.beta, tgtLen, srcLen);
  assert.ok(Math.abs(last.uf - want) < 1e-5, `chart ${last.uf} against ${want} from the maps`);
  assert.ok(last.uf > last.uf_shuffled + 0.2, `agreement ${last.uf} against chance ${last.uf_shuffled}`);
  assert.ok(last.uf_shuffled < 0.25, `chance ${last.uf_shuffled}`);
  // One point per evaluation both runs made, in order, from the start.
  /** @type {number[]} */
  const steps = got.paired.map((/** @type {any} */ p) => p.step);
  assert.equal(steps[0], 0);
  assert.ok(steps.every((s, i) => i === 0 || s > steps[i - 1]));
  assert.ok(got.paired[0].uf < last.uf, 'the agreement rises as attention is learned');
  assert.deepEqual(errors, []);
  await context.close();
});
