// @ts-check
// The page's test handle, `window.__ap` (documented in docs/testing.md): what the
// end-to-end tests and the benchmarks read of the page besides its UI — the shown run's
// step, settings, history and maps, the live runs, and whether the figures show the latest
// snapshot. Copies out, nothing in: tests act through the UI (and debugPanic, debugLoseGpu).

/** @typedef {import('../state/store.js').Store} Store */
/** @typedef {import('../training/runs.js').Runs} Runs */
/** @typedef {import('../training/run.js').Run} Run */
/** @typedef {import('./figures.js').Figures} Figures */
/** @typedef {import('../training/protocol.js').Snapshot} Snapshot */

/** A run's state in short (`workers`: the replicas its trainer has). @param {Snapshot} s @param {number} evaluations */
function summary(s, evaluations) {
  return {
    step: s.step, loss: s.loss, running: s.running, config: s.config, seq: s.seq, head: s.head,
    shape: s.shape, evaluations, workers: s.workers, memory: s.memory,
  };
}

/**
 * Installs `window.__ap`.
 * @param {{ store: Store, runs: Runs, sweeps: import('../sweeps/sweeps.js').Sweeps,
 *   experiments: import('../experiments/experiments.js').Experiments, figures: Figures }} o
 */
export function installTestHandle({ store, runs, sweeps, experiments, figures }) {
  /** The live run `i` (0: the first, 1: the compared one). @param {number} i */
  const live = (i) => /** @type {Run | undefined} */ (runs.all()[i]);
  /** @param {number} i */
  const shownSnapshot = (i) => {
    const v = store.state.viewing;
    return v && i === 0 ? v.shown : live(i)?.latest ?? null;
  };
  const handle = {
    version: 1,
    /** The shown run (a viewed saved run, else the live first run), in short; null before
     * its first snapshot. */
    shown() {
      const v = store.state.viewing;
      if (v) return summary(v.shown, v.evaluations.length);
      const r = runs.first;
      return r.latest ? summary(r.latest, r.evaluations.length) : null;
    },
    /** The live runs, in short (null for one without a snapshot yet). */
    runs() {
      return runs.all().map((r) => (r.latest ? summary(r.latest, r.evaluations.length) : null));
    },
    /** The evaluations of shown run `i`, oldest first. @param {number} [i] */
    history(i = 0) {
      const v = store.state.viewing;
      const list = v && i === 0 ? v.evaluations : live(i)?.evaluations ?? [];
      return list.map((e) => ({ ...e }));
    },
    /** The training losses of shown run `i`: `{ step, loss }` arrays. @param {number} [i] */
    async losses(i = 0) {
      const v = store.state.viewing;
      if (v && i === 0) return { step: [...v.losses.step], loss: [...v.losses.loss] };
      const run = live(i);
      if (!run) return { step: [], loss: [] };
      const l = await run.losses();
      return { step: Array.from(l.step), loss: Array.from(l.loss) };
    },
    /** The typed arrays (the lab's maps and labels) of shown run `i`'s snapshot, as arrays
     * by name. @param {number} [i] */
    maps(i = 0) {
      const s = shownSnapshot(i);
      if (!s) return null;
      /** @type {Record<string, number[] | number[][]>} */
      const out = {};
      for (const [name, kind] of Object.entries(store.lab.arrays)) {
        const v = s[name];
        out[name] = kind === 'f32[]' ? /** @type {Float32Array[]} */ (v).map((a) => Array.from(a)) : Array.from(/** @type {Float32Array} */ (v));
      }
      return out;
    },
    /** The sweeps (none, one, or two compared): each one's name, steps per seed, where it
     * trains (`backend`, the GPU's `device`, and why not on the GPU: `reason`), whether
     * every seed is done, its summary (sweeps/seeds.js) and each seed's evaluations. */
    sweeps() {
      const summaries = sweeps.summaries();
      return sweeps.sweeps.map((w, i) => {
        const { results, ...summary } = summaries[i];
        return {
          name: w.name, steps: w.steps, backend: w.backend, device: w.device, reason: w.reason, finished: w.seeds.every((r) => r.done), summary, results,
          seconds: sweeps.seconds(),
          seeds: w.seeds.map((r) => ({ seed: r.seed, step: r.step, done: r.done, failed: r.failed, evaluations: r.evaluations.map((e) => ({ ...e })) })),
        };
      });
    },
    /** The compared runs' paired measurements (the `attention` contrast's top-5% agreement
     * of the learned α with β^uf: `{ step, uf, uf_shuffled }`), oldest first. */
    paired() {
      return runs.paired.map((e) => ({ ...e }));
    },
    /** Live run `i`'s latest evaluation with its whole evaluation batch's maps, as arrays by
     * the lab's names (while a comparison measures the pair): `{ step, shape, maps }`, or
     * null. @param {number} [i] */
    evaluationMaps(i = 0) {
      const e = live(i)?.evaluated;
      if (!e) return null;
      const maps = /** @type {Record<string, Float32Array>} */ (e.snapshot.evaluationMaps ?? {});
      return { step: e.step, shape: { ...e.snapshot.shape }, maps: Object.fromEntries(Object.entries(maps).map(([k, v]) => [k, Array.from(v)])) };
    },
    /** The lab's experiment while it is open (null when closed): whether its plan is done,
     * whether its last runs ended (`finished`), its time in seconds, its summary and its CSV. */
    experiment() {
      const plan = experiments.plan;
      if (!plan) return null;
      return { done: plan.done(), finished: experiments.finished(), seconds: experiments.seconds(), summary: plan.summary(), csv: plan.csv() };
    },
    /** Whether the figures show what the runs last sent. */
    drawn() {
      return !figures.dirty;
    },
    /** The trainer's presets of the lab, by name. */
    presets() {
      return structuredClone(store.presets);
    },
    /** The fields of the lab's settings, as the trainer defines them (`{ key, words, live,
     * kind, min, max, choices }`), in the order the form lists them. */
    settings() {
      return structuredClone(store.fields);
    },
    /** The store's state (settings, view options, playing, story step), a copy. */
    state() {
      const { viewing, ...rest } = store.state;
      return { ...structuredClone(rest), viewing: viewing ? viewing.name ?? '' : null };
    },
    /** Makes live run `i`'s trainer panic (to test how a panic reaches the page). @param {number} [i] */
    debugPanic(i = 0) {
      live(i)?.debugPanic();
    },
    /** Destroys the GPU device of live run `i`'s trainer, as a lost GPU would be (to test
     * how the run goes on); nothing on the CPU. @param {number} [i] */
    debugLoseGpu(i = 0) {
      live(i)?.debugLoseGpu();
    },
  };
  /** @type {any} */ (window).__ap = handle;
}
