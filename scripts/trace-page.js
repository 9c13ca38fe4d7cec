// @ts-check
// Where the page's CPU time goes while it trains at full speed: a Chromium trace of a few
// seconds, summed per process and thread (wall and thread time of each thread's outermost
// top-level tasks), and the main and worker threads' top events.
// Usage: node scripts/trace-page.js [preset] [seconds] [query]
import { startServer, launch } from '../tests/e2e/harness.js';
import { startTraining } from './bench-page.js';

const preset = process.argv[2] ?? 'small-easy';
const seconds = Number(process.argv[3] ?? 5);
const query = process.argv[4] ?? '?variant=relaxed-simd&workers=1';
const server = await startServer();
const { browser, context } = await launch();
try {
  const page = await startTraining(context, server.url, query, preset);
  await browser.startTracing(page, { categories: ['toplevel', 'devtools.timeline', 'v8.execute'] });
  const s0 = await page.evaluate(() => /** @type {any} */ (window).__ap.shown().step);
  await page.waitForTimeout(seconds * 1000);
  const s1 = await page.evaluate(() => /** @type {any} */ (window).__ap.shown().step);
  const trace = JSON.parse((await browser.stopTracing()).toString('utf8'));
  const events = trace.traceEvents ?? trace;
  /** @type {Map<string, string>} */
  const names = new Map();
  for (const e of events) {
    if (e.ph === 'M' && e.name === 'thread_name') names.set(`${e.pid}:${e.tid}`, e.args.name);
    if (e.ph === 'M' && e.name === 'process_name') names.set(`${e.pid}`, e.args.name);
  }
  /** @type {Map<string, { wall: number, cpu: number, n: number }>} */
  const sums = new Map();
  /** @type {Map<string, number>} */
  const byName = new Map();
  // Top-level tasks, each thread's outermost only (a task can run inside another's span:
  // counting both would count its time twice); threads of one name told apart by id.
  const tasks = events.filter((/** @type {any} */ e) => e.ph === 'X' && (e.cat ?? '').includes('toplevel'));
  tasks.sort((/** @type {any} */ a, /** @type {any} */ b) => a.ts - b.ts);
  /** @type {Map<string, number>} */
  const busyUntil = new Map();
  for (const e of tasks) {
    const thread = `${e.pid}:${e.tid}`;
    if (e.ts < (busyUntil.get(thread) ?? -Infinity)) continue;
    busyUntil.set(thread, e.ts + (e.dur ?? 0));
    const key = `${names.get(`${e.pid}`) ?? e.pid} / ${names.get(thread) ?? 'thread'} ${e.tid}`;
    const s = sums.get(key) ?? { wall: 0, cpu: 0, n: 0 };
    s.wall += e.dur ?? 0;
    s.cpu += e.tdur ?? 0;
    s.n += 1;
    sums.set(key, s);
  }
  for (const e of events) {
    if (e.ph !== 'X' || !e.dur) continue;
    const th = names.get(`${e.pid}:${e.tid}`) ?? '';
    if (!/Main|Worker/i.test(th)) continue;
    const k = `${th} ${e.name}`;
    byName.set(k, (byName.get(k) ?? 0) + e.dur);
  }
  console.log(`steps ${s1 - s0} in ${seconds} s: ${((s1 - s0) / seconds).toFixed(1)} steps/s`);
  console.log('| process / thread | tasks | wall ms/s | thread-time ms/s |');
  for (const [k, s] of [...sums].sort((a, b) => b[1].cpu - a[1].cpu).slice(0, 15)) {
    console.log(`| ${k} | ${s.n} | ${(s.wall / 1000 / seconds).toFixed(0)} | ${(s.cpu / 1000 / seconds).toFixed(0)} |`);
  }
  console.log('top events on main/worker threads (wall ms/s, nested ones counted again):');
  for (const [k, v] of [...byName].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`  ${(v / 1000 / seconds).toFixed(1)}  ${k}`);
} finally {
  await browser.close();
  server.stop();
}
