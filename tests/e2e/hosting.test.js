// @ts-check
// The page on other people's sites: the custom element and the Embed snippet on a host page
// of another origin under a strict CSP, "Open full page ↗" from inside a frame, a sandbox
// that gives the page an opaque origin, the page's own CSP, and what the server serves.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { shownRun } from './harness.js';
import { session } from './session.js';

const env = session();
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The host page each test serves, with its headers. */
let hosted = { body: '', headers: /** @type {Record<string, string>} */ ({}) };
/** The host's server: another port of the loopback address is another origin (a page
 * answered by the test itself would count as a public site, which may not reach it). */
const hostServer = createServer((req, res) => {
  res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', ...hosted.headers });
  res.end(hosted.body);
});
let HOST = '';
before(async () => {
  await new Promise((resolve) => hostServer.listen(0, '127.0.0.1', () => resolve(null)));
  const address = /** @type {import('node:net').AddressInfo} */ (hostServer.address());
  HOST = `http://127.0.0.1:${address.port}/`;
});
after(() => hostServer.close());
/** The strict CSP of the issue, allowing the page's origin to be framed and to give scripts. */
const hostCsp = (/** @type {string} */ origin) => `default-src 'self'; script-src 'self' 'wasm-unsafe-eval' ${origin}; style-src 'self'; `
  + `img-src 'self' data: blob:; worker-src 'self' blob:; frame-src ${origin}`;

/** Records every CSP violation of the page and its frames in `window.__violations`. */
const RECORD_VIOLATIONS = `window.__violations = [];
document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));`;

/**
 * A page whose host document, at HOST, is `body` served with `headers`.
 * @param {string} body @param {Record<string, string>} [headers]
 */
async function hostPage(body, headers = {}) {
  const context = await env.browser.newContext({ viewport: { width: 1100, height: 900 } });
  await context.addInitScript(RECORD_VIOLATIONS);
  const page = await context.newPage();
  /** @type {string[]} */
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  hosted = { body, headers };
  await page.goto(`${HOST}post.html`);
  return { context, page, errors };
}

/** The frame of the iframe matched by `selector` (inside the element's shadow root too).
 * @param {import('playwright-core').Page} page @param {string} selector */
async function frameIn(page, selector) {
  const handle = await page.waitForSelector(selector);
  const frame = await handle.contentFrame();
  assert.ok(frame, `${selector} has a frame`);
  await shownRun(frame);
  return frame;
}

/** @param {import('playwright-core').Page | import('playwright-core').Frame} where */
const violations = (where) => where.evaluate(() => /** @type {any} */ (window).__violations);

test('from another origin, under a strict CSP: the element and the Embed snippet render full width, size to the page and train', async () => {
  const origin = new URL(env.url).origin;
  const page0 = await env.context.newPage();
  await page0.goto(`${env.url}?preset=small-hard&seed=4`);
  await shownRun(page0);
  await page0.click('#embed-button');
  const snippet = await page0.inputValue('#embed-text');
  await page0.close();
  assert.doesNotMatch(snippet, /style=|<script>|on[a-z]+=/, 'no inline style, script or handler');
  assert.match(snippet, /sandbox="allow-scripts allow-same-origin allow-popups allow-popups-to-escape-sandbox"/);
  const { context, page, errors } = await hostPage(`<!doctype html><html lang="en"><meta charset="utf-8"><title>A post</title>
<link rel="icon" href="data:,"><script type="module" src="${env.url}www/element.js"></script>
<p>The element:</p><attention-playground id="fig" preset="easy-copy" seed="5" speed="16"></attention-playground>
<p>The snippet:</p>${snippet}</html>`, { 'Content-Security-Policy': hostCsp(origin) });
  const element = await frameIn(page, '#fig >> iframe');
  const framed = await frameIn(page, 'iframe[src*="seed=4"]');
  assert.equal(await element.evaluate(() => /** @type {any} */ (window).__ap.shown().config.seed), 5);
  assert.equal(await framed.evaluate(() => /** @type {any} */ (window).__ap.shown().config.seed), 4);
  // Each trains once scrolled into view.
  for (const [selector, f] of /** @type {const} */ ([['#fig', element], ['iframe[src*="seed=4"]', framed]])) {
    await page.$eval(selector, (el) => el.scrollIntoView());
    await f.waitForFunction(() => /** @type {any} */ (window).__ap.shown().step >= 3, null, { timeout: 30_000 });
  }
  const width = await page.evaluate(() => document.body.getBoundingClientRect().width);
  for (const [selector, f] of /** @type {const} */ ([['#fig', element], ['iframe[src*="seed=4"]', framed]])) {
    // Sized to the page's own height (not the 900 px it starts at), full width, no border.
    let sizes = [0, 0];
    for (let t = 0; t < 60; t++) {
      const inner = await f.evaluate(() => Math.ceil(document.documentElement.getBoundingClientRect().height));
      const outer = await page.$eval(selector, (el) => el.getBoundingClientRect().height);
      sizes = [inner, outer];
      if (inner > 300 && inner !== 900 && Math.abs(outer - inner) <= 1) break;
      await page.waitForTimeout(500);
    }
    assert.ok(sizes[0] > 300 && sizes[0] !== 900 && Math.abs(sizes[1] - sizes[0]) <= 1, `${selector}: ${sizes[1]} px high for a page of ${sizes[0]}`);
    const box = await page.$eval(selector, (el) => el.getBoundingClientRect().width);
    assert.ok(Math.abs(box - width) <= 1, `${selector}: ${box} px wide in a body of ${width}`);
  }
  const border = await page.$eval('#fig', (el) => getComputedStyle(/** @type {Element} */ (el.shadowRoot?.querySelector('iframe'))).borderTopWidth);
  assert.equal(border, '0px');
  assert.deepEqual(await violations(page), [], 'nothing blocked on the host page');
  for (const f of [element, framed]) assert.deepEqual(await violations(f), [], 'nothing blocked in the frames');
  assert.deepEqual(errors, []);
  await context.close();
});

test('"Open full page ↗" opens the run in a new tab from inside the element’s and the snippet’s frames', async () => {
  const origin = new URL(env.url).origin;
  const page0 = await env.context.newPage();
  await page0.goto(`${env.url}?seed=8`);
  await shownRun(page0);
  await page0.click('#embed-button');
  const snippet = await page0.inputValue('#embed-text');
  await page0.close();
  const { context, page, errors } = await hostPage(`<!doctype html><html lang="en"><meta charset="utf-8"><title>A post</title>
<script type="module" src="${env.url}www/element.js"></script>
<attention-playground id="fig" preset="hard-copy" seed="9"></attention-playground>${snippet}</html>`, { 'Content-Security-Policy': hostCsp(origin) });
  for (const [selector, seed] of /** @type {const} */ ([['#fig >> iframe', 9], ['iframe[src*="seed=8"]', 8]])) {
    const frame = await frameIn(page, selector);
    const [full] = await Promise.all([context.waitForEvent('page'), frame.click('#full-page')]);
    await full.waitForLoadState();
    const url = new URL(full.url());
    assert.equal(url.origin, origin);
    assert.equal(url.searchParams.get('embed'), null, 'the full page, not the embed');
    await shownRun(full);
    assert.equal(await full.evaluate(() => /** @type {any} */ (window).__ap.shown().config.seed), seed);
    assert.equal(await full.isVisible('#settings'), true);
    await full.close();
  }
  assert.deepEqual(errors, []);
  await context.close();
});

test('in a sandbox without allow-same-origin the page says why it cannot train, with or without CORS', async () => {
  for (const cors of [true, false]) {
    const { context, page } = await hostPage(`<!doctype html><html lang="en"><meta charset="utf-8"><title>A post</title>
<iframe id="f" sandbox="allow-scripts" src="${env.url}?embed=1&autoplay=1" width="800" height="600"></iframe></html>`);
    if (!cors) {
      // A server that sends no Access-Control-Allow-Origin: the page's modules do not load.
      await context.route(`${env.url}www/**`, async (r) => {
        const res = await r.fetch();
        const headers = { ...res.headers() };
        delete headers['access-control-allow-origin'];
        await r.fulfill({ response: res, headers });
      });
    }
    const handle = await page.waitForSelector('#f');
    const frame = await handle.contentFrame();
    assert.ok(frame);
    await frame.waitForSelector('#status:not([hidden])', { timeout: 30_000 });
    const said = await frame.textContent('#status') ?? '';
    assert.match(said, /sandboxed frame without allow-same-origin/, `with${cors ? '' : 'out'} CORS: “${said}”`);
    assert.match(said, /sandbox="allow-scripts allow-same-origin"/);
    if (cors) {
      // Nothing trains: Play says Play, and pressing it changes nothing but keeps the reason said.
      assert.equal(await frame.textContent('#play'), 'Play', 'autoplay asked for, but nothing can train');
      await frame.click('#play');
      assert.equal(await frame.textContent('#play'), 'Play');
      assert.match(await frame.textContent('#status') ?? '', /sandboxed frame without allow-same-origin/);
      // The frame may open no tab: the full page's address is shown to copy.
      await frame.click('#full-page');
      await frame.waitForSelector('#link-box:not([hidden])');
      const address = new URL(await frame.inputValue('#link-text'));
      assert.equal(address.origin, new URL(env.url).origin);
      assert.equal(address.searchParams.get('embed'), null, 'the full page, not the embed');
      assert.match(await frame.textContent('#status') ?? '', /may not open a new tab: copy the full page’s address/);
    }
    await context.close();
  }
});

test('the page ships its own strict CSP and nothing of it is blocked while it trains, exports and opens a file', async () => {
  const context = await env.browser.newContext({ acceptDownloads: true });
  await context.addInitScript(RECORD_VIOLATIONS);
  const page = await context.newPage();
  await page.goto(`${env.url}?speed=16&compare=heads`);
  await shownRun(page);
  const csp = await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content') ?? '';
  for (const want of ["default-src 'self'", "script-src 'self' 'wasm-unsafe-eval'", "style-src 'self'", "object-src 'none'"]) {
    assert.ok(csp.includes(want), `the page's CSP has ${want}: ${csp}`);
  }
  assert.doesNotMatch(csp, /'unsafe-inline'|'unsafe-eval'/, 'no inline script or style, no eval');
  await page.click('#play');
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.runs()[1]?.step >= 10, null, { timeout: 60_000 });
  await page.click('#play');
  await page.click('#export-menu summary');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-items button >> nth=0')]);
  await download.path();
  await page.keyboard.press('Escape');
  await page.click('#help-button');
  await page.click('#help button[type="submit"]');
  assert.deepEqual(await violations(page), []);
  await context.close();
});

test('the server serves the page and nothing else of the repository', async () => {
  const proc = spawn('python3', [`${ROOT}scripts/serve.py`, '0'], { stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    const base = await new Promise((resolve, reject) => {
      proc.on('error', reject);
      proc.stdout.setEncoding('utf8');
      proc.stdout.on('data', (/** @type {string} */ s) => {
        const m = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(s);
        if (m) resolve(m[1]);
      });
    });
    /** @param {string} path */
    const status = async (path) => (await fetch(base + path)).status;
    for (const path of ['', 'index.html', 'www/main.js', 'www/element.js', 'pkg/scalar/attention_playground.js', 'pkg/scalar/attention_playground_bg.wasm']) {
      assert.equal(await status(path), 200, `/${path} is served`);
    }
    if (existsSync(`${ROOT}dist/index.html`)) {
      for (const path of ['dist', 'dist/', 'dist/index.html', 'dist/www/main.js']) assert.equal(await status(path), 200, `/${path} is served`);
    }
    const res = await fetch(`${base}www/element.js`);
    assert.equal(res.headers.get('access-control-allow-origin'), '*', 'another site may load the element');
    for (const path of ['.git/config', '.git/HEAD', '%2egit/config', 'www/../.git/config', 'www/%2e%2e/.git/config', 'Cargo.toml', 'src/lib.rs',
      'scripts/serve.py', 'tests/e2e/element-host.html', 'node_modules/playwright-core/package.json', 'docs/', 'www/', 'pkg/', '.ci/run',
      'README.md', 'www/.hidden', '..%2fCargo.toml']) {
      assert.equal(await status(path), 404, `/${path} is not served`);
    }
    // A path with a NUL or that is not UTF-8 is a bad request, answered (not a dropped connection).
    for (const path of ['%00', 'www/%00main.js', 'www/%ff.js', 'www/%e2%82.js', 'index.html%00']) {
      assert.equal(await status(path), 400, `/${path} is a bad request`);
    }
    // A link over the server's 64 KiB: a small page that says so, with a way back.
    const long = await fetch(`${base}?v=1&seed=${'9'.repeat(70_000)}`);
    assert.equal(long.status, 414);
    const said = await long.text();
    assert.match(said, /This link is too long/);
    assert.match(said, /<a href="\/">Open the page without\s+it<\/a>/);
    assert.equal(await status('www/main.js'), 200, 'the server still serves');
  } finally {
    proc.kill();
  }
});
