// @ts-check
// Measures the copying lab's GPU backend in the page, in Debian's headless Chromium (WebGPU
// on): ms per step of the page's run on the GPU (`backend=gpu`) and with the relaxed-SIMD
// wasm build (`backend=cpu`, its workers as the page picks them) at the small preset and
// the paper size, and the 20-seed × 200-step paper-size sweep batched on the GPU. On a
// software adapter (SwiftShader, `isFallbackAdapter`) only the small preset's GPU step is
// timed: the paper size there takes tens of seconds a step. Prints one table. Part of
// scripts/bench-gpu. Usage: node scripts/bench-gpu-page.js [--seconds S] (each timing, 15 by default)
import { startServer, launch } from '../tests/e2e/harness.js';
import { startTraining, measure } from './bench-page.js';

const arg = (/** @type {string} */ name, /** @type {number} */ fallback) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const seconds = arg('--seconds', 15);

const server = await startServer();
const { browser, context } = await launch();
try {
  const probe = await context.newPage();
  await probe.goto(server.url);
  /** @type {{ name: string, fallback: boolean } | null} */
  const adapter = await probe.evaluate(async () => {
    const gpu = /** @type {any} */ (navigator).gpu;
    const a = gpu && (await gpu.requestAdapter());
    if (!a) return null;
    const i = a.info ?? {};
    return { name: [i.vendor, i.architecture, i.device, i.description].filter(Boolean).join(' ') || 'unnamed', fallback: Boolean(i.isFallbackAdapter ?? a.isFallbackAdapter) };
  });
  await probe.close();
  console.log(`# the copying lab's backends in the page, ${browser.version()} (headless)`);
  console.log();
  console.log(`WebGPU adapter: ${adapter ? `${adapter.name}${adapter.fallback ? ' (a software fallback adapter)' : ''}` : 'none'}`);
  console.log();
  console.log('| size | backend | wasm kernels | workers | ms/step | steps/s |');
  console.log('|---|---|---|---:|---:|---:|');
  for (const preset of ['small-easy', 'easy']) {
    for (const backend of ['cpu', 'gpu']) {
      const size = preset === 'easy' ? 'paper' : 'small';
      if (backend === 'gpu' && (!adapter || (adapter.fallback && preset === 'easy'))) {
        console.log(`| ${size} | gpu | – | – | not measured: ${adapter ? 'a software adapter' : 'no adapter'} | – |`);
        continue;
      }
      const page = await startTraining(context, server.url, `?v=1&backend=${backend}`, preset);
      const r = await measure(page, seconds);
      const shown = await page.textContent('#backend');
      const build = await page.textContent('#variant');
      const workers = await page.textContent('#workers-count');
      await page.close();
      const sps = r.steps / r.dt;
      const ms = sps > 0 ? (1000 / sps).toFixed(1) : `over ${(r.dt * 1000).toFixed(0)}`;
      console.log(`| ${size} | ${shown} | ${build} | ${workers} | ${ms} | ${sps.toFixed(2)} |`);
    }
  }
  // The paper's figure, batched on the GPU.
  console.log();
  if (!adapter || adapter.fallback) {
    console.log(`20-seed × 200-step paper-size sweep on the GPU: not measured (${adapter ? 'a software adapter' : 'no adapter'})`);
  } else {
    const page = await context.newPage();
    await page.goto(`${server.url}?v=1&preset=easy&seeds=20&backend=gpu`);
    await page.waitForFunction(() => {
      const s = /** @type {any} */ (window).__ap?.sweeps() ?? [];
      return s.length > 0 && s.every((/** @type {any} */ w) => w.finished);
    }, null, { timeout: 3_600_000, polling: 1000 });
    const [w] = await page.evaluate(() => /** @type {any} */ (window).__ap.sweeps());
    console.log(`20-seed × ${w.steps}-step paper-size sweep (${w.backend === 'gpu' ? 'batched on the GPU' : `on the CPU: ${w.reason}`}): ${w.seconds.toFixed(1)} s; ${w.summary.reached} of 20 reached 99% token accuracy`);
    await page.close();
  }
} finally {
  await browser.close();
  server.stop();
}
