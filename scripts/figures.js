// The figures generator: reads the result files in results/ and writes www/labs/figures.js,
// every figure over seeds that a lab's texts (budgets, story steps) quote, each with the
// files it came from. A text names a figure as {lab.name}; www/labs/quote.js fills it in.
// It also writes the docs' tables of the labs' budget claims and of the scaling runs' m*
// (between <!-- figures:NAME --> markers). `node scripts/figures.js` writes them; `--check`
// exits 1 when a committed one differs from what the results give
// (tests/unit/figures-file.test.js holds them too).

import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
export const OUT = 'www/labs/figures.js';

/**
 * A result CSV's rows as objects of numbers (strings where a field is not a number).
 * @param {string} file relative to the repository
 * @returns {Record<string, number>[]}
 */
function csv(file) {
  const [head, ...lines] = readFileSync(root + file, 'utf8').trim().split('\n');
  const keys = head.split(',');
  return lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [keys[i], Number(v)])));
}

/**
 * Each seed's rows by step, of a reproduce CSV (seed, step, metrics…) or several.
 * @param {string[]} files
 * @returns {Map<number, Record<string, number>[]>}
 */
function seeds(files) {
  /** @type {Map<number, Record<string, number>[]>} */
  const by = new Map();
  for (const f of files) {
    for (const r of csv(f)) {
      if (!by.has(r.seed)) by.set(r.seed, []);
      /** @type {Record<string, number>[]} */ (by.get(r.seed)).push(r);
    }
  }
  for (const rows of by.values()) rows.sort((a, b) => a.step - b.step);
  return by;
}

/** "k of n". @param {number} k @param {number} n */
const of = (k, n) => `${k} of ${n}`;
/** "a–b", or "a" when equal; `f` formats each end, `unit` follows. @param {number[]} xs @param {(x: number) => string} f @param {string} unit */
const range = (xs, f = String, unit = '') => {
  const lo = f(Math.min(...xs));
  const hi = f(Math.max(...xs));
  return (lo === hi ? lo : `${lo}–${hi}`) + unit;
};
/** A share as a whole percentage, without its sign. @param {number} x */
const pct = (x) => String(Math.round(100 * x));
/** Two decimals. @param {number} x */
const two = (x) => x.toFixed(2);

/** The first row at which `key` reaches `at` (≥), up to `steps`. @param {Record<string, number>[]} rows @param {string} key @param {number} at @param {number} steps */
const first = (rows, key, at, steps) => rows.find((r) => r.step <= steps && r[key] >= at);
/** The row at `step` (the last one at or before it). @param {Record<string, number>[]} rows @param {number} step */
const at = (rows, step) => /** @type {Record<string, number>} */ (rows.filter((r) => r.step <= step).at(-1));

/** Each law's R² on m*, as a scaling .txt gives it, by the law's name. @param {string} text */
const lawsR2 = (text) => Object.fromEntries([...text.matchAll(/^ {2}(log T|linear in T|power of T) +.*R\^2 ([\d.]+)/gm)].map((m) => [m[1], m[2]]));

/**
 * What a scaling .txt (scaling's output) says of the laws: each law's R² on m*, the law
 * closest on every length, the power law's exponent over resamples (median, 5th, 95th
 * percentile), the length the held-out check fits up to, each law's RMS relative error on
 * the longer lengths (best first), the law that predicted them best, and how often
 * resamples pick each law (the tool's words).
 * @param {string} file
 */
export function verdictOf(file) {
  const text = readFileSync(root + file, 'utf8');
  /** @param {RegExp} re */
  const find = (re) => {
    const m = re.exec(text);
    if (!m) throw new Error(`${file}: no ${re}`);
    return m;
  };
  const exponent = find(/power of T +exponent ([\d.]+) \(90%: ([\d.]+)–([\d.]+)\)/);
  const verdict = find(/In words: fitted to T <= (\d+), (log T|power of T|linear in T) predicted the longer lengths best/);
  return {
    r2: lawsR2(text),
    closest: find(/closest on these lengths: (.+)/)[1],
    exponent: exponent.slice(1, 4),
    upto: verdict[1],
    rms: [...text.matchAll(/^ {2}(log T|linear in T|power of T) +T \d.*RMS ([\d.]+)/gm)].map((m) => `${m[1]} ${m[2]}`),
    best: verdict[2],
    picks: find(/held-out check \(fitted to T <= \d+\) picks (.*)/)[1],
  };
}

/** @typedef {{ text: string, from: string[], what: string }} Figure */

/** @returns {Record<string, Figure>} */
export function figures() {
  /** @type {Record<string, Figure>} */
  const out = {};
  /** @param {string} key @param {string} text @param {string[]} from @param {string} what */
  const put = (key, text, from, what) => {
    out[key] = { text, from, what };
  };

  // Copying: a preset's seeds reaching token accuracy 0.99 within its budget, and when.
  /** @param {string} name @param {string[]} files @param {number} steps */
  const reached = (name, files, steps) => {
    const by = seeds(files);
    const hits = [...by.values()].map((rows) => first(rows, 'token_acc', 0.99, steps)).filter((r) => r !== undefined);
    put(`copying.${name}.reached`, of(hits.length, by.size), files, `seeds whose token accuracy reached 0.99 by step ${steps}`);
    if (hits.length) put(`copying.${name}.reached-steps`, range(hits.map((r) => r.step)), files, 'the steps at which they first did');
    return by;
  };
  reached('small-easy', ['results/small-easy.csv'], 400);
  const hard = reached('small-hard', ['results/small-hard.csv'], 400);
  {
    const failed = [...hard.values()].filter((rows) => !first(rows, 'token_acc', 0.99, 400)).map((rows) => at(rows, 400));
    const stalled = failed.filter((r) => r.attention_acc < 0.2);
    const from = ['results/small-hard.csv'];
    put('copying.small-hard.stalled', String(stalled.length), from, 'seeds that did not reach 0.99 by step 400 with attention accuracy below 0.2 there');
    put('copying.small-hard.stalled-attention', range(stalled.map((r) => r.attention_acc), pct, '%'), from, 'their attention accuracy at step 400');
    put('copying.small-hard.stalled-token', range(stalled.map((r) => r.token_acc), pct, '%'), from, 'their token accuracy at step 400');
    put('copying.small-hard.learning', String(failed.length - stalled.length), from, 'seeds that did not reach 0.99 by step 400 with attention accuracy 0.2 or more there');
    // Of the seeds whose attention accuracy passed 0.5 by step 400, those whose KTIW accuracy
    // had passed it strictly before.
    const passes = [...hard.values()].map((rows) => ({
      k: first(rows, 'ktiw_acc', 0.5 + 1e-9, 400), a: first(rows, 'attention_acc', 0.5 + 1e-9, 400),
    })).filter((p) => p.a);
    const led = passes.filter((p) => p.k && p.a && p.k.step < p.a.step).length;
    put('copying.small-hard.ktiw-led', of(led, passes.length), from, 'of the seeds whose attention accuracy passed 0.5 by step 400, those whose KTIW accuracy passed it strictly before');
  }
  {
    const files = ['results/small-uniform.csv'];
    const by = seeds(files);
    for (const steps of [200, 400]) {
      const passed = [...by.values()].map((rows) => first(rows, 'ktiw_acc', 0.5 + 1e-9, steps)).filter((r) => r !== undefined);
      put(`copying.small-uniform.ktiw-passed-${steps}`, of(passed.length, by.size), files, `seeds whose KTIW accuracy passed 0.5 by step ${steps} (uniform attention)`);
      put(`copying.small-uniform.ktiw-steps-${steps}`, range(passed.map((r) => r.step)), files, 'the steps at which it first did');
    }
    for (const step of [200, 400]) {
      put(`copying.small-uniform.token-${step}`, range([...by.values()].map((rows) => at(rows, step).token_acc), pct, '%'), files, `token accuracy at step ${step} over the seeds`);
    }
  }
  {
    const by = reached('small-reverse', ['results/small-reverse.csv'], 400);
    const near0 = [...by.values()].filter((rows) => at(rows, 400).attention_acc <= 0.001).length;
    put('copying.small-reverse.attention-near-0', of(near0, by.size), ['results/small-reverse.csv'], 'seeds whose attention accuracy at step 400 is at most 0.001');
  }
  {
    const files = ['results/small-translate.csv'];
    const by = reached('small-translate', files, 400);
    const ktiwFirst = [...by.values()].filter((rows) => {
      const k = first(rows, 'ktiw_acc', 0.5 + 1e-9, 400);
      const a = first(rows, 'attention_acc', 0.5 + 1e-9, 400);
      return k && (!a || k.step < a.step);
    }).length;
    put('copying.small-translate.ktiw-first', of(ktiwFirst, by.size), files, 'seeds whose KTIW accuracy passed 0.5 strictly before attention accuracy did, by step 400');
  }
  /** Seeds whose attention accuracy at `steps` is below 0.2. @param {string} key @param {string} file @param {number} steps */
  const stuck = (key, file, steps) => {
    const by = seeds([file]);
    const n = [...by.values()].filter((rows) => at(rows, steps).attention_acc < 0.2).length;
    put(key, of(n, by.size), [file], `seeds whose attention accuracy at step ${steps} is below 0.2`);
  };
  reached('small-heads', ['results/small-heads-600.csv'], 600);
  reached('small-hard-600', ['results/small-hard-600.csv'], 600);
  stuck('copying.small-heads.stuck', 'results/small-heads-600.csv', 600);
  stuck('copying.small-hard-600.stuck', 'results/small-hard-600.csv', 600);
  reached('easy', ['results/paper-easy.csv'], 200);
  {
    const files = ['results/paper-hard.csv', 'results/paper-hard-5-19.csv', 'results/paper-hard-20-39.csv'];
    const by = reached('hard', files, 200);
    const failed = [...by.values()].filter((rows) => !first(rows, 'token_acc', 0.99, 200));
    put('copying.hard.others-190', range(failed.map((rows) => at(rows, 190).token_acc), pct, '%'), files, 'token accuracy at step 190 of the seeds that did not reach 0.99 by step 200');
    const rising = failed.filter((rows) => at(rows, 200).token_acc > at(rows, 100).token_acc).length;
    put('copying.hard.others-rising', of(rising, failed.length), files, 'of those, the seeds whose token accuracy at step 200 is above that at step 100');
  }
  {
    const files = ['results/uf-small-easy.csv'];
    const rows = csv(files[0]).filter((r) => r.step === 400);
    put('copying.uf.seeds', range(rows.map((r) => r.seed)), files, 'the seeds of the agreement runs');
    put('copying.uf.agreement-400', range(rows.map((r) => r.agreement_uf), two), files, 'top-5% agreement of the learned attention with β^uf at step 400');
    put('copying.uf.chance-400', range(rows.map((r) => r.agreement_uf_shuffled), two), files, 'the same with β^uf shuffled (chance) at step 400');
  }

  // Sparse: each preset's 20 seeds at its budget (scaling --samples at the preset's size).
  /** @param {string} name @param {string} key @param {string} what @param {(r: Record<string, number>) => boolean} test */
  const count = (name, key, what, test) => {
    const file = `results/sparse-budget-${name}.csv`;
    const rows = csv(file);
    put(`sparse.${name}.${key}`, of(rows.filter(test).length, rows.length), [file], what);
    return rows;
  };
  for (const name of ['and-3', 'and-3-one-head', 'majority-3']) {
    const rows = count(name, 'test-100', 'seeds whose test accuracy is 1 at the budget', (r) => r.test_acc >= 1);
    put(`sparse.${name}.mass`, range(rows.map((r) => r.mass), pct, '%'), [`results/sparse-budget-${name}.csv`], 'attention on the hidden positions at the budget, over the seeds');
  }
  count('and-3-few', 'train-100', 'seeds whose train accuracy is 1 at the budget', (r) => r.train_acc >= 1);
  count('and-3-few', 'test-below-90', 'seeds whose test accuracy is below 0.9 at the budget', (r) => r.test_acc < 0.9);
  count('and-3-few', 'test-100', 'seeds whose test accuracy is 1 at the budget', (r) => r.test_acc >= 1);
  count('and-3-few', 'found', 'seeds whose three most attended positions are the hidden ones at the budget', (r) => r.found === 1);
  count('parity-2', 'reached', 'seeds whose test accuracy reached 0.95 at the budget', (r) => r.test_acc >= 0.95);
  {
    const rows = csv('results/sparse-budget-parity-2.csv');
    put('sparse.parity-2.plateau', of(rows.filter((r) => r.test_acc < 0.6).length, rows.length), ['results/sparse-budget-parity-2.csv'], 'seeds whose test accuracy is below 0.6 at the budget (on the plateau)');
  }
  // Sparse: the scaling law per function, as `scaling merge` wrote it into each .txt (its
  // bootstrap over seeds and its held-out check; src/bin/scaling.rs).
  for (const [name, stem] of [['and-3', 'and3'], ['majority-3', 'majority3']]) {
    const file = `results/sparse-scaling-${stem}-1024.txt`;
    const v = verdictOf(file);
    const [mid, lo, hi] = v.exponent.map((x) => Number(x).toFixed(2));
    put(`sparse.scaling.${name}.exponent`, `${mid}, 90% interval ${lo}–${hi}`, [file],
      'the power law\'s exponent of m* against T over T ≤ 1,024: bootstrap median and 90% interval over the seeds');
    put(`sparse.scaling.${name}.held-out`, v.best, [file], `the law that, fitted to T ≤ ${v.upto}, predicted the longer lengths best`);
    /** @param {string} law */
    const share = (law) => {
      const m = new RegExp(`${law} in (\\d+%)`).exec(v.picks);
      if (!m) throw new Error(`${file}: no share of ${law}`);
      return m[1];
    };
    put(`sparse.scaling.${name}.held-out-share`, share(v.best), [file], 'the resamples of the seeds in which the held-out check picks that law');
    put(`sparse.scaling.${name}.power-share`, share('power of T'), [file], 'the resamples of the seeds in which the held-out check picks the power law');
    put(`sparse.scaling.${name}.log-share`, share('log T'), [file], 'the resamples of the seeds in which the held-out check picks log T');
    put(`sparse.scaling.${name}.not-fitted`, share('not fitted'), [file], 'the resamples of the seeds in which a length lost its m* (not fitted)');
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * The table of a scaling .txt (scaling's output): each length's m*, the largest size that
 * failed, the 75% rule, the logistic m50 with its interval, and the largest size tried.
 * @param {string} file
 * @returns {Map<number, { m: string, failed: string, m75: string, m50: string, limit: string, tried: number, counts: string }>}
 */
export function scalingRows(file) {
  const out = new Map();
  for (const line of readFileSync(root + file, 'utf8').split('\n')) {
    const f = line.trim().split(/\s{2,}/);
    if (f.length !== 7 || !/^\d+$/.test(f[0])) continue;
    const tried = Math.max(...f[6].split(' ').map((c) => Number(c.split(':')[0])));
    out.set(Number(f[0]), { m: f[1], failed: f[2], m75: f[3], m50: f[4], limit: f[5], tried, counts: f[6] });
  }
  if (out.size === 0) throw new Error(`${file}: no table of m*`);
  return out;
}

/** A number as the docs write it: 1,024. @param {number | string} x */
const big = (x) => (/^\d+$/.test(String(x)) ? Number(x).toLocaleString('en') : String(x));

/**
 * A markdown table of m* against T from scaling's .txt files: one column a file, each cell
 * m* (the median rule) with the size that failed below it, or "none up to M"; with
 * `m50`, the logistic m50 and its 90% interval beside it.
 * @param {{ title: string, file: string }[]} columns @param {{ m50?: boolean, limit?: boolean }} options
 */
export function scalingTable(columns, { m50 = false, limit = false } = {}) {
  const tables = columns.map((c) => scalingRows(c.file));
  const lengths = [...new Set(tables.flatMap((t) => [...t.keys()]))].sort((a, b) => a - b);
  const head = ['`T`', ...columns.flatMap((c) => (m50 ? [`${c.title}: \`m*\` (failed)`, `${c.title}: \`m50\` (90%)`] : [c.title]))];
  if (limit) head.push('`log2 C(T, 3)`');
  const rows = lengths.map((t) => {
    const cells = tables.flatMap((table) => {
      const r = table.get(t);
      if (!r) return m50 ? ['not run', ''] : ['not run'];
      const m = r.m === 'none' ? `none up to ${big(r.tried)}` : m50 ? `${r.m} (${r.failed})` : r.m;
      return m50 ? [m, r.m50.replace('[', '(').replace(']', ')')] : [m];
    });
    const row = [big(t), ...cells];
    if (limit) row.push(tables[0].get(t)?.limit ?? '');
    return `| ${row.join(' | ')} |`;
  });
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---:').join('|')}|`, ...rows].join('\n');
}

/**
 * The page's experiment as the native tool runs it (seeds 0–4, T = 8…256): its m* and the
 * three laws' R² on them, from the .txt, for the docs.
 * @param {string} file
 */
export function pageExperiment(file) {
  const rows = scalingRows(file);
  const text = readFileSync(root + file, 'utf8');
  const laws = Object.entries(lawsR2(text)).map(([law, r2]) => ({ law, r2 })).sort((a, b) => Number(b.r2) - Number(a.r2));
  return `\`${file.replace('.txt', '.{csv,txt}')}\` (\`scaling --preset and-3 --lengths 8,16,32,64,128,256 --seeds 0-4\`): `
    + `m* = ${[...rows.values()].map((r) => r.m).join(', ')} for \`T\` = ${[...rows.keys()].join(', ')}; on these points `
    + `${laws.map((l, i) => `${i === 0 ? '' : i === laws.length - 1 ? 'and ' : ''}${l.law} ${i === 0 ? 'fits best, ' : ''}R² ${l.r2}`).join(', ')}.`;
}

/**
 * One scaling run's table with its split: each length's m* (and the size that failed), its
 * m50 and interval, and how many seeds reached the threshold at each size tried.
 * @param {string} file
 */
export function splitTable(file) {
  const rows = [...scalingRows(file)].map(([t, r]) => {
    const counts = r.counts.split(' ').map((c) => {
      const [m, k] = c.split(':');
      return `${big(m)}: ${k.split('/')[0]}`;
    }).join(', ');
    const m = r.m === 'none' ? `none up to ${big(r.tried)}` : `${r.m} (${r.failed})`;
    return `| ${big(t)} | ${m} | ${r.m50.replace('[', '(').replace(']', ')')} | ${counts} |`;
  });
  const n = /(\d+) seeds/.exec(readFileSync(root + file, 'utf8'))?.[1];
  return [`| \`T\` | \`m*\` (failed) | \`m50\` (90%) | seeds of ${n} reaching 0.95, at each size tried |`, '|---:|---:|---:|---|', ...rows].join('\n');
}

/**
 * The laws' verdicts of scaling runs side by side, from their .txt: the law closest on every
 * length (R² on m*), the power law's exponent over resamples of the seeds, the law that,
 * fitted to the shorter lengths, predicted the longer ones best, and how often resamples
 * pick each law.
 * @param {{ title: string, file: string }[]} columns
 */
export function verdictTable(columns) {
  const cells = columns.map(({ file }) => {
    const v = verdictOf(file);
    const others = Object.keys(v.r2).filter((l) => l !== v.closest).map((l) => `${l} ${v.r2[l]}`).join(', ');
    const [mid, lo, hi] = v.exponent;
    return [`${v.closest}, ${v.r2[v.closest]} (${others})`, `${mid} (${lo}–${hi})`, `**${v.best}** (${v.rms.join('; ')})`, v.picks];
  });
  const rows = [
    'closest on every length (R² on `m*`)',
    'power law\'s exponent over resamples: median (5th–95th percentile)',
    'fitted to the lengths up to 256, best on the longer ones (RMS relative error)',
    'resamples of the seeds in which the held-out check picks each law',
  ].map((what, i) => `| ${what} | ${cells.map((c) => c[i]).join(' | ')} |`);
  return [`| | ${columns.map((c) => c.title).join(' | ')} |`, `|---|${columns.map(() => '---').join('|')}|`, ...rows].join('\n');
}

/** The native run of the page's experiment, which tests/e2e/sparse.test.js compares with the page's. */
export const PAGE_EXPERIMENT = 'results/sparse-scaling-and3-5seeds-256.txt';

/** A function's three protocols side by side (its results' stem: and3, majority3).
 * @param {string} stem @returns {[string, { title: string, file: string }[], {}]} */
const protocols = (stem) => [`sparse-scaling-${stem}-protocols`, [
  ['learned codes, no decay (the default)', ''],
  ['learned codes, weight decay 1 of the matrices', '-wd1'],
  ['sinusoidal codes, no decay', '-sinusoidal'],
].map(([title, variant]) => ({ title, file: `results/sparse-scaling-${stem}${variant}-1024.txt` })), {}];

/** A function's m* with no decay and with each decay measured (λ = 1 on the matrices,
 * λ = 1 and 0.1 on all but the biases). @param {string} stem @returns {[string, { title: string, file: string }[], {}]} */
const decayScope = (stem) => [`sparse-scaling-decay-scope-${stem}`, [
  ['no decay', ''], ['λ = 1 on the matrices', '-wd1'], ['λ = 1 on all but biases', '-wd1-all'], ['λ = 0.1 on all but biases', '-wd0.1-all'],
].map(([title, variant]) => ({ title, file: `results/sparse-scaling-${stem}${variant}-1024.txt` })), {}];

/** The docs' scaling tables: [block name, columns, options]. */
const SCALING_TABLES = /** @type {[string, { title: string, file: string }[], { m50?: boolean, limit?: boolean }][]} */ ([
  ['sparse-scaling-default', [
    { title: 'AND of 3', file: 'results/sparse-scaling-and3-1024.txt' },
    { title: 'majority of 3', file: 'results/sparse-scaling-majority3-1024.txt' },
  ], { m50: true, limit: true }],
  ...['and3', 'majority3'].map((stem) => protocols(stem)),
  ...['and3', 'majority3'].map((stem) => decayScope(stem)),
]);

/**
 * Every block the generator writes into the docs: [file, block name, its text].
 * @returns {Promise<[string, string, string][]>}
 */
export async function docBlocks() {
  /** @type {[string, string, string][]} */
  const out = [
    ['docs/reproducing.md', 'copying-budgets', await budgetTable('copying')],
    ['docs/sparse.md', 'sparse-budgets', await budgetTable('sparse')],
  ];
  for (const [name, columns, options] of SCALING_TABLES) out.push(['docs/sparse.md', name, scalingTable(columns, options)]);
  out.push(['docs/sparse.md', 'sparse-page-experiment', pageExperiment(PAGE_EXPERIMENT)]);
  for (const stem of ['and3-wd1-all', 'majority3-wd1-all', 'and3-wd0.1-all', 'majority3-wd0.1-all']) {
    out.push(['docs/sparse.md', `sparse-split-${stem}`, splitTable(`results/sparse-scaling-${stem}-1024.txt`)]);
  }
  // README's sentence on the sparse law, its figures from the file just written.
  const f = figures();
  /** @param {string} name */
  const q = (name) => f[`sparse.scaling.${name}`].text;
  out.push(['README.md', 'readme-sparse-law', `The native \`scaling\` tool measures how the samples needed grow with the input's length, with a bootstrap over the seeds
  (\`results/sparse-scaling-*-1024.txt\`, 20 seeds, \`T\` = 8 to 1,024): for majority of 3 the
  held-out check picks ${q('majority-3.held-out')} in ${q('majority-3.held-out-share')} of resamples of the seeds (exponent
  ${q('majority-3.exponent')}); for AND of 3, fitted to \`T\` ≤ 256, ${q('and-3.held-out')} predicted 512 and 1,024
  best, but resamples pick it in ${q('and-3.held-out-share')} and a power of \`T\` (exponent ${q('and-3.exponent')}) in
  ${q('and-3.power-share')} (${q('and-3.not-fitted')} not fitted): those lengths do not decide between them.
  [The sparse lab](docs/sparse.md).`]);
  out.push(['docs/sparse.md', 'sparse-scaling-verdicts', verdictTable([
    { title: 'AND of 3', file: 'results/sparse-scaling-and3-1024.txt' },
    { title: 'majority of 3', file: 'results/sparse-scaling-majority3-1024.txt' },
  ])]);
  out.push(['docs/sparse.md', 'sparse-scaling-verdicts-wd0.1-all', verdictTable([
    { title: 'AND of 3, λ = 0.1 on all but biases', file: 'results/sparse-scaling-and3-wd0.1-all-1024.txt' },
    { title: 'majority of 3, λ = 0.1 on all but biases', file: 'results/sparse-scaling-majority3-wd0.1-all-1024.txt' },
  ])]);
  return out;
}

/**
 * A lab's budgets as a markdown table: each preset, its budget and its claim as the page
 * says it (the figures filled in). Imports the labs, and so the figures file as it is now.
 * @param {string} labName
 */
export async function budgetTable(labName) {
  const { LABS } = await import('../www/labs/index.js');
  const lab = /** @type {import('../www/labs/index.js').Lab} */ (/** @type {any} */ (LABS)[labName]);
  const rows = Object.entries(lab.budgets ?? {}).map(([preset, b]) => `| \`${preset}\` (${lab.presetLabels[preset]}) | ${b.steps.toLocaleString('en')} | ${b.claim} |`);
  return ['| preset | budget (steps) | what holds by then |', '|---|---:|---|', ...rows].join('\n');
}

/**
 * `text` (a doc) with its block `name` replaced by `body`.
 * @param {string} text @param {string} name @param {string} body
 */
export function withBlock(text, name, body) {
  // The block keeps its opening marker's indentation (a list item's, in the README).
  const open = new RegExp(`( *)(<!-- figures:${name} [^\\n]*-->\\n)[\\s\\S]*?<!-- /figures:${name} -->`);
  if (!open.test(text)) throw new Error(`no block figures:${name}`);
  return text.replace(open, (_, indent, marker) => {
    const lines = body.split('\n').map((l) => (l ? indent + l.trimStart() : l));
    return `${indent}${marker}${lines.join('\n')}\n${indent}<!-- /figures:${name} -->`;
  });
}

/** The generated module's text. */
export function moduleText() {
  return '// @ts-check\n'
    + '// Generated by `node scripts/figures.js` from results/: every figure over seeds that a lab\'s\n'
    + '// texts quote, with the result files it came from. Do not edit: tests/unit/figures-file.test.js\n'
    + '// regenerates it and fails on a difference.\n\n'
    + '/** @type {Record<string, { text: string, from: string[], what: string }>} */\n'
    + `export const FIGURES = ${JSON.stringify(figures(), null, 2)};\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  const text = moduleText();
  const stale = [];
  if (check) {
    if (readFileSync(root + OUT, 'utf8') !== text) stale.push(OUT);
  } else {
    writeFileSync(root + OUT, text);
  }
  // The docs' tables quote the labs' texts, which quote the file just written.
  for (const [file, name, body] of await docBlocks()) {
    const doc = readFileSync(root + file, 'utf8');
    const made = withBlock(doc, name, body);
    if (check && made !== doc) stale.push(`${file} (${name})`);
    if (!check) writeFileSync(root + file, made);
  }
  if (stale.length) {
    console.error(`${stale.join(', ')} differ from what results/ gives: run node scripts/figures.js`);
    process.exit(1);
  }
  if (!check) console.log(`wrote ${OUT} (${Object.keys(figures()).length} figures) and the docs' tables`);
}
