// @ts-check
// Measures the page as a viewer runs it, in Debian's headless Chromium: steps per second of
// the page's trainer (in its worker, evaluations included) for each wasm build on the small
// preset and at the paper size, the frame rate while it trains at full speed, and the paper
// size with two workers. Part of scripts/bench.js; alone it prints its own table.
// Usage: node scripts/bench-page.js [--no-paper | --workers] (`--workers`: only the paper
// size's one against two workers, about 3 minutes)
import { pathToFileURL } from 'node:url';
import { startServer, launch, shownRun } from '../tests/e2e/harness.js';

/** @typedef {{ steps: number, dt: number, fps: number, worstGap: number, variant: string | null, workers: string | null, stepsPerSecond: number, rounds?: number[] }} PageRun */

/** Opens the page with `query`, selects `preset` and starts it training at full speed,
 * warmed up.
 * @param {import('playwright-core').BrowserContext} context @param {string} url
 * @param {string} query @param {string} preset */
export async function startTraining(context, url, query, preset) {
  const page = await context.newPage();
  await page.goto(url + query);
  await shownRun(page);
  await page.waitForFunction(() => document.querySelectorAll('#preset option').length > 2);
  if (preset !== 'small-easy') {
    await page.selectOption('#preset', preset);
    await page.waitForFunction((p) => /** @type {any} */ (window).__ap.shown()?.config.vocab === (p === 'easy' ? 60 : 30), preset);
  }
  await page.waitForTimeout(preset === 'easy' ? 3000 : 500); // the replica workers start
  await page.selectOption('#speed', '1000');
  await page.click('#play');
  await page.waitForTimeout(preset === 'easy' ? 4000 : 1000); // warm up
  return page;
}

/** Steps per second of a page that trains, read off its step counter (any revision of the
 * page has it), and its frame intervals, over `seconds`.
 * @param {import('playwright-core').Page} page @param {number} seconds */
export function measure(page, seconds) {
  return page.evaluate(async (ms) => {
    const stepNow = () => Number(document.getElementById('step')?.textContent);
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
}

/** Trains the page at full speed (startTraining) for `seconds`, and returns the steps per
 * second measured from the step counter, and the frame intervals.
 * @param {import('playwright-core').BrowserContext} context @param {string} url
 * @param {string} query @param {string} preset @param {number} seconds @returns {Promise<PageRun>} */
async function run(context, url, query, preset, seconds) {
  const page = await startTraining(context, url, query, preset);
  const result = await measure(page, seconds);
  const variant = await page.textContent('#variant');
  const workers = await page.textContent('#workers-count');
  await page.close();
  return { ...result, variant, workers, stepsPerSecond: result.steps / result.dt };
}

/** The page runs of the benchmark: every build on the small preset (5 s each) and, with
 * `paper`, at the paper size (one worker per build, then {@link workerRounds}); with
 * `workersOnly`, only the worker rounds.
 * @param {import('playwright-core').BrowserContext} context @param {string} url
 * @param {{ paper: boolean, workersOnly?: boolean }} opts */
export async function benchPage(context, url, { paper, workersOnly = false }) {
  if (workersOnly) return workerRounds(context, url);
  /** @type {PageRows} */
  const rows = [];
  for (const v of ['scalar', 'simd128', 'relaxed-simd']) {
    // A batch of 33: settings of one's own, without the preset's budget, which would pause the
    // run at step 400 within the measurement.
    rows.push({ name: 'small', preset: 'small-easy', run: await run(context, url, `?variant=${v}&workers=1&batch=33`, 'small-easy', 5) });
  }
  if (paper) {
    for (const v of ['scalar', 'simd128']) {
      rows.push({ name: 'paper', preset: 'easy', run: await run(context, url, `?variant=${v}&workers=1`, 'easy', v === 'scalar' ? 30 : 20) });
    }
    rows.push(...(await workerRounds(context, url)));
  }
  return rows;
}

/** @typedef {{ name: string, preset: string, run: PageRun }[]} PageRows */

/** The paper size on the best build with one and with two workers, alternated over three
 * rounds of 20 s so that a busy minute on this shared machine weighs on both sides of their
 * ratio; each pooled into one row.
 * @param {import('playwright-core').BrowserContext} context @param {string} url
 * @returns {Promise<PageRows>} */
async function workerRounds(context, url) {
  /** @type {PageRun[][]} */
  const rounds = [[], []];
  for (let i = 0; i < 3; i++) {
    for (const w of [1, 2]) rounds[w - 1].push(await run(context, url, `?variant=relaxed-simd&workers=${w}`, 'easy', 20));
  }
  return rounds.map((r) => ({ name: 'paper', preset: 'easy', run: pooled(r) }));
}

/** Several runs of one setting as one: steps over time pooled, the worst frame gap, and each
 * round's steps per second. @param {PageRun[]} runs @returns {PageRun} */
function pooled(runs) {
  const steps = runs.reduce((a, r) => a + r.steps, 0);
  const dt = runs.reduce((a, r) => a + r.dt, 0);
  return {
    ...runs[0],
    steps,
    dt,
    stepsPerSecond: steps / dt,
    fps: Math.min(...runs.map((r) => r.fps)),
    worstGap: Math.max(...runs.map((r) => r.worstGap)),
    rounds: runs.map((r) => r.stepsPerSecond),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const server = await startServer();
  const { browser, context } = await launch();
  try {
    const rows = await benchPage(context, server.url, {
      paper: !process.argv.includes('--no-paper'),
      workersOnly: process.argv.includes('--workers'),
    });
    console.log(`# the page's trainer, ${browser.version()} (headless)`);
    console.log();
    console.log('| run | wasm build | workers | steps/s | ms/step | frames/s | worst frame gap ms |');
    console.log('|---|---|---:|---:|---:|---:|---:|');
    for (const { name, run: r } of rows) {
      const rounds = r.rounds ? ` (rounds: ${r.rounds.map((x) => x.toFixed(2)).join(', ')})` : '';
      console.log(`| ${name} | ${r.variant} | ${r.workers} | ${r.stepsPerSecond.toFixed(2)}${rounds} | ${(1000 / r.stepsPerSecond).toFixed(1)} | ${r.fps.toFixed(1)} | ${r.worstGap.toFixed(0)} |`);
    }
  } finally {
    await browser.close();
    server.stop();
  }
}
