// @ts-check
// Prints the wasm benchmark table: each build's gemm GFLOP/s and training-step time in
// Debian's headless Chromium, from bench/wasm-bench.html. Usage:
//   node scripts/bench-wasm.js [--paper] [--variants=a,b]   (--paper adds the paper-size step)
import { startServer, launch } from '../tests/e2e/harness.js';

const paper = process.argv.includes('--paper');
const variants = process.argv.find((a) => a.startsWith('--variants='))?.slice('--variants='.length);
const server = await startServer();
const { browser, context } = await launch();
try {
  const page = await context.newPage();
  page.on('pageerror', (e) => console.error(String(e)));
    const query = new URLSearchParams({ paper: paper ? '1' : '0', ...(variants ? { variants } : {}) });
  await page.goto(`${server.url}bench/wasm-bench.html?${query}`);
  await page.waitForFunction(() => /** @type {any} */ (window).__bench, null, { timeout: 600_000 });
  const results = await page.evaluate(() => /** @type {any} */ (window).__bench);
  console.log(`# wasm benchmark, ${browser.version()} (headless), one thread`);
  console.log();
  const shapes = Object.keys(results[0].gflops);
  console.log(`| build | madd peak GFLOP/s | ${shapes.map((s) => `gemm ${s} GFLOP/s`).join(' | ')} | small step ms |${paper ? ' paper step ms |' : ''}`);
  console.log(`|---|---:|${shapes.map(() => '---:').join('|')}|---:|${paper ? '---:|' : ''}`);
  for (const r of results) {
    const g = shapes.map((s) => `${r.gflops[s].toFixed(1)} (${((100 * r.gflops[s]) / r.peak).toFixed(0)}%)`).join(' | ');
    console.log(`| ${r.variant} | ${r.peak.toFixed(1)} | ${g} | ${r.smallMs.toFixed(2)} |${paper ? ` ${r.paperMs.toFixed(0)} |` : ''}`);
  }
} finally {
  await browser.close();
  server.stop();
}
