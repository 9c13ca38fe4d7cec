// @ts-check
// The wasm builds measured bare, in Debian's headless Chromium (bench/wasm-bench.html, on the
// benchmark builds pkg/bench-<variant> of scripts/build --bench): each build's multiply-add
// peak, its gemm's GFLOP/s at the paper-size step's shapes, and its training step (ms,
// evaluation excluded). Part of scripts/bench.js; alone it prints its own table (after
// scripts/build --bench). Usage: node scripts/bench-wasm.js [--paper] [--variants=a,b]
import { pathToFileURL } from 'node:url';
import { startServer, launch } from '../tests/e2e/harness.js';

/** @typedef {{ variant: string, peak: number, gflops: Record<string, number>, tile: Record<string, number>, smallMs: number, paperMs: number | null }} WasmResult */

/** A rate and its share of the build's peak, `40.5 (69.6%)`: to a tenth of a percent, since
 * the speed issue's 70% bound can fall inside a whole percent's rounding.
 * @param {number} g GFLOP/s @param {number} peak GFLOP/s */
export const ofPeak = (g, peak) => `${g.toFixed(1)} (${((100 * g) / peak).toFixed(1)}%)`;

/** Runs the benchmark page in `context` (served from `url`).
 * @param {import('playwright-core').BrowserContext} context @param {string} url
 * @param {{ paper: boolean, variants?: string }} opts @returns {Promise<WasmResult[]>} */
export async function benchWasm(context, url, { paper, variants }) {
  const page = await context.newPage();
  page.on('pageerror', (e) => console.error(String(e)));
  const query = new URLSearchParams({ paper: paper ? '1' : '0', ...(variants ? { variants } : {}) });
  await page.goto(`${url}bench/wasm-bench.html?${query}`);
  await page.waitForFunction(() => /** @type {any} */ (window).__bench, null, { timeout: 900_000 });
  const results = await page.evaluate(() => /** @type {any} */ (window).__bench);
  await page.close();
  return results;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const paper = process.argv.includes('--paper');
  const variants = process.argv.find((a) => a.startsWith('--variants='))?.slice('--variants='.length);
  const server = await startServer();
  const { browser, context } = await launch();
  try {
    const results = await benchWasm(context, server.url, { paper, variants });
    console.log(`# wasm benchmark, ${browser.version()} (headless), one thread`);
    console.log();
    const shapes = Object.keys(results[0].gflops);
    const depths = Object.keys(results[0].tile).sort((a, b) => Number(b) - Number(a));
    const heads = [...shapes.map((s) => `gemm ${s}`), ...depths.map((d) => `micro-kernel alone, depth ${d}`)];
    console.log(`| build | madd peak GFLOP/s | ${heads.map((h) => `${h} GFLOP/s`).join(' | ')} | small step ms |${paper ? ' paper step ms |' : ''}`);
    console.log(`|---|---:|${heads.map(() => '---:').join('|')}|---:|${paper ? '---:|' : ''}`);
    for (const r of results) {
      const g = [...shapes.map((s) => ofPeak(r.gflops[s], r.peak)), ...depths.map((d) => ofPeak(r.tile[d], r.peak))].join(' | ');
      console.log(`| ${r.variant} | ${r.peak.toFixed(1)} | ${g} | ${r.smallMs.toFixed(2)} |${paper ? ` ${r.paperMs?.toFixed(0)} |` : ''}`);
    }
  } finally {
    await browser.close();
    server.stop();
  }
}
