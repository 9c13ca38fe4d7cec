// @ts-check
// The static bundle and the npm package, as their users get them: dist/ (built by
// scripts/dist, which the test command runs first) copied under a sub-path and served by a
// plain static server (Python's http.server) works, page and custom element, fetching
// nothing outside its folder; pkg/ packed with npm and installed offline into an empty
// project trains from Node.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, mkdirSync, writeFileSync, rmSync, existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { launch, shownRun } from './harness.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SUB = 'blog/assets/playground/';
const tmp = mkdtempSync(`${tmpdir()}/ap-dist-`);
/** @type {import('node:child_process').ChildProcess} */
let server;
let base = '';
/** @type {import('playwright-core').Browser} */
let browser;
/** @type {import('playwright-core').BrowserContext} */
let context;

before(async () => {
  assert.ok(existsSync(`${ROOT}dist/index.html`), 'dist/ is built (scripts/dist)');
  cpSync(`${ROOT}dist`, `${tmp}/site/${SUB}`, { recursive: true });
  writeFileSync(`${tmp}/site/blog/post.html`, `<!doctype html><html lang="en"><meta charset="utf-8"><title>A post</title>
<link rel="icon" href="data:,"><script type="module" src="assets/playground/www/element.js"></script>
<p>The figure below trains as you read.</p>
<attention-playground id="fig" preset="hard-copy" seed="5" speed="16"></attention-playground></html>`);
  server = spawn('python3', ['-u', '-m', 'http.server', '0', '--bind', '127.0.0.1', '--directory', `${tmp}/site`], { stdio: ['ignore', 'pipe', 'ignore'] });
  base = await new Promise((resolve, reject) => {
    server.on('error', reject);
    server.stdout?.setEncoding('utf8');
    server.stdout?.on('data', (/** @type {string} */ s) => {
      const m = /port (\d+)/.exec(s);
      if (m) resolve(`http://127.0.0.1:${m[1]}/`);
    });
  });
  ({ browser, context } = await launch());
});
after(async () => {
  await browser?.close();
  server?.kill();
  rmSync(tmp, { recursive: true, force: true });
});

test('dist/ served from a sub-path by a plain static server works and fetches only from its folder', async () => {
  const page = await context.newPage();
  /** @type {string[]} */
  const errors = [];
  /** @type {string[]} */
  const outside = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('request', (r) => {
    if (!r.url().startsWith(base + SUB) && !r.url().startsWith('data:')) outside.push(r.url());
  });
  await page.goto(base + SUB);
  await shownRun(page);
  assert.equal(await page.textContent('#variant'), 'relaxed-simd');
  await page.click('#step-once');
  await page.waitForFunction(() => Number(document.getElementById('step')?.textContent) === 1);
  await page.selectOption('#preset', 'small-heads');
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.shown()?.config.heads > 1);
  assert.deepEqual(errors, []);
  assert.deepEqual(outside, []);
  await page.close();
});

test('the custom element of dist/ works in a post one folder up', async () => {
  const page = await context.newPage();
  /** @type {string[]} */
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${base}blog/post.html`);
  const host = await page.waitForSelector('#fig');
  const frame = await /** @type {import('playwright-core').ElementHandle} */ (
    (await host.evaluateHandle((el) => /** @type {Element} */ (el.shadowRoot?.querySelector('iframe')))).asElement()).contentFrame();
  assert.ok(frame);
  await frame.waitForFunction(() => /** @type {any} */ (window).__ap?.shown()?.step >= 5, null, { timeout: 30_000 });
  assert.equal(await frame.evaluate(() => /** @type {any} */ (window).__ap.shown().config.seed), 5);
  assert.ok(frame.url().startsWith(base + SUB), frame.url());
  assert.deepEqual(errors, []);
  await page.close();
});

test('pkg/ packs and installs offline with npm, and trains from Node', () => {
  const packs = `${tmp}/packs`;
  mkdirSync(packs);
  execFileSync('npm', ['pack', `${ROOT}pkg`, '--pack-destination', packs, '--silent'], { stdio: 'pipe', env: { ...process.env, npm_config_cache: `${tmp}/npm-cache` }, cwd: ROOT, shell: false, maxBuffer: 1 << 24 });
  const tgz = readdirSync(packs).find((f) => f.endsWith('.tgz'));
  assert.ok(tgz, 'npm pack made a tarball');
  const app = `${tmp}/app`;
  cpSync(`${ROOT}tests/e2e/npm-app`, app, { recursive: true });
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', `${packs}/${tgz}`], { cwd: app, stdio: 'pipe', env: { ...process.env, npm_config_cache: `${tmp}/npm-cache` } });
  const out = JSON.parse(execFileSync('node', ['main.js'], { cwd: app, encoding: 'utf8' }));
  assert.equal(out.variant, 'simd128', 'Node 20 without the relaxed-SIMD flag');
  assert.equal(out.step, 30);
  assert.ok(out.losses.every((/** @type {number} */ l) => Number.isFinite(l) && l > 0), `${out.losses}`);
  assert.ok(out.losses[29] < out.losses[0], `the loss falls: ${out.losses[0]} → ${out.losses[29]}`);
  // The GPU build ships too, with its own entry point (Node 20 cannot compile its relaxed SIMD).
  for (const f of ['attention_playground.js', 'attention_playground_bg.wasm']) {
    assert.ok(existsSync(`${app}/node_modules/attention-playground/webgpu/${f}`), `webgpu/${f} installed`);
  }
});
