// @ts-check
// A pool of runs (run.js) that trains queued jobs, each a run of some settings to a number
// of steps, as fast as each worker can: as many runs as the machine has cores, one worker
// each, every run taking the next job when its own ends. It tells its owner what each
// job's run did, and how long its jobs have trained (waits aside). The seeds of a sweep
// (sweeps.js) and the runs of a lab's experiment (experiments.js) are its jobs. It knows
// no model: a job is settings and steps.

import { Run } from './run.js';
import { TrainingClock } from './clock.js';

/** @typedef {import('./protocol.js').FromWorker} FromWorker */

/** Steps per frame a job trains at: as fast as the worker can (state/options.js SPEEDS' fastest). */
const FULL_SPEED = 1000;
/** How long a job's worker trains between two snapshots (ms): its owner draws a few times a
 * second, and a snapshot every display frame would cost the training's time on every core. */
const JOB_FRAME_MS = 250;

/**
 * A job: the settings of a run and the steps it trains. Its owner may add fields of its own.
 * @typedef {{ config: Record<string, unknown>, steps: number }} Job
 */

/**
 * What the pool tells its owner of a job: a snapshot of its run (its evaluations so far are
 * `run.evaluations`), its end at its steps, or its failure (a divergence, a panic or a
 * refusal, with the message); after 'done' and 'failed' its run goes on with the next job.
 * @template {Job} J
 * @typedef {(job: J, what: 'snapshot' | 'done' | 'failed', run: Run, msg: FromWorker) => void} PoolEvents
 */

/** @template {Job} J */
export class Pool {
  /**
   * @param {{ lab: string, metrics: readonly string[], variant: import('./variant.js').Build,
   *   module: WebAssembly.Module, cores: number, onJob: PoolEvents<J> }} o
   */
  constructor({ lab, metrics, variant, module, cores, onJob }) {
    /** @private */ this.cores = Math.max(1, cores);
    /** @private */ this.onJob = onJob;
    /** @private */ this.make = () => new Run({ lab, metrics, variant, module, onEvent: (run, msg) => this.receive(run, msg) });
    /** @private @type {Run[]} */ this.runs = [];
    /** @private @type {Map<Run, J>} the job each run trains */ this.job = new Map();
    /** @private @type {J[]} jobs not started yet, in the order they start */ this.queue = [];
    /** Whether its runs may train (a page out of sight, or a pause, holds them). */
    this.training = true;
    /** How long the jobs given by the last `replace` have trained. @private */
    this.clock = new TrainingClock();
  }

  /** Seconds its jobs have trained since the last `replace` (held time aside), to their end
   * if they ended. */
  seconds() {
    return this.clock.seconds();
  }

  /** Trains `jobs` from now on instead of whatever it was training or had queued. @param {J[]} jobs */
  replace(jobs) {
    this.queue = [...jobs];
    this.job.clear();
    this.clock.start(jobs.length > 0, this.training);
    const size = Math.min(this.cores, this.queue.length);
    while (this.runs.length > size) /** @type {Run} */ (this.runs.pop()).stop();
    while (this.runs.length < size) this.runs.push(this.make());
    for (const run of this.runs) this.next(run);
  }

  /** Queues more jobs, started at once on idle runs (and new ones, up to the cores). @param {J[]} jobs */
  add(jobs) {
    this.queue.push(...jobs);
    if (jobs.length) this.clock.reopen();
    for (const run of this.runs) if (!this.job.has(run)) this.next(run);
    while (this.queue.length && this.runs.length < this.cores) {
      const run = this.make();
      this.runs.push(run);
      this.next(run);
    }
  }

  /** Whether the jobs given by the last `replace` (and those added since) all ended. */
  ended() {
    return this.clock.endedAt !== null;
  }

  /** Whether a job is training or queued. */
  busy() {
    return this.queue.length > 0 || this.job.size > 0;
  }

  /** Lets its runs train, or holds them. @param {boolean} on */
  setTraining(on) {
    this.training = on;
    this.clock.hold(on);
    for (const run of this.runs) run.setPlaying(on && this.job.has(run));
  }

  /** Ends every job and the workers. */
  stop() {
    for (const run of this.runs) run.stop();
    this.runs = [];
    this.queue = [];
    this.job.clear();
  }

  /** Gives `run` the next job in the queue, or leaves it idle (its worker goes when nothing
   * is left to train). @private @param {Run} run */
  next(run) {
    const job = this.queue.shift();
    if (!job) {
      this.job.delete(run);
      run.setPlaying(false);
      if (!this.busy()) {
        this.clock.end();
        this.stop();
      }
      return;
    }
    this.job.set(run, job);
    run.setSpeed(FULL_SPEED);
    run.setFrame(JOB_FRAME_MS);
    run.setLimit(job.steps);
    const config = job.config;
    // The same settings but the seed: the trainer starts again from that seed.
    const same = run.config && !run.dead && !run.failed
      && JSON.stringify({ ...run.config, seed: null }) === JSON.stringify({ ...config, seed: null });
    if (same) run.reset(Number(config.seed));
    else run.start(config, 1);
    // A run that stopped at a divergence was paused by it: the next job plays.
    run.setPlaying(this.training);
  }

  /** @private @param {Run} run @param {FromWorker} msg */
  receive(run, msg) {
    const job = this.job.get(run);
    if (!job) return;
    /** @type {'snapshot' | 'done' | 'failed' | null} */
    let what = null;
    if (msg.type === 'snapshot') what = msg.step >= job.steps ? 'done' : 'snapshot';
    else if (msg.type === 'diverged' || msg.type === 'panic' || (msg.type === 'error' && msg.where !== 'snapshot')) what = 'failed';
    if (!what) return;
    if (what !== 'snapshot') this.job.delete(run);
    this.onJob(job, what, run, msg);
    // The owner may have queued jobs that went to this run already.
    if (what !== 'snapshot' && this.runs.includes(run) && !this.job.has(run)) this.next(run);
  }
}
