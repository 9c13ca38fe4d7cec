// @ts-check
// The sparse lab's experiment plan (www/labs/sparse/scaling.js) against made-up outcomes:
// every length's search ends at the fewest samples that "learn", within the search's
// ratio, asking five seeds of each size and one size at a time per length; its CSV has a
// row per run with the native tool's columns; a failed run counts as not learned.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import wasm from './wasm-node.js';
import { ScalingPlan, LENGTHS, SEEDS, STEPS } from '../../www/labs/sparse/scaling.js';

const base = wasm.presets('sparse')['and-3'];

/** Runs a plan to its end, a job's test accuracy given by `accuracy(t, m, seed)`
 * (undefined: the run failed); returns the plan and the jobs asked, in order. */
function drive(/** @type {(t: number, m: number, seed: number) => number | undefined} */ accuracy) {
  const plan = new ScalingPlan(base, wasm);
  /** @type {any[]} */
  const asked = [];
  let jobs = plan.next();
  while (jobs.length) {
    asked.push(...jobs);
    // One size at a time per length, five seeds each, every job of the run's settings.
    const perLength = new Map();
    for (const j of jobs) perLength.set(j.t, [...(perLength.get(j.t) ?? []), j]);
    for (const [t, js] of perLength) {
      assert.equal(js.length, SEEDS);
      assert.deepEqual(js.map((/** @type {any} */ j) => j.config.seed), [0, 1, 2, 3, 4]);
      for (const j of js) {
        assert.equal(j.steps, STEPS);
        assert.deepEqual({ ...j.config, length: 0, samples: 0, seed: 0, eval_every: 0 }, { ...base, length: 0, samples: 0, seed: 0, eval_every: 0 });
        assert.equal(j.config.length, t);
        assert.equal(j.config.eval_every, STEPS);
      }
    }
    // Every job ends, in reverse order, before more are asked for.
    for (const j of [...jobs].reverse()) {
      const acc = accuracy(j.t, j.m, Number(j.config.seed));
      plan.record(j, acc === undefined ? undefined : { test_accuracy: acc, train_accuracy: 1, mass: 0.5, found: 1 }, null);
    }
    jobs = plan.next();
  }
  return { plan, asked };
}

test('each length’s search ends at the fewest samples that learn, within the ratio', () => {
  // Learned from m ≥ 3T + 5; seed 4 never learns (the median of five still does).
  const need = (/** @type {number} */ t) => 3 * t + 5;
  const { plan, asked } = drive((t, m, seed) => (seed === 4 ? 0.5 : m >= need(t) ? 1 : 0.6));
  assert.ok(plan.done());
  for (const l of plan.lengths) {
    const best = /** @type {number} */ (plan.best(l));
    assert.ok(best >= need(l.t), `T ${l.t}: ${best}`);
    assert.ok(best <= Math.max(need(l.t) * 1.19, need(l.t) + 1), `T ${l.t}: ${best}`);
    assert.ok(l.search.failed < need(l.t));
  }
  const rows = plan.csv().trim().split('\n');
  assert.equal(rows[0], 'function,sparsity,length,samples,seed,train_acc,test_acc,mass,found,rejected,ambiguous,positions,weight_decay,decay_scope');
  assert.equal(rows.length, asked.length + 1);
  assert.match(rows[1], /^and,3,\d+,\d+,\d,1,(1|0\.6|0\.5),0\.5,1,,,learned,0,matrices$/);
  assert.deepEqual(plan.lengths.map((l) => l.t), LENGTHS);
  const fits = plan.laws();
  assert.ok(fits, 'the laws fitted');
  // m* is linear in T here (to the search's ratio), and its law fits it so; best first.
  assert.ok(/** @type {any} */ (fits.laws.find((l) => l.law === 'linear')).r2 > 0.99);
  assert.ok(fits.laws.every((l, i) => i === 0 || l.r2 <= fits.laws[i - 1].r2));
  assert.ok(/** @type {any} */ (fits.laws.find((l) => l.law === 'log')).r2 < 0.95, 'a log law does not fit a line in T');
  assert.equal(fits.next, 512);
  assert.deepEqual(fits.laws.map((l) => l.law).sort(), ['linear', 'log', 'power']);
});

test('failed runs count as not learned; a length no size learns ends with none', () => {
  const { plan } = drive((t, m) => (t === 128 ? undefined : m >= 40 ? 1 : 0));
  assert.ok(plan.done());
  const by = Object.fromEntries(plan.lengths.map((l) => [l.t, plan.best(l)]));
  assert.equal(by[128], null);
  assert.ok(/** @type {number} */ (by[8]) >= 40 && /** @type {number} */ (by[8]) <= 48);
  assert.match(plan.summary(), /m\* found for 5 of 6 lengths/);
});

test('lengths whose settings are refused are not searched, and the summary says why', () => {
  // One-hot position codes need a width d of at least T: with d = 64, T = 128 and 256 are refused.
  const plan = new ScalingPlan({ ...base, positions: 'one-hot', width: 64 }, wasm);
  assert.deepEqual(plan.lengths.map((l) => l.t), LENGTHS.filter((t) => t <= 64));
  assert.deepEqual(plan.refused.map((r) => r.t), LENGTHS.filter((t) => t > 64));
  assert.match(plan.summary(), /Not searched: T = 128, 256, whose settings are refused \(Position codes \(positions\): must be learned, sinusoidal or random when the width d \(64\) is less than the length T \(128\)/);
  assert.ok(plan.next().every((j) => j.t <= 64));
});
