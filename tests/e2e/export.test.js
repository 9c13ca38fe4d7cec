// @ts-check
// End-to-end tests of the exports, through the page's Export menu and Open button: every
// download parses and holds what it should; a run file opens again and shows the same α;
// saved weights load into a fresh page (other seed) and show the same α without retraining.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { inflateSync } from 'node:zlib';
import { freshPage, shown, atStep, drawn } from './harness.js';
import { session } from './session.js';

const env = session();

/** @param {string} [query] */
const open = (query = '') => freshPage(env.browser, env.url + query);
/** The test handle's answer to `f` (docs/testing.md). @param {import('playwright-core').Page} page
 * @param {(ap: any) => any} f @returns {Promise<any>} */
const ap = (page, f) => page.evaluate(`(${f})(window.__ap)`);

/** Trains to a step that was evaluated (a multiple of 10, ≥ n): play, pause, then single steps.
 * @param {import('playwright-core').Page} page @param {number} n */
async function trainTo(page, n) {
  await page.selectOption('#speed', '16');
  await page.click('#play');
  await page.waitForFunction((k) => Number(document.getElementById('step')?.textContent) >= k, n, { timeout: 60_000 });
  await page.click('#play');
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.shown().running === false);
  while ((await shown(page)).step % 10 !== 0) {
    const s = (await shown(page)).step;
    await page.click('#step-once');
    await atStep(page, s + 1);
  }
  await drawn(page);
  return (await shown(page)).step;
}

/** Clicks an item of the Export menu and returns the downloaded file.
 * @param {import('playwright-core').Page} page @param {string} kind */
async function exported(page, kind) {
  await page.click('#export-menu summary');
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(`[data-export="${kind}"]`)]);
  return { name: dl.suggestedFilename(), bytes: readFileSync(/** @type {string} */ (await dl.path())) };
}

/** Width, height and the number of distinct byte values of a PNG's pixels (decoded here).
 * @param {Buffer} b */
function pngInfo(b) {
  assert.deepEqual([...b.subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10], 'PNG signature');
  let at = 8;
  const idat = [];
  let width = 0;
  let height = 0;
  while (at < b.length) {
    const len = b.readUInt32BE(at);
    const type = b.toString('latin1', at + 4, at + 8);
    const data = b.subarray(at + 8, at + 8 + len);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
    }
    if (type === 'IDAT') idat.push(data);
    at += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  return { width, height, distinct: new Set(raw).size };
}

/** The α heatmap's cells as drawn. @param {import('playwright-core').Page} page */
const alphaPixels = (page) => page.evaluate(() => /** @type {HTMLCanvasElement} */ (document.querySelector('#alpha canvas')).toDataURL());

test('each export downloads a file that parses and holds what it should; a run file opens again', async () => {
  const { context, page, errors } = await open('?seed=3');
  const step = await trainTo(page, 30);
  const { step: lossSteps, loss: losses } = await ap(page, (h) => h.losses());
  assert.deepEqual(lossSteps, Array.from({ length: step }, (_, i) => i + 1), 'a loss of every update');
  const history = await ap(page, (h) => h.history());
  const latest = await ap(page, (h) => h.maps());
  for (const [kind, minW] of /** @type {const} */ ([['alpha', 200], ['beta', 200], ['loss-chart', 200], ['acc-chart', 200], ['panel', 800]])) {
    const f = await exported(page, kind);
    assert.match(f.name, new RegExp(`^attention-playground-small-easy-seed3-step${step}-.*\\.png$`));
    const info = pngInfo(f.bytes);
    assert.ok(info.width >= minW && info.height >= 150, `${kind}: ${info.width}×${info.height}`);
    assert.ok(info.distinct > 30, `${kind} is a picture, not a blank (${info.distinct} distinct byte values)`);
  }
  const csv = (await exported(page, 'csv')).bytes.toString('utf8').trim().split('\n').map((l) => l.split(','));
  assert.deepEqual(csv[0], ['step', 'train_loss', 'eval_loss', 'token_accuracy', 'attention_accuracy', 'ktiw_accuracy', 'ktiw_score', 'agreement']);
  assert.equal(csv.length, step + 2, 'a header and a row per step 0…N');
  assert.deepEqual(csv.slice(2).map((r) => Number(r[1])), losses, 'every training loss');
  for (const e of history) assert.equal(Number(csv[e.step + 1][2]), e.loss, `eval loss at ${e.step}`);
  const hist = JSON.parse((await exported(page, 'history')).bytes.toString('utf8'));
  assert.deepEqual(hist.evaluations, history);
  assert.deepEqual(hist.training_loss, { step: lossSteps, loss: losses });
  assert.deepEqual(hist.resolution, { evaluations: { stride: 1, recent_from: 0 }, training_loss: { stride: 1, recent_from: 1 } },
    'every loss and evaluation of a short run');
  assert.equal(hist.config.seed, 3);
  const runBytes = (await exported(page, 'run')).bytes;
  const run = JSON.parse(runBytes.toString('utf8'));
  assert.equal(run.format, 'attention-playground-run');
  assert.equal(run.version, 2);
  assert.equal(run.lab, 'copying');
  assert.equal(run.config.seed, 3);
  assert.equal(run.step, step);
  assert.deepEqual(run.history.evaluations, history);
  assert.deepEqual(run.shown.alpha, latest.alpha, 'the final α');
  assert.deepEqual(run.shown.beta, latest.beta, 'the final β');
  assert.match(run.link, /seed=3/);
  const before = await alphaPixels(page);
  assert.deepEqual(errors, []);
  await context.close();

  // Opened in a fresh page, the run file shows the same α and its curves.
  const again = await open();
  await again.page.setInputFiles('#open-file', { name: 'saved-run.json', mimeType: 'application/json', buffer: runBytes });
  await again.page.waitForSelector('#viewing:not([hidden])');
  assert.match(await again.page.textContent('#viewing-text') ?? '', new RegExp(`saved-run\\.json.*seed 3, step ${step}`));
  await again.page.waitForFunction(() => Number(document.getElementById('step')?.textContent) > 0);
  assert.equal(Number(await again.page.textContent('#step')), step);
  await drawn(again.page);
  assert.equal(await alphaPixels(again.page), before, 'the same α, pixel for pixel');
  assert.equal(await again.page.isDisabled('#play'), true, 'a saved run is viewed, not trained');
  await again.page.click('#viewing-live');
  assert.equal(await again.page.isDisabled('#play'), false);
  // The live run is back (its step is drawn with the next frame).
  await again.page.waitForFunction(() => document.getElementById('step')?.textContent === '0');
  // A file that is not one of ours is refused with a message, and nothing changes.
  await again.page.setInputFiles('#open-file', { name: 'other.json', mimeType: 'application/json', buffer: Buffer.from('{"a": 1}') });
  await again.page.waitForFunction(() => /neither a run file nor a weights file/.test(document.getElementById('status')?.textContent ?? ''));
  assert.deepEqual(again.errors, []);
  await again.context.close();
});

test('saved weights load into a fresh page and show the same α without retraining', async () => {
  const { context, page } = await open('?preset=small-hard&seed=8');
  const step = await trainTo(page, 50);
  const before = await alphaPixels(page);
  const loss = await ap(page, (h) => h.history().at(-1).loss);
  const f = await exported(page, 'weights');
  const w = JSON.parse(f.bytes.toString('utf8'));
  assert.equal(w.format, 'attention-playground-weights');
  assert.equal(w.step, step);
  assert.equal(w.config.seed, 8);
  assert.equal(Buffer.from(w.params, 'base64').length, 4 * w.count);
  await context.close();

  const fresh = await open();
  await drawn(fresh.page);
  assert.notEqual(await alphaPixels(fresh.page), before);
  await fresh.page.setInputFiles('#open-file', { name: 'w.json', mimeType: 'application/json', buffer: f.bytes });
  await fresh.page.waitForFunction(() => /Loaded the saved weights/.test(document.getElementById('status')?.textContent ?? ''));
  await atStep(fresh.page, step);
  assert.equal((await shown(fresh.page)).config.seed, 8, 'the settings of the weights');
  assert.equal(await ap(fresh.page, (h) => h.history().at(-1).loss), loss, 'the same evaluation');
  await fresh.page.waitForFunction((b) => /** @type {HTMLCanvasElement} */ (document.querySelector('#alpha canvas')).toDataURL() === b, before);
  // Trained on from the loaded step, the history's rows are numbered from it.
  await fresh.page.click('#step-once');
  await atStep(fresh.page, step + 1);
  const csv = (await exported(fresh.page, 'csv')).bytes.toString('utf8').trim().split('\n').map((l) => l.split(','));
  assert.deepEqual(csv.slice(1).map((r) => Number(r[0])), [step, step + 1]);
  assert.equal(csv[1][1], '', 'no training loss for the loaded step');
  assert.equal(Number(csv[2][1]), (await ap(fresh.page, (h) => h.losses())).loss[0]);
  assert.equal(Number(csv[1][2]), loss, 'the loaded step’s evaluation');
  await drawn(fresh.page);
  const afterStep = await alphaPixels(fresh.page);
  // Weights of another model (another width, 3 values) are refused with a message; the run stays.
  const other = { ...w, config: { ...w.config, hidden: 32 }, count: 3, params: Buffer.from(new Float32Array([1, 2, 3]).buffer).toString('base64') };
  await fresh.page.setInputFiles('#open-file', { name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(other)) });
  await fresh.page.waitForFunction(() => /weights: 3 values, but this model has/.test(document.getElementById('status')?.textContent ?? ''));
  assert.equal((await shown(fresh.page)).step, step + 1);
  assert.equal((await shown(fresh.page)).config.hidden, w.config.hidden, 'the model is the loaded one');
  await drawn(fresh.page);
  assert.equal(await alphaPixels(fresh.page), afterStep);
  // Weights of the right size whose values would overflow a forward pass: refused by their
  // size, with the largest a weight may be; the run stays.
  const huge = { ...w, params: Buffer.from(new Float32Array(w.count).fill(3e38).buffer).toString('base64') };
  await fresh.page.setInputFiles('#open-file', { name: 'huge.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(huge)) });
  await fresh.page.waitForFunction(() => /weights: value 0 is 3e38, but a weight must be a finite number from −1e6 to 1e6/.test(document.getElementById('status')?.textContent ?? ''));
  assert.equal((await shown(fresh.page)).step, step + 1);
  assert.equal(await alphaPixels(fresh.page), afterStep);
  await fresh.context.close();
});
