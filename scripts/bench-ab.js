// @ts-check
// Prints the A/B table of bench/ab.html: per figure and build, the median and the best of
// the rounds, measured alternately in one Chromium page, and the median's ratio to the first
// build's. Usage: node scripts/bench-ab.js BUILD,BUILD[,…] [PRESET|gemm] [ROUNDS] [m×k·k×n]
// (builds are directories of pkg/; scripts/bench-ab makes them from git revisions)
import { startServer, launch } from '../tests/e2e/harness.js';

const [builds, what = 'easy', rounds = '7', shape] = process.argv.slice(2);
if (!builds) {
  console.error('usage: node scripts/bench-ab.js BUILD,BUILD[,…] [PRESET|gemm] [ROUNDS] [m×k·k×n]');
  process.exit(2);
}
const gemm = what === 'gemm';
/** @type {Record<string, string>} */
const query = gemm ? { builds, gemm: '1', rounds, ...(shape ? { shape } : {}) } : { builds, preset: what, rounds };
const server = await startServer();
const { browser, context } = await launch();
try {
  const page = await context.newPage();
  page.on('pageerror', (e) => console.error(String(e)));
  await page.goto(`${server.url}bench/ab.html?${new URLSearchParams(query)}`);
  await page.waitForFunction(() => /** @type {any} */ (window).__ab, null, { timeout: 3_600_000 });
  /** @type {{ name: string, series: Record<string, number[]> }[]} */
  const results = await page.evaluate(() => /** @type {any} */ (window).__ab);
  /** @param {number[]} xs */
  const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  const what_ = gemm ? 'the gemm at the paper-size step\'s shapes' : `a training step, preset ${what}`;
  console.log(`# A/B: ${what_}; ${rounds} alternating rounds, ${browser.version()} (headless)`);
  console.log();
  console.log('| figure | build | median | best | median / first build\'s | every round |');
  console.log('|---|---|---:|---:|---:|---|');
  for (const name of Object.keys(results[0].series)) {
    const lower = name.startsWith('ms');
    const base = median(results[0].series[name]);
    for (const r of results) {
      const xs = r.series[name];
      const best = lower ? Math.min(...xs) : Math.max(...xs);
      const f = (/** @type {number} */ x) => x.toFixed(1);
      console.log(`| ${name} | ${r.name} | ${f(median(xs))} | ${f(best)} | ${(median(xs) / base).toFixed(3)} | ${xs.map((x) => x.toFixed(lower ? 0 : 1)).join(' ')} |`);
    }
  }
} finally {
  await browser.close();
  server.stop();
}
