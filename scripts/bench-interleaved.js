// @ts-check
// The relaxed-SIMD training step against the native one, measured in alternating rounds: a
// round times a few native steps (`bench --steps`, one process) and then as many in Chromium
// (bench/ab.html), so that a busy minute on this shared machine weighs on both sides of the
// ratio alike. Used by scripts/bench.js; alone: node scripts/bench-interleaved.js [PRESET] [ROUNDS]
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';

/** @param {number[]} xs */
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/**
 * Per round, the native and the wasm ms per step and their ratio; and the medians.
 * @param {import('playwright-core').BrowserContext} context
 * @param {string} url  the server's address, ending in /
 * @param {{ preset: string, rounds: number, steps?: number, build?: string }} o  `steps`: per
 *   round and side, by default 3 at the paper size (`easy`) and 20 on the small presets
 */
export async function benchInterleaved(context, url, { preset, rounds, steps = preset === 'easy' ? 3 : 20, build = 'relaxed-simd' }) {
  const page = await context.newPage();
  try {
    // rounds=0: the page loads the build and warms it up (two untimed steps), nothing more.
    await page.goto(`${url}bench/ab.html?${new URLSearchParams({ builds: build, preset, rounds: '0' })}`);
    await page.waitForFunction(() => /** @type {any} */ (window).__ab, null, { timeout: 600_000 });
    const native = () =>
      Number(execFileSync('cargo', ['run', '--quiet', '--release', '--bin', 'bench', '--', '--steps', preset, String(steps)], { encoding: 'utf8' }).trim());
    /** @type {{ native: number, wasm: number, ratio: number }[]} */
    const perRound = [];
    for (let r = 0; r < rounds; r++) {
      const n = native();
      /** @type {number} */
      const wasm = await page.evaluate((s) => /** @type {any} */ (window).__abStep(0, s), steps);
      perRound.push({ native: n, wasm, ratio: wasm / n });
    }
    return {
      preset,
      perRound,
      native: median(perRound.map((r) => r.native)),
      wasm: median(perRound.map((r) => r.wasm)),
      ratio: median(perRound.map((r) => r.ratio)),
    };
  } finally {
    await page.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { startServer, launch } = await import('../tests/e2e/harness.js');
  const [preset = 'easy', rounds = '7'] = process.argv.slice(2);
  const server = await startServer();
  const { browser, context } = await launch();
  try {
    const r = await benchInterleaved(context, server.url, { preset, rounds: Number(rounds) });
    console.log(`# ${preset}: relaxed-SIMD step / native step in ${rounds} alternating rounds, ${browser.version()}`);
    console.log();
    console.log('| round | native ms | relaxed-SIMD ms | ratio |');
    console.log('|---:|---:|---:|---:|');
    r.perRound.forEach((x, i) => console.log(`| ${i + 1} | ${x.native.toFixed(1)} | ${x.wasm.toFixed(1)} | ${x.ratio.toFixed(2)}× |`));
    console.log(`| median | ${r.native.toFixed(1)} | ${r.wasm.toFixed(1)} | ${r.ratio.toFixed(2)}× |`);
  } finally {
    await browser.close();
    server.stop();
  }
}
