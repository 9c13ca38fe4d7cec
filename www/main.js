// @ts-check
// Boots the page and wires its parts: picks the wasm build and compiles it once (the page
// asks it for presets and verdicts on settings; each run's workers instantiate it), reads
// the link into the store, and connects the store to the runs (training/runs.js), the controls
// (ui/controls.js), the figures (ui/figures.js), the files (files/actions.js) and the
// address bar.
// Data flows one way: settings (store) → runs → snapshots → figures.

import { detectVariant } from './training/variant.js';
import { placeRuns } from './training/placement.js';
import { compile, instantiate } from './training/wasm.js';
import { LABS, DEFAULT_LAB, presetLabel } from './labs/index.js';
import { Store } from './state/store.js';
import { quote, summarize, pageSwitches } from './state/url.js';
import { Runs } from './training/runs.js';
import { Sweeps } from './sweeps/sweeps.js';
import { SweepPanel } from './sweeps/panel.js';
import { Experiments } from './experiments/experiments.js';
import { ExperimentPanel } from './experiments/panel.js';
import { Figures } from './ui/figures.js';
import { createControls, showStatus, clearStatus, showPanic } from './ui/controls.js';
import { fileActions, figureCaption } from './files/actions.js';
import { recordPanel } from './record/panel.js';
import { hiddenParts, hideParts, framed, reportHeight, watchVisibility, embedSnippet } from './embed/embed.js';
import { installTestHandle } from './ui/handle.js';
import { byId, prose, setText } from './ui/dom.js';

/** @typedef {import('./ui/figures.js').Shown} Shown */

const params = new URLSearchParams(location.search);
/** Embed mode: only the figures and play / step / reset (embed.js). */
const embedded = params.get('embed') === '1';
/** The link's `variant` and `backend` (a bad one is reported by the store, and not used). */
const switches = pageSwitches(location.search);
const labName = params.get('lab') ?? DEFAULT_LAB;
const lab = Object.hasOwn(LABS, labName) ? LABS[labName] : LABS[DEFAULT_LAB];
/** What of the link is ignored before the store reads it. */
const problems = Object.hasOwn(LABS, labName) ? [] : [`Lab (lab): must be one of ${Object.keys(LABS).join(', ')}, got “${quote(labName)}”`];
const parts = hiddenParts(embedded, params.get('hide'), lab);
problems.push(...parts.problems);
const cores = navigator.hardwareConcurrency || 1;

/** Shows where the run on screen trains. @param {string} backend @param {string} detail */
function showBackend(backend, detail) {
  const el = byId('backend');
  setText(el, backend === 'gpu' ? 'GPU' : 'CPU');
  el.title = detail;
}

async function boot() {
  /** @type {WebAssembly.Module} */
  let module;
  /** @type {any} */
  let wasm;
  const placement = await placeRuns({
    asked: switches.backend, forced: switches.variant, detected: detectVariant(), lab, webgpu: /** @type {any} */ (navigator).gpu,
  });
  let build = placement.build;
  try {
    try {
      module = await compile(build);
    } catch (err) {
      if (build !== 'webgpu') throw err;
      // No GPU build to load: the CPU's.
      placement.gpuFailed(`the GPU build did not load (${err})`);
      build = placement.build;
      module = await compile(build);
    }
    wasm = await instantiate(build, module);
  } catch (err) {
    showStatus(`Could not load the ${build} build of the trainer: ${err}`, 'error');
    return;
  }
  byId('variant').textContent = wasm.kernelVariant();
  showBackend(placement.gpu ? 'gpu' : 'cpu', placement.reason);
  if (switches.backend === 'gpu' && !placement.gpu) showStatus(`Training on the CPU: ${placement.reason}.`, 'info');
  /** @type {import('./state/store.js').Validate} */
  const validate = (config) => {
    try {
      return { config: wasm.validateConfig(lab.name, config) };
    } catch (e) {
      const err = /** @type {Error & { field?: string }} */ (e);
      return { error: err.message, field: err.field };
    }
  };
  const store = new Store(lab, { fields: wasm.settings(lab.name), presets: wasm.presets(lab.name), validate }, DEFAULT_LAB);
  const runs = new Runs({ store, variant: build, module, wasm, cores, onEvent, onBudget, placement });
  const sweeps = new Sweeps({
    store, variant: build, module, cores, onChange: () => { panel.dirty = true; }, placementFor: (config) => placement.for(config),
  });
  const panel = new SweepPanel({ store, sweeps });
  const experiments = new Experiments({ store, variant: build, module, cores, wasm, onChange: () => { experimentPanel.dirty = true; } });
  const experimentPanel = new ExperimentPanel({ store, experiments });
  const figures = new Figures(lab, shown, { colormap: store.state.colormap, showMarks: store.state.marks, hidden: parts.hidden });
  byId('explain-text').append(...lab.explainer.map(prose));

  /** What the figures draw: a saved run being viewed, else the live runs. @returns {Shown | null} */
  function shown() {
    const s = store.state;
    if (s.viewing) return { runs: [{ snapshot: s.viewing.shown, evaluations: s.viewing.evaluations, name: '' }], names: null, compare: '', paired: [] };
    const a = runs.first.latest;
    if (!a) return null;
    const names = runs.names();
    const list = [{ snapshot: a, evaluations: runs.first.evaluations, name: names?.[0] ?? '' }];
    const b = runs.second?.latest;
    if (b && runs.second && names) list.push({ snapshot: b, evaluations: runs.second.evaluations, name: names[1] });
    return { runs: list, names, compare: s.compare, paired: runs.paired };
  }

  /** What a run said. @type {import('./training/runs.js').RunsEvents} */
  function onEvent(which, run, msg) {
    const second = which === 'second' ? `The compared run (${runs.names()?.[1] ?? ''}): ` : '';
    switch (msg.type) {
      case 'snapshot':
        figures.dirty = true;
        if (which === 'first') setText(byId('workers-count'), String(msg.workers));
        if (msg.history) storyPoint();
        break;
      case 'diverged':
        if (second) showStatus(`${second}${msg.message}`, 'warn');
        else {
          store.setPlaying(false);
          showStatus(`Paused: ${msg.message}`, 'warn');
        }
        break;
      case 'panic':
        if (second) showStatus(`${second}${msg.message}`, 'error');
        else {
          store.setPlaying(false);
          showPanic(msg.message);
        }
        break;
      case 'error': {
        // A refusal (a setting, weights) names what was refused; anything else is the
        // trainer's own failure, said as such. A step that failed stopped the run.
        const refused = msg.kind === 'setting' || msg.kind === 'weights';
        const said = msg.where === 'load' ? '' : refused ? 'Refused: ' : 'The trainer failed: ';
        // A step that failed stopped the run; a trainer that could not start trains nothing.
        if ((msg.where === 'step' || msg.where === 'load') && !second) store.setPlaying(false);
        showStatus(`${second}${said}${msg.message}${msg.where === 'step' && !second ? ' (paused)' : ''}`, 'error');
        break;
      }
      case 'reset':
        if (!second) {
          clearStatus();
          byId('story-point').hidden = true;
        }
        break;
      case 'backend':
        if (second) break;
        showBackend(msg.backend, msg.backend === 'gpu' ? msg.device : msg.reason);
        // A run the page asked the GPU for that trains on the CPU says why (under auto, a
        // choice of the page's is only the stat's tooltip).
        if (msg.refused) showStatus(msg.lost ? `${msg.reason}.` : `Training on the CPU: the GPU cannot train this run (${msg.reason}).`, 'info');
        break;
      case 'loaded':
        showStatus(`Loaded the saved weights (trained for ${msg.step} steps): the maps and metrics are theirs. Training from here starts the optimiser afresh.`, 'info');
        break;
    }
  }

  /** The first run reached its budget, playing: it pauses, and the page says what is true
   * by then. @param {import('./labs/index.js').Budget} budget */
  function onBudget(budget) {
    store.setPlaying(false);
    const said = `Paused at step ${budget.steps}, this run’s budget: ${budget.claim} (${lab.docs}).`;
    if (store.state.story > 0) showPoint(`${said} Press Next to go on, or Play to train past it.`);
    else {
      budgetSaid = `${said} Press Play to train past it.`;
      showStatus(budgetSaid, 'info');
    }
  }
  /** The status line's budget message while it is shown. */
  let budgetSaid = '';

  /** The start of the first run (story step and generation) whose story point was said. */
  let pointSaid = '';
  /** The start whose evaluations the story point was checked on, and the last step checked. */
  let pointChecked = { key: '', step: -1 };
  /** A story step's point, once the runs show it: the run pauses and the story says so, at
   * the first evaluation that shows it (at full speed a frame may train past a short window,
   * so every evaluation since the last check is looked at, each run's at the same step). */
  function storyPoint() {
    const s = store.state;
    const step = s.story > 0 ? lab.story[s.story - 1] : undefined;
    const key = `${s.story} ${runs.first.generation}`;
    if (!step?.point || !s.playing || pointSaid === key) return;
    if (pointChecked.key !== key) pointChecked = { key, step: -1 };
    const [first, second] = runs.all();
    for (const e of first.evaluations) {
      if (e.step <= pointChecked.step) continue;
      const other = second?.evaluations.find((x) => x.step === e.step);
      // The compared run has not evaluated this step yet: the next snapshot goes on from here.
      if (second && !other) return;
      pointChecked.step = e.step;
      const paired = runs.paired.filter((p) => p.step <= e.step).at(-1);
      const said = step.point(other ? [e, other] : [e], paired);
      if (!said) continue;
      pointSaid = key;
      store.setPlaying(false);
      showPoint(`Shown at step ${e.step}: ${said} Press Next to go on, or Play to keep watching.`);
      return;
    }
  }

  /** @param {string} text */
  function showPoint(text) {
    setText(byId('story-point'), text);
    byId('story-point').hidden = false;
  }

  /** The link of the state, as an absolute URL. */
  const currentLink = () => new URL(store.link(), location.href).href;
  const files = fileActions({ store, runs, sweeps, figures, wasm, link: currentLink, validate });
  createControls({
    store,
    runs,
    cores,
    actions: { copyLink: () => void copyLink(), showEmbed, exportAs: (k) => void files.exportAs(k), openFile: (f) => void files.openFile(f), charts: () => figures.specs },
  });
  /** The preset of the run on screen (a viewed saved run's, else the live one's). */
  const shownPreset = () => store.state.viewing?.preset ?? store.state.preset;
  recordPanel({
    store,
    runs,
    figures,
    words: (drawn) => {
      const a = drawn.runs[0];
      const preset = shownPreset();
      return {
        caption: figureCaption(lab, preset, a.snapshot.config.seed, a.snapshot.step, a.evaluations.at(-1)),
        title: `${presetLabel(lab, preset)} · seed ${a.snapshot.config.seed}${drawn.names ? ` · ${drawn.names.join(' vs ')}` : ''}`,
      };
    },
    fileName: () => {
      const a = shown()?.runs[0].snapshot;
      return `attention-playground-${shownPreset()}-seed${a?.config.seed ?? ''}-from-step${a?.step ?? 0}`;
    },
  });
  byId('sweep-csv').addEventListener('click', () => files.exportSweep());
  byId('full-page').addEventListener('click', (e) => {
    const href = /** @type {HTMLAnchorElement} */ (e.currentTarget).href;
    e.preventDefault();
    const tab = window.open(href, '_blank');
    if (tab) {
      tab.opener = null;
      return;
    }
    // A frame that may not open a tab (a sandbox without allow-popups): the address to copy.
    const box = /** @type {HTMLInputElement} */ (byId('link-text'));
    box.value = href;
    byId('link-box').hidden = false;
    box.select();
    showStatus('This frame may not open a new tab: copy the full page’s address from the box below.', 'info');
  });

  async function copyLink() {
    const link = currentLink();
    const box = /** @type {HTMLInputElement} */ (byId('link-text'));
    box.value = link;
    byId('link-box').hidden = false;
    try {
      await navigator.clipboard.writeText(link);
      showStatus('Link copied: it opens this run, with these settings and this seed.', 'info');
    } catch {
      box.select();
      showStatus('Copy the link from the box below (this page may not use the clipboard here).', 'info');
    }
  }

  /** Shows the HTML that embeds the current run. */
  function showEmbed() {
    const url = new URL(currentLink());
    url.searchParams.set('embed', '1');
    url.searchParams.set('autoplay', '1');
    const box = /** @type {HTMLTextAreaElement} */ (byId('embed-text'));
    box.value = embedSnippet(url.href);
    byId('embed-box').hidden = false;
    box.focus();
    box.select();
  }

  hideParts(parts.hidden);
  document.documentElement.classList.toggle('embed', embedded);
  if (framed()) reportHeight();
  watchVisibility(document.body, framed(), (visible) => {
    runs.visible = visible;
    runs.sync();
    sweeps.visible = visible;
    sweeps.sync(store.state);
    experiments.setVisible(visible);
  });

  problems.push(...store.readLink(location.search));
  // A trainer that could not start (said in the status) is not played.
  if (params.get('autoplay') === '1' && !runs.first.dead) store.setPlaying(true);
  // A story step opened from its link plays as it does from Next, unless the reader asked
  // for reduced motion: then it waits, and says so.
  const linked = store.state.story > 0 ? lab.story[store.state.story - 1] : undefined;
  if (linked?.play && !store.state.playing && !runs.first.dead) {
    if (window.matchMedia('(prefers-reduced-motion: reduce)').matches) showPoint('Press Play to start this step (it waits because this device asks for reduced motion).');
    else store.setPlaying(true);
  }
  if (problems.length) showStatus(`Not applied from the link: ${summarize(problems)}. The rest of it applies.`, 'warn');

  // The views and the address bar follow the store.
  let written = '';
  const follow = (/** @type {import('./state/store.js').State} */ s, /** @type {import('./state/store.js').State} */ prev) => {
    if (s.theme !== prev.theme) {
      if (s.theme === 'auto') delete document.documentElement.dataset.theme;
      else document.documentElement.dataset.theme = s.theme;
      figures.invalidate();
      panel.invalidate();
      experimentPanel.dirty = true;
    }
    if (s.colormap !== prev.colormap) figures.views.setColormap(s.colormap);
    if (s.story !== prev.story || s.fresh !== prev.fresh || (s.playing && !prev.playing)) {
      byId('story-point').hidden = true;
      // "Press Play to train past it", once Play is pressed, is said.
      if (budgetSaid && byId('status').textContent === budgetSaid) clearStatus();
      budgetSaid = '';
    }
    if (s.marks !== prev.marks) figures.views.setShowMarks(s.marks);
    figures.dirty = true;
    const q = store.link();
    if (q === written) return;
    written = q;
    const full = new URLSearchParams(q);
    for (const k of ['embed', 'hide', 'autoplay']) full.delete(k);
    /** @type {HTMLAnchorElement} */ (byId('full-page')).href = `?${full}`;
    try {
      history.replaceState(history.state, '', q + location.hash);
    } catch {
      // An opaque-origin sandbox refuses it; the copy-link button still gives the link.
    }
  };
  store.subscribe(follow);
  follow(store.state, { ...store.state, theme: 'auto', colormap: 'viridis', marks: true });
  // The 'auto' theme follows the system's, which can change under the page.
  window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => {
    figures.invalidate();
    panel.invalidate();
  });
  installTestHandle({ store, runs, sweeps, experiments, figures });
}

void boot();
