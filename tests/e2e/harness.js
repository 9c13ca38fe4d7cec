// @ts-check
// Shared by the end-to-end tests and the screenshot script: starts the static server on a
// free port and Debian's headless Chromium (never a downloaded browser), offline.
import { spawn } from 'node:child_process';
import { chromium } from 'playwright-core';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1',
];

/** Starts scripts/serve.py on a free port. @returns {Promise<{ url: string, stop: () => void }>} */
export function startServer() {
  return new Promise((resolve, reject) => {
    const proc = spawn('python3', [`${ROOT}/scripts/serve.py`, '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
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
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.ui.latest !== null);
  return { context, page, errors };
}

/** Evaluates `expr` with `ui` bound to the page's state (window.__ap.ui).
 * @param {import('playwright-core').Page} page @param {string} expr */
export function uiOf(page, expr) {
  return page.evaluate((e) => new Function('ui', `return ${e}`)(/** @type {any} */ (window).__ap.ui), expr);
}
