// @ts-check
// The sparse lab's speed, the page against the native tool in alternating rounds: one run
// of the AND-3 preset at T = 64 for 1,000 steps (evaluated every 10 steps as the preset
// does, and only at the end), in headless Chromium on one worker and natively on one
// thread; and the experiment, m* for the page's lengths T over seeds 0–4, in the page over the
// machine's cores and with `scaling --jobs 2`. Prints a table of the times and their
// ratios, and whether the page finds the same m* as the native tool.
// Usage: node scripts/bench-sparse.js [--rounds N]   (needs scripts/build and cargo; about
// three minutes a round)
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { startServer, launch } from '../tests/e2e/harness.js';
import { LENGTHS as GRID } from '../www/labs/sparse/scaling.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const argv = process.argv.slice(2);
const at = argv.indexOf('--rounds');
const rounds = at >= 0 ? Number(argv[at + 1]) : 2;
if (!(rounds >= 1)) throw new Error('usage: node scripts/bench-sparse.js [--rounds N]');
const LENGTHS = GRID.join(',');

execFileSync('cargo', ['build', '--release', '--quiet', '--bin', 'scaling'], { cwd: ROOT, stdio: 'inherit' });
const tool = join(ROOT, 'target/release/scaling');

/** Runs the native tool; its wall time (s) and its printed table's m* by T. @param {string[]} args */
function native(args) {
  const t0 = performance.now();
  const r = spawnSync(tool, ['--preset', 'and-3', ...args], { cwd: ROOT, encoding: 'utf8' });
  const seconds = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`scaling failed: ${r.stderr}`);
  /** @type {Record<string, string>} */
  const best = {};
  for (const line of r.stdout.split('\n')) {
    const m = /^\s+(\d+)\s+(\d+|none)\s+\d+\s+[\d.]+$/.exec(line);
    if (m) best[m[1]] = m[2];
  }
  return { seconds, best };
}

const server = await startServer();
const { browser } = await launch();

/** One run in the page: the time from Play to step 1,000 (s). @param {string} extra link keys */
async function pageRun(extra) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${server.url}?v=1&lab=sparse&length=64&speed=1000${extra}`);
  await page.waitForFunction(() => /** @type {any} */ (window).__ap?.shown()?.step === 0);
  const t0 = await page.evaluate(() => performance.now());
  await page.click('#play');
  const t1 = await page.evaluate(() => new Promise((resolve) => {
    const poll = () => ((/** @type {any} */ (window).__ap.shown().step >= 1000) ? resolve(performance.now()) : setTimeout(poll, 5));
    poll();
  }));
  const variant = await page.locator('#variant').innerText();
  await context.close();
  return { seconds: (/** @type {number} */ (t1) - t0) / 1000, variant };
}

/** The experiment in the page: its own time (s) and m* by T, read from its table. */
async function pageExperiment() {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${server.url}?v=1&lab=sparse&experiment=1`);
  await page.waitForFunction(() => /** @type {any} */ (window).__ap?.experiment()?.finished, null, { timeout: 600_000, polling: 200 });
  const { seconds } = await page.evaluate(() => /** @type {any} */ (window).__ap.experiment());
  const rows = await page.locator('.scaling-table tbody tr').evaluateAll((trs) => trs.map((tr) => [tr.children[0].textContent, tr.children[1].textContent]));
  await context.close();
  return { seconds, best: Object.fromEntries(rows) };
}

/** @type {Record<string, number[]>} */
const times = {};
const note = (/** @type {string} */ k, /** @type {number} */ s) => { (times[k] ??= []).push(s); };
let variant = '';
/** @type {Record<string, string>} */
let pageBest = {};
/** @type {Record<string, string>} */
let nativeBest = {};
for (let r = 0; r < rounds; r++) {
  const a = await pageRun('');
  variant = a.variant;
  note('page, evaluated every 10 steps', a.seconds);
  note('page, evaluated at the end', (await pageRun('&eval_every=1000')).seconds);
  note('native, evaluated every 10 steps', native(['--lengths', '64', '--seeds', '0-0', '--samples', '200', '--eval-every', '10']).seconds);
  note('native, evaluated at the end', native(['--lengths', '64', '--seeds', '0-0', '--samples', '200']).seconds);
  const e = await pageExperiment();
  note('experiment, page', e.seconds);
  pageBest = e.best;
  const n = native(['--lengths', LENGTHS, '--seeds', '0-4', '--jobs', '2']);
  note('experiment, native --jobs 2', n.seconds);
  nativeBest = n.best;
  console.log(`round ${r + 1}: one run ${a.seconds.toFixed(2)} s in the page; experiment ${e.seconds.toFixed(1)} s in the page, ${n.seconds.toFixed(1)} s natively`);
}
await browser.close();
server.stop();

const median = (/** @type {number[]} */ xs) => {
  const v = [...xs].sort((p, q) => p - q);
  return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
};
const row = (/** @type {string} */ name, /** @type {string} */ k) => `| ${name} | ${median(times[k]).toFixed(2)} | ${times[k].map((x) => x.toFixed(2)).join(', ')} |`;
const ratio = (/** @type {string} */ a, /** @type {string} */ b) => (median(times[a]) / median(times[b])).toFixed(2);
console.log(`\n## The sparse lab, ${variant} in headless Chromium against native; ${rounds} alternating rounds\n`);
console.log('| | median s | each round, s |\n|---|---:|---|');
console.log(row('one AND-3 run, T = 64, 1,000 steps: the page (one worker), evaluated every 10 steps', 'page, evaluated every 10 steps'));
console.log(row('the same, native (one thread)', 'native, evaluated every 10 steps'));
console.log(row('one run, evaluated only at the end: the page', 'page, evaluated at the end'));
console.log(row('the same, native', 'native, evaluated at the end'));
console.log(row(`the experiment, m* for T = ${LENGTHS}, seeds 0–4: the page (one worker per core)`, 'experiment, page'));
console.log(row('the same, native `scaling --jobs 2`', 'experiment, native --jobs 2'));
console.log(`\npage ÷ native: one run ${ratio('page, evaluated every 10 steps', 'native, evaluated every 10 steps')}× (evaluated at the end ${ratio('page, evaluated at the end', 'native, evaluated at the end')}×), the experiment ${ratio('experiment, page', 'experiment, native --jobs 2')}×`);
const same = JSON.stringify(pageBest) === JSON.stringify(nativeBest);
console.log(`m* by T, the page: ${JSON.stringify(pageBest)}; native: ${JSON.stringify(nativeBest)}: ${same ? 'the same' : 'DIFFERENT'}`);
