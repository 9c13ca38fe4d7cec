// @ts-check
// Records the example in docs/ through the page's Record panel, as a blogger would: opens a
// link, chooses the format, frame rate, width and length, presses Start recording, and
// saves what the page downloads. Prints what the page says it saved.
// Usage: node scripts/record-example.js [--query '?v=1&speed=1'] [--format gif] [--fps 5]
//          [--width 480] [--seconds 10] [--out docs]
import { startServer, launch, shownRun, option } from '../tests/e2e/harness.js';

const query = option('--query', '?v=1&speed=1');
const settings = { format: option('--format', 'gif'), fps: option('--fps', '5'), width: option('--width', '480'), seconds: option('--seconds', '10') };
const out = option('--out', 'docs');

const server = await startServer();
const { browser } = await launch();
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true, colorScheme: 'light' });
  const page = await context.newPage();
  await page.goto(server.url + query);
  await shownRun(page);
  /** @type {import('playwright-core').Download[]} */
  const downloads = [];
  page.on('download', (d) => downloads.push(d));
  await page.click('#record-button');
  for (const [k, v] of Object.entries(settings)) await page.selectOption(`#record-${k}`, v);
  await page.click('#record-start');
  await page.waitForFunction(() => /^(Saved|Not recorded)/.test(document.getElementById('record-status')?.textContent ?? ''), null,
    { timeout: (Number(settings.seconds) + 60) * 1000 });
  const said = await page.textContent('#record-status');
  console.log(said);
  const files = settings.format === 'both' ? 2 : 1;
  while (downloads.length < files && /^Saved/.test(said ?? '')) await page.waitForTimeout(100);
  for (const d of downloads) {
    const path = `${out}/${d.suggestedFilename()}`;
    await d.saveAs(path);
    console.log(`wrote ${path}`);
  }
} finally {
  await browser.close();
  server.stop();
}
