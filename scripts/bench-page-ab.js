// @ts-check
// The page as a viewer runs it, side by side for two checkouts of the project (each with
// its product wasm built into its own pkg/): steps per second of its run at full speed and
// the frame rate while it trains, in alternating rounds of a fresh page each, in one
// headless Chromium, so that a busy minute falls on both alike. It reads only the page's
// DOM (the step counter), so any revision can be measured. With `--sweep SEEDS` it also
// times a sweep of the small hard preset over SEEDS seeds in each (its own clock, from the
// test handle's `sweeps()`, which both revisions must have), alternating too.
// Usage: node scripts/bench-page-ab.js DIR_A DIR_B [--rounds N] [--seconds S] [--query Q] [--sweep SEEDS]
//   e.g. git worktree add /tmp/ap-before bca3b92 && (cd /tmp/ap-before && scripts/build relaxed-simd)
//        node scripts/bench-page-ab.js /tmp/ap-before .
import { resolve } from 'node:path';
import { launch, startServer } from '../tests/e2e/harness.js';
import { measure } from './bench-page.js';

const args = process.argv.slice(2);
/** @param {string} flag @param {string} fallback */
const opt = (flag, fallback) => {
  const i = args.indexOf(flag);
  return i >= 0 ? args.splice(i, 2)[1] : fallback;
};
const rounds = Number(opt('--rounds', '5'));
const seconds = Number(opt('--seconds', '10'));
// Settings of one's own (the small preset with a batch of 33): a preset's budget would pause
// the run at step 400, within the first round's warm-up, and the rounds would count no steps.
const query = opt('--query', '?variant=relaxed-simd&workers=1&batch=33');
const sweepSeeds = opt('--sweep', '');
const dirs = args.map((d) => resolve(d));
if (dirs.length !== 2) throw new Error('usage: node scripts/bench-page-ab.js DIR_A DIR_B [--rounds N] [--seconds S] [--query Q]');

/** One round: a fresh page of `url`, warmed up at full speed, then `seconds` measured.
 * @param {import('playwright-core').BrowserContext} context @param {string} url */
async function round(context, url) {
  const page = await context.newPage();
  await page.goto(url + query);
  await page.waitForFunction(() => {
    const v = document.getElementById('variant')?.textContent;
    return v && v !== 'loading…' && document.querySelectorAll('#speed option').length > 0;
  });
  await page.waitForTimeout(500);
  await page.selectOption('#speed', '1000');
  await page.click('#play');
  await page.waitForTimeout(3000);
  const m = await measure(page, seconds);
  const r = { stepsPerSecond: m.steps / m.dt, fps: m.fps, worstGap: m.worstGap };
  await page.close();
  // The closed page's workers stop in the background: the next round starts after them.
  await new Promise((done) => setTimeout(done, 2000));
  return r;
}

/** A sweep of the small hard preset over `sweepSeeds` seeds in a fresh page of `url`: its
 * own time (s), training in sight, from the first seed's start to the last one's end.
 * @param {import('playwright-core').BrowserContext} context @param {string} url */
async function sweep(context, url) {
  const page = await context.newPage();
  await page.goto(`${url}?v=1&preset=small-hard&seeds=${sweepSeeds}`);
  await page.waitForFunction(() => {
    const s = /** @type {any} */ (window).__ap?.sweeps();
    return s?.length > 0 && s[0].finished;
  }, null, { timeout: 900_000, polling: 250 });
  const [w] = await page.evaluate(() => /** @type {any} */ (window).__ap.sweeps());
  await page.close();
  await new Promise((done) => setTimeout(done, 2000));
  return /** @type {number} */ (w.seconds);
}

/** @param {number[]} xs */
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

const servers = await Promise.all(dirs.map((d) => startServer(d, { dev: false })));
const { browser, context } = await launch();
/** @type {{ stepsPerSecond: number, fps: number, worstGap: number }[][]} */
const results = dirs.map(() => []);
/** @type {number[][]} each checkout's sweep times (s) */
const sweeps = dirs.map(() => []);
try {
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 ? [1, 0] : [0, 1];
    for (const i of order) results[i].push(await round(context, servers[i].url));
    console.error(`round ${r + 1} of ${rounds}: ${results.map((x) => x.at(-1)?.stepsPerSecond.toFixed(1)).join(' vs ')} steps/s`);
  }
  for (let r = 0; sweepSeeds && r < Math.min(rounds, 2); r++) {
    const order = r % 2 ? [1, 0] : [0, 1];
    for (const i of order) sweeps[i].push(await sweep(context, servers[i].url));
    console.error(`sweep round ${r + 1}: ${sweeps.map((x) => x.at(-1)?.toFixed(1)).join(' vs ')} s`);
  }
} finally {
  await browser.close();
  for (const s of servers) s.stop();
}
console.log(`| | ${dirs.join(' | ')} |`);
console.log(`|---|${dirs.map(() => '---:').join('|')}|`);
console.log(`| steps / s at full speed, median of ${rounds} rounds of ${seconds} s (each round) | ${results.map((x) => `${median(x.map((y) => y.stepsPerSecond)).toFixed(1)} (${x.map((y) => y.stepsPerSecond.toFixed(1)).join(', ')})`).join(' | ')} |`);
console.log(`| frames / s while training, median (worst gap ms, worst round) | ${results.map((x) => `${median(x.map((y) => y.fps)).toFixed(1)} (${Math.max(...x.map((y) => y.worstGap)).toFixed(0)})`).join(' | ')} |`);
if (sweepSeeds) {
  console.log(`| a sweep of ${sweepSeeds} seeds of small-hard, s (each round) | ${sweeps.map((x) => `${median(x).toFixed(1)} (${x.map((t) => t.toFixed(1)).join(', ')})`).join(' | ')} |`);
}
const ratio = median(results[1].map((y) => y.stepsPerSecond)) / median(results[0].map((y) => y.stepsPerSecond));
console.log(`\nsteps / s of B ÷ A: ${ratio.toFixed(3)} (query ${query})`);
if (sweepSeeds) console.log(`sweep time of B ÷ A: ${(median(sweeps[1]) / median(sweeps[0])).toFixed(3)}`);
