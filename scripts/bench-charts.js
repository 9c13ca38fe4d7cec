// @ts-check
// The page's own canvas charts (www/views/chart.js, www/sweeps/chart.js) against uPlot doing the
// same work, in Debian's headless Chromium under the page's CSP (bench/charts.html): the
// copying lab's accuracy chart streaming one evaluation a frame up to 2,560, a 20-seed sweep
// chart with every curve handed over each frame, and the full charts redrawn for a colour
// scheme flip, resized and made anew. The libraries alternate round by round (A B A B) so
// that a busy minute of this shared machine weighs on both; each figure pools the rounds.
// Prints a markdown table with the code sizes and writes it to results/charts-bench.md.
// Usage: node scripts/bench-charts.js [--rounds N] [--points N] [--dpr R] [--out FILE] [--screenshot PNG]
// (defaults: 2 rounds, 2,560 points, device pixel ratio 1, results/charts-bench.md; about 5
// minutes; `--screenshot`: the four charts drawn full, after the run; needs `npm ci` for
// uplot and playwright-core, and /usr/bin/chromium)
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { gzipSync } from 'node:zlib';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, launch } from '../tests/e2e/harness.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const argv = process.argv.slice(2);
/** @param {string} name @param {string} fallback */
const arg = (name, fallback) => {
  const i = argv.indexOf(name);
  return i >= 0 && argv[i + 1] ? argv[i + 1] : fallback;
};
const rounds = Number(arg('--rounds', '2'));
const points = Number(arg('--points', '2560'));
const dpr = Number(arg('--dpr', '1'));
const outFile = arg('--out', 'results/charts-bench.md');
const screenshot = arg('--screenshot', '');
if (!(rounds >= 1) || !(points >= 64) || !(dpr > 0)) {
  throw new Error('usage: node scripts/bench-charts.js [--rounds N] [--points N>=64] [--dpr R] [--out FILE] [--screenshot PNG]');
}
/** Still redraws per kind, per round and library. */
const REPEATS = 10;
/** A frame interval this long means at least one frame was missed (60 Hz: 16.7 ms). */
const DROPPED_MS = 25;
const BUDGET_MS = 1000 / 60;
const LIBS = /** @type {const} */ (['ours', 'uplot']);
const NAME = { ours: 'ours', uplot: 'uPlot' };

// ---- sizes ---------------------------------------------------------------------------------

/** @param {string[]} files relative to the root @returns {{ raw: number, gzip: number, lines: number }} */
function size(files) {
  let raw = 0;
  let gzip = 0;
  let lines = 0;
  for (const f of files) {
    const b = readFileSync(`${ROOT}/${f}`);
    raw += b.length;
    gzip += gzipSync(b, { level: 9 }).length;
    lines += b.toString('utf8').split('\n').length - 1;
  }
  return { raw, gzip, lines };
}

const uplotVersion = JSON.parse(readFileSync(`${ROOT}/node_modules/uplot/package.json`, 'utf8')).version;
const U = 'node_modules/uplot/dist';
/** @type {[string, string, { raw: number, gzip: number, lines: number }, boolean][]} name, files, size, minified */
const sizes = [
  ['ours: views/chart.js + sweeps/chart.js + views/colors.js', 'www/', size(['www/views/chart.js', 'www/sweeps/chart.js', 'www/views/colors.js']), false],
  ['ours: scaling-view.js (plot, table and fits)', 'www/labs/sparse/', size(['www/labs/sparse/scaling-view.js']), false],
  [`uPlot ${uplotVersion}: uPlot.iife.min.js`, U, size([`${U}/uPlot.iife.min.js`]), true],
  [`uPlot ${uplotVersion}: uPlot.esm.js (no minified ES module is shipped)`, U, size([`${U}/uPlot.esm.js`]), false],
  [`uPlot ${uplotVersion}: uPlot.min.css`, U, size([`${U}/uPlot.min.css`]), true],
];

// ---- statistics ----------------------------------------------------------------------------

/** @param {number[]} xs @param {number} q in [0, 1] (nearest rank) */
function quantile(xs, q) {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
}
/** @param {number[]} xs */
const median = (xs) => quantile(xs, 0.5);
/** @param {number} x @param {number} [d] */
const f = (x, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : '—');

/** @typedef {{ n: number[], sync: number[], frame: number[], at: number[], draws: number }} FrameLog */

/** The frames of `logs` whose count lies in (lo, hi]: their call ms, frame ms and the
 * interval before each frame. @param {FrameLog[]} logs @param {number} lo @param {number} hi */
function window(logs, lo, hi) {
  /** @type {{ sync: number[], frame: number[], gap: number[] }} */
  const w = { sync: [], frame: [], gap: [] };
  for (const log of logs) {
    log.n.forEach((n, i) => {
      if (n <= lo || n > hi) return;
      w.sync.push(log.sync[i]);
      w.frame.push(log.frame[i]);
      if (i > 0) w.gap.push(log.at[i] - log.at[i - 1]);
    });
  }
  return w;
}

// ---- the run -------------------------------------------------------------------------------

const started = new Date();
const load = loadavg()[0];
const server = await startServer();
const VIEWPORT = { width: 1280, height: 1300 };
const { browser, context: plain } = await launch(VIEWPORT);
const context = dpr === 1 ? plain : await browser.newContext({ viewport: VIEWPORT, deviceScaleFactor: dpr });
/** @type {string[]} */
const consoleErrors = [];
/** @type {{ stream: Record<string, FrameLog[]>, sweep: Record<string, FrameLog[]>, still: Record<string, Record<string, [number, number][]>[]> }} */
const runs = { stream: { ours: [], uplot: [] }, sweep: { ours: [], uplot: [] }, still: { ours: [], uplot: [] } };
/** The steady redraws at fixed sizes. @type {{ n: number, logs: Record<string, FrameLog[]> }[]} */
const steady = [];
/** Turns and frames a turn of the steady redraws. */
const BLOCKS = 8;
const BLOCK_FRAMES = 60;
/** @type {any} */
let info;
/** @type {string[]} */
let violations = [];
const t0 = performance.now();
try {
  const page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  // Cross-origin isolated (the server sends CORP on every file), so that performance.now()
  // counts in 5 µs steps instead of 100 µs: the calls measured here take tenths of a ms.
  await page.route('**/bench/charts.html', async (route) => {
    const response = await route.fetch();
    await route.fulfill({ response, headers: { ...response.headers(), 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' } });
  });
  await page.goto(`${server.url}bench/charts.html`);
  await page.waitForFunction(() => /** @type {any} */ (window).benchReady === true, null, { timeout: 30_000 });
  // Warm-up (not counted): each library streams and sweeps a little and redraws still once.
  for (const lib of LIBS) {
    await page.evaluate((l) => /** @type {any} */ (window).bench.stream(l, 300), lib);
    await page.evaluate((l) => /** @type {any} */ (window).bench.sweep(l, 200), lib);
    await page.evaluate((l) => /** @type {any} */ (window).bench.still(l, 2), lib);
  }
  for (let r = 0; r < rounds; r++) {
    for (const lib of LIBS) {
      process.stderr.write(`round ${r + 1}/${rounds}: ${NAME[lib]}…\n`);
      runs.stream[lib].push(await page.evaluate(([l, n]) => /** @type {any} */ (window).bench.stream(l, n), /** @type {[string, number]} */ ([lib, points])));
      runs.sweep[lib].push(await page.evaluate((l) => /** @type {any} */ (window).bench.sweep(l), lib));
      runs.still[lib].push(await page.evaluate(([l, k]) => /** @type {any} */ (window).bench.still(l, k), /** @type {[string, number]} */ ([lib, REPEATS])));
    }
  }
  for (const n of [256, 1280, 2560].filter((c) => c <= points)) {
    process.stderr.write(`steady at ${n}…\n`);
    steady.push({ n, logs: await page.evaluate(([k, b, fr]) => /** @type {any} */ (window).bench.steady(k, b, fr), [n, BLOCKS, BLOCK_FRAMES]) });
  }
  info = await page.evaluate(() => /** @type {any} */ (window).bench.info());
  if (screenshot) {
    await page.evaluate(() => /** @type {any} */ (window).bench.show());
    await page.screenshot({ path: resolve(ROOT, screenshot), fullPage: true });
  }
  violations = await page.evaluate(() => /** @type {any} */ (window).bench.violations);
} finally {
  await browser.close();
  server.stop();
}
const minutes = (performance.now() - t0) / 60_000;

// ---- the table -----------------------------------------------------------------------------

/** @type {string[]} */
const out = [];
const p = (/** @type {string} */ s = '') => out.push(s);
const cpu = cpus();
p(`# Charts: the page's canvas charts against uPlot ${uplotVersion}`);
p();
p(`${started.toISOString().slice(0, 16).replace('T', ' ')} UTC; ${browser.version()} headless (${info.userAgent.match(/Chrome\/[\d.]+/)?.[0] ?? '?'}), `
  + `device pixel ratio ${info.devicePixelRatio}, charts ${600} CSS px wide, --disable-gpu (software canvas); ${cpu.length} cores (${cpu[0]?.model.trim() ?? '?'}), `
  + `shared and busy (load ${load.toFixed(1)} at the start); ${rounds} rounds alternating ours, uPlot; ${minutes.toFixed(1)} min. `
  + `\`node scripts/bench-charts.js\`, page bench/charts.html.`);
p();
p(`Under the page's CSP: ${violations.length} violation(s) seen by a securitypolicyviolation listener`
  + `${violations.length ? ` (${violations.join('; ')})` : ''}, ${consoleErrors.length} console error(s) or warning(s)`
  + `${consoleErrors.length ? ` (${consoleErrors.slice(0, 5).join('; ')})` : ''}; uPlot.min.css applied: ${info.uplotCss ? 'yes' : 'NO'}; `
  + `timer ${info.isolated ? 'cross-origin isolated (5 µs steps)' : 'NOT isolated (100 µs steps)'}.`);
p();
p('## Code shipped');
p();
p('| code | lines | bytes raw | bytes minified | bytes gzip -9 |');
p('|---|---:|---:|---:|---:|');
for (const [name, , s, min] of sizes) p(`| ${name} | ${s.lines} | ${min ? '—' : s.raw} | ${min ? s.raw : '—'} | ${s.gzip} |`);
p();
p('The page ships its modules unminified (no build step); uPlot\'s package has a minified build only as a classic script (IIFE, global `uPlot`).');
p();

p(`## (a) Accuracy chart streaming: 4 series, one evaluation more each frame, 1 to ${points}`);
p();
p('Per frame: *call* = the synchronous update-and-draw (ours `update(points)`, uPlot `batch(() => setData(columns))`); '
  + '*frame* = the main thread from the frame\'s callback to the first task after it (style, layout, paint, canvas flush); '
  + '*interval* = between animation frames. ms, median / p95 / max, pooled over the rounds.');
p();
p('| points | library | call median | call p95 | call max | frame median | frame p95 | interval median | interval p95 |');
p('|---|---|---:|---:|---:|---:|---:|---:|---:|');
const centres = [256, 1280, 2560].filter((c) => c <= points);
if (!centres.includes(points) && points < 2560) centres.push(points);
/** @type {Record<string, Record<string, number>>} */
const at = {};
for (const c of centres) {
  const [lo, hi] = c === points ? [c - 128, c] : [c - 64, c + 64];
  for (const lib of LIBS) {
    const w = window(runs.stream[lib], lo, hi);
    (at[c] ??= {})[lib] = median(w.sync);
    p(`| ${lo + 1}–${hi} | ${NAME[lib]} | ${f(median(w.sync))} | ${f(quantile(w.sync, 0.95))} | ${f(Math.max(...w.sync))} `
      + `| ${f(median(w.frame))} | ${f(quantile(w.frame, 0.95))} | ${f(median(w.gap), 1)} | ${f(quantile(w.gap, 0.95), 1)} |`);
  }
}
p();
p('| whole stream | library | frames | call over 16.7 ms | frame over 16.7 ms | intervals over 25 ms (a frame missed) | median call per round at the end | uPlot draws / frames |');
p('|---|---|---:|---:|---:|---:|---|---:|');
for (const lib of LIBS) {
  const logs = runs.stream[lib];
  const all = window(logs, 0, Infinity);
  const perRound = logs.map((l) => median(l.sync.filter((_, i) => l.n[i] > points - 128)));
  const draws = logs.reduce((a, l) => a + l.draws, 0);
  p(`| 1–${points} | ${NAME[lib]} | ${all.sync.length} | ${all.sync.filter((x) => x > BUDGET_MS).length} | ${all.frame.filter((x) => x > BUDGET_MS).length} `
    + `| ${all.gap.filter((x) => x > DROPPED_MS).length} | ${perRound.map((x) => f(x)).join(', ')} | ${lib === 'uplot' ? `${draws} / ${all.sync.length}` : '—'} |`);
}
p();
p(`Ratio uPlot / ours of the median call: ${centres.map((c) => `${f(at[c].uplot / at[c].ours)} at ${c}`).join(', ')}.`);
p();

p(`### (a') The same chart redrawn at a fixed size, both on the page, taking turns every ${BLOCK_FRAMES} frames (${BLOCKS} turns each)`);
p();
p('| points | library | call median | call p95 | frame median | frame p95 | intervals over 25 ms | frame ratio uPlot / ours |');
p('|---:|---|---:|---:|---:|---:|---:|---:|');
for (const { n, logs } of steady) {
  const w = { ours: window(logs.ours, 0, Infinity), uplot: window(logs.uplot, 0, Infinity) };
  for (const lib of LIBS) {
    const x = w[lib];
    p(`| ${n} | ${NAME[lib]} | ${f(median(x.sync))} | ${f(quantile(x.sync, 0.95))} | ${f(median(x.frame))} | ${f(quantile(x.frame, 0.95))} `
      + `| ${x.gap.filter((g) => g > DROPPED_MS).length} / ${x.gap.length} | ${lib === 'uplot' ? f(median(x.frame) / median(w.ours.frame)) : ''} |`);
  }
}
p();

p('## (b) Sweep chart: 20 seeds × 40 evaluations (steps 10 to 400), one evaluation arriving each frame, every curve handed over again');
p();
p('| library | frames | call median | call p95 | call max | frame median | frame p95 | interval median | interval p95 | intervals over 25 ms |');
p('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
/** @type {Record<string, number>} */
const sweepMedian = {};
for (const lib of LIBS) {
  const w = window(runs.sweep[lib], 0, Infinity);
  sweepMedian[lib] = median(w.sync);
  p(`| ${NAME[lib]} | ${w.sync.length} | ${f(median(w.sync))} | ${f(quantile(w.sync, 0.95))} | ${f(Math.max(...w.sync))} | ${f(median(w.frame))} `
    + `| ${f(quantile(w.frame, 0.95))} | ${f(median(w.gap), 1)} | ${f(quantile(w.gap, 0.95), 1)} | ${w.gap.filter((x) => x > DROPPED_MS).length} |`);
}
p();
p(`Ratio uPlot / ours of the median call: ${f(sweepMedian.uplot / sweepMedian.ours)}. `
  + 'Full sweep at the end (the last 100 frames): '
  + LIBS.map((lib) => `${NAME[lib]} ${f(median(runs.sweep[lib].flatMap((l) => l.sync.slice(-100))))} ms`).join(', ') + '.');
p();

p(`## (c) Full charts redrawn still (2,560 evaluations; the whole sweep), ${REPEATS} times a round`);
p();
p('*theme*: the colour scheme flipped and the chart told (ours `invalidate()` (+ `update`), uPlot colours cleared + `redraw()`); '
  + '*resize*: its box 40 px narrower or back (a ResizeObserver draws; uPlot has none of its own, the adapter calls `setSize`); '
  + '*new*: made and drawn with all the data. ms, median (call / frame).');
p();
p('| chart | library | theme call | theme frame | resize frame | new frame |');
p('|---|---|---:|---:|---:|---:|');
for (const kind of ['line', 'sweep']) {
  for (const lib of LIBS) {
    /** @param {string} k @param {0 | 1} j */
    const m = (k, j) => median(runs.still[lib].flatMap((r) => r[`${kind}${k}`].map((x) => x[j])));
    p(`| ${kind === 'line' ? 'accuracy' : 'sweep'} | ${NAME[lib]} | ${f(m('Theme', 0))} | ${f(m('Theme', 1))} | ${f(m('Resize', 1))} | ${f(m('Create', 1))} |`);
  }
}
p();

const text = out.join('\n');
console.log(text);
writeFileSync(resolve(ROOT, outFile), `${text}\n`);
console.error(`\nwritten to ${outFile}`);
