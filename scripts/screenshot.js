// @ts-check
// Takes the README's screenshots of the page mid-training in Debian's headless Chromium: the
// default preset, trained at full speed until attention has started to lock onto the
// diagonal, then paused; at 360 px (a phone) and 1280 px wide, light and dark. Fails if the
// page scrolls sideways at either width.
// Usage: node scripts/screenshot.js [out-dir] [steps]   (writes screenshot-<width>-<theme>.png)
import { startServer, launch, shownRun } from '../tests/e2e/harness.js';

const dir = process.argv[2] ?? 'docs';
const steps = Number(process.argv[3] ?? 160);
const server = await startServer();
const { browser } = await launch();
try {
  for (const width of [1280, 360]) {
    for (const scheme of /** @type {const} */ (['light', 'dark'])) {
      const context = await browser.newContext({ viewport: { width, height: width < 600 ? 780 : 900 }, colorScheme: scheme });
      const page = await context.newPage();
      // Full speed from the link: on a phone the speed menu is folded away.
      await page.goto(`${server.url}?speed=1000`);
      await shownRun(page);
      await page.click('#play');
      await page.waitForFunction((n) => Number(document.getElementById('step')?.textContent) >= n, steps, { timeout: 120_000 });
      await page.click('#play');
      await page.waitForTimeout(300);
      const wide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      if (wide > 0) throw new Error(`at ${width} px the page scrolls sideways by ${wide} px`);
      const out = `${dir}/screenshot-${width}-${scheme}.png`;
      await page.screenshot({ path: out, fullPage: true });
      console.log(`wrote ${out} at step ${await page.textContent('#step')}`);
      await context.close();
    }
  }
} finally {
  await browser.close();
  server.stop();
}
