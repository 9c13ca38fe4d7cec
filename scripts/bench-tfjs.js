// @ts-check
// The TensorFlow.js peer benchmark: bench/tfjs.html on the wasm and cpu backends, small and
// paper size. Part of scripts/bench.js; alone it prints its own table.
//
// Usage: node scripts/bench-tfjs.js [--small-only]
// Each run gets a fresh page. Exits non-zero if a run fails or times out, if tensors leak
// across steps, if the two backends disagree on the first losses (same seed, same model), or
// if the loss of the long small run does not fall.
import { pathToFileURL } from 'node:url';
import { startServer, launch } from '../tests/e2e/harness.js';

/**
 * steps: timed steps after the two warm-up ones; budget: seconds of timed steps after which a
 * run stops early (keeping at least one); timeout: the hard cap of the whole run.
 * @type {{ backend: string, size: string, steps: number, budget: number, timeout: number }[]}
 */
const ALL_RUNS = [
  { backend: 'wasm', size: 'small', steps: 60, budget: 240, timeout: 600 },
  { backend: 'cpu', size: 'small', steps: 20, budget: 240, timeout: 600 },
  { backend: 'wasm', size: 'paper', steps: 3, budget: 300, timeout: 1200 },
  { backend: 'cpu', size: 'paper', steps: 3, budget: 300, timeout: 1800 },
];

/** @param {number[]} xs */
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Runs the peer in `context` (served from `url`); returns its results, the checks that
 * failed (a leak, a loss that does not fall, backends that disagree) and notes to print.
 * @param {import('playwright-core').BrowserContext} context @param {string} url
 * @param {{ smallOnly: boolean }} opts */
export async function benchTfjs(context, url, { smallOnly }) {
  const RUNS = ALL_RUNS.filter((r) => !smallOnly || r.size === 'small');
  /** @type {any[]} */
  const results = [];
  /** @type {string[]} */
  const failures = [];
  /** @type {string[]} */
  const notes = [];
  for (const run of RUNS) {
    const label = `${run.backend} ${run.size}`;
    const page = await context.newPage();
    /** @type {string[]} */
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    const origin = new URL(url).origin;
    page.on('request', (r) => {
      const u = r.url();
      if (!u.startsWith(origin) && !u.startsWith('data:') && !u.startsWith('blob:')) errors.push(`fetched from outside: ${u}`);
    });
    const t0 = Date.now();
    try {
      const q = new URLSearchParams({ backend: run.backend, size: run.size, steps: String(run.steps), budget: String(run.budget) });
      await page.goto(`${url}bench/tfjs.html?${q}`, { waitUntil: 'domcontentloaded' });
      await page.waitForFunction(() => /** @type {any} */ (window).__tfjs, null, { timeout: run.timeout * 1000, polling: 500 });
      const r = await page.evaluate(() => /** @type {any} */ (window).__tfjs);
      if (r.error) throw new Error(r.error);
      if (errors.length) throw new Error(errors.join('\n'));
      const n = r.numTensors;
      if (n[n.length - 1] !== n[0]) throw new Error(`tensors leak: ${n.join(' ')}`);
      if (!r.losses.every(Number.isFinite)) throw new Error(`loss not finite: ${r.losses.join(' ')}`);
      results.push(r);
      console.error(`TF.js ${label}: ${r.msPerStep.toFixed(1)} ms/step over ${r.steps} steps (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
    } catch (e) {
      failures.push(`TF.js ${label}: ${e instanceof Error ? e.message : String(e)}`);
      console.error(`TF.js ${label}: FAILED ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      await page.close();
    }
  }
  // The long small run must learn: its last 5 losses below its first 5.
  const long = results.find((r) => r.backend === 'wasm' && r.size === 'small');
  if (long) {
    const first = mean(long.losses.slice(0, 5));
    const last = mean(long.losses.slice(-5));
    notes.push(`TF.js: loss of the ${long.losses.length}-step small wasm run: mean of the first 5 ${first.toFixed(4)}, of the last 5 ${last.toFixed(4)}.`);
    if (!(last < first)) failures.push(`TF.js: the loss did not fall: ${first} → ${last}`);
  } else {
    failures.push('TF.js: no small wasm run to check that the loss falls');
  }
  // Same seed, same model: the two backends must agree on the first steps' losses.
  for (const size of ['small', 'paper']) {
    const w = results.find((r) => r.backend === 'wasm' && r.size === size);
    const c = results.find((r) => r.backend === 'cpu' && r.size === size);
    if (!w || !c) continue;
    const k = Math.min(3, w.losses.length, c.losses.length);
    const diff = Math.max(...w.losses.slice(0, k).map((/** @type {number} */ x, /** @type {number} */ i) => Math.abs(x - c.losses[i])));
    notes.push(`TF.js ${size}: the wasm and cpu backends' first ${k} losses differ by at most ${diff.toExponential(1)}.`);
    if (!(diff < 1e-3)) failures.push(`TF.js ${size}: the backends disagree on the loss (${diff})`);
  }
  return { results, failures, notes };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const server = await startServer();
  const { browser, context } = await launch();
  let failures = [];
  try {
    const out = await benchTfjs(context, server.url, { smallOnly: process.argv.includes('--small-only') });
    failures = out.failures;
    const tfVersion = out.results[0]?.tfVersion ?? '?';
    console.log(`# TensorFlow.js ${tfVersion} peer, ${browser.version()} (headless), one thread`);
    console.log();
    console.log('| backend | SIMD | size | ms/step | steps/s | loss first→last (steps) |');
    console.log('|---|---|---|---:|---:|---|');
    for (const r of out.results) {
      const simd = r.backend === 'wasm' ? (r.simd ? 'yes' : 'no') : '— (JS)';
      const l = r.losses;
      const size = `${r.size} (V ${r.V}, L ${r.L}, H ${r.H}, B ${r.B})`;
      const lossCol = `${l[0].toFixed(3)} → ${l[l.length - 1].toFixed(3)} (${l.length})`;
      console.log(`| ${r.backend} | ${simd} | ${size} | ${r.msPerStep.toFixed(r.msPerStep < 1000 ? 1 : 0)} | ${(1000 / r.msPerStep).toFixed(3)} | ${lossCol} |`);
    }
    console.log();
    console.log('ms/step: median over the timed steps, after 2 warm-up steps; losses include the warm-up steps.');
    for (const n of out.notes) console.log(n);
  } finally {
    await browser.close();
    server.stop();
  }
  if (failures.length) {
    console.error(`\nFAILED:\n${failures.join('\n')}`);
    process.exit(1);
  }
}
