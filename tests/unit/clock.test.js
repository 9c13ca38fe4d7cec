// @ts-check
// A pool's training clock (www/training/clock.js) on a clock of the test's own: time held
// before the end is not training time, time after the end changes nothing, and jobs added
// after the end start it again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TrainingClock } from '../../www/training/clock.js';

let now = 0;
Object.defineProperty(globalThis, 'performance', { value: { now: () => now }, configurable: true });

test('held time before the end is taken off; holding after the end changes nothing', () => {
  now = 1000;
  const c = new TrainingClock();
  c.start(true, true);
  now = 3000;
  assert.equal(c.seconds(), 2);
  c.hold(false);
  now = 8000;
  assert.equal(c.seconds(), 2, 'held: nothing trains');
  c.hold(true);
  now = 9000;
  assert.equal(c.seconds(), 3);
  c.end();
  now = 20000;
  c.hold(false);
  now = 30000;
  c.hold(true);
  assert.equal(c.seconds(), 3, 'a page hidden after the end');
  // Ended while held: the hold ends there.
  now = 0;
  c.start(true, false);
  now = 5000;
  c.end();
  c.hold(true);
  assert.equal(c.seconds(), 0);
  // Reopened while held: it goes on from there, still held.
  c.hold(false);
  now = 6000;
  c.reopen();
  now = 9000;
  assert.equal(c.seconds(), 1, 'the clock runs from the start to the jobs added after the end, then holds');
  c.hold(true);
  now = 10000;
  assert.equal(c.seconds(), 2);
  // Nothing to train: ended at its start.
  c.start(false, true);
  now = 20000;
  assert.equal(c.seconds(), 0);
});
