// @ts-check
// A sweep in the page against the same sweep natively, in alternating rounds: 20 seeds of
// the small hard preset, 400 steps each, evaluations included, in headless Chromium (the
// page's sweep over the machine's cores) and with `reproduce --jobs 2`. Prints the times,
// their ratio, and whether the seeds that reach 99% token accuracy, and the steps at which
// they do, are the same in the browser as in the native tool.
// Usage: node scripts/bench-sweep.js [--rounds N] [--seeds A-B] [--preset NAME]
// (needs the page built, scripts/build, and cargo; about 2 minutes a round)
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, launch, shownRun } from '../tests/e2e/harness.js';
import { copying } from '../www/labs/copying/lab.js';
import { summarize, parseSeeds } from '../www/sweeps/seeds.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const argv = process.argv.slice(2);
/** @param {string} name @param {string} fallback */
const arg = (name, fallback) => {
  const i = argv.indexOf(name);
  return i >= 0 && argv[i + 1] ? argv[i + 1] : fallback;
};
const rounds = Number(arg('--rounds', '2'));
const seeds = arg('--seeds', '0-19');
const preset = arg('--preset', 'small-hard');
const parsed = parseSeeds(seeds);
if (!parsed || !(rounds >= 1)) throw new Error('usage: node scripts/bench-sweep.js [--rounds N] [--seeds A-B] [--preset NAME]');
const range = parsed;
const STEPS = 400;
const spec = copying.sweep;

execFileSync('cargo', ['build', '--release', '--quiet', '--bin', 'reproduce'], { cwd: ROOT, stdio: 'inherit' });
const dir = mkdtempSync(join(tmpdir(), 'bench-sweep-'));

/** The native sweep: its wall time (s) and its seeds' evaluations, read from its CSV. */
function native() {
  const csv = join(dir, 'native.csv');
  const t0 = performance.now();
  const r = spawnSync(join(ROOT, 'target/release/reproduce'), ['--preset', preset, '--seeds', `${range.from}-${range.from + range.count - 1}`,
    '--steps', String(STEPS), '--jobs', '2', '--csv', csv], { cwd: ROOT, encoding: 'utf8' });
  const seconds = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`reproduce failed: ${r.stderr}`);
  const [head, ...rows] = readFileSync(csv, 'utf8').trim().split('\n');
  const keyOf = Object.fromEntries(spec.columns.map((c) => [c.name, c.key]));
  const cols = head.split(',').slice(2).map((c) => keyOf[c]);
  /** @type {Map<number, any[]>} */
  const bySeed = new Map();
  for (const row of rows) {
    const v = row.split(',').map(Number);
    /** @type {any} */
    const e = { step: v[1] };
    cols.forEach((k, i) => { e[k] = Math.fround(v[i + 2]); });
    bySeed.set(v[0], [...(bySeed.get(v[0]) ?? []), e]);
  }
  const runs = [...bySeed].map(([seed, evaluations]) => ({ seed, evaluations, step: STEPS, done: true, failed: null }));
  return { seconds, results: summarize(runs, spec, STEPS).results };
}

const server = await startServer();
const { browser } = await launch();

/** The page's sweep: its own time from the first seed's start to the last one's end (s),
 * the wall time from opening the link, and its seeds' results. */
async function page() {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const p = await context.newPage();
  const t0 = performance.now();
  await p.goto(`${server.url}?v=1&preset=${preset}&seeds=${seeds}`);
  await shownRun(p);
  await p.waitForFunction(() => {
    const s = /** @type {any} */ (window).__ap.sweeps();
    return s.length > 0 && s[0].finished;
  }, null, { timeout: 600_000, polling: 250 });
  const wall = (performance.now() - t0) / 1000;
  const [w] = await p.evaluate(() => /** @type {any} */ (window).__ap.sweeps());
  const variant = await p.locator('#variant').innerText();
  await context.close();
  return { seconds: w.seconds, wall, results: w.results, variant };
}

/** @type {{ page: number[], wall: number[], native: number[] }} */
const times = { page: [], wall: [], native: [] };
let pageRes = null;
let nativeRes = null;
let variant = '';
for (let r = 0; r < rounds; r++) {
  const a = await page();
  const b = native();
  times.page.push(a.seconds);
  times.wall.push(a.wall);
  times.native.push(b.seconds);
  pageRes = a.results;
  nativeRes = b.results;
  variant = a.variant;
  console.error(`round ${r + 1}: page ${a.seconds.toFixed(1)} s (${a.wall.toFixed(1)} s from the link), native ${b.seconds.toFixed(1)} s`);
}
await browser.close();
server.stop();

/** @param {number[]} xs */
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const ratios = times.page.map((t, i) => t / times.native[i]);
console.log(`\n## ${range.count} seeds (${seeds}) of ${preset}, ${STEPS} steps each, evaluations every 10 steps; ${rounds} alternating rounds\n`);
console.log('| | median s | each round, s |');
console.log('|---|---:|---|');
console.log(`| the page (${variant}, one worker per seed over the machine's cores), first seed's start to last seed's end | ${median(times.page).toFixed(1)} | ${times.page.map((t) => t.toFixed(1)).join(', ')} |`);
console.log(`| the page from opening the link (loading included) | ${median(times.wall).toFixed(1)} | ${times.wall.map((t) => t.toFixed(1)).join(', ')} |`);
console.log(`| native \`reproduce --jobs 2\` | ${median(times.native).toFixed(1)} | ${times.native.map((t) => t.toFixed(1)).join(', ')} |`);
console.log(`| the page ÷ native | ${median(ratios).toFixed(2)}× | ${ratios.map((x) => `${x.toFixed(2)}×`).join(', ')} |`);

const got = /** @type {any[]} */ (pageRes);
const want = /** @type {any[]} */ (nativeRes);
const reached = (/** @type {any[]} */ rs) => rs.filter((r) => r.reachedAt !== null).map((r) => r.seed);
console.log(`\nreached 99% token accuracy, the page: ${reached(got).length}/${got.length} (seeds ${reached(got).join(', ')})`);
console.log(`reached 99% token accuracy, native:   ${reached(want).length}/${want.length} (seeds ${reached(want).join(', ')})`);
const differ = got.filter((r, i) => r.reachedAt !== want[i].reachedAt);
console.log(differ.length === 0
  ? 'the same seeds, at the same evaluated steps'
  : `differ: ${differ.map((r) => `seed ${r.seed} at ${r.reachedAt ?? 'never'} in the page, ${want.find((x) => x.seed === r.seed).reachedAt ?? 'never'} natively`).join('; ')}`);
