// @ts-check
// Prints the A/B table of bench/ab.html: the median and minimum ms per training step of
// each build, measured in alternating rounds in one Chromium page, and each build's ratio to
// the first. Usage: node scripts/bench-ab.js BUILD,BUILD[,…] [PRESET] [ROUNDS]
// (builds are directories of pkg/; scripts/bench-ab makes them from git revisions)
import { startServer, launch } from '../tests/e2e/harness.js';

const [builds, preset = 'easy', rounds = '7'] = process.argv.slice(2);
if (!builds) {
  console.error('usage: node scripts/bench-ab.js BUILD,BUILD[,…] [PRESET] [ROUNDS]');
  process.exit(2);
}
const server = await startServer();
const { browser, context } = await launch();
try {
  const page = await context.newPage();
  page.on('pageerror', (e) => console.error(String(e)));
  await page.goto(`${server.url}bench/ab.html?${new URLSearchParams({ builds, preset, rounds })}`);
  await page.waitForFunction(() => /** @type {any} */ (window).__ab, null, { timeout: 3_600_000 });
  /** @type {{ name: string, times: number[] }[]} */
  const results = await page.evaluate(() => /** @type {any} */ (window).__ab);
  /** @param {number[]} xs */
  const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  const base = median(results[0].times);
  console.log(`# A/B, preset ${preset}, ${rounds} alternating rounds, ${browser.version()} (headless)`);
  console.log();
  console.log('| build | median ms / step | min | median / first build\'s | every round |');
  console.log('|---|---:|---:|---:|---|');
  for (const r of results) {
    const m = median(r.times);
    console.log(`| ${r.name} | ${m.toFixed(1)} | ${Math.min(...r.times).toFixed(1)} | ${(m / base).toFixed(3)} | ${r.times.map((t) => t.toFixed(0)).join(' ')} |`);
  }
} finally {
  await browser.close();
  server.stop();
}
