// @ts-check
// The whole speed benchmark in one run, printed as one Markdown table: the native Rust step
// and gemm, each wasm build bare (peak, gemm, micro-kernel, step), the native and relaxed-SIMD
// steps in alternating rounds, each wasm build in the page (steps/s in its worker, frame
// rate, two workers), and the TensorFlow.js peer on its wasm and cpu backends, all in the
// same Debian Chromium, and the same model in PyTorch on one CPU thread (bench/torch_step.py,
// in the virtualenv scripts/bench installs); every ratio is between figures of this run.
// scripts/bench builds first (the product builds for the page, the benchmark builds
// pkg/bench-<variant> for the bare figures) and runs this. Usage: node scripts/bench.js
// [--no-paper]
// (about 30 min; 4 without the paper size)
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cpus } from 'node:os';
import { startServer, launch } from '../tests/e2e/harness.js';
import { benchWasm, ofPeak } from './bench-wasm.js';
import { benchPage } from './bench-page.js';
import { benchTfjs } from './bench-tfjs.js';
import { benchInterleaved, torchSteps } from './bench-interleaved.js';

const paper = !process.argv.includes('--no-paper');
const VARIANTS = ['scalar', 'simd128', 'relaxed-simd'];

console.error('native Rust …');
const native = JSON.parse(
  execFileSync('cargo', ['run', '--quiet', '--release', '--features', 'bench', '--bin', 'bench', '--', '--json', ...(paper ? [] : ['--quick'])], { encoding: 'utf8' }).trim(),
);
const PYTHON = 'target/torch-venv/bin/python';
const python = existsSync(PYTHON) ? PYTHON : undefined;
/** @type {string[]} */
const torchFailures = [];
/** @type {Record<string, ReturnType<typeof torchSteps>>} */
const torch = {};
/** @param {number[]} xs */
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
if (python) {
  console.error('PyTorch …');
  for (const [size, steps] of /** @type {const} */ ([['small', 30], ['paper', 7]])) {
    if (size === 'paper' && !paper) continue;
    const r = torchSteps(python, size, steps);
    const l = r.losses;
    if (!(mean(l.slice(-3)) < mean(l.slice(0, 3)))) torchFailures.push(`PyTorch ${size}: the loss does not fall (${l.map((x) => x.toFixed(4)).join(', ')})`);
    torch[size] = r;
  }
} else {
  console.error(`no ${PYTHON} (scripts/bench installs it): the PyTorch column stays empty`);
}
const server = await startServer();
const { browser, context } = await launch();
let out;
try {
  console.error('wasm builds, bare …');
  const wasm = await benchWasm(context, server.url, { paper });
  console.error(`native, relaxed-SIMD${python ? ' and PyTorch' : ''} steps, alternating …`);
  const alternating = [];
  for (const preset of paper ? ['small-easy', 'easy'] : ['small-easy']) {
    alternating.push(await benchInterleaved(context, server.url, { preset, rounds: 7, python }));
  }
  console.error('the page …');
  const page = await benchPage(context, server.url, { paper });
  console.error('TensorFlow.js …');
  const tfjs = await benchTfjs(context, server.url, { smallOnly: !paper });
  out = { wasm, alternating, page, tfjs, chromium: browser.version() };
} finally {
  await browser.close();
  server.stop();
}
const { wasm, alternating, page, tfjs, chromium } = out;

/** @param {string} v */
const w = (v) => wasm.find((r) => r.variant === v);
/** @param {string} size @param {string} v @param {string} workers */
const pageRun = (size, v, workers) => page.find((r) => r.name === size && r.run.variant === v && r.run.workers === workers)?.run;
/** @param {string} backend @param {string} size */
const tf = (backend, size) => tfjs.results.find((r) => r.backend === backend && r.size === size);
/** @param {number | null | undefined} ms */
const fmtMs = (ms) => (ms == null ? '–' : ms >= 100 ? ms.toFixed(0) : ms.toFixed(ms >= 10 ? 1 : 2));
/** @param {number | null | undefined} ms */
const fmtRate = (ms) => (ms == null ? '–' : (1000 / ms).toFixed(ms >= 1000 ? 3 : 1));

const columns = ['native Rust', 'wasm scalar', 'wasm simd128', 'wasm relaxed-SIMD', 'TF.js wasm (SIMD)', 'TF.js cpu', 'PyTorch (CPU, 1 thread)'];
/** @type {string[][]} */
const rows = [];
/** A row of the table; cells left off at the end are empty.
 * @param {string} what @param {(string | number | null | undefined)[]} cells */
const row = (what, cells) => rows.push([what, ...columns.map((_, i) => (cells[i] == null ? '–' : String(cells[i])))]);

/** Per size: bare step ms of every column, in column order. @param {'small' | 'paper'} size */
function stepMs(size) {
  const key = size === 'small' ? 'smallMs' : 'paperMs';
  return [
    native.stepMs[size === 'small' ? 'small-easy' : 'easy'],
    ...VARIANTS.map((v) => w(v)?.[key]),
    tf('wasm', size)?.msPerStep,
    tf('cpu', size)?.msPerStep,
    torch[size]?.msPerStep,
  ];
}
const best = 'relaxed-simd';
for (const size of /** @type {const} */ (['small', 'paper'])) {
  if (size === 'paper' && !paper) continue;
  const label = size === 'small' ? 'small preset (H 64, L 20, batch 32)' : 'paper size (H 256, L 40, batch 128)';
  const ms = stepMs(size);
  row(`${label}: training step, ms`, ms.map(fmtMs));
  row(`${label}: training steps / s`, ms.map(fmtRate));
  const bestMs = /** @type {number} */ (ms[1 + VARIANTS.indexOf(best)]);
  row(`${label}: the relaxed-SIMD step is N× faster than this`, ms.map((m, i) => (m == null || i === 1 + VARIANTS.indexOf(best) ? null : `${(m / bestMs).toFixed(2)}×`)));
  const gflop = native.stepGflop?.[size === 'small' ? 'small-easy' : 'easy'];
  if (gflop) {
    /** @param {number | null | undefined} m */
    const rate = (m) => (m == null ? null : `${((gflop / m) * 1000).toFixed(1)} GFLOP/s`);
    row(`${label}: the step's products, ${gflop.toFixed(gflop < 1 ? 3 : 2)} GFLOP: the step's rate; (wasm) their time at the build's multiply-add peak, ms, and the step ÷ that time`, [
      rate(ms[0]),
      ...VARIANTS.map((v, i) => {
        const r = w(v);
        const m = ms[1 + i];
        if (!r || m == null) return null;
        const atPeak = (gflop / r.peak) * 1000;
        return `${rate(m)}; ${fmtMs(atPeak)} ms, ${(m / atPeak).toFixed(2)}×`;
      }),
      null,
      null,
    ]);
  }
  const alt = alternating.find((a) => a.preset === (size === 'small' ? 'small-easy' : 'easy'));
  if (alt) {
    const torchCell = alt.torch && alt.torchRatio ? `${fmtMs(alt.torch)}; ${alt.torchRatio.toFixed(2)}× (${alt.perRound.map((r) => r.torchRatio?.toFixed(2)).join(', ')})` : null;
    row(`${label}: native, relaxed-SIMD and PyTorch steps in ${alt.perRound.length} alternating rounds, median ms; the relaxed-SIMD step ÷ the native one, and ÷ PyTorch's (median; each round)`, [
      fmtMs(alt.native),
      null,
      null,
      `${fmtMs(alt.wasm)}; ${alt.ratio.toFixed(2)}× (${alt.perRound.map((r) => r.ratio.toFixed(2)).join(', ')})`,
      null,
      null,
      torchCell,
    ]);
  }
  const pr = VARIANTS.map((v) => pageRun(size, v, '1'));
  row(`${label}: the page (worker, evaluations included), ms / step (steps / s)`, [null, ...pr.map((r) => (r ? `${fmtMs(1000 / r.stepsPerSecond)} (${r.stepsPerSecond.toFixed(size === 'small' ? 1 : 2)})` : null)), null, null]);
  if (size === 'small') {
    row(`${label}: the page at full speed, frames / s (worst gap ms)`, [null, ...pr.map((r) => (r ? `${r.fps.toFixed(1)} (${r.worstGap.toFixed(0)})` : null)), null, null]);
    const pageMs = pr[VARIANTS.indexOf(best)] ? 1000 / /** @type {any} */ (pr[VARIANTS.indexOf(best)]).stepsPerSecond : null;
    row(`${label}: the page's relaxed-SIMD trainer (evaluations included) is N× faster than this`, [null, null, null, null, ...[tf('wasm', size), tf('cpu', size)].map((r) => (r && pageMs ? `${(r.msPerStep / pageMs).toFixed(1)}×` : null))]);
  } else {
    const one = pr[VARIANTS.indexOf(best)];
    const two = pageRun(size, best, '2');
    const perRound = one?.rounds && two?.rounds ? two.rounds.map((r, i) => `${(r / /** @type {number[]} */ (one.rounds)[i]).toFixed(2)}×`).join(', ') : '';
    row(`${label}: the page with 2 workers, ms / step (speedup over 1 worker; in each round)`, [
      null,
      null,
      null,
      one && two ? `${fmtMs(1000 / two.stepsPerSecond)} (${(two.stepsPerSecond / one.stepsPerSecond).toFixed(2)}×; ${perRound})` : null,
      null,
      null,
    ]);
  }
}
row('multiply-add peak, GFLOP/s', [null, ...VARIANTS.map((v) => w(v)?.peak.toFixed(1)), null, null]);
/** A row of GFLOP/s, native and per wasm build as a share of that build's peak.
 * @param {string} label @param {number} nativeValue @param {(r: import('./bench-wasm.js').WasmResult) => number} pick */
function gflopsRow(label, nativeValue, pick) {
  row(`${label}, GFLOP/s (% of the build's peak)`, [
    nativeValue.toFixed(1),
    ...VARIANTS.map((v) => {
      const r = w(v);
      return r ? ofPeak(pick(r), r.peak) : null;
    }),
    null,
    null,
  ]);
}
for (const shape of Object.keys(native.gflops)) gflopsRow(`gemm ${shape}`, native.gflops[shape], (r) => r.gflops[shape]);
for (const kc of ['256', '41']) {
  gflopsRow(`micro-kernel alone, depth ${kc} (packed panels in L1, no packing or write-back)`, native.tile[kc], (r) => r.tile[kc]);
}

const rustc = execFileSync('rustc', ['--version'], { encoding: 'utf8' }).trim();
console.log(`# Attention Playground benchmark, ${new Date().toISOString().slice(0, 10)}`);
console.log();
console.log(`- CPU: ${cpus()[0]?.model ?? '?'}, ${cpus().length} cores; one thread unless a row says workers`);
console.log(`- ${rustc}; Chromium ${chromium} (Debian, headless); Node ${process.version}; TensorFlow.js ${tfjs.results[0]?.tfVersion ?? '?'}`);
console.log();
console.log(`| | ${columns.join(' | ')} |`);
console.log(`|---|${columns.map(() => '---:').join('|')}|`);
for (const r of rows) console.log(`| ${r.join(' | ')} |`);
console.log();
console.log('Training step: median time of a step without evaluation (native: median of timings of several steps; wasm: the median of 3 rounds that go round the three builds, each round the median of a few steps of each build; TF.js and PyTorch: median of timed steps after 2 warm-up steps). The page: steps counted on the page while it trains at full speed, evaluation every 10 steps included; at the paper size the relaxed-SIMD build with one and with two workers runs three alternating rounds of 20 s, pooled. Alternating rounds: each round times a few native steps in one process (`bench --steps`), then as many relaxed-SIMD steps in one Chromium page (scripts/bench-interleaved.js), then as many PyTorch steps in one process, after its 2 warm-up steps. GFLOP/s: the products of one sequence (scores, α·h) read its encoder outputs dense, as the step keeps them (B, L, H), and its queries and contexts in the step\'s (L, B, H) buffers, rows 128 row widths apart; (wasm) the best of five passes over the peak and all shapes, 3 timings of each per pass (timed by `performance.now()`), each pass going round the three builds (native: median of 7 timings); the micro-kernel alone is one call on packed panels of that depth, repeated; the peak is 12 independent multiply-add chains (fused in the relaxed-SIMD build), measured the same way.');
for (const n of tfjs.notes) console.log(n);
for (const [size, r] of Object.entries(torch)) {
  const l = r.losses;
  console.log(`PyTorch ${r.torch} (${r.threads} thread), ${size}: the same model in its own modules (nn.LSTM, whose input-weight product runs for every token), loss of the ${l.length}-step run ${l[0].toFixed(4)} → ${l[l.length - 1].toFixed(4)}.`);
}
const failures = [...tfjs.failures, ...torchFailures];
if (failures.length) {
  console.error(`\nFAILED:\n${failures.join('\n')}`);
  process.exit(1);
}
