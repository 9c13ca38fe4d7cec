// @ts-check
// The GPU's pool of jobs: the seeds of a sweep that share their settings and steps train as
// one batched GPU run, in one worker (gpu-worker.js), group after group. It tells its owner
// what each job's seed did, as pool.js does for the CPU, and hands back the jobs the GPU
// could not train (no device, a refusal, a device lost) with the reason, for the CPU to
// train from the start. It knows no model: a job is settings and steps.

import { evaluationsOf } from '../state/history.js';
import { TrainingClock } from './clock.js';

/** @typedef {import('./pool.js').Job} Job */
/** @typedef {import('./protocol.js').FromGpuWorker} FromGpuWorker */
/** @typedef {import('../state/history.js').Evaluation} Evaluation */

/**
 * What a job's seed did: its step, its evaluations so far (`evaluated`: new in this
 * report), when it failed, why, and where it trained.
 * @typedef {{ step: number, evaluations: Evaluation[], evaluated: boolean, message: string,
 *   backend: 'gpu' | 'cpu' }} JobReport
 */

/**
 * @template {Job} J
 * @typedef {(job: J, what: 'snapshot' | 'done' | 'failed', report: JobReport) => void} JobEvents
 */

/** Jobs of one setting and number of steps, trained as one run. @template {Job} J
 * @typedef {{ config: Record<string, unknown>, steps: number, jobs: J[], ended: Set<J> }} Group */

/** @template {Job} J */
export class GpuPool {
  /**
   * @param {{ lab: string, metrics: readonly string[], variant: import('./variant.js').Build,
   *   module: WebAssembly.Module, onJob: JobEvents<J>, onFallback: (jobs: J[], reason: string) => void,
   *   onDevice: (name: string) => void }} o
   *   `onFallback`: jobs the GPU will not train, to train elsewhere; `onDevice`: the GPU taken
   */
  constructor({ lab, metrics, variant, module, onJob, onFallback, onDevice }) {
    /** @private */ this.init = { lab, variant, module };
    /** @private */ this.metrics = metrics;
    /** @private */ this.onJob = onJob;
    /** @private */ this.onFallback = onFallback;
    /** @private */ this.onDevice = onDevice;
    /** @private @type {Worker | null} */ this.worker = null;
    /** @private @type {Group<J>[]} */ this.groups = [];
    /** The group training now (its index in `groups`). @private */ this.current = 0;
    /** Whether it may train (a page out of sight, or a pause, holds it). */
    this.training = true;
    /** @private */ this.clock = new TrainingClock();
  }

  /** Seconds its jobs have trained since the last `replace` (held time aside). */
  seconds() {
    return this.clock.seconds();
  }

  /** Whether a job is training or waiting. */
  busy() {
    return this.worker !== null;
  }

  /** Trains `jobs` from now on instead of whatever it was training. @param {J[]} jobs */
  replace(jobs) {
    this.stop();
    this.clock.start(jobs.length > 0, this.training);
    /** @type {Map<string, Group<J>>} */
    const byKey = new Map();
    for (const job of jobs) {
      const key = `${JSON.stringify({ ...job.config, seed: null })} ${job.steps}`;
      let g = byKey.get(key);
      if (!g) {
        g = { config: job.config, steps: job.steps, jobs: [], ended: new Set() };
        byKey.set(key, g);
      }
      g.jobs.push(job);
    }
    this.groups = [...byKey.values()];
    this.current = 0;
    if (!this.groups.length) return;
    let w;
    try {
      w = new Worker(new URL('./gpu-worker.js', import.meta.url), { type: 'module' });
    } catch (err) {
      this.fallBack(`no worker could start (${err})`);
      return;
    }
    this.worker = w;
    w.addEventListener('message', (e) => {
      if (e.target === this.worker) this.receive(/** @type {FromGpuWorker} */ (e.data));
    });
    w.addEventListener('error', (e) => {
      if (e.target === this.worker) this.fallBack(e.message || 'the GPU worker failed to start');
    });
    w.postMessage({ type: 'init', ...this.init });
    w.postMessage({ type: this.training ? 'play' : 'pause' });
    this.send();
  }

  /** Lets it train, or holds it. @param {boolean} on */
  setTraining(on) {
    this.training = on;
    this.clock.hold(on);
    this.worker?.postMessage({ type: on ? 'play' : 'pause' });
  }

  /** Ends every job and the worker. */
  stop() {
    this.worker?.terminate();
    this.worker = null;
    this.groups = [];
  }

  /** Sends the current group to the worker, or ends when none is left. @private */
  send() {
    const g = this.groups[this.current];
    if (!g) {
      this.clock.end();
      this.stop();
      return;
    }
    const seeds = g.jobs.map((j) => Number(j.config.seed));
    this.worker?.postMessage({ type: 'train', group: this.current, config: { ...g.config, seed: seeds[0] }, seeds, steps: g.steps });
  }

  /** The jobs not ended yet, from the current group on, go to the CPU. @private @param {string} reason */
  fallBack(reason) {
    const rest = this.groups.slice(this.current).flatMap((g) => g.jobs.filter((j) => !g.ended.has(j)));
    this.stop();
    this.clock.end();
    if (rest.length) this.onFallback(rest, reason);
  }

  /** @private @param {FromGpuWorker} msg */
  receive(msg) {
    switch (msg.type) {
      case 'device':
        this.onDevice(msg.name);
        return;
      case 'failed':
        this.fallBack(msg.message);
        return;
      case 'finished':
        if (msg.group !== this.current) return;
        this.current += 1;
        this.send();
        return;
      case 'progress': {
        const g = this.groups[msg.group];
        if (!g || msg.group !== this.current) return;
        msg.seeds.forEach((s, i) => {
          const job = g.jobs[msg.from + i];
          if (!job || g.ended.has(job)) return;
          const evaluations = s.history ? evaluationsOf(s.history, this.metrics) : null;
          /** @type {'snapshot' | 'done' | 'failed'} */
          const what = s.stopped !== null ? 'failed' : msg.step >= g.steps ? 'done' : 'snapshot';
          if (what !== 'snapshot') g.ended.add(job);
          this.onJob(job, what, { step: msg.step, evaluations: evaluations ?? [], evaluated: evaluations !== null, message: s.stopped ?? '', backend: 'gpu' });
        });
      }
    }
  }
}
