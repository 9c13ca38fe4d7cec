// @ts-check
// The merging of two runs' histories for the charts of compare mode (www/ui/figures.js), in
// Node: one point per step either run evaluated, the second run's metrics under `_b`, gaps
// where a run has no evaluation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mergeHistories } from '../../www/ui/figures.js';

test('two histories merge into one point per step, with gaps where a run has none', () => {
  const a = [{ step: 0, loss: 3 }, { step: 10, loss: 2 }, { step: 20, loss: 1 }];
  const b = [{ step: 0, loss: 4 }, { step: 10, loss: 3.5 }];
  const points = mergeHistories(a, b, ['loss']);
  assert.deepEqual(points.map((p) => p.step), [0, 10, 20]);
  assert.deepEqual(points.map((p) => p.loss), [3, 2, 1]);
  assert.deepEqual(points.map((p) => p.loss_b), [4, 3.5, NaN]);
  const later = mergeHistories([{ step: 30, loss: 1 }], [{ step: 10, loss: 2 }], ['loss']);
  assert.deepEqual(later.map((p) => [p.step, p.loss, p.loss_b]), [[10, NaN, 2], [30, 1, NaN]], 'in step order');
});
