// @ts-check
// The soak: the page trains at full speed for ten minutes (or --minutes N) in headless
// Chromium, evaluating every step so that the run's series fill and thin many times over,
// and prints a row a minute: the step, steps/s over the minute, the page's and the trainer
// worker's JS heap after a full collection, the wasm memory, the evaluations kept, and the
// frames per second with the worst gap between frames over five seconds (the charts
// redrawn with the whole history on them). It ends with whether each stayed flat after
// the first minute's warm-up. Not part of the test command (too long for it).
//
//   node scripts/soak.js [--minutes 10] [--query '?speed=1000&eval_every=1&eval_batch=8']
import { startServer, launch, shownRun, option } from '../tests/e2e/harness.js';

const minutes = Number(option('--minutes', '10'));
const query = option('--query', '?speed=1000&eval_every=1&eval_batch=8');

const server = await startServer();
const { browser } = await launch();
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  /** @type {string[]} */
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(server.url + query);
  await shownRun(page);
  const cdp = await page.context().newCDPSession(page);
  // The trainer's worker, through the page's session (messages to an attached target).
  const { targetInfos } = /** @type {any} */ (await cdp.send('Target.getTargets'));
  const target = targetInfos.find((/** @type {any} */ t) => t.type === 'worker' && t.url.endsWith('/www/training/worker.js'));
  const { sessionId } = /** @type {any} */ (await cdp.send('Target.attachToTarget', { targetId: target.targetId, flatten: false }));
  let nextId = 1;
  /** @type {Map<number, (r: any) => void>} */
  const replies = new Map();
  cdp.on('Target.receivedMessageFromTarget', (/** @type {any} */ e) => {
    const m = JSON.parse(e.message);
    replies.get(m.id)?.(m.result);
    replies.delete(m.id);
  });
  /** @param {string} method @returns {Promise<any>} */
  const inWorker = (method) => new Promise((resolve) => {
    const id = nextId++;
    replies.set(id, resolve);
    void cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method }) });
  });

  const sample = async () => {
    await cdp.send('HeapProfiler.collectGarbage');
    const page0 = /** @type {any} */ (await cdp.send('Runtime.getHeapUsage')).usedSize;
    await inWorker('HeapProfiler.enable');
    await inWorker('HeapProfiler.collectGarbage');
    const worker = (await inWorker('Runtime.getHeapUsage')).usedSize;
    const s = await page.evaluate(() => /** @type {any} */ (window).__ap.shown());
    const evaluations = await page.evaluate(() => /** @type {any} */ (window).__ap.history().length);
    const fps = await page.evaluate(() => new Promise((resolve) => {
      let frames = 0;
      let worst = 0;
      let last = performance.now();
      const start = last;
      const tick = (/** @type {number} */ t) => {
        worst = Math.max(worst, t - last);
        last = t;
        frames++;
        if (t - start < 5000) requestAnimationFrame(tick);
        else resolve({ fps: (frames * 1000) / (t - start), worst });
      };
      requestAnimationFrame(tick);
    }));
    return { t: Date.now(), step: s.step, page: page0, worker, wasm: s.memory, evaluations, ...(/** @type {any} */ (fps)) };
  };

  await page.click('#play');
  /** @type {{ t: number, step: number, page: number, worker: number, wasm: number, evaluations: number,
   *   fps: number, worst: number, rate: number }[]} */
  const rows = [];
  const mb = (/** @type {number} */ b) => (b / 1048576).toFixed(2);
  console.log('| minute | step | steps/s | page heap MB | worker heap MB | wasm MB | evaluations | fps | worst gap ms |');
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  const t0 = Date.now();
  for (let m = 1; m <= minutes; m++) {
    await page.waitForTimeout(Math.max(0, t0 + m * 60_000 - Date.now()));
    const r = await sample();
    const prev = rows[rows.length - 1];
    const rate = prev ? ((r.step - prev.step) * 1000) / (r.t - prev.t) : NaN;
    rows.push({ ...r, rate });
    console.log(`| ${m} | ${r.step} | ${Number.isNaN(rate) ? '–' : rate.toFixed(1)} | ${mb(r.page)} | ${mb(r.worker)} | ${mb(r.wasm)} | ${r.evaluations} | ${r.fps.toFixed(1)} | ${r.worst.toFixed(1)} |`);
  }
  await page.click('#play');
  // After the first minute's warm-up.
  const after = rows.slice(1);
  const spread = (/** @type {number[]} */ xs) => Math.max(...xs) - Math.min(...xs);
  const rates = after.map((r) => r.rate).filter((x) => Number.isFinite(x));
  console.log('');
  console.log(`page heap: ${mb(Math.min(...after.map((r) => r.page)))}–${mb(Math.max(...after.map((r) => r.page)))} MB (spread ${mb(spread(after.map((r) => r.page)))} MB)`);
  console.log(`worker heap: ${mb(Math.min(...after.map((r) => r.worker)))}–${mb(Math.max(...after.map((r) => r.worker)))} MB (spread ${mb(spread(after.map((r) => r.worker)))} MB)`);
  console.log(`wasm memory: ${[...new Set(after.map((r) => r.wasm))].map(mb).join(', ')} MB`);
  if (rates.length > 1) console.log(`steps/s: first minute after warm-up ${rates[0].toFixed(1)}, last ${rates[rates.length - 1].toFixed(1)} (ratio ${(rates[rates.length - 1] / rates[0]).toFixed(3)})`);
  console.log(`fps: ${Math.min(...after.map((r) => r.fps)).toFixed(1)}–${Math.max(...after.map((r) => r.fps)).toFixed(1)}; worst gap ${Math.max(...after.map((r) => r.worst)).toFixed(1)} ms`);
  console.log(`uncaught errors: ${errors.length}${errors.length ? `: ${errors.slice(0, 3).join('; ')}` : ''}`);
} finally {
  await browser.close();
  server.stop();
}
