// @ts-check
// Where a wasm build's training step spends its time: V8's sampling profiler (over the
// DevTools protocol) while bench/ab.html times the step, as a table of self time per function
// (V8 inlines small wasm functions into their callers, so a kernel may count under its
// caller; the trainer's construction and first evaluation, a few per cent, are in the
// sample too). Usage: node scripts/profile.js [BUILD] [PRESET] [STEPS]   (BUILD: a directory of
// pkg/, default relaxed-simd, read as its bench build pkg/bench-relaxed-simd; PRESET default
// easy, the paper size; scripts/build --bench first)
import { startServer, launch } from '../tests/e2e/harness.js';

const [build = 'relaxed-simd', preset = 'easy', steps = '5'] = process.argv.slice(2);
const server = await startServer();
const { browser, context } = await launch();
try {
  const page = await context.newPage();
  await page.goto(`${server.url}bench/ab.html?${new URLSearchParams({ builds: build, preset, rounds: '0' })}`);
  await page.waitForFunction(() => /** @type {any} */ (window).__ab, null, { timeout: 600_000 });
  const cdp = await context.newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 }); // µs
  await cdp.send('Profiler.start');
  /** @type {number} */
  const ms = await page.evaluate((n) => /** @type {any} */ (window).__abStep(0, n), Number(steps));
  const { profile } = await cdp.send('Profiler.stop');
  /** @type {Map<number, number>} sample node id → µs */
  const perNode = new Map();
  profile.samples?.forEach((id, i) => perNode.set(id, (perNode.get(id) ?? 0) + (profile.timeDeltas?.[i] ?? 0)));
  /** @type {Map<string, number>} function → µs of self time */
  const self = new Map();
  let total = 0;
  for (const n of profile.nodes) {
    const t = perNode.get(n.id) ?? 0;
    total += t;
    const name = n.callFrame.functionName.replace(/::h[0-9a-f]{16}$/, '') || '(anonymous)';
    self.set(name, (self.get(name) ?? 0) + t);
  }
  console.log(`# ${build}, preset ${preset}: ${ms.toFixed(1)} ms / step (median); ${(total / 1000).toFixed(0)} ms sampled, ${browser.version()}`);
  console.log();
  console.log('| self time | function |');
  console.log('|---:|---|');
  for (const [name, t] of [...self].sort((a, b) => b[1] - a[1]).filter(([, t]) => t / total >= 0.002)) {
    console.log(`| ${((100 * t) / total).toFixed(1)}% | \`${name}\` |`);
  }
} finally {
  await browser.close();
  server.stop();
}
