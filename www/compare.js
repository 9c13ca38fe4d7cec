// @ts-check
// Compare mode: a second run that differs from the live one in one setting (the paper's
// contrasts: easy vs hard task, learned vs uniform attention, one head vs several), with
// the same seed, in its own worker. This module owns the contrasts, that worker and the
// merging of both histories into the charts' points; main.js draws.

/** @typedef {import('./protocol.js').Snapshot} Snapshot */
/** @typedef {import('./protocol.js').Evaluation} Evaluation */
/** @typedef {import('./protocol.js').ToWorker} ToWorker */
/** @typedef {import('./protocol.js').FromWorker} FromWorker */

/** Heads of the several-heads contrast (as the small-heads preset). */
const MANY_HEADS = 8;

/**
 * The contrasts: how the second run's settings follow from the first's, and what the
 * difference is called (for the first run and the second).
 * @type {Record<string, { label: string, apply(c: Record<string, any>): Record<string, any>, names(c: Record<string, any>): [string, string] }>}
 */
export const CONTRASTS = {
  task: {
    label: 'easy vs hard task',
    // Hard: every source a permutation of the vocabulary (V = L); easy: V = 1.5 L.
    apply: (c) => (c.distinct && c.vocab === c.length
      ? { ...c, vocab: Math.round(1.5 * c.length) }
      : { ...c, distinct: true, vocab: c.length }),
    names: (c) => (c.distinct && c.vocab === c.length ? ['hard task', 'easy task'] : ['easy task', 'hard task']),
  },
  attention: {
    label: 'learned vs uniform attention',
    apply: (c) => ({ ...c, attention: c.attention === 'uniform' ? 'learned' : 'uniform' }),
    names: (c) => (c.attention === 'uniform' ? ['uniform', 'learned'] : ['learned', 'uniform']),
  },
  heads: {
    label: `one head vs ${MANY_HEADS}`,
    apply: (c) => ({ ...c, heads: c.heads > 1 ? 1 : MANY_HEADS }),
    names: (c) => (c.heads > 1 ? [`${c.heads} heads`, '1 head'] : ['1 head', `${MANY_HEADS} heads`]),
  },
};

/** The metrics the charts draw, per run. */
const KEYS = /** @type {const} */ (['loss', 'token_accuracy', 'attention_accuracy', 'ktiw_accuracy', 'ktiw_score']);

/**
 * One chart point per evaluated step with both runs' metrics: the first run's under their
 * own keys, the second's with the suffix `_b`; a step only one run reached has gaps.
 * @param {readonly Evaluation[]} a @param {readonly Evaluation[]} b
 */
export function mergeHistories(a, b) {
  /** @type {Map<number, { step: number, [key: string]: number }>} */
  const at = new Map();
  const row = (/** @type {number} */ step) => {
    let r = at.get(step);
    if (!r) {
      r = { step };
      at.set(step, r);
      for (const k of KEYS) {
        r[k] = NaN;
        r[`${k}_b`] = NaN;
      }
    }
    return r;
  };
  for (const e of a) for (const k of KEYS) row(e.step)[k] = e[k];
  for (const e of b) for (const k of KEYS) row(e.step)[`${k}_b`] = e[k];
  return [...at.values()].sort((x, y) => x.step - y.step);
}

/**
 * Adds a snapshot's new evaluations and training losses to a run's series (a new run or a
 * reset starts them again: `historyFrom`, `lossesFrom` are 0 then).
 * @param {{ history: Evaluation[], losses: number[] }} into @param {Snapshot} s
 */
export function keepSeries(into, s) {
  into.history.length = Math.min(into.history.length, s.historyFrom);
  into.history.push(...s.history);
  into.losses.length = Math.min(into.losses.length, s.lossesFrom);
  into.losses.push(...s.losses);
}

/** The second run: its own worker (one, no helpers), driven like the first. */
export class CompareRun {
  /** @param {string} variant the wasm build @param {(m: FromWorker) => void} onMessage */
  constructor(variant, onMessage) {
    /** @readonly */ this.worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
    this.worker.addEventListener('message', (e) => onMessage(/** @type {MessageEvent<FromWorker>} */ (e).data));
    this.worker.addEventListener('error', (e) => onMessage({ type: 'panic', message: e.message || 'the comparison worker failed to start' }));
    /** @private */ this.variant = variant;
    /** @type {Snapshot | null} */ this.latest = null;
    /** @type {Evaluation[]} */ this.history = [];
    /** @type {number[]} */ this.losses = [];
  }

  /** @param {Record<string, unknown>} config @param {number} speed */
  start(config, speed) {
    this.send({ type: 'init', variant: this.variant, config, speed, play: false });
  }

  /** @param {ToWorker} msg */
  send(msg) {
    this.worker.postMessage(msg);
  }

  /** Keeps a snapshot and its news. @param {Snapshot} s */
  take(s) {
    keepSeries(this, s);
    this.latest = s;
  }

  stop() {
    this.worker.terminate();
  }
}
