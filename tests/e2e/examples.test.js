// @ts-check
// The docs' examples run (issue 40): every fenced code block of README.md, docs/*.md and the
// npm package's README (scripts/pkg/README.md), found by reading the Markdown, is run here or
// listed below with the reason it is not, and a block or shell command that is neither fails
// the first test. The npm examples run in Node from pkg/ packed with npm and installed offline
// into an empty project; the file formats' shapes are compared with the files the page's
// writers make; the link, the custom element under the host CSP the docs give and its height
// message run in headless Chromium; the shell commands of an allow-list run (the native tools
// through `cargo run` in the test profile: see SHELL_RUN).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { cpSync, mkdtempSync, mkdirSync, writeFileSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { freshPage, shownRun } from './harness.js';
import { session } from './session.js';
import { historyCsv, historyJson, runFile, weightsFile, resolutionOf } from '../../www/files/formats.js';
import { evaluationsOf } from '../../www/state/history.js';
import { figureCaption } from '../../www/files/actions.js';
import { copying } from '../../www/labs/copying/lab.js';
import wasm from '../unit/wasm-node.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DOCS = ['README.md', ...readdirSync(`${ROOT}docs`).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`), 'scripts/pkg/README.md'];
const tmp = mkdtempSync(`${tmpdir()}/ap-examples-`);
after(() => rmSync(tmp, { recursive: true, force: true }));
const env = session();

/** @typedef {{ file: string, line: number, lang: string, text: string }} Block */

/**
 * The fenced code blocks of a Markdown text (CommonMark's fences: three or more backticks or
 * tildes, indented as in a list item too; the content loses the fence's indentation).
 * @param {string} file @param {string} markdown @returns {Block[]}
 */
function codeBlocks(file, markdown) {
  /** @type {Block[]} */
  const blocks = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^( *)(`{3,}|~{3,})\s*([^\s`]*)/.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, lang] = open;
    const body = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const close = /^ *(`{3,}|~{3,})\s*$/.exec(lines[j]);
      if (close && close[1][0] === fence[0] && close[1].length >= fence.length) break;
      body.push(lines[j].startsWith(indent) ? lines[j].slice(indent.length) : lines[j].trimStart());
    }
    blocks.push({ file, line: i + 1, lang: lang.toLowerCase(), text: body.join('\n') });
    i = j;
  }
  return blocks;
}

const BLOCKS = DOCS.flatMap((f) => codeBlocks(f, readFileSync(`${ROOT}${f}`, 'utf8')));
const JS = new Set(['js', 'javascript', 'mjs']);
const SHELL = new Set(['sh', 'bash', 'shell', 'console']);

/** How each block is checked (the tests below), by what it is. */
const KINDS = {
  /** JavaScript for Node with the npm package: run from the packed package. */
  npm: (/** @type {Block} */ b) => JS.has(b.lang) && /from ['"]attention-playground['"]/.test(b.text),
  /** A file's shape (docs/file-formats.md): compared with the file the page writes. */
  fileShape: (/** @type {Block} */ b) => JS.has(b.lang) && /^\{\s*format: 'attention-playground-\w+'/.test(b.text),
  /** An exported picture's caption, `…` for its numbers: compared with the page's. */
  caption: (/** @type {Block} */ b) => b.lang === '' && /^Attention Playground · /.test(b.text),
  /** The history CSV's header: compared with the page's. */
  csvHeader: (/** @type {Block} */ b) => b.lang === '' && /^step,[a-z_,]+$/.test(b.text.trim()),
  /** The frame's height message: compared with the messages the element's frame posts. */
  heightMessage: (/** @type {Block} */ b) => JS.has(b.lang) && /^\{ source: 'attention-playground', type: 'height'/.test(b.text),
  /** A link: opened in the page. */
  link: (/** @type {Block} */ b) => b.lang === '' && /^\?v=1&\S+$/.test(b.text.trim()),
  /** The custom element's HTML: put on a host page of another origin. */
  element: (/** @type {Block} */ b) => b.lang === 'html' && /<attention-playground[\s>]/.test(b.text),
  /** A host page's CSP: that host page's header. */
  hostCsp: (/** @type {Block} */ b) => b.lang === '' && /^Content-Security-Policy: /.test(b.text),
  shell: (/** @type {Block} */ b) => SHELL.has(b.lang),
};

/** Blocks not run, each found by its file and how its text starts, with the reason. */
const NOT_RUN = [
  { file: 'docs/architecture.md', starts: ' link (state/url.js) ─┐', why: 'a diagram of the page\'s parts' },
  { file: 'docs/architecture.md', starts: 'pub trait Run {', why: 'an excerpt of src/run.rs\'s trait to read (its comments dropped), not a program' },
  { file: 'docs/link-and-embed.md', starts: '<video src="attention-playground.webm"', why: 'a host\'s markup for a WebM that Record saves (tests/e2e/record.test.js checks the file); nothing of this project runs in it' },
];

/** A shell block's commands: comment lines (a script's `#!` and `#SBATCH` too) and trailing
 * comments dropped, continued lines joined, spaces collapsed. @param {string} text */
function commands(text) {
  return text.replace(/\\\n/g, ' ').split('\n')
    .map((l) => l.replace(/(^|\s)#(\s.*|!.*|SBATCH.*)?$/, '').replace(/\s+/g, ' ').trim())
    .filter((l) => l && !l.startsWith('#'));
}

/** The committed result CSVs the merge examples read in place of the shards their lines before
 * write (those run for minutes to hours). */
const SCALING_CSV = `${ROOT}results/sparse-scaling-and3-1024.csv`;
const REPRODUCE_CSV = `${ROOT}results/paper-hard-20-39.csv`;

/**
 * The shell commands run, each with what it must print (standard output and error together,
 * or standard output alone) and the files it must write, in a temporary folder. The native tools run as `cargo run
 * --profile test`, not `--release`: the test command's `cargo test` has built them in that
 * profile, so nothing is compiled here, where the release build (LTO, the GPU stack) takes
 * minutes; their arguments are the docs'.
 * @type {{ command: string, args?: string[], why?: string, check: (output: string, dir: string, stdout: string) => void }[]}
 */
const SHELL_RUN = [
  {
    command: 'cargo run --release --bin reproduce -- --help',
    check: (out) => assert.match(out, /--preset NAME/),
  },
  {
    command: 'cargo run --release --bin scaling -- --help',
    check: (out) => assert.match(out, /scaling merge FILE\.\.\./),
  },
  {
    command: 'cargo run --release --bin scaling -- --preset and-3 --lengths 64 --samples 200',
    check: (out) => assert.match(out, /^T +64 +m +200: median test accuracy \d\.\d{3}/m),
  },
  {
    command: 'scaling merge and3-1.csv and3-2.csv and3-3.csv and3-4.csv [--fit-upto 256]',
    args: ['scaling', 'merge', SCALING_CSV, '--fit-upto', '256'],
    why: 'the committed CSV of the same search in place of the four shards the line before writes (12 minutes each), the optional --fit-upto given',
    // The tables and fits of results/ (written by this merge of that CSV).
    check: (_, __, stdout) => assert.equal(stdout, readFileSync(SCALING_CSV.replace(/\.csv$/, '.txt'), 'utf8')),
  },
  {
    command: './reproduce merge shard-*.csv --csv results/paper-hard-20.csv',
    args: ['reproduce', 'merge', REPRODUCE_CSV, '--csv', 'merged.csv'],
    why: 'a committed CSV in place of the shards the line before trains on other machines, written to a temporary folder, not over results/',
    // One file merged is that file, byte for byte (the docs: "the CSV the run would have written in one go").
    check: (_, dir) => assert.equal(readFileSync(`${dir}/merged.csv`, 'utf8'), readFileSync(REPRODUCE_CSV, 'utf8')),
  },
];

/** The shell commands not run, with the reason. */
const SHELL_NOT_RUN = {
  'scripts/run': 'serves the page until stopped (its server, scripts/serve.py, is what the end-to-end tests start); builds the wasm first',
  'scripts/test': 'the whole test command, 15 to 19 minutes, this test among its checks',
  'node scripts/bench-sweep.js --rounds 2': 'a benchmark, about 2 minutes a round',
  'cargo run --release --bin lottery -- --steps 400 --combined-steps 600 --singles 32 --trials 12 --jobs 2': 'trains 32 single-head and dozens of 8-head models, 3.5 minutes on 2 cores (tests/reproduce.rs runs lottery small)',
  'parallel -S 2/host-a,2/host-b --basefile reproduce --return shard-{}.csv --cleanup ./reproduce --preset hard --seeds 0-19 --shard {}/8 --csv shard-{}.csv ::: 1 2 3 4 5 6 7 8': 'needs GNU parallel and two machines over ssh; a paper-size sweep of 20 seeds, hours of CPU',
  './reproduce --preset hard --seeds 0-19 --shard "$SLURM_ARRAY_TASK_ID/8" --csv "shard-$SLURM_ARRAY_TASK_ID.csv"': 'a Slurm array task (needs a Slurm cluster); a paper-size shard, tens of minutes',
  "sbatch --dependency=afterok:<array job id> --wrap './reproduce merge shard-*.csv --csv paper-hard-20.csv'": 'needs a Slurm cluster and the array job\'s id (the merge itself runs above)',
  'target/torch-venv/bin/python bench/torch_same_start.py small': 'needs PyTorch\'s virtualenv (5 GB, scripts/setup.sh ensure_torch); about 1 minute',
  'target/torch-venv/bin/python bench/torch_same_start.py paper': 'needs PyTorch\'s virtualenv; about 2 minutes',
  'target/torch-venv/bin/python bench/torch_same_start.py small --mutate': 'needs PyTorch\'s virtualenv; about 1 minute',
  'cargo run --release --bin scaling -- --preset and-3 --seeds 0-9 --jobs 2 --csv and3.csv': 'a whole search over six lengths, minutes on 2 cores (the one-size run above is its unit)',
  'cargo run --release --bin scaling -- --preset majority-3 --seeds 0-9 --jobs 2': 'a whole search over six lengths, minutes on 2 cores',
  'scaling --preset and-3 --lengths 8,16,32,64,128,256,512,1024 --seeds 0-19 --shard 1/4 --csv and3-1.csv': 'a shard of the search to T = 1,024, about 12 minutes on one core',
  'scripts/bench': 'the benchmarks, 20 to 30 minutes',
  'scripts/bench --no-paper': 'a benchmark, about 4 minutes',
  'node scripts/bench-page.js --workers': 'a benchmark, about 3 minutes',
  'scripts/bench-gpu [--quick]': 'the GPU benchmark: a release build with the bench feature, then minutes of timing',
  'cargo run --release --features bench --bin bench -- --gpu [--quick]': 'the GPU benchmark\'s native part: a release build with the bench feature, then minutes of timing',
  'node scripts/bench-gpu-page.js [--seconds S]': 'the GPU benchmark\'s page part, minutes of timing',
  'scripts/bench-ab HEAD~1 .': 'builds the wasm of two revisions, then minutes of timing',
  'scripts/bench-ab --gemm HEAD~1 .': 'builds the wasm of two revisions, then minutes of timing',
  'scripts/bench-ab --shape "41×41·41×256" --rounds 12 HEAD~1 .': 'builds the wasm of two revisions, then minutes of timing',
};

/** The blocks of a kind. @param {keyof typeof KINDS} kind */
const blocksOf = (kind) => BLOCKS.filter(KINDS[kind]);
/** @param {Block} b */
const where = (b) => `${b.file}:${b.line}`;

test('every code block of the docs is run below or listed as not run, with its reason', () => {
  assert.ok(BLOCKS.length > 20, `${BLOCKS.length} blocks found`);
  /** @type {string[]} */
  const unaccounted = [];
  const notRunUsed = new Set();
  const shellSeen = new Set();
  for (const b of BLOCKS) {
    const kinds = Object.entries(KINDS).filter(([, takes]) => takes(b)).map(([k]) => k);
    const listed = NOT_RUN.filter((n) => n.file === b.file && b.text.startsWith(n.starts));
    listed.forEach((n) => notRunUsed.add(n));
    assert.ok(kinds.length + listed.length <= 1, `${where(b)} is taken as ${[...kinds, ...listed.map((n) => n.why)].join(' and ')}`);
    if (kinds[0] === 'shell') {
      for (const c of commands(b.text)) {
        shellSeen.add(c);
        if (!SHELL_RUN.some((r) => r.command === c) && !(c in SHELL_NOT_RUN)) unaccounted.push(`${where(b)}: shell command \`${c}\``);
      }
    } else if (!kinds.length && !listed.length) {
      unaccounted.push(`${where(b)}: \`\`\`${b.lang} block starting ${JSON.stringify(b.text.slice(0, 60))}`);
    }
  }
  assert.deepEqual(unaccounted, [], 'a new example: run it in this test, or list it in NOT_RUN / SHELL_NOT_RUN with the reason');
  // No entry outlives its example.
  assert.deepEqual(NOT_RUN.filter((n) => !notRunUsed.has(n)).map((n) => `${n.file}: ${n.starts}`), [], 'listed blocks no doc has');
  const stale = [...SHELL_RUN.map((r) => r.command), ...Object.keys(SHELL_NOT_RUN)].filter((c) => !shellSeen.has(c));
  assert.deepEqual(stale, [], 'listed shell commands no doc has');
  for (const kind of /** @type {(keyof typeof KINDS)[]} */ (['npm', 'fileShape', 'caption', 'csvHeader', 'heightMessage', 'link', 'element', 'hostCsp'])) {
    assert.ok(blocksOf(kind).length > 0, `a block of kind ${kind} (its test below checks nothing otherwise)`);
  }
});

/** The marker of a name that a shape gives without a value (`{ lab, config }`). */
const ANY = Symbol('any value');

/**
 * A JavaScript block that shows an object's shape (`{ format: '…', lab, step: [...], … }`,
 * comments beside) as a value: a name given alone is `ANY`, `[...]` an empty array.
 * @param {string} text @returns {any}
 */
function shapeOf(text) {
  const code = text.replace(/(^|[\s,{([])\/\/.*$/gm, '$1').replace(/\[\.\.\.\]/g, '[]');
  const scope = new Proxy({}, { has: (_, k) => typeof k === 'string', get: (_, k) => (typeof k === 'string' ? ANY : undefined) });
  // Sloppy-mode code (a Function body), so that `with` gives the shape's bare names a value.
  return new Function('scope', `with (scope) { return (${code}); }`)(scope);
}

/**
 * How `got` differs from the shape `want`: a key missing or extra at any level of a nested
 * object the shape spells out, a literal of another value, an array that is not one.
 * @param {any} want @param {any} got @param {string} path @returns {string[]}
 */
function shapeDiff(want, got, path) {
  if (want === ANY) return got === undefined ? [`${path}: missing`] : [];
  if (Array.isArray(want)) return Array.isArray(got) ? [] : [`${path}: not an array`];
  if (want && typeof want === 'object') {
    if (!got || typeof got !== 'object' || Array.isArray(got)) return [`${path}: not an object`];
    const extra = Object.keys(got).filter((k) => !(k in want)).map((k) => `${path}.${k}: written, not in the docs`);
    return [...extra, ...Object.keys(want).flatMap((k) => (k in got ? shapeDiff(want[k], got[k], `${path}.${k}`) : [`${path}.${k}: in the docs, not written`]))];
  }
  return want === got ? [] : [`${path}: ${JSON.stringify(got)}, the docs say ${JSON.stringify(want)}`];
}

/** @param {string} cmd @param {string[]} args @param {{ cwd?: string, timeout?: number }} [o] */
function run(cmd, args, o = {}) {
  const r = spawnSync(cmd, args, { cwd: o.cwd ?? tmp, encoding: 'utf8', timeout: o.timeout ?? 120_000, maxBuffer: 1 << 26, env: { ...process.env, npm_config_cache: `${tmp}/npm-cache` } });
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')} exited with ${r.status ?? r.signal}: ${r.error ?? ''}${r.stderr}`);
  return r;
}

test('the npm examples run in Node from pkg/ packed and installed offline into an empty project', async (t) => {
  const packs = `${tmp}/packs`;
  mkdirSync(packs);
  run('npm', ['pack', `${ROOT}pkg`, '--pack-destination', packs, '--silent']);
  const tgz = readdirSync(packs).find((f) => f.endsWith('.tgz'));
  assert.ok(tgz, 'npm pack made a tarball');
  const app = `${tmp}/app`;
  mkdirSync(app);
  cpSync(`${ROOT}tests/e2e/npm-app/package.json`, `${app}/package.json`);
  run('npm', ['install', '--offline', '--no-audit', '--no-fund', `${packs}/${tgz}`], { cwd: app });
  for (const [i, b] of blocksOf('npm').entries()) {
    await t.test(where(b), () => {
      writeFileSync(`${app}/example-${i}.mjs`, b.text);
      const r = run(process.execPath, [`example-${i}.mjs`], { cwd: app, timeout: 60_000 });
      assert.equal(r.stderr, '', 'nothing on stderr');
      // What an example prints is values, none of them missing.
      if (/console\.log/.test(b.text)) assert.match(r.stdout, /\S/, 'it prints');
      assert.doesNotMatch(r.stdout, /undefined|NaN|null/, r.stdout);
    });
  }
});

test('the file formats’ shapes, the CSV’s header and the pictures’ caption are those the page writes', async () => {
  const config = wasm.presets('copying')['small-hard'];
  const trainer = new wasm.Trainer('copying', config);
  trainer.steps(12);
  const losses = trainer.losses();
  const history = trainer.history();
  const shown = trainer.snapshot({ seq: 0, head: -1 });
  // A live run as the page's Export menu takes it (www/files/actions.js).
  const saved = {
    lab: 'copying', preset: 'small-hard', config: shown.config, link: '?v=1&preset=small-hard',
    evaluations: evaluationsOf(history, copying.metrics.map((m) => m.key)),
    losses: { step: Array.from(losses.step), loss: Array.from(losses.loss) },
    resolution: { evaluations: resolutionOf(history), training_loss: resolutionOf(losses) },
    shown,
  };
  const params = trainer.params();
  /** @type {Record<string, Blob>} */
  const written = {
    'attention-playground-history': historyJson(saved),
    'attention-playground-run': runFile(saved, copying.arrays),
    'attention-playground-weights': weightsFile({ lab: 'copying', preset: 'small-hard', config: shown.config, step: trainer.step, params }),
  };
  // The CSV's columns and the caption as the Export menu makes them (www/files/actions.js).
  const own = Object.keys(saved.evaluations[0]).filter((k) => k !== 'step' && !copying.metrics.some((m) => m.key === k));
  const columns = [...copying.metrics.map((m) => ({ key: m.key, name: m.column ?? m.key })), ...own.map((k) => ({ key: k, name: k }))];
  for (const b of blocksOf('fileShape')) {
    const shape = shapeOf(b.text);
    const file = written[shape.format];
    assert.ok(file, `${where(b)}: a writer of ${shape.format}`);
    assert.deepEqual(shapeDiff(shape, JSON.parse(await file.text()), shape.format), [], where(b));
  }
  for (const b of blocksOf('csvHeader')) {
    assert.equal((await historyCsv(saved, columns).text()).split('\n')[0], b.text.trim(), where(b));
  }
  for (const b of blocksOf('caption')) {
    // The docs' preset label, seed and step, with the run's latest evaluation for the numbers.
    const m = /^Attention Playground · (.+) · seed (\d+) · step (\d+) · /.exec(b.text.trim());
    assert.ok(m, `${where(b)}: a caption's preset, seed and step`);
    const preset = Object.entries(copying.presetLabels).find(([, label]) => label === m[1])?.[0];
    assert.ok(preset, `${where(b)}: a preset labelled ${m[1]}`);
    const caption = figureCaption(copying, preset, Number(m[2]), Number(m[3]), saved.evaluations.at(-1));
    const numbers = (/** @type {string} */ t) => t.replace(/\d+(\.\d+)?%?/g, '…');
    assert.equal(numbers(caption), numbers(b.text.trim()), where(b));
  }
});

/** A shell command's `cargo` arguments: the docs' `cargo run --release …` in the test profile
 * (SHELL_RUN), or a tool run by its name (`scaling …`, `./reproduce …`) through `cargo run`.
 * @param {string[]} words */
function cargoArgs(words) {
  const manifest = ['--quiet', '--manifest-path', `${ROOT}Cargo.toml`];
  if (words[0] === 'cargo') {
    assert.equal(words[1], 'run');
    return ['run', ...manifest, ...words.slice(2).flatMap((w) => (w === '--release' ? ['--profile', 'test'] : [w]))];
  }
  return ['run', ...manifest, '--profile', 'test', '--bin', words[0].replace(/^\.\//, ''), '--', ...words.slice(1)];
}

test('the shell commands of the allow-list run', async (t) => {
  // The native tools as the test command's `cargo test` built them (nothing to build then).
  run('cargo', ['build', '--quiet', '--profile', 'test', '--bins', '--manifest-path', `${ROOT}Cargo.toml`], { timeout: 600_000 });
  for (const [i, r] of SHELL_RUN.entries()) {
    await t.test(r.why ? `${r.command} (run with ${r.why})` : r.command, () => {
      const dir = `${tmp}/shell-${i}`;
      mkdirSync(dir);
      const out = run('cargo', cargoArgs(r.args ?? r.command.split(' ')), { cwd: dir });
      r.check(out.stdout + out.stderr, dir, out.stdout);
    });
  }
});

test('in Chromium: the link opens its run, and the custom element trains on a host page of another origin under the docs’ CSP, posting the height message', async () => {
  for (const b of blocksOf('link')) {
    const link = b.text.trim();
    const { context, page, errors } = await freshPage(env.browser, `${env.url}${link}`);
    const { shown, state } = await page.evaluate(() => ({ shown: /** @type {any} */ (window).__ap.shown(), state: /** @type {any} */ (window).__ap.state() }));
    for (const [k, v] of new URLSearchParams(link)) {
      if (k === 'v') continue;
      if (k === 'preset') assert.equal(state.preset, copying.presetAliases[v] ?? v, where(b));
      else if (k in shown.config) assert.ok(Math.abs(shown.config[k] - Number(v)) < 1e-6, `${where(b)}: ${k} ${shown.config[k]}`);
      else if (k in shown) assert.equal(shown[k], Number(v), `${where(b)}: ${k}`);
      else assert.fail(`${where(b)}: no check of the link's key ${k}`);
    }
    assert.doesNotMatch(await page.textContent('#status') ?? '', /unknown|must be/, where(b));
    assert.deepEqual(errors, [], where(b));
    await context.close();
  }

  const files = env.url;
  const [csp] = blocksOf('hostCsp');
  const header = csp.text.replace(/^Content-Security-Policy:/, '').replace(/\s+/g, ' ').trim().replaceAll('https://play.example', new URL(files).origin);
  const host = createServer((_, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': header });
    // The element's HTML as the docs give it, its script from the files' origin.
    res.end(`<!doctype html><html lang="en"><meta charset="utf-8"><title>A post</title>
${blocksOf('element').map((b) => b.text.replaceAll('src="www/', `src="${files}www/`)).join('\n')}</html>`);
  });
  await new Promise((resolve) => host.listen(0, '127.0.0.1', () => resolve(null)));
  try {
    const context = await env.browser.newContext({ viewport: { width: 1100, height: 900 } });
    await context.addInitScript(`if (window === window.top) {
  window.__violations = []; window.__messages = [];
  document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));
  window.addEventListener('message', (e) => window.__messages.push(e.data));
}`);
    const page = await context.newPage();
    /** @type {string[]} */
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (host.address()).port}/post.html`);
    const handle = await page.waitForSelector('attention-playground >> iframe');
    const frame = await handle.contentFrame();
    assert.ok(frame, 'the element has its frame');
    await shownRun(frame);
    const attrs = await page.$eval('attention-playground', (el) => Object.fromEntries([...el.attributes].map((a) => [a.name, a.value])));
    assert.equal(await frame.evaluate(() => /** @type {any} */ (window).__ap.shown().config.seed), Number(attrs.seed));
    const state = await frame.evaluate(() => /** @type {any} */ (window).__ap.state());
    assert.equal(state.preset, copying.presetAliases[attrs.preset] ?? attrs.preset);
    await frame.waitForFunction(() => /** @type {any} */ (window).__ap.shown().step >= 2, null, { timeout: 30_000 });
    await page.waitForFunction(() => /** @type {any} */ (window).__messages.some((/** @type {any} */ m) => m?.type === 'height'));
    const messages = await page.evaluate(() => /** @type {any} */ (window).__messages);
    for (const b of blocksOf('heightMessage')) {
      const shape = shapeOf(b.text);
      const ours = messages.filter((/** @type {any} */ m) => m?.source === shape.source);
      assert.ok(ours.length, `${where(b)}: messages ${JSON.stringify(messages)}`);
      for (const m of ours) {
        assert.deepEqual(shapeDiff(shape, m, 'message'), [], where(b));
        assert.ok(Number.isFinite(m.height) && m.height > 0, `${where(b)}: height ${m.height}`);
      }
    }
    assert.deepEqual(await page.evaluate(() => /** @type {any} */ (window).__violations), [], 'nothing blocked by the docs’ CSP');
    assert.deepEqual(errors, []);
    await context.close();
  } finally {
    host.close();
  }
});
