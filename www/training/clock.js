// @ts-check
// How long a batch of jobs has trained: from its start to its end (or now), less the time
// it was held (the page out of sight, or paused) before its end. The pools of runs
// (pool.js, gpu-pool.js) keep one each.

export class TrainingClock {
  constructor() {
    /** When the jobs started and when the last of them ended (ms, performance.now()). */
    this.startedAt = 0;
    /** @type {number | null} */ this.endedAt = null;
    /** Time held before the end (ms), and since when it is held (null: not held, or ended). @private */
    this.waited = { total: 0, since: /** @type {number | null} */ (null) };
    /** Whether it is held now. @private */
    this.held = false;
  }

  /** Starts afresh: `jobs` whether there is anything to train, `training` whether it may now. @param {boolean} jobs @param {boolean} training */
  start(jobs, training) {
    this.startedAt = performance.now();
    this.endedAt = jobs ? null : this.startedAt;
    this.held = !training;
    this.waited = { total: 0, since: this.held && jobs ? this.startedAt : null };
  }

  /** Holds the clock, or lets it run on; after the end it only notes which. @param {boolean} training */
  hold(training) {
    this.held = !training;
    if (this.endedAt !== null) return;
    const now = performance.now();
    if (this.held) this.waited.since ??= now;
    else if (this.waited.since !== null) {
      this.waited.total += now - this.waited.since;
      this.waited.since = null;
    }
  }

  /** The last job ended (the first call counts): a hold going on ends there. */
  end() {
    if (this.endedAt !== null) return;
    this.endedAt = performance.now();
    if (this.waited.since !== null) this.waited.total += this.endedAt - this.waited.since;
    this.waited.since = null;
  }

  /** More jobs came after the end. */
  reopen() {
    if (this.endedAt === null) return;
    this.endedAt = null;
    if (this.held) this.waited.since = performance.now();
  }

  /** Seconds trained since the start (held time aside), to the end if it ended. */
  seconds() {
    const now = performance.now();
    const holding = this.waited.since !== null ? now - this.waited.since : 0;
    return Math.max(0, (this.endedAt ?? now) - this.startedAt - this.waited.total - holding) / 1000;
  }
}
