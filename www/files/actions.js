// @ts-check
// The page's file actions: Export (pictures of the figures, the history, the run file, the
// weights) of the run on screen, and Open (a run file to view, a weights file to load into
// the live run). The formats are formats.js's; checking weights is the trainer's.

import {
  download, historyCsv, historyJson, runFile, readRunFile, weightsFile, readWeightsFile, png,
  resolutionOf, RUN_FORMAT, WEIGHTS_FORMAT, MAX_FILE_BYTES,
} from './formats.js';
import { presetLabel, UNNAMED_FILE_LAB } from '../labs/index.js';
import { quote } from '../state/url.js';
import { showStatus } from '../ui/controls.js';
import { sweepCsv } from '../sweeps/seeds.js';

/** @typedef {import('./formats.js').SavedRun} SavedRun */
/** @typedef {import('../state/store.js').Store} Store */
/** @typedef {import('../training/runs.js').Runs} Runs */
/** @typedef {import('../ui/figures.js').Figures} Figures */

/**
 * The caption under a picture of the figures (an export, a recording's frame): the page,
 * the preset, the seed, the step and the lab's metrics of the evaluation shown.
 * @param {import('../labs/index.js').Lab} lab @param {string} preset @param {unknown} seed @param {number} step
 * @param {Record<string, number> | undefined} e
 */
export function figureCaption(lab, preset, seed, step, e) {
  return `Attention Playground · ${presetLabel(lab, preset)} · seed ${seed} · step ${step}` + (e ? ` · ${lab.caption(e)}` : '');
}

/**
 * @param {{ store: Store, runs: Runs, sweeps: import('../sweeps/sweeps.js').Sweeps, figures: Figures, wasm: any,
 *   link: () => string, validate: import('../state/store.js').Validate }} o
 */
export function fileActions({ store, runs, sweeps, figures, wasm, link, validate }) {
  const lab = store.lab;
  const metrics = lab.metrics.map((m) => m.key);

  /** The run on screen as the exports see it: a saved one being viewed, else the live one.
   * @returns {Promise<SavedRun | null>} */
  async function shownRun() {
    const s = store.state;
    if (s.viewing) return s.viewing;
    const run = runs.first;
    if (!run.latest) return null;
    const losses = await run.losses();
    return {
      lab: lab.name, preset: s.preset, config: run.latest.config, link: link(),
      evaluations: run.evaluations, losses: { step: Array.from(losses.step), loss: Array.from(losses.loss) },
      resolution: { evaluations: resolutionOf(run.resolution), training_loss: resolutionOf(losses) },
      shown: run.latest,
    };
  }

  /** Downloads one export of the shown run. @param {string} kind */
  async function exportAs(kind) {
    /** @type {HTMLDetailsElement} */ (document.getElementById('export-menu')).open = false;
    let run;
    try {
      if (kind === 'weights') return await exportWeights();
      run = await shownRun();
    } catch (err) {
      showStatus(`Export: ${/** @type {Error} */ (err).message}`, 'error');
      return;
    }
    if (!run) return;
    const step = run.shown.step;
    const base = `attention-playground-${run.preset}-seed${run.config.seed}-step${step}`;
    const e = run.evaluations.at(-1);
    const caption = figureCaption(lab, run.preset, run.config.seed, step, e);
    const picture = (/** @type {string} */ id) => figures.views.figure(id) ?? figures.chart(id);
    switch (kind) {
      case 'panel':
        return download(`${base}-figures.png`, await png(figures.composed(caption)));
      case 'csv': {
        // The lab's metrics (under their columns' names), then the run's own columns (a
        // metric by head).
        const own = Object.keys(run.evaluations[0] ?? {}).filter((k) => k !== 'step' && !metrics.includes(k));
        const columns = [...lab.metrics.map((m) => ({ key: m.key, name: m.column ?? m.key })), ...own.map((k) => ({ key: k, name: k }))];
        return download(`${base}-history.csv`, historyCsv(run, columns));
      }
      case 'history':
        return download(`${base}-history.json`, historyJson(run));
      case 'run':
        return download(`${base}-run.json`, runFile(run, lab.arrays));
      default: {
        const canvas = picture(kind);
        if (!canvas) return;
        const suffix = figures.specs.find((c) => c.id === kind)?.file ?? kind;
        return download(`${base}-${suffix}.png`, await png(canvas));
      }
    }
  }

  async function exportWeights() {
    if (store.state.viewing) {
      showStatus('A run file holds no weights: go back to the live run to save its weights.', 'warn');
      return;
    }
    const got = await runs.first.params();
    const preset = store.state.preset;
    const base = `attention-playground-${preset}-seed${got.config.seed}-step${got.step}`;
    download(`${base}-weights.json`, weightsFile({ lab: lab.name, preset, config: got.config, step: got.step, params: got.params }));
  }

  /** Opens a run file (to view) or a weights file (into the live run). @param {File} file */
  async function openFile(file) {
    if (file.size > MAX_FILE_BYTES) {
      showStatus(`${quote(file.name)}: ${Math.round(file.size / 2 ** 20)} MB is more than a run or weights file holds (at most ${MAX_FILE_BYTES / 2 ** 20} MB).`, 'error');
      return;
    }
    let f;
    try {
      f = JSON.parse(await file.text());
    } catch {
      showStatus(`${quote(file.name)}: not a JSON file, so neither a run file nor a weights file.`, 'error');
      return;
    }
    try {
      if (f?.format === RUN_FORMAT) {
        store.view({ ...readRunFile(f, lab, validate, UNNAMED_FILE_LAB), name: file.name });
      } else if (f?.format === WEIGHTS_FORMAT) {
        const w = readWeightsFile(f, UNNAMED_FILE_LAB);
        if (w.lab !== lab.name) throw new Error(`weights file: weights of the lab “${quote(w.lab)}”, this page shows “${lab.name}”`);
        const preset = Object.hasOwn(store.presets, w.preset) ? w.preset : store.state.preset;
        const verdict = validate({ ...store.presets[preset], ...w.config });
        if ('error' in verdict) throw new Error(`weights file: its settings: ${verdict.error}`);
        const config = verdict.config;
        // Checked before anything changes: weights of another model leave the run as it was.
        wasm.checkWeights(lab.name, config, w.params);
        store.stopViewing();
        runs.loadWeights(preset, config, w.params, w.step);
      } else {
        throw new Error('neither a run file nor a weights file of Attention Playground');
      }
    } catch (err) {
      showStatus(`${quote(file.name)}: ${/** @type {Error} */ (err).message}`, 'error');
    }
  }

  /** Downloads the sweep's CSV (each compared sweep's own file). */
  function exportSweep() {
    const seeds = store.state.seeds;
    sweeps.sweeps.forEach((w, i) => {
      const name = w.name ? `-${w.name.replace(/[^a-z0-9]+/gi, '-')}` : '';
      const file = `attention-playground-${store.isCustom(['seed']) ? 'custom' : store.state.preset}${name}-seeds${seeds}-steps${w.steps}.csv`;
      // Two downloads at once: the second a moment later, as browsers may drop it otherwise.
      setTimeout(() => download(file, new Blob([sweepCsv(w.seeds, lab.sweep, Boolean(lab.gpu))], { type: 'text/csv' })), 300 * i);
    });
  }

  return { exportAs, openFile, exportSweep };
}
