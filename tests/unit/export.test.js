// @ts-check
// The file formats (www/files/formats.js) in Node: a run file and a weights file read back what was
// written; a version 1 run file still opens; the CSV has a row per step and says when a long
// run's series are thinned; malformed files are refused with a message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runFile, readRunFile, weightsFile, readWeightsFile, historyCsv, f32ToBase64, base64ToF32 } from '../../www/files/formats.js';
import { copying } from '../../www/labs/copying/lab.js';
import wasm, { validator } from './wasm-node.js';
import { paths, mutate, MUTATIONS, REQUIRED_RUN, REQUIRED_WEIGHTS } from './file-cases.js';

/** The CSV's columns of two of the copying lab's metrics. */
const COLUMNS = [{ key: 'loss', name: 'eval_loss' }, { key: 'token_accuracy', name: 'token_accuracy' }];
const validate = validator('copying');
const config = wasm.presets('copying')['small-easy'];
/** One evaluation with every metric of the lab. @param {number} step @param {number} x */
const evaluation = (step, x) => ({ step, ...Object.fromEntries(copying.metrics.map((m) => [m.key, x])) });

/** A small saved run. @param {Partial<import('../../www/files/formats.js').SavedRun>} [o] @returns {import('../../www/files/formats.js').SavedRun} */
function run(o = {}) {
  const shape = { tgtLen: 2, srcLen: 3, heads: 1, evalSeqs: 4 };
  return {
    lab: 'copying', preset: 'small-easy', config: { ...config, seed: 3 }, link: '?v=1&seed=3',
    evaluations: [{ ...evaluation(0, 0.5), loss: 3, token_accuracy: 0 }, { ...evaluation(2, 0.5), loss: 2.5, token_accuracy: 0.25 }],
    losses: { step: [1, 2], loss: [3.1, 2.9] },
    resolution: { evaluations: { stride: 1, recent_from: 0 }, training_loss: { stride: 1, recent_from: 1 } },
    shown: {
      type: 'snapshot', lab: 'copying', generation: 1, step: 2, loss: 2.9, stepsPerSecond: 0, running: false, seq: 1, head: -1,
      memory: 0, workers: 1, shape, alpha: Float32Array.from([0.5, 0.25, 0.25, 0.1, 0.8, 0.1]), beta: Float32Array.from([1, -2, 3, 0.5, 0, -1]),
      perHead: [], source: Uint32Array.from([4, 5, 6]), target: Uint32Array.from([4, 5]), aligned: Uint32Array.from([0, 1]),
      config: { ...config, seed: 3 },
    },
    ...o,
  };
}

/** @param {Blob} b */
const parse = async (b) => JSON.parse(await b.text());

test('a run file reads back as the run it was written from', async () => {
  const r = run();
  const back = readRunFile(await parse(runFile(r, copying.arrays)), copying, validate, 'copying');
  assert.deepEqual(back.evaluations, r.evaluations);
  assert.deepEqual(back.losses, r.losses);
  assert.deepEqual(back.resolution, r.resolution);
  const [got, want] = /** @type {any[]} */ ([back.shown, r.shown]);
  assert.deepEqual(Array.from(got.alpha), Array.from(want.alpha));
  assert.deepEqual(Array.from(got.aligned), [0, 1]);
  assert.equal(back.link, r.link);
});

test('a version 1 run file (every loss from loss_base + 1) still opens', async () => {
  const v2 = await parse(runFile(run(), copying.arrays));
  const v1 = { ...v2, version: 1, history: { training_loss: [3.1, 2.9, 2.7], loss_base: 10, evaluations: v2.history.evaluations } };
  const back = readRunFile(v1, copying, validate, 'copying');
  assert.deepEqual(back.losses, { step: [11, 12, 13], loss: [3.1, 2.9, 2.7] });
});

test('malformed run files are refused with a message', async () => {
  const good = await parse(runFile(run(), copying.arrays));
  const cases = [
    [{ ...good, format: 'x' }, /not a run file/],
    [{ ...good, version: 7 }, /version 7/],
    [{ ...good, shown: { ...good.shown, alpha: [1] } }, /run file: shown.alpha holds 1 values, its shape 2×3 needs 6$/],
    [{ ...good, history: {} }, /run file: history.evaluations must be a list, got nothing$/],
    [{ ...good, history: { ...good.history, training_loss: [1, 2] } }, /run file: history.training_loss must be an object, got \[1,2\]/],
    [{ ...good, shown: { ...good.shown, source: ['a'] } }, /run file: shown.source\[0\] must be a whole number from 0 to 2\^53 − 1, got "a"$/],
    [{ ...good, shown: null }, /run file: shown must be an object, got null$/],
    [{ ...good, history: { ...good.history, evaluations: [null] } }, /run file: evaluation 1 must be an object, got null$/],
    [{ ...good, history: { ...good.history, evaluations: [{ step: 1 }] } }, /run file: evaluation 1 \(step 1\) has no loss$/],
    [{ ...good, shown: { ...good.shown, shape: { tgtLen: -2, srcLen: -3, heads: 1 } } }, /run file: shown.shape must give tgtLen, srcLen and heads as whole numbers/],
    [{ ...good, shown: { ...good.shown, shape: { tgtLen: 2.5, srcLen: 2, heads: 1 } } }, /run file: shown.shape must give/],
    [{ ...good, preset: 'toString', config: { ...good.config, hidden: -1 } }, /run file: its settings: Width H \(hidden\): must be a whole number from 1 to 1024, got -1$/],
    [{ ...good, lab: 'sparse' }, /run file: it is a run of the lab "sparse", this page shows “copying”$/],
    // Values outside their range: α a distribution, β a number, accuracies from 0 to 1, no
    // Infinity (JSON's 1e309), tokens of the vocabulary.
    [{ ...good, shown: { ...good.shown, alpha: [1e38, 0, 0, 0, 0, 0] } }, /run file: shown.alpha\[0\] must be a number from 0 to 1, got 1e\+38$/],
    [{ ...good, shown: { ...good.shown, alpha: [0.5, -5, 0, 0, 0, 0] } }, /run file: shown.alpha\[1\] must be a number from 0 to 1, got -5$/],
    [{ ...good, shown: { ...good.shown, alpha: [0.5, 0.5, null, 0, 0, 0] } }, /run file: shown.alpha\[2\] must be a number from 0 to 1, got NaN$/],
    [{ ...good, shown: { ...good.shown, beta: [0, 0, 0, null, 0, 0] } }, /run file: shown.beta\[3\] must be a number, got NaN$/],
    [{ ...good, shown: { ...good.shown, source: [4, 5, 600] } }, /run file: shown.source\[2\] must be a number from 0 to 31, got 600$/],
    [JSON.parse(JSON.stringify(good).replace('"loss":3,', '"loss":1e309,')), /run file: evaluation 1: loss must be a finite number, got Infinity$/],
    [{ ...good, history: { ...good.history, evaluations: [{ ...good.history.evaluations[0], token_accuracy: 1.5 }] } }, /run file: evaluation 1: token_accuracy must be a number from 0 to 1, got 1.5$/],
  ];
  for (const [f, message] of cases) assert.throws(() => readRunFile(f, copying, validate, 'copying'), message);
});

test('a weights file reads back bit for bit, and a wrong count is refused', async () => {
  const params = Float32Array.from([1.5, -0, Math.PI, 1e-30, -3.4e38]);
  const w = await parse(weightsFile({ lab: 'copying', preset: 'small-easy', config: { seed: 1 }, step: 12, params }));
  const back = readWeightsFile(w, 'copying');
  assert.deepEqual(Array.from(back.params), Array.from(params));
  assert.equal(back.step, 12);
  assert.throws(() => readWeightsFile({ ...w, count: 4 }, 'copying'), /5 values, it says 4/);
  for (const step of [-1, 1.5, 1e300, 'x']) assert.throws(() => readWeightsFile({ ...w, step }, 'copying'), /step must be a whole number/);
  assert.deepEqual(Array.from(base64ToF32(f32ToBase64(params))), Array.from(params));
});

test('the CSV has a row per step with a loss or an evaluation, and says when the series are thinned', async () => {
  const lines = (await historyCsv(run(), COLUMNS).text()).trim().split('\n');
  assert.deepEqual(lines, ['step,train_loss,eval_loss,token_accuracy', '0,,3,0', '1,3.1,,', '2,2.9,2.5,0.25']);
  const thinned = run({ resolution: { evaluations: { stride: 2, recent_from: 40 }, training_loss: { stride: 4, recent_from: 50 } } });
  const lines2 = (await historyCsv(thinned, COLUMNS).text()).split('\n');
  assert.equal(lines2[1], 'step,train_loss,eval_loss,token_accuracy', 'the header after the note');
  const first = (await historyCsv(thinned, COLUMNS).text()).split('\n')[0];
  assert.equal(first, '# training losses: every one from step 50 on, every 4th before; evaluations: every one from step 40 on, every 2nd before');
});

test('generated malformed run and weights files: each is read whole or refused with a message, never a crash', async () => {
  const goodRun = await parse(runFile(run(), copying.arrays));
  const goodWeights = await parse(weightsFile({ lab: 'copying', preset: 'small-easy', config, step: 3, params: Float32Array.from([1, 2, 3]) }));
  let refused = 0;
  let read = 0;
  for (const [good, readIt, required] of /** @type {const} */ ([
    [goodRun, (/** @type {any} */ f) => readRunFile(f, copying, validate, 'copying'), REQUIRED_RUN],
    [goodWeights, (/** @type {any} */ f) => readWeightsFile(f, 'copying'), REQUIRED_WEIGHTS],
  ])) {
    for (const [path, value] of paths(good)) {
      for (const [how, f] of MUTATIONS) {
        const bad = mutate(good, path, f);
        const what = `${path.join('.') || 'the file'} ${how} (was ${JSON.stringify(value)?.slice(0, 40)})`;
        try {
          const out = readIt(bad);
          read++;
          if (how === 'deleted') assert.ok(!required.includes(path.join('.')), `${what}: must be refused`);
          assert.ok(out && typeof out === 'object', what);
        } catch (e) {
          refused++;
          const err = /** @type {Error} */ (e);
          assert.equal(err.constructor, Error, `${what}: ${err.stack}`);
          assert.match(err.message, /^(run file: |weights file: |not a (run|weights) file of Attention Playground$)/, what);
          assert.ok(err.message.length < 240, `${what}: ${err.message}`);
        }
      }
    }
  }
  assert.ok(refused >= 100 && read >= 10, `${refused} refused, ${read} read`);
});
