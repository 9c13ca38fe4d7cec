// @ts-check
// Bad input through the page, generated (tests/unit/link-cases.js): links whose keys have
// good and bad values, and the settings form typed with the same bad values. The page never
// goes blank and throws nothing; each bad key is named in words with its range (a link's in
// the status line, a field's beside the field); the good ones apply; the run shown is
// untouched by a refused field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { freshPage, shown, atStep, drawn } from './harness.js';
import { session } from './session.js';
import { KEYS, rng, pick, generateLink } from '../unit/link-cases.js';
import { paths, mutate, MUTATIONS } from '../unit/file-cases.js';
import { copying } from '../../www/labs/copying/lab.js';

const env = session();

test('60 generated links: never a blank page or an uncaught error, every bad key named, every good setting applied', async () => {
  const { context, page, errors } = await freshPage(env.browser, env.url);
  const presets = await page.evaluate(() => /** @type {any} */ (window).__ap.presets());
  const r = rng(7);
  for (let i = 0; i < 60; i++) {
    const { pairs, want } = generateLink(r, Object.keys(presets));
    const search = `?${new URLSearchParams(pairs)}`;
    const context = `link ${i}: ${search.slice(0, 300)}`;
    await page.goto(env.url + search);
    await page.waitForFunction(() => /** @type {any} */ (window).__ap?.shown() != null, null, { timeout: 30_000 });
    assert.ok(await page.isVisible('#alpha canvas'), `${context}: the attention map is shown`);
    const status = (await page.isVisible('#status')) ? await page.textContent('#status') ?? '' : '';
    assert.ok(status.length <= 12 * 400, `${context}: a status of ${status.length} characters`);
    const config = (await shown(page)).config;
    const bad = [...want].filter(([, w]) => !w.ok).map(([k]) => k);
    if (bad.length > 0) assert.match(status, /^Not applied from the link: /, context);
    if (!status.includes(' more.')) {
      for (const key of bad) assert.ok(status.includes(`(${key}): must be `) || status.includes(`, so ${key}=`), `${context}: ${key} named in “${status.slice(0, 600)}”`);
    }
    for (const [key, w] of want) {
      if (w.ok && KEYS[key].kind === 'config') assert.equal(config[key], w.value, `${context}: ${key} applies`);
    }
    assert.deepEqual(errors, [], context);
  }
  await context.close();
});

test('the settings form: each bad value is refused beside its field, in words with the range, and the run trains on', async () => {
  // Settings of its own (hidden 32): no budget to pause at however long the form takes.
  const { context, page, errors } = await freshPage(env.browser, `${env.url}?speed=1&hidden=32`);
  await page.click('#play');
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.shown()?.step >= 2);
  const before = (await shown(page)).config;
  const r = rng(11);
  /** @type {{ key: string, words: string, kind: string }[]} */
  const fields = await page.evaluate(() => /** @type {any} */ (window).__ap.settings());
  const typed = fields.filter((s) => s.kind === 'whole' || s.kind === 'positive');
  assert.deepEqual(fields.map((f) => f.key), Object.keys(KEYS).filter((k) => KEYS[k].kind === 'config'), 'the form has every setting of the link');
  for (const s of typed) {
    for (let i = 0; i < 8; i++) {
      const value = pick(r, KEYS[s.key].bad);
      await page.fill(`#set-${s.key}`, value);
      await page.dispatchEvent(`#set-${s.key}`, 'change');
      const said = await page.textContent(`#err-${s.key}`) ?? '';
      const context = `${s.key} = “${value.slice(0, 40)}”`;
      assert.ok(await page.isVisible(`#err-${s.key}`), `${context}: refused beside the field`);
      assert.ok(said.startsWith(`${s.words} (${s.key}): must be `), `${context}: “${said}”`);
      assert.ok(said.length < 200, `${context}: ${said.length} characters`);
      assert.equal(await page.getAttribute(`#set-${s.key}`, 'aria-invalid'), 'true');
    }
  }
  const after = await shown(page);
  assert.deepEqual(after.config, before, 'the run is the one it was');
  assert.equal(after.running, true, 'still training');
  assert.equal(await page.isVisible('#status'), false, 'no banner: every message is beside its field');
  // A good value clears the field's message.
  await page.fill('#set-heads', '2');
  await page.dispatchEvent('#set-heads', 'change');
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.shown()?.config.heads === 2);
  assert.equal(await page.isVisible('#err-heads'), false);
  assert.deepEqual(errors, []);
  await context.close();
});

/** Clicks an item of the Export menu and returns the downloaded file's bytes.
 * @param {import('playwright-core').Page} page @param {string} kind */
async function exported(page, kind) {
  await page.click('#export-menu summary');
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(`[data-export="${kind}"]`)]);
  return readFileSync(/** @type {string} */ (await dl.path()));
}

test('130 generated malformed files through Open…: each refused with a message or shown whole, the live run untouched', async () => {
  const { context, page, errors } = await freshPage(env.browser, `${env.url}?seed=4&eval_every=2`);
  for (let i = 1; i <= 3; i++) {
    await page.click('#step-once');
    await atStep(page, i);
  }
  const goodRun = JSON.parse((await exported(page, 'run')).toString('utf8'));
  const goodWeights = JSON.parse((await exported(page, 'weights')).toString('utf8'));
  const r = rng(5);
  /** @type {{ name: string, bytes: Buffer }[]} */
  const files = [];
  for (const [good, count, kind] of /** @type {const} */ ([[goodRun, 100, 'run'], [goodWeights, 30, 'weights']])) {
    const all = paths(good);
    for (let i = 0; i < count; i++) {
      const [path] = pick(r, all);
      const [how, f] = pick(r, MUTATIONS);
      files.push({ name: `${kind}-${i}-${path.join('.')}-${how}.json`, bytes: Buffer.from(JSON.stringify(mutate(good, path, f))) });
    }
  }
  files.push({ name: 'not-json.json', bytes: Buffer.from('{"format": "attention-playground-run", ') });
  files.push({ name: 'binary.json', bytes: Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7919) % 256)) });
  files.push({ name: 'long-link.json', bytes: Buffer.from(JSON.stringify({ ...goodRun, link: 'x'.repeat(20_000_000) })) });
  let refused = 0;
  for (const { name, bytes } of files) {
    const before = await shown(page);
    await page.setInputFiles('#open-file', { name, mimeType: 'application/json', buffer: bytes });
    // The page answers each file: a message naming it, or the saved run on view, or the weights loaded.
    const answer = await page.waitForFunction((n) => {
      const status = document.getElementById('status');
      const viewing = document.getElementById('viewing');
      if (viewing && !viewing.hidden && document.getElementById('viewing-text')?.textContent?.includes(n)) return 'viewing';
      const said = status && !status.hidden ? status.textContent ?? '' : '';
      if (said.includes(n) || said.startsWith('Loaded the saved weights')) return said;
      return null;
    }, name.slice(0, 31), { timeout: 30_000 }).then((h) => h.jsonValue(), (e) => assert.fail(`${name}: no answer (${e})`));
    if (answer === 'viewing') {
      await drawn(page);
      await page.click('#viewing-live');
    } else if (!/Loaded the saved weights/.test(String(answer))) {
      refused++;
      assert.ok(String(answer).length < 400, `${name}: ${answer}`);
      assert.deepEqual(await shown(page), before, `${name}: the live run untouched`);
    }
    assert.deepEqual(errors, [], name);
    // Clear the message, so that the next file's answer is its own.
    await page.evaluate(() => { const s = document.getElementById('status'); if (s) s.hidden = true; });
  }
  assert.ok(refused >= 60, `${refused} of ${files.length} refused`);
  await context.close();
});
