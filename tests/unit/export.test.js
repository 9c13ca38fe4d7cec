// @ts-check
// The file formats (www/export.js) in Node: a run file and a weights file read back what was
// written; a version 1 run file still opens; the CSV has a row per step and says when a long
// run's series are thinned; malformed files are refused with a message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runFile, readRunFile, weightsFile, readWeightsFile, historyCsv, f32ToBase64, base64ToF32 } from '../../www/export.js';
import { copying } from '../../www/labs/copying/lab.js';

const METRICS = ['loss', 'token_accuracy'];

/** A small saved run. @param {Partial<import('../../www/export.js').SavedRun>} [o] @returns {import('../../www/export.js').SavedRun} */
function run(o = {}) {
  const shape = { tgtLen: 2, srcLen: 3, heads: 1, evalSeqs: 4 };
  return {
    lab: 'copying', preset: 'small-easy', config: { seed: 3 }, link: '?v=1&seed=3',
    evaluations: [{ step: 0, loss: 3, token_accuracy: 0 }, { step: 2, loss: 2.5, token_accuracy: 0.25 }],
    losses: { step: [1, 2], loss: [3.1, 2.9] },
    resolution: { evaluations: { stride: 1, recent_from: 0 }, training_loss: { stride: 1, recent_from: 1 } },
    shown: {
      type: 'snapshot', lab: 'copying', generation: 1, step: 2, loss: 2.9, stepsPerSecond: 0, running: false, seq: 1, head: -1,
      memory: 0, workers: 1, shape, alpha: Float32Array.from([0.5, 0.25, 0.25, 0.1, 0.8, 0.1]), beta: Float32Array.from([1, -2, 3, 0.5, 0, -1]),
      perHead: [], source: Uint32Array.from([4, 5, 6]), target: Uint32Array.from([4, 5]), aligned: Uint32Array.from([0, 1]),
      config: { seed: 3 },
    },
    ...o,
  };
}

/** @param {Blob} b */
const parse = async (b) => JSON.parse(await b.text());

test('a run file reads back as the run it was written from', async () => {
  const r = run();
  const back = readRunFile(await parse(runFile(r, copying.arrays)), copying);
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
  const back = readRunFile(v1, copying);
  assert.deepEqual(back.losses, { step: [11, 12, 13], loss: [3.1, 2.9, 2.7] });
});

test('malformed run files are refused with a message', async () => {
  const good = await parse(runFile(run(), copying.arrays));
  const cases = [
    [{ ...good, format: 'x' }, /not a run file/],
    [{ ...good, version: 7 }, /version 7/],
    [{ ...good, shown: { ...good.shown, alpha: [1] } }, /α and β do not have the shape/],
    [{ ...good, history: {} }, /no history/],
    [{ ...good, history: { ...good.history, training_loss: [1, 2] } }, /no history/],
    [{ ...good, shown: { ...good.shown, source: ['a'] } }, /source is not a list of numbers/],
    [{ ...good, shown: null }, /nothing to show/],
  ];
  for (const [f, message] of cases) assert.throws(() => readRunFile(f, copying), message);
});

test('a weights file reads back bit for bit, and a wrong count is refused', async () => {
  const params = Float32Array.from([1.5, -0, Math.PI, 1e-30, -3.4e38]);
  const w = await parse(weightsFile({ lab: 'copying', preset: 'small-easy', config: { seed: 1 }, step: 12, params }));
  const back = readWeightsFile(w);
  assert.deepEqual(Array.from(back.params), Array.from(params));
  assert.equal(back.step, 12);
  assert.throws(() => readWeightsFile({ ...w, count: 4 }), /5 values, it says 4/);
  for (const step of [-1, 1.5, 1e300, 'x']) assert.throws(() => readWeightsFile({ ...w, step }), /step must be a whole number/);
  assert.deepEqual(Array.from(base64ToF32(f32ToBase64(params))), Array.from(params));
});

test('the CSV has a row per step with a loss or an evaluation, and says when the series are thinned', async () => {
  const lines = (await historyCsv(run(), METRICS).text()).trim().split('\n');
  assert.deepEqual(lines, ['step,train_loss,eval_loss,token_accuracy', '0,,3,0', '1,3.1,,', '2,2.9,2.5,0.25']);
  const thinned = run({ resolution: { evaluations: { stride: 2, recent_from: 40 }, training_loss: { stride: 4, recent_from: 50 } } });
  const lines2 = (await historyCsv(thinned, METRICS).text()).split('\n');
  assert.equal(lines2[1], 'step,train_loss,eval_loss,token_accuracy', 'the header after the note');
  const first = (await historyCsv(thinned, METRICS).text()).split('\n')[0];
  assert.equal(first, '# training losses: every one from step 50 on, every 4th before; evaluations: every one from step 40 on, every 2nd before');
});
