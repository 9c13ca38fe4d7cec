// @ts-check
// Shared by the end-to-end tests and the scripts that drive the page: starts the static
// server on a free port and Debian's headless Chromium (never a downloaded browser),
// offline; reads a script's `--name value` options.
import { spawn } from 'node:child_process';
import { chromium } from 'playwright-core';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A script's option `--name value` from its command line, else `fallback`.
 * @param {string} name @param {string} fallback */
export function option(name, fallback) {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  // WebGPU on SwiftShader (a fallback adapter): the GPU backend's path, tested without a GPU.
  '--enable-unsafe-webgpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1',
];

/** Starts scripts/serve.py of the checkout `root` (this one by default) on a free port; it
 * serves that checkout's page and, with `dev` (the default), its test and benchmark pages.
 * @param {string} [root] @param {{ dev?: boolean }} [o] @returns {Promise<{ url: string, stop: () => void }>} */
export function startServer(root = ROOT, { dev = true } = {}) {
  return new Promise((resolve, reject) => {
    const proc = spawn('python3', [`${root}/scripts/serve.py`, ...(dev ? ['--dev'] : []), '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
    proc.on('error', reject);
    proc.stdout.setEncoding('utf8');
    proc.stdout.on('data', (/** @type {string} */ chunk) => {
      const m = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(chunk);
      if (m) resolve({ url: m[1], stop: () => proc.kill() });
    });
  });
}

/** @param {{ width?: number, height?: number }} [size] */
export async function launch(size = {}) {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
  const context = await browser.newContext({ viewport: { width: size.width ?? 1280, height: size.height ?? 900 } });
  return { browser, context };
}

/**
 * A page in its own fresh browser context, opened on `url` once the page's first run is
 * built; `errors` collects its uncaught exceptions and console errors.
 * @param {import('playwright-core').Browser} browser @param {string} url
 * @param {{ width?: number, scheme?: 'light' | 'dark', reducedMotion?: 'reduce' | 'no-preference',
 *   permissions?: string[] }} [o]
 */
export async function freshPage(browser, url, o = {}) {
  const context = await browser.newContext({ viewport: { width: o.width ?? 1280, height: 900 }, acceptDownloads: true });
  if (o.permissions?.length) await context.grantPermissions(o.permissions, { origin: new URL(url).origin });
  const page = await context.newPage();
  await page.emulateMedia({ colorScheme: o.scheme ?? 'light', reducedMotion: o.reducedMotion ?? 'no-preference' });
  /** @type {string[]} */
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  await page.goto(url);
  await shownRun(page);
  return { context, page, errors };
}

/** Waits for the page's shown run to have a snapshot (the test handle, docs/testing.md).
 * @param {import('playwright-core').Page | import('playwright-core').Frame} page */
export function shownRun(page) {
  return page.waitForFunction(() => /** @type {any} */ (window).__ap?.shown() != null, null, { timeout: 30_000 });
}

/** The shown run in short (`__ap.shown()`). @param {import('playwright-core').Page | import('playwright-core').Frame} page
 * @returns {Promise<any>} */
export function shown(page) {
  return page.evaluate(() => /** @type {any} */ (window).__ap.shown());
}

/** Waits until the page shows step `n` of its run. @param {import('playwright-core').Page | import('playwright-core').Frame} page
 * @param {number} n @param {number} [timeout] */
export function atStep(page, n, timeout = 30_000) {
  return page.waitForFunction((k) => /** @type {any} */ (window).__ap.shown()?.step === k, n, { timeout });
}

/** Waits until the page's run has reached step `n` or beyond. @param {import('playwright-core').Page | import('playwright-core').Frame} page
 * @param {number} n @param {number} [timeout] */
export function pastStep(page, n, timeout = 30_000) {
  return page.waitForFunction((k) => /** @type {any} */ (window).__ap.shown()?.step >= k, n, { timeout });
}

/** Waits until the figures show what the page last received (painted in the next
 * animation frame). @param {import('playwright-core').Page} page */
export function drawn(page) {
  return page.waitForFunction(() => /** @type {any} */ (window).__ap.drawn());
}

/** Spearman's rank correlation of two equally long lists (tied values ranked in their order). @param {number[]} a @param {number[]} b */
export function spearman(a, b) {
  const rank = (/** @type {number[]} */ xs) => {
    const order = xs.map((x, i) => [x, i]).sort((p, q) => p[0] - q[0]);
    const r = new Array(xs.length);
    order.forEach(([, i], k) => { r[i] = k; });
    return r;
  };
  const [ra, rb] = [rank(a), rank(b)];
  const n = a.length;
  const d2 = ra.reduce((s, r, i) => s + (r - rb[i]) ** 2, 0);
  return 1 - (6 * d2) / (n * (n * n - 1));
}
