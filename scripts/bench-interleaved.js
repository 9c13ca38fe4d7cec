// @ts-check
// The relaxed-SIMD training step against the native one, measured in alternating rounds: a
// round times a few native steps (`bench --steps`, one process), then as many in Chromium
// (bench/ab.html) and, given a Python with PyTorch, as many of the PyTorch reference
// (bench/torch_step.py, one process), so that a busy minute on this shared machine weighs on
// every side of the ratios alike. Used by scripts/bench.js; alone:
// node scripts/bench-interleaved.js [PRESET] [ROUNDS] [PYTHON]
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';

/** @param {number[]} xs */
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/** The size of bench/torch_step.py that matches a preset, if it has one. @param {string} preset */
const torchSize = (preset) => ({ easy: 'paper', 'small-easy': 'small' })[preset];

/** Median ms per step of `steps` timed steps of the PyTorch reference (after two warm-up
 * ones), and its losses. @param {string} python @param {string} size @param {number} steps */
export function torchSteps(python, size, steps) {
  const out = execFileSync(python, ['bench/torch_step.py', size, String(steps)], { encoding: 'utf8' }).trim();
  return /** @type {{ msPerStep: number, losses: number[], torch: string, threads: number }} */ (JSON.parse(out));
}

/**
 * Per round, the native, the wasm and (with `python`) the PyTorch ms per step and the wasm
 * step's ratios to them; and the medians.
 * @param {import('playwright-core').BrowserContext} context
 * @param {string} url  the server's address, ending in /
 * @param {{ preset: string, rounds: number, steps?: number, build?: string, python?: string }} o
 *   `steps`: per round and side, by default 3 at the paper size (`easy`) and 20 on the small
 *   presets; `build`: for bench/ab.html, by default relaxed-simd (its benchmark build,
 *   pkg/bench-relaxed-simd); `python`: a Python with PyTorch, for presets bench/torch_step.py has
 */
export async function benchInterleaved(context, url, { preset, rounds, steps = preset === 'easy' ? 3 : 20, build = 'relaxed-simd', python }) {
  const page = await context.newPage();
  try {
    // rounds=0: the page loads the build and warms it up (two untimed steps), nothing more.
    await page.goto(`${url}bench/ab.html?${new URLSearchParams({ builds: build, preset, rounds: '0' })}`);
    await page.waitForFunction(() => /** @type {any} */ (window).__ab, null, { timeout: 600_000 });
    const native = () =>
      Number(execFileSync('cargo', ['run', '--quiet', '--release', '--features', 'bench', '--bin', 'bench', '--', '--steps', preset, String(steps)], { encoding: 'utf8' }).trim());
    const size = torchSize(preset);
    /** @type {{ native: number, wasm: number, ratio: number, torch: number | null, torchRatio: number | null }[]} */
    const perRound = [];
    for (let r = 0; r < rounds; r++) {
      const n = native();
      /** @type {number} */
      const wasm = await page.evaluate((s) => /** @type {any} */ (window).__abStep(0, s), steps);
      const torch = python && size ? torchSteps(python, size, steps).msPerStep : null;
      perRound.push({ native: n, wasm, ratio: wasm / n, torch, torchRatio: torch ? wasm / torch : null });
    }
    const torchRounds = perRound.filter((r) => r.torch != null);
    return {
      preset,
      perRound,
      native: median(perRound.map((r) => r.native)),
      wasm: median(perRound.map((r) => r.wasm)),
      ratio: median(perRound.map((r) => r.ratio)),
      torch: torchRounds.length ? median(torchRounds.map((r) => /** @type {number} */ (r.torch))) : null,
      torchRatio: torchRounds.length ? median(torchRounds.map((r) => /** @type {number} */ (r.torchRatio))) : null,
    };
  } finally {
    await page.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { startServer, launch } = await import('../tests/e2e/harness.js');
  const [preset = 'easy', rounds = '7', python] = process.argv.slice(2);
  const server = await startServer();
  const { browser, context } = await launch();
  try {
    const r = await benchInterleaved(context, server.url, { preset, rounds: Number(rounds), python });
    /** @param {number | null} x @param {string} unit */
    const f = (x, unit) => (x == null ? '–' : `${x.toFixed(unit === '×' ? 2 : 1)}${unit}`);
    console.log(`# ${preset}: relaxed-SIMD step / native (and PyTorch) step in ${rounds} alternating rounds, ${browser.version()}`);
    console.log();
    console.log('| round | native ms | relaxed-SIMD ms | ratio | PyTorch ms | relaxed-SIMD ÷ PyTorch |');
    console.log('|---:|---:|---:|---:|---:|---:|');
    r.perRound.forEach((x, i) => console.log(`| ${i + 1} | ${f(x.native, '')} | ${f(x.wasm, '')} | ${f(x.ratio, '×')} | ${f(x.torch, '')} | ${f(x.torchRatio, '×')} |`));
    console.log(`| median | ${f(r.native, '')} | ${f(r.wasm, '')} | ${f(r.ratio, '×')} | ${f(r.torch, '')} | ${f(r.torchRatio, '×')} |`);
  } finally {
    await browser.close();
    server.stop();
  }
}
