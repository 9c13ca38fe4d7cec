// @ts-check
// How long a batch of jobs has trained: from its start to its end (or now), less the time
// it was held (the page out of sight, or paused). The pools of runs (pool.js, gpu-pool.js)
// keep one each.

export class TrainingClock {
  constructor() {
    /** When the jobs started and when the last of them ended (ms, performance.now()). */
    this.startedAt = 0;
    /** @type {number | null} */ this.endedAt = null;
    /** Time held since the start (ms), and since when it is held. @private */
    this.waited = { total: 0, since: /** @type {number | null} */ (null) };
  }

  /** Starts afresh: `jobs` whether there is anything to train, `training` whether it may now. @param {boolean} jobs @param {boolean} training */
  start(jobs, training) {
    this.startedAt = performance.now();
    this.endedAt = jobs ? null : this.startedAt;
    this.waited = { total: 0, since: training ? null : this.startedAt };
  }

  /** Holds the clock, or lets it run on. @param {boolean} training */
  hold(training) {
    const now = performance.now();
    if (!training) this.waited.since ??= now;
    else if (this.waited.since !== null) {
      this.waited.total += now - this.waited.since;
      this.waited.since = null;
    }
  }

  /** The last job ended (the first call counts). */
  end() {
    this.endedAt ??= performance.now();
  }

  /** More jobs came after the end. */
  reopen() {
    this.endedAt = null;
  }

  /** Seconds trained since the start (held time aside), to the end if it ended. */
  seconds() {
    const now = performance.now();
    const holding = this.waited.since !== null && this.endedAt === null ? now - this.waited.since : 0;
    return Math.max(0, (this.endedAt ?? now) - this.startedAt - this.waited.total - holding) / 1000;
  }
}
