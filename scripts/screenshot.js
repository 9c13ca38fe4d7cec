// @ts-check
// Takes the README's screenshot of the page mid-training in Debian's headless Chromium:
// the default preset, trained at full speed until attention has started to lock onto the
// diagonal, then paused. Usage: node scripts/screenshot.js [out.png] [steps]
import { startServer, launch } from '../tests/e2e/harness.js';

const out = process.argv[2] ?? 'docs/screenshot.png';
const steps = Number(process.argv[3] ?? 160);
const server = await startServer();
const { browser, context } = await launch({ width: 1280, height: 900 });
try {
  const page = await context.newPage();
  await page.goto(server.url);
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.ui.latest !== null);
  await page.selectOption('#speed', '1000');
  await page.click('#play');
  await page.waitForFunction((n) => Number(document.getElementById('step')?.textContent) >= n, steps, { timeout: 120_000 });
  await page.click('#play');
  await page.waitForTimeout(300);
  await page.screenshot({ path: out, fullPage: true });
  console.log(`wrote ${out} at step ${await page.textContent('#step')}`);
} finally {
  await browser.close();
  server.stop();
}
