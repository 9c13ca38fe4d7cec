// @ts-check
// The figures file against the results and the texts: scripts/figures.js, run again on
// results/, writes exactly the committed www/labs/figures.js and the docs' tables of the
// budget claims; and every figure in a lab's
// budget claims, story texts, explainer and panels is quoted from that file. A number typed into one of those
// texts by hand fails here unless it is a setting or a threshold listed below.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { LABS } from '../../www/labs/index.js';
import { FIGURES } from '../../www/labs/figures.js';
import { NAME, quote, TEMPLATES } from '../../www/labs/quote.js';
import { docBlocks, moduleText, OUT, withBlock } from '../../scripts/figures.js';

const root = new URL('../../', import.meta.url);

test('the committed figures file is what results/ gives', () => {
  assert.equal(readFileSync(new URL(OUT, root), 'utf8'), moduleText(), 'run node scripts/figures.js');
  for (const [name, f] of Object.entries(FIGURES)) {
    assert.ok(f.text && f.what, name);
    for (const file of f.from) assert.ok(readFileSync(new URL(file, root)).length > 0, `${name}: ${file}`);
  }
});

test('the docs\' tables are the labs\' claims and the scaling runs\' m*, as the results give them', async () => {
  const blocks = await docBlocks();
  assert.ok(blocks.length >= 5);
  for (const [file, name, body] of blocks) {
    const doc = readFileSync(new URL(file, root), 'utf8');
    assert.equal(withBlock(doc, name, body), doc, `${file} (${name}): run node scripts/figures.js`);
  }
  const sparse = readFileSync(new URL('docs/sparse.md', root), 'utf8');
  assert.ok(sparse.includes(FIGURES['sparse.and-3.test-100'].text));
  // AND's m* at 1,024 with its split (results/sparse-scaling-and3-1024.txt).
  assert.match(sparse, /\| 1,024 \| 215 \(181\) \| 209 \(189–236\) \|/);
});

test('a text that names a figure the file lacks is refused', () => {
  assert.throws(() => quote('in {copying.small-easy.no-such-figure} seeds'), /no figure copying\.small-easy\.no-such-figure/);
  assert.equal(quote('{sparse.and-3.test-100} seeds'), `${FIGURES['sparse.and-3.test-100'].text} seeds`);
});

/**
 * Numbers a text may carry that are not results: the presets' settings, budgets and the
 * thresholds that define success. Each a phrase, so that a figure cannot hide behind one.
 */
const SETTINGS = [
  /within (?:200|400|600|5,000) steps/g, // the presets' budgets
  /at (?:step|steps) (?:190|200|400)\b/g, // where a quoted figure was read
  /at step 100\b/g,
  /\b(?:99|95|90|50|20|100)% (?:token accuracy|test accuracy|right)/g, // success thresholds
  /passes 50%/g, /past 50%/g, /copies 99% of tokens/g, /top-5% agreement/g,
  /passing 50%/g, /passed 50%/g,
  /below (?:20|90)%/g,
  /0\.1% or less/g,
  /with 8 heads/g,
  /seeds 0–19/g, // the seeds of the runs the sweep repeats
  /the same 20 words/g, // the hard preset's vocabulary
  /after [\d,]+ steps/g,
  /pause at (?:200|400|600) steps/g,
  /the (?:400|200|600) steps/g,
  /\b(?:32|16) bits?\b/g, /\b(?:200|20) labelled/g, /with (?:200|20) samples/g, /with 20\b/g, /their 20 training/g,
  /\b20-sample/g, /Over 20 seeds/g, /With 20\b/g, /reaches 100% while/g, /out of 16/g, /label is 1\b/g, /all 1\b/g,
  /(?:AND|majority) of 3\b/g, /over 20 seeds and T = 8 to 1,024/g, /T ≤ 256/g, /512 and 1,024/g, // the native scaling protocol
  /sums to 100%/g, /from 0 to 100%/g, /from −8 to \+8/g, /0 \(a 50% chance/g, // the copying maps' scales
  /over 32 positions, about 3% a position/g, // the sparse maps' even share at the default T
  /all of them are 1\b/g, /et al\.,? (?:2021|2022)/g, /from 0 to the largest/g, // a definition, a citation, a scale
  /train accuracy 100%/g, /plateau near 50%/g, /T = 8 to 1,024/g,
  /parity of 2/g, /near 50%/g, /nearly 100%/g, /about 50 steps for this seed/g, // on screen, checked in the run
];

/** Every budget claim, story text and explainer paragraph of each lab. @returns {[string, string][]} */
function texts() {
  /** @type {[string, string][]} */
  const out = [];
  for (const lab of Object.values(LABS)) {
    for (const [preset, b] of Object.entries(lab.budgets ?? {})) out.push([`${lab.name} budget ${preset}`, b.claim]);
    lab.explainer.forEach((p, i) => out.push([`${lab.name} explainer ${i + 1}`, p]));
    lab.story?.forEach((s, i) => {
      out.push([`${lab.name} story ${i + 1}`, s.text]);
      if (s.budget) out.push([`${lab.name} story ${i + 1} budget`, s.budget.claim]);
    });
  }
  return out;
}

test('every figure in a budget, a story text or an explainer is quoted from the figures file', () => {
  // The labs' texts, and every other text that quotes figures (the experiment's panel).
  const all = [...texts(), ...[...TEMPLATES.values()].map((t) => /** @type {[string, string]} */ (['quoted', t]))];
  assert.ok(all.length > 20, `${all.length} texts`);
  let quoted = 0;
  /** @type {string[]} */
  const typed = [];
  for (const [where, text] of all) {
    const template = TEMPLATES.get(text) ?? text;
    if (TEMPLATES.has(text)) quoted += 1;
    let left = template.replace(NAME, '');
    for (const s of SETTINGS) left = left.replace(s, '');
    const digits = left.match(/[^.\s,;:()]*\d[^\s,;:()]*/g);
    if (digits) typed.push(`${where}: ${digits.join(' ')}`);
  }
  assert.deepEqual(typed, [], 'typed by hand: quote these from www/labs/figures.js');
  assert.ok(quoted >= 15, `${quoted} texts quote figures`);
});

/** A result CSV's rows, read here apart from the generator. @param {string} file */
function rowsOf(file) {
  const [head, ...lines] = readFileSync(new URL(file, root), 'utf8').trim().split('\n');
  const keys = head.split(',');
  return lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [keys[i], Number(v)])));
}

test('a few figures recomputed here, apart from the generator, agree with the file', () => {
  /** Seeds whose `key` reached `at` by `steps`, over the files' seeds. @param {string[]} files @param {string} key @param {number} at @param {number} steps */
  const reaching = (files, key, at, steps) => {
    const rows = files.flatMap(rowsOf);
    const seeds = new Set(rows.map((r) => r.seed));
    const hit = new Set(rows.filter((r) => r.step <= steps && r[key] >= at).map((r) => r.seed));
    return `${hit.size} of ${seeds.size}`;
  };
  assert.equal(FIGURES['copying.small-easy.reached'].text, reaching(['results/small-easy.csv'], 'token_acc', 0.99, 400));
  assert.equal(FIGURES['copying.small-hard.reached'].text, reaching(['results/small-hard.csv'], 'token_acc', 0.99, 400));
  assert.equal(FIGURES['copying.hard.reached'].text,
    reaching(['results/paper-hard.csv', 'results/paper-hard-5-19.csv', 'results/paper-hard-20-39.csv'], 'token_acc', 0.99, 200));
  const few = rowsOf('results/sparse-budget-and-3-few.csv');
  assert.equal(FIGURES['sparse.and-3-few.found'].text, `${few.filter((r) => r.found === 1).length} of ${few.length}`);
  const parity = rowsOf('results/sparse-budget-parity-2.csv');
  assert.equal(FIGURES['sparse.parity-2.plateau'].text, `${parity.filter((r) => r.test_acc < 0.6).length} of ${parity.length}`);
  // The uniform run's token accuracy at step 200, as whole percentages.
  const at200 = rowsOf('results/small-uniform.csv').filter((r) => r.step === 200).map((r) => Math.round(100 * r.token_acc));
  assert.equal(FIGURES['copying.small-uniform.token-200'].text, `${Math.min(...at200)}–${Math.max(...at200)}%`);
});
