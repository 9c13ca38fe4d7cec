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
import { createControls, showStatus } from './ui/controls.js';
import { fileActions, figureCaption } from './files/actions.js';
import { recordPanel } from './record/panel.js';
import { hiddenParts, hideParts, framed, reportHeight, watchVisibility } from './embed/embed.js';
import { installTestHandle } from './ui/handle.js';
import { byId, prose } from './ui/dom.js';
import { storyPoints } from './ui/story-point.js';
import { runEvents, showBackend } from './ui/run-events.js';
import { linkActions } from './ui/link-actions.js';

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

/** The page's runs' shown state: a saved run being viewed, else the live runs.
 * @param {import('./state/store.js').Store} store @param {Runs} runs @returns {Shown | null} */
function shownOf(store, runs) {
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

/** Loads the wasm build the placement names (the CPU's where the GPU's does not load).
 * @param {import('./training/placement.js').Placement} placement */
async function loadTrainer(placement) {
  let build = placement.build;
  try {
    let module;
    try {
      module = await compile(build);
    } catch (err) {
      if (build !== 'webgpu') throw err;
      // No GPU build to load: the CPU's.
      placement.gpuFailed(`the GPU build did not load (${err})`);
      build = placement.build;
      module = await compile(build);
    }
    return { build, module, wasm: await instantiate(build, module) };
  } catch (err) {
    showStatus(`Could not load the ${build} build of the trainer: ${err}`, 'error');
    return null;
  }
}

/** The store of the lab's settings, checked by the trainer. @param {any} wasm */
function makeStore(wasm) {
  /** @type {import('./state/store.js').Validate} */
  const validate = (config) => {
    try {
      return { config: wasm.validateConfig(lab.name, config) };
    } catch (e) {
      const err = /** @type {Error & { field?: string }} */ (e);
      return { error: err.message, field: err.field };
    }
  };
  return { validate, store: new Store(lab, { fields: wasm.settings(lab.name), presets: wasm.presets(lab.name), validate }, DEFAULT_LAB) };
}

async function boot() {
  const placement = await placeRuns({
    asked: switches.backend, forced: switches.variant, detected: detectVariant(), lab, webgpu: /** @type {any} */ (navigator).gpu,
  });
  const loaded = await loadTrainer(placement);
  if (!loaded) return;
  const { build, module, wasm } = loaded;
  byId('variant').textContent = wasm.kernelVariant();
  showBackend(placement.gpu ? 'gpu' : 'cpu', placement.reason);
  if (switches.backend === 'gpu' && !placement.gpu) showStatus(`Training on the CPU: ${placement.reason}.`, 'info');
  const { store, validate } = makeStore(wasm);
  const points = storyPoints({ store, runs: () => runs });
  const onEvent = runEvents({ store, runs: () => runs, redraw: () => { figures.dirty = true; }, points });
  const runs = new Runs({ store, variant: build, module, wasm, cores, onEvent, onBudget: (b) => points.budget(b), placement });
  const sweeps = new Sweeps({
    store, variant: build, module, cores, onChange: () => { panel.dirty = true; }, placementFor: (config) => placement.for(config),
  });
  const panel = new SweepPanel({ store, sweeps });
  const experiments = new Experiments({ store, variant: build, module, cores, wasm, onChange: () => { experimentPanel.dirty = true; } });
  const experimentPanel = new ExperimentPanel({ store, experiments });
  const shown = () => shownOf(store, runs);
  const figures = new Figures(lab, shown, { colormap: store.state.colormap, showMarks: store.state.marks, hidden: parts.hidden });
  byId('explain-text').append(...lab.explainer.map(prose));
  const link = linkActions(store);
  const files = fileActions({ store, runs, sweeps, figures, wasm, link: link.currentLink, validate });
  createControls({
    store,
    runs,
    cores,
    actions: { copyLink: () => void link.copyLink(), showEmbed: link.showEmbed, exportAs: (k) => void files.exportAs(k), openFile: (f) => void files.openFile(f), charts: () => figures.specs },
  });
  recordPanel({ store, runs, figures, ...recordWords(store, shown) });
  byId('sweep-csv').addEventListener('click', () => files.exportSweep());

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
    if (window.matchMedia('(prefers-reduced-motion: reduce)').matches) points.show('Press Play to start this step (it waits because this device asks for reduced motion).');
    else store.setPlaying(true);
  }
  if (problems.length) showStatus(`Not applied from the link: ${summarize(problems)}. The rest of it applies.`, 'warn');

  followLooks(store, figures, () => {
    panel.invalidate();
    experimentPanel.dirty = true;
  });
  link.followAddressBar();
  installTestHandle({ store, runs, sweeps, experiments, figures });
}

/** The recording's caption, title and file name, of the run on screen.
 * @param {import('./state/store.js').Store} store @param {() => Shown | null} shown */
function recordWords(store, shown) {
  /** The preset of the run on screen (a viewed saved run's, else the live one's). */
  const shownPreset = () => store.state.viewing?.preset ?? store.state.preset;
  return {
    /** @param {Shown} drawn */
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
  };
}

/** The page's looks follow the store: the theme (and the system's, under `auto`), the
 * colour map and the maps' marks; the figures redraw on every change.
 * @param {import('./state/store.js').Store} store @param {Figures} figures
 * @param {() => void} recolour the other panels' colours changed */
function followLooks(store, figures, recolour) {
  const follow = (/** @type {import('./state/store.js').State} */ s, /** @type {import('./state/store.js').State} */ prev) => {
    if (s.theme !== prev.theme) {
      if (s.theme === 'auto') delete document.documentElement.dataset.theme;
      else document.documentElement.dataset.theme = s.theme;
      figures.invalidate();
      recolour();
    }
    if (s.colormap !== prev.colormap) figures.views.setColormap(s.colormap);
    if (s.marks !== prev.marks) figures.views.setShowMarks(s.marks);
    figures.dirty = true;
  };
  store.subscribe(follow);
  follow(store.state, { ...store.state, theme: 'auto', colormap: 'viridis', marks: true });
  // The 'auto' theme follows the system's, which can change under the page.
  window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => {
    figures.invalidate();
    recolour();
  });
}

void boot();
