// @ts-check
// Measures the page as a viewer runs it, in Debian's headless Chromium: steps per second of
// the page's trainer (in its worker) for each wasm build on the small preset, the frame
// rate while it trains at full speed, and the paper-size step with one and with two
// workers. Prints a Markdown table. Usage: node scripts/bench-page.js [--no-paper]
import { startServer, launch } from '../tests/e2e/harness.js';

const withPaper = !process.argv.includes('--no-paper');
const server = await startServer();
const { browser, context } = await launch();

/** Opens the page with `query`, selects `preset`, trains at full speed for `seconds`, and
 * returns the steps per second measured from the step counter, and the frame intervals.
 * @param {string} query @param {string} preset @param {number} seconds */
async function run(query, preset, seconds) {
  const page = await context.newPage();
  await page.goto(server.url + query);
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.ui.latest !== null);
  await page.waitForFunction(() => document.querySelectorAll('#preset option').length > 2);
  if (preset !== 'small-easy') {
    await page.selectOption('#preset', preset);
    await page.waitForFunction((p) => /** @type {any} */ (window).__ap.ui.latest.config.vocab === (p === 'easy' ? 60 : 30), preset);
  }
  await page.waitForTimeout(withPaper && preset === 'easy' ? 3000 : 500); // helpers start
  await page.selectOption('#speed', '1000');
  await page.click('#play');
  await page.waitForTimeout(preset === 'easy' ? 4000 : 1000); // warm up
  const result = await page.evaluate(async (ms) => {
    const stepNow = () => /** @type {any} */ (window).__ap.ui.latest.step;
    const s0 = stepNow();
    const t0 = performance.now();
    /** @type {number[]} */
    const frames = [];
    await new Promise((resolve) => {
      /** @param {number} t */
      function tick(t) {
        frames.push(t);
        if (t - t0 < ms) requestAnimationFrame(tick);
        else resolve(null);
      }
      requestAnimationFrame(tick);
    });
    const dt = (performance.now() - t0) / 1000;
    const gaps = frames.slice(1).map((t, i) => t - frames[i]);
    return { steps: stepNow() - s0, dt, fps: gaps.length / (gaps.reduce((a, b) => a + b, 0) / 1000), worstGap: Math.max(...gaps) };
  }, seconds * 1000);
  const variant = await page.textContent('#variant');
  const workers = await page.textContent('#workers-count');
  await page.close();
  return { ...result, variant, workers, stepsPerSecond: result.steps / result.dt };
}

try {
  console.log(`# the page's trainer, ${browser.version()} (headless)`);
  console.log();
  console.log('| run | wasm build | workers | steps/s | ms/step | frames/s | worst frame gap ms |');
  console.log('|---|---|---:|---:|---:|---:|---:|');
  /** @param {string} name @param {Awaited<ReturnType<typeof run>>} r */
  const row = (name, r) => console.log(`| ${name} | ${r.variant} | ${r.workers} | ${r.stepsPerSecond.toFixed(1)} | ${(1000 / r.stepsPerSecond).toFixed(1)} | ${r.fps.toFixed(1)} | ${r.worstGap.toFixed(0)} |`);
  for (const v of ['scalar', 'simd128', 'relaxed-simd']) row('small preset, full speed', await run(`?variant=${v}&workers=1`, 'small-easy', 5));
  if (withPaper) {
    for (const w of [1, 2]) row('paper size (easy)', await run(`?workers=${w}`, 'easy', 20));
  }
} finally {
  await browser.close();
  server.stop();
}
