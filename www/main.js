// @ts-check
// Boots the page: picks the wasm build, starts the trainer's worker, reads the link
// (url.js), builds the controls from state.js, and redraws the views from the latest
// snapshot at most once per animation frame, writing the current state back to the URL.
// Data flows one way: settings → worker → snapshot → views.

import { detectVariant, VARIANTS } from './variant.js';
import { SETTINGS, PRESET_LABELS, DEFAULT_PRESET, SPEEDS, DEFAULT_SPEED, parseSetting, tokenName } from './state.js';
import { readLink, writeLink, same, THEMES } from './url.js';
import { colormapNames } from './views/colormap.js';
import { hiddenParts, hideParts, framed, reportHeight, watchVisibility, embedSnippet } from './embed.js';
import { CONTRASTS, CompareRun, keepSeries, mergeHistories } from './compare.js';
import { STORY } from './story.js';
import {
  download, historyCsv, historyJson, runFile, readRunFile, weightsFile, readWeightsFile, panel, png,
  RUN_FORMAT, WEIGHTS_FORMAT,
} from './export.js';
import { Heatmap } from './views/heatmap.js';
import { LineChart } from './views/chart.js';

/** @typedef {import('./protocol.js').Snapshot} Snapshot */
/** @typedef {import('./protocol.js').FromWorker} FromWorker */
/** @typedef {import('./protocol.js').ToWorker} ToWorker */
/** @typedef {import('./protocol.js').Evaluation} Evaluation */

/** @param {string} id */
function $(id) {
  const el = document.getElementById(id);
  if (!el) throw new Error(`missing #${id}`);
  return el;
}

const params = new URLSearchParams(location.search);
/** Embed mode: only the figures and play / step / reset (embed.js). */
const embedded = params.get('embed') === '1';
const parts = hiddenParts(embedded, params.get('hide'));
const forced = params.get('variant');
/** @type {import('./variant.js').Variant} */
const variant = forced && /** @type {string[]} */ (VARIANTS).includes(forced)
  ? /** @type {import('./variant.js').Variant} */ (forced)
  : detectVariant();

/** The whole page state that is not the worker's. */
const ui = {
  /** @type {Worker | null} */ worker: null,
  /** @type {Worker[]} the helper workers of a data-parallel run */ helpers: [],
  /** 'auto' or a count of workers. @type {'auto' | number} */
  workers: /** @type {'auto' | number} */ ('auto'),
  /** @type {Record<string, Record<string, unknown>>} */ presets: {},
  /** @type {Record<string, unknown>} */ config: {},
  /** The preset the run started from (the settings may since differ from it). */
  preset: DEFAULT_PRESET,
  /** Whether the link has been read (once, when the presets are known). */
  linkRead: false,
  /** The link's config fields the trainer has not accepted yet (null once it has).
   * @type {Record<string, unknown> | null} */
  linkPending: null,
  /** The link's view keys, checked against the first run's shape. @type {Partial<import('./url.js').View>} */
  linkView: {},
  /** What of the link had to be ignored, said once. @type {string[]} */
  linkProblems: [],
  /** The page switches of the link (variant, embed, …), written back unchanged.
   * @type {[string, string][]} */
  passthrough: [],
  /** The query string last written to the address bar. */
  linkWritten: '',
  /** The training loss of every step of the run. @type {number[]} */ losses: [],
  /** The settings the form shows, as JSON. */
  formConfig: '',
  /** A saved run opened to view (the live run waits, paused), or null.
   * @type {(ReturnType<typeof readRunFile> & { name: string }) | null} */
  viewing: null,
  /** Resolves the worker's reply to 'get-params'. @type {((m: { params: Float32Array, step: number, config: Record<string, unknown> }) => void) | null} */
  onParams: null,
  running: false,
  /** The story step shown (0-based), or -1. */
  story: -1,
  /** The preset of weights being loaded, taken once the trainer accepts them. */
  pendingPreset: '',
  /** A contrast to start once the first run exists (from the link). */
  pendingCompare: '',
  /** Paused because the page went out of sight; resumes when it is back. */
  autoPaused: false,
  /** Whether the page is in sight (its tab shown and, when embedded, scrolled into view). */
  visible: !document.hidden,
  speed: DEFAULT_SPEED,
  seq: 0,
  head: -1,
  colormap: 'viridis',
  /** 'auto' follows the system's light or dark preference. */
  theme: 'auto',
  /** @type {Evaluation[]} */ history: [],
  /** @type {Snapshot | null} */ latest: null,
  dirty: false,
  /** Compare mode: the contrast, the second run and its settings' base, or null.
   * @type {{ kind: string, run: CompareRun, base: string, names: [string, string], sentRunning: boolean } | null} */
  compare: null,
};

// --- views ---------------------------------------------------------------------------
const alphaMap = new Heatmap($('alpha'), { title: 'Attention α', kind: 'attention' });
const betaMap = new Heatmap($('beta'), { title: 'KTIW β (log-odds)', kind: 'ktiw' });
/** @type {Heatmap[]} */
let headMaps = [];
const alphaMapB = new Heatmap($('alpha-b'), { title: 'Attention α', kind: 'attention' });
const betaMapB = new Heatmap($('beta-b'), { title: 'KTIW β (log-odds)', kind: 'ktiw' });
/** The accuracy metrics the chart draws (colours: the theme's series 1–4 in this order). */
const ACCURACIES = [
  ['token_accuracy', 'token accuracy'],
  ['attention_accuracy', 'attention accuracy'],
  ['ktiw_accuracy', 'KTIW accuracy'],
  ['ktiw_score', 'KTIW score'],
];
/** Solid for the first run, dashed for the second. */
const RUN_DASH = [[], [6, 4]];

/** The charts: of one run, or in compare mode both runs' curves on the same axes (colour
 * by metric, dash by run). @param {[string, string] | null} names */
function makeCharts(names) {
  const loss = new LineChart($('loss-chart'), {
    title: 'Loss (evaluation batch)',
    series: names
      ? names.map((n, r) => ({ key: r ? 'loss_b' : 'loss', label: `loss, ${n}`, color: 'var(--ap-series-1)', dash: RUN_DASH[r] }))
      : [{ key: 'loss', label: 'loss' }],
    yRange: 'auto',
  });
  const acc = new LineChart($('acc-chart'), {
    title: 'Accuracy',
    series: names
      // Compare: token, attention and KTIW accuracy of both runs (the KTIW score would be an eighth line).
      ? ACCURACIES.slice(0, 3).flatMap(([key, label], i) => names.map((n, r) => ({
        key: r ? `${key}_b` : key, label: `${label}, ${n}`, color: `var(--ap-series-${i + 1})`, dash: RUN_DASH[r],
      })))
      : ACCURACIES.map(([key, label]) => ({ key, label })),
    yRange: [0, 1],
  });
  return { loss, acc };
}
let { loss: lossChart, acc: accChart } = makeCharts(null);

// --- worker ----------------------------------------------------------------------------
/** @param {ToWorker} msg */
function send(msg) {
  ui.worker?.postMessage(msg);
  // The compared run follows the first run's controls (its settings, and whether it plays,
  // follow from the first run's snapshots: followCompare, syncComparePlay).
  if (ui.compare && ['step', 'reset', 'speed', 'select', 'lr'].includes(msg.type)) ui.compare.run.send(msg);
}

/** Plays or pauses the compared run as the first run does. @param {boolean} running */
function syncComparePlay(running) {
  const c = ui.compare;
  if (!c || c.sentRunning === running) return;
  c.sentRunning = running;
  c.run.send({ type: running ? 'play' : 'pause' });
}

/** Starts (or with '' ends) compare mode: a second run, the first's settings with one
 * changed, same seed, in its own worker. @param {string} kind a key of CONTRASTS, or '' */
function setCompare(kind) {
  ui.compare?.run.stop();
  ui.compare = null;
  /** @type {HTMLSelectElement} */ ($('compare')).value = kind;
  if (kind && CONTRASTS[kind] && ui.latest) {
    const names = CONTRASTS[kind].names(ui.config);
    const run = new CompareRun(variant, (m) => onCompareMessage(m));
    ui.compare = { kind, run, base: compareKey(ui.config), names, sentRunning: false };
    run.start(CONTRASTS[kind].apply(ui.config), ui.speed);
    run.send({ type: 'select', seq: ui.seq, head: ui.head });
    syncComparePlay(ui.running);
  } else if (kind && CONTRASTS[kind]) {
    ui.pendingCompare = kind; // once the first run exists
  }
  rebuildCharts();
  $('maps-b').hidden = !ui.compare;
  $('name-a').hidden = !ui.compare;
  setCompareLabels();
}

/** The settings a compared run follows: all but the learning rate, which is relayed as it
 * changes (send) instead of restarting the pair. @param {Record<string, unknown>} config */
function compareKey(config) {
  return JSON.stringify({ ...config, learning_rate: null });
}

/** Shows story step `k` and, when `apply`, sets its run up through the page's controls.
 * @param {number} k @param {boolean} [apply] */
function showStory(k, apply = true) {
  const st = STORY[k];
  if (!st) return;
  ui.story = k;
  $('story').hidden = false;
  $('story-title').textContent = `${k + 1} of ${STORY.length}: ${st.title}`;
  $('story-text').textContent = st.text;
  /** @type {HTMLButtonElement} */ ($('story-prev')).disabled = k === 0;
  /** @type {HTMLButtonElement} */ ($('story-next')).disabled = k === STORY.length - 1;
  ui.dirty = true;
  if (!apply) return;
  stopViewing();
  if (st.speed !== undefined) {
    ui.speed = st.speed;
    /** @type {HTMLSelectElement} */ ($('speed')).value = String(st.speed);
    send({ type: 'speed', speed: st.speed });
  }
  if (!st.keep) {
    send({ type: 'pause' });
    ui.running = false;
    ui.autoPaused = false;
    setCompare('');
    ui.preset = st.preset;
    runConfig(ui.presets[st.preset]);
    if (st.compare) ui.pendingCompare = st.compare;
  }
  if (st.play && !ui.running) {
    send({ type: 'play' });
    ui.running = true;
  }
  syncPlay();
}

function closeStory() {
  ui.story = -1;
  $('story').hidden = true;
  ui.dirty = true;
}

/** The charts for the current mode (one run, or both runs' names in their legends). */
function rebuildCharts() {
  lossChart.destroy();
  accChart.destroy();
  ({ loss: lossChart, acc: accChart } = makeCharts(ui.compare?.names ?? null));
  ui.dirty = true;
}

/** @param {FromWorker} msg */
function onCompareMessage(msg) {
  const c = ui.compare;
  if (!c) return;
  if (msg.type === 'snapshot') {
    c.run.take(msg);
    ui.dirty = true;
  } else if (msg.type === 'panic' || msg.type === 'error' || msg.type === 'diverged') {
    showStatus(`The compared run (${c.names[1]}): ${msg.message}`, msg.type === 'diverged' ? 'warn' : 'error');
  }
}

/** A new first run (other settings): the compared run restarts on them, contrast applied. */
function followCompare() {
  const c = ui.compare;
  if (!c || c.base === compareKey(ui.config)) return;
  c.base = compareKey(ui.config);
  const names = CONTRASTS[c.kind].names(ui.config);
  c.run.send({ type: 'config', config: CONTRASTS[c.kind].apply(ui.config) });
  if (names.join() !== c.names.join()) {
    c.names = names;
    rebuildCharts();
  }
  setCompareLabels();
}

function setCompareLabels() {
  const c = ui.compare;
  if (!c) return;
  $('name-a').textContent = `First run: ${c.names[0]}`;
  $('name-b').textContent = `Second run: ${c.names[1]} (same seed; solid and dashed lines on the charts)`;
}

/** How many workers share each batch: all cores for large batches (the paper size),
 * one for small ones, where a step is too short to win from splitting.
 * @param {Record<string, unknown>} config */
function workerCount(config) {
  if (ui.workers !== 'auto') return ui.workers;
  const batch = Number(config.batch ?? 32);
  return batch >= 64 ? Math.max(1, Math.min(navigator.hardwareConcurrency || 1, 8)) : 1;
}

/** Starts a fresh worker (and its helpers) on `config` (null: only load the wasm and
 * report the presets); also the way out of a panic. */
function startWorker(/** @type {Record<string, unknown> | null} */ config, play = false) {
  ui.worker?.terminate();
  for (const h of ui.helpers) h.terminate();
  const w = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  ui.worker = w;
  w.addEventListener('message', (e) => onMessage(/** @type {MessageEvent<FromWorker>} */ (e).data));
  w.addEventListener('error', (e) => showPanic(e.message || 'the worker failed to start'));
  send({ type: 'init', variant, config, speed: ui.speed, play: false });
  const n = config ? workerCount(config) : 1;
  ui.helpers = [];
  /** @type {MessagePort[]} */
  const ports = [];
  for (let i = 1; i < n; i++) {
    const h = new Worker(new URL('./helper.js', import.meta.url), { type: 'module' });
    const channel = new MessageChannel();
    h.postMessage({ type: 'init-helper', variant, port: channel.port1 }, [channel.port1]);
    ui.helpers.push(h);
    ports.push(channel.port2);
  }
  if (ports.length) w.postMessage({ type: 'helpers', ports }, ports);
  $('workers-count').textContent = String(n);
  // A new first run (other workers, or after a panic): the compared run starts again too.
  if (ui.compare && config) {
    ui.compare.base = compareKey(config);
    ui.compare.sentRunning = false;
    ui.compare.run.send({ type: 'config', config: CONTRASTS[ui.compare.kind].apply(config) });
  }
  if (play) send({ type: 'play' });
}

/** A new run of `config`: in fresh workers when it wants another number of them, else in
 * the current ones (where a playing run goes on playing); `play` starts it. */
function runConfig(/** @type {Record<string, unknown>} */ config, play = false) {
  if (workerCount(config) !== ui.helpers.length + 1) startWorker(config, play);
  else {
    send({ type: 'config', config });
    if (play) send({ type: 'play' });
  }
}

/** @param {FromWorker} msg */
function onMessage(msg) {
  switch (msg.type) {
    case 'ready':
      $('variant').textContent = msg.variant;
      ui.presets = msg.presets;
      fillPresets();
      if (!ui.linkRead) applyLink();
      break;
    case 'snapshot':
      keepSeries(ui, msg);
      ui.latest = msg;
      ui.running = msg.running;
      ui.config = msg.config;
      ui.seq = msg.seq;
      ui.head = msg.head;
      ui.dirty = true;
      syncComparePlay(msg.running);
      if (ui.linkPending) linkAccepted(msg);
      else syncForm(msg.config);
      if (ui.pendingCompare) {
        const kind = ui.pendingCompare;
        ui.pendingCompare = '';
        setCompare(kind);
      }
      followCompare();
      break;
    case 'error':
      if (ui.linkPending && msg.where === 'config') linkRefused(msg.field, msg.message);
      else showFieldError(msg.field, msg.message, msg.where);
      break;
    case 'diverged':
      ui.running = false;
      showStatus(`Paused: ${msg.message}`, 'warn');
      syncPlay();
      break;
    case 'panic':
      showPanic(msg.message);
      break;
    case 'reset':
      clearStatus();
      break;
    case 'lr':
      clearFieldError('learning_rate');
      break;
    case 'params':
      ui.onParams?.(msg);
      ui.onParams = null;
      break;
    case 'loaded':
      ui.preset = ui.pendingPreset || ui.preset;
      showStatus(`Loaded the saved weights (trained for ${msg.step} steps): the maps and metrics are theirs. Training from here starts the optimiser afresh.`, 'info');
      break;
  }
}

// --- the link --------------------------------------------------------------------------
/** Applies the page's link: its preset, settings and view. What cannot be used is said
 * once and ignored. */
function applyLink() {
  ui.linkRead = true;
  const link = readLink(location.search, ui.presets, DEFAULT_PRESET);
  ui.preset = link.preset;
  ui.passthrough = link.passthrough;
  ui.linkProblems = [...parts.problems, ...link.problems];
  ui.speed = link.view.speed ?? ui.speed;
  ui.workers = link.view.workers ?? ui.workers;
  ui.seq = link.view.seq ?? 0;
  ui.head = link.view.head ?? -1;
  setColormap(link.view.colormap ?? ui.colormap);
  if (link.view.compare) setCompare(link.view.compare);
  if (link.view.story) showStory(link.view.story - 1, false);
  setTheme(link.view.theme ?? ui.theme);
  /** @type {HTMLSelectElement} */ ($('speed')).value = String(ui.speed);
  /** @type {HTMLSelectElement} */ ($('workers')).value = String(ui.workers);
  ui.linkPending = link.overrides;
  ui.linkView = link.view;
  loadLinkConfig(params.get('autoplay') === '1');
}

/** Sends the link's preset with its remaining settings to the trainer. */
function loadLinkConfig(autoplay = false) {
  const config = { ...ui.presets[ui.preset], ...ui.linkPending };
  // An autoplaying page out of sight starts when it comes into view.
  const play = autoplay && ui.visible;
  if (autoplay && !ui.visible) ui.autoPaused = true;
  fillForm(config);
  runConfig(config, play);
  send({ type: 'speed', speed: ui.speed });
  send({ type: 'select', seq: ui.seq, head: ui.head });
}

/** The trainer refused the link's settings: drop the one it names (or, if it names none
 * of them, all of them) and try again with the rest.
 * @param {string | undefined} field @param {string} message */
function linkRefused(field, message) {
  const pending = /** @type {Record<string, unknown>} */ (ui.linkPending);
  if (field && field in pending) {
    delete pending[field];
    ui.linkProblems.push(message);
  } else {
    for (const k of Object.keys(pending)) delete pending[k];
    ui.linkProblems.push(`${message} (the preset's settings are used instead)`);
  }
  loadLinkConfig(params.get('autoplay') === '1');
}

/** The first run of the link is built: say once what was ignored.
 * @param {Snapshot} msg */
function linkAccepted(msg) {
  ui.linkPending = null;
  syncForm(msg.config);
  const { seq, head } = ui.linkView;
  if (seq !== undefined && seq >= msg.shape.evalSeqs) {
    ui.linkProblems.push(`seq: this run evaluates ${msg.shape.evalSeqs} sequences (0 to ${msg.shape.evalSeqs - 1}), got ${seq}`);
  }
  if (head !== undefined && head >= msg.shape.heads) {
    ui.linkProblems.push(`head: this run has ${msg.shape.heads} head${msg.shape.heads > 1 ? 's' : ''} (0 to ${msg.shape.heads - 1}, or −1 for their average), got ${head}`);
  }
  if (ui.linkProblems.length) {
    showStatus(`Ignored from the link: ${ui.linkProblems.join('; ')}. The rest of it applies.`, 'warn');
  }
}

/** Keeps the address bar on the current run (only what differs from the defaults). */
function syncLink() {
  if (!ui.linkRead || ui.linkPending || !ui.latest) return;
  const view = {
    speed: ui.speed, seq: ui.seq, head: ui.head, workers: ui.workers, colormap: ui.colormap, theme: ui.theme,
    compare: ui.compare?.kind ?? '',
    story: ui.story + 1,
  };
  const q = writeLink({ preset: ui.preset, config: ui.config, view, passthrough: ui.passthrough },
    ui.presets, DEFAULT_PRESET);
  if (q === ui.linkWritten) return;
  ui.linkWritten = q;
  const full = new URLSearchParams(q);
  for (const k of ['embed', 'hide', 'autoplay']) full.delete(k);
  /** @type {HTMLAnchorElement} */ ($('full-page')).href = `?${full}`;
  try {
    history.replaceState(history.state, '', q + location.hash);
  } catch {
    // An opaque-origin sandbox refuses it; the copy-link button still gives the link.
  }
}

/** The link of the current run: the address bar's, or built here if it could not be set. */
function currentLink() {
  syncLink();
  return new URL(ui.linkWritten || location.search, location.href).href;
}

/** Shows the HTML that embeds the current run. */
function showEmbed() {
  const url = new URL(currentLink());
  url.searchParams.set('embed', '1');
  url.searchParams.set('autoplay', '1');
  const box = /** @type {HTMLTextAreaElement} */ ($('embed-text'));
  box.value = embedSnippet(url.href);
  $('embed-box').hidden = false;
  box.focus();
  box.select();
}

/** Pauses a run that goes out of sight (tab hidden, or scrolled away when embedded) and
 * resumes it when it is back. @param {boolean} visible */
function onVisible(visible) {
  ui.visible = visible;
  if (!visible && ui.running) {
    ui.autoPaused = true;
    send({ type: 'pause' });
    ui.running = false;
  } else if (visible && ui.autoPaused) {
    ui.autoPaused = false;
    send({ type: 'play' });
    ui.running = true;
  }
  syncPlay();
}

async function copyLink() {
  const link = currentLink();
  const box = /** @type {HTMLInputElement} */ ($('link-text'));
  box.value = link;
  $('link-box').hidden = false;
  try {
    await navigator.clipboard.writeText(link);
    showStatus('Link copied: it opens this run, with these settings and this seed.', 'info');
  } catch {
    box.select();
    showStatus('Copy the link from the box below (this page may not use the clipboard here).', 'info');
  }
}

// --- files: export, open ---------------------------------------------------------------
/** The run on screen: a saved one being viewed, else the live one (whose link is the
 * address bar's). */
function shownRun() {
  const v = ui.viewing;
  return v
    ? { shown: v.shown, history: v.history, losses: v.losses, config: v.config, preset: v.preset, link: v.link }
    : { shown: ui.latest, history: ui.history, losses: ui.losses, config: ui.config, preset: ui.preset, link: '' };
}

/** Downloads one export of the shown run. @param {string} kind */
async function exportAs(kind) {
  /** @type {HTMLDetailsElement} */ ($('export-menu')).open = false;
  const { shown, history, losses, config, preset, link } = shownRun();
  if (!shown) return;
  const base = `attention-playground-${preset}-seed${config.seed}-step${shown.step}`;
  const e = history[history.length - 1];
  const caption = `Attention Playground · ${PRESET_LABELS[preset] ?? preset} · seed ${config.seed} · step ${shown.step}`
    + (e ? ` · loss ${e.loss.toFixed(3)}, token accuracy ${pct(e.token_accuracy)}, attention accuracy ${pct(e.attention_accuracy)}, KTIW accuracy ${pct(e.ktiw_accuracy)}` : '');
  switch (kind) {
    case 'alpha':
      return download(`${base}-alpha.png`, await png(alphaMap.toCanvas()));
    case 'beta':
      return download(`${base}-beta.png`, await png(betaMap.toCanvas()));
    case 'loss-chart':
      return download(`${base}-loss.png`, await png(lossChart.toCanvas()));
    case 'acc-chart':
      return download(`${base}-accuracy.png`, await png(accChart.toCanvas()));
    case 'panel':
      return download(`${base}-figures.png`, await png(panel(
        [[alphaMap.toCanvas(), betaMap.toCanvas()], [lossChart.toCanvas(), accChart.toCanvas()]], caption)));
    case 'csv':
      return download(`${base}-history.csv`, historyCsv(losses, history, shown.lossBase));
    case 'history':
      return download(`${base}-history.json`, historyJson(config, losses, history, shown.lossBase));
    case 'run':
      return download(`${base}-run.json`, runFile({ link: link || currentLink(), preset, config, losses, history, shown }));
    case 'weights': {
      if (ui.viewing) {
        showStatus('A run file holds no weights: go back to the live run to save its weights.', 'warn');
        return;
      }
      const got = await new Promise((resolve) => {
        ui.onParams = resolve;
        send({ type: 'get-params' });
      });
      return download(`${base}-weights.json`, weightsFile({ preset, config: got.config, step: got.step, params: got.params }));
    }
  }
}

/** Opens a run file (to view) or a weights file (into the trainer). @param {File} file */
async function openFile(file) {
  let f;
  try {
    f = JSON.parse(await file.text());
  } catch {
    showStatus(`${file.name}: not a JSON file, so neither a run file nor a weights file.`, 'error');
    return;
  }
  try {
    if (f?.format === RUN_FORMAT) {
      startViewing({ ...readRunFile(f), name: file.name });
    } else if (f?.format === WEIGHTS_FORMAT) {
      const w = readWeightsFile(f);
      stopViewing();
      // The trainer tries the weights before it drops the current run, so the workers stay
      // as they are; a comparison would be with a run of another step: it ends.
      setCompare('');
      const preset = Object.hasOwn(ui.presets, w.preset) ? w.preset : ui.preset;
      const config = { ...ui.presets[preset], ...w.config };
      ui.pendingPreset = preset;
      send({ type: 'load-params', config, params: w.params, step: w.step });
    } else {
      throw new Error('neither a run file nor a weights file of Attention Playground');
    }
  } catch (err) {
    showStatus(`${file.name}: ${/** @type {Error} */ (err).message}`, 'error');
  }
}

const RUN_BUTTONS = ['play', 'step-once', 'reset', 'new-seed', 'seq', 'head'];

/** @typedef {ReturnType<typeof readRunFile> & { name: string }} ViewedRun */

/** Shows a saved run instead of the live one, which waits paused.
 * @param {ViewedRun} run */
function startViewing(run) {
  send({ type: 'pause' });
  ui.running = false;
  ui.autoPaused = false;
  ui.viewing = run;
  $('viewing-text').textContent = `Viewing the saved run “${run.name}”: ${PRESET_LABELS[run.preset] ?? run.preset}, seed ${run.config.seed}, step ${run.shown.step}.`;
  $('viewing').hidden = false;
  for (const id of RUN_BUTTONS) /** @type {HTMLButtonElement} */ ($(id)).disabled = true;
  clearStatus();
  ui.dirty = true;
}

function stopViewing() {
  if (!ui.viewing) return;
  ui.viewing = null;
  $('viewing').hidden = true;
  for (const id of RUN_BUTTONS) /** @type {HTMLButtonElement} */ ($(id)).disabled = false;
  ui.dirty = true;
}

/** Starts the viewed run's settings afresh as the live run: the same run, step by step. */
function trainViewed() {
  const run = ui.viewing;
  if (!run) return;
  stopViewing();
  if (run.preset in ui.presets) ui.preset = run.preset;
  runConfig(run.config);
}

// --- drawing ---------------------------------------------------------------------------
/** With reduced motion, the views change at most this often (ms) instead of every frame. */
const CALM_REDRAW_MS = 500;
const reducedMotion = window.matchMedia('(prefers-reduced-motion: reduce)');
let lastDraw = -Infinity;

function draw(/** @type {number} */ now) {
  requestAnimationFrame(draw);
  if (!ui.dirty || !ui.latest) return;
  if (reducedMotion.matches && ui.running && now - lastDraw < CALM_REDRAW_MS) return;
  lastDraw = now;
  ui.dirty = false;
  const { shown, history } = shownRun();
  const s = /** @type {Snapshot} */ (shown);
  const vocab = Number(s.config.vocab);
  const rows = s.shape.tgtLen;
  const cols = s.shape.srcLen;
  const rowLabels = Array.from(s.target, (t) => tokenName(t, vocab));
  const colLabels = Array.from(s.source, (t) => tokenName(t, vocab));
  const common = { rows, cols, rowLabels, colLabels, aligned: s.aligned };
  alphaMap.update({ ...common, values: s.alpha, range: [0, 1] });
  betaMap.update({ ...common, values: s.beta });
  syncHeadMaps(s, common);
  const b = ui.viewing ? null : ui.compare?.run.latest;
  if (b) {
    const vb = Number(b.config.vocab);
    const cb = {
      rows: b.shape.tgtLen, cols: b.shape.srcLen, aligned: b.aligned,
      rowLabels: Array.from(b.target, (t) => tokenName(t, vb)), colLabels: Array.from(b.source, (t) => tokenName(t, vb)),
    };
    alphaMapB.update({ ...cb, values: b.alpha, range: [0, 1] });
    betaMapB.update({ ...cb, values: b.beta });
  }
  const points = ui.compare && !ui.viewing ? mergeHistories(history, ui.compare.run.history) : history;
  lossChart.update(points);
  accChart.update(points);
  $('step').textContent = String(s.step);
  $('rate').textContent = s.running ? s.stepsPerSecond.toFixed(0) : '–';
  const e = history[history.length - 1];
  if (e) {
    $('m-loss').textContent = e.loss.toFixed(3);
    $('m-token').textContent = pct(e.token_accuracy);
    $('m-attn').textContent = pct(e.attention_accuracy);
    $('m-ktiw').textContent = pct(e.ktiw_accuracy);
    $('m-score').textContent = pct(e.ktiw_score);
  }
  syncSelectors(s);
  syncPlay();
  syncLink();
}

/** @param {number} x */
function pct(x) {
  return `${(100 * x).toFixed(1)}%`;
}

/** One small α heatmap per head when K > 1.
 * @param {Snapshot} s @param {{ rows: number, cols: number, rowLabels: string[], colLabels: string[], aligned: Uint32Array }} common */
function syncHeadMaps(s, common) {
  const box = $('heads');
  if (headMaps.length !== s.perHead.length) {
    box.replaceChildren();
    headMaps = s.perHead.map((_, k) => {
      const div = document.createElement('div');
      div.className = 'head-map';
      box.append(div);
      return new Heatmap(div, { title: `Head ${k + 1} α`, kind: 'attention', colormap: ui.colormap });
    });
    box.hidden = headMaps.length === 0;
    for (const m of headMaps) m.setShowAligned(/** @type {HTMLInputElement} */ ($('show-aligned')).checked);
  }
  s.perHead.forEach((a, k) => headMaps[k].update({ ...common, values: a, range: [0, 1] }));
}

/** @param {Snapshot} s */
function syncSelectors(s) {
  const seqSel = /** @type {HTMLSelectElement} */ ($('seq'));
  if (seqSel.options.length !== s.shape.evalSeqs) {
    seqSel.replaceChildren(...Array.from({ length: s.shape.evalSeqs }, (_, i) => new Option(`sequence ${i + 1}`, String(i))));
  }
  seqSel.value = String(s.seq);
  const headSel = /** @type {HTMLSelectElement} */ ($('head'));
  if (headSel.options.length !== s.shape.heads + 1) {
    headSel.replaceChildren(new Option('average of heads', '-1'),
      ...Array.from({ length: s.shape.heads }, (_, k) => new Option(`head ${k + 1}`, String(k))));
  }
  headSel.value = String(s.head);
  $('head-field').hidden = s.shape.heads < 2;
  const base = ui.presets[ui.preset] ?? {};
  const custom = Object.keys(base).some((k) => !same(ui.config[k], base[k]));
  /** @type {HTMLSelectElement} */ ($('preset')).value = custom ? 'custom' : ui.preset;
}

/** @param {string} name */
function setColormap(name) {
  ui.colormap = name;
  for (const m of [alphaMap, betaMap, alphaMapB, betaMapB, ...headMaps]) m.setColormap(name);
  /** @type {HTMLSelectElement} */ ($('colormap')).value = name;
  ui.dirty = true;
}

/** @param {string} theme 'auto', 'light' or 'dark' */
function setTheme(theme) {
  ui.theme = theme;
  if (theme === 'auto') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
  /** @type {HTMLSelectElement} */ ($('theme')).value = theme;
  restyle();
}

/** The page's colours changed: the canvases read them when they draw, so all redraw. */
function restyle() {
  for (const m of [alphaMap, betaMap, alphaMapB, betaMapB, ...headMaps, lossChart, accChart]) m.invalidate();
  ui.dirty = true;
}
// The 'auto' theme follows the system's, which can change under the page (the views
// leave it to this one listener).
window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', restyle);

function syncPlay() {
  const b = /** @type {HTMLButtonElement} */ ($('play'));
  b.textContent = ui.running ? 'Pause' : 'Play';
  b.setAttribute('aria-pressed', String(ui.running));
}

// --- messages --------------------------------------------------------------------------
/** @param {string} text @param {'info' | 'warn' | 'error'} kind */
function showStatus(text, kind) {
  const el = $('status');
  el.textContent = text;
  el.dataset.kind = kind;
  el.hidden = false;
}

function clearStatus() {
  $('status').hidden = true;
}

/** @param {string | undefined} field @param {string} message @param {string} where */
function showFieldError(field, message, where) {
  const box = field ? document.getElementById(`err-${field}`) : null;
  if (box) {
    box.textContent = message;
    box.hidden = false;
    document.getElementById(`set-${field}`)?.setAttribute('aria-invalid', 'true');
  } else {
    showStatus(`${where === 'load' ? '' : 'Refused: '}${message}`, 'error');
  }
}

/** @param {string} field */
function clearFieldError(field) {
  const box = document.getElementById(`err-${field}`);
  if (box) box.hidden = true;
  document.getElementById(`set-${field}`)?.removeAttribute('aria-invalid');
}

/** @param {string} message */
function showPanic(message) {
  ui.running = false;
  syncPlay();
  $('panic-message').textContent = message;
  $('panic').hidden = false;
}

// --- controls --------------------------------------------------------------------------
function buildSettings() {
  const form = $('settings');
  for (const s of SETTINGS) {
    const row = document.createElement('div');
    row.className = 'setting';
    const id = `set-${s.key}`;
    const label = document.createElement('label');
    label.htmlFor = id;
    label.textContent = s.label;
    /** @type {HTMLInputElement | HTMLSelectElement} */
    let input;
    if (s.kind === 'select') {
      const sel = document.createElement('select');
      for (const [v, text] of s.options ?? []) sel.append(new Option(text, v));
      input = sel;
    } else {
      const inp = document.createElement('input');
      inp.type = s.kind === 'checkbox' ? 'checkbox' : 'text';
      if (s.kind !== 'checkbox') inp.inputMode = s.kind === 'int' ? 'numeric' : 'decimal';
      input = inp;
    }
    input.id = id;
    input.title = s.help;
    input.setAttribute('aria-describedby', `err-${s.key}`);
    const err = document.createElement('div');
    err.id = `err-${s.key}`;
    err.className = 'field-error';
    err.setAttribute('role', 'alert');
    err.hidden = true;
    input.addEventListener('change', () => onSettingChange(s, input));
    if (s.kind === 'checkbox') row.append(input, label, err);
    else row.append(label, input, err);
    form.append(row);
  }
}

/** Shows the trainer's settings in the form whenever they change. @param {Record<string, unknown>} config */
function syncForm(config) {
  const json = JSON.stringify(config);
  if (json === ui.formConfig) return;
  ui.formConfig = json;
  fillForm(config);
}

/** Puts the current settings into the form. */
function fillForm(/** @type {Record<string, unknown>} */ config) {
  for (const s of SETTINGS) {
    const el = /** @type {HTMLInputElement} */ (document.getElementById(`set-${s.key}`));
    const v = config[s.key];
    if (s.kind === 'checkbox') el.checked = Boolean(v);
    // f32 settings arrive widened to f64 (1e-3 → 0.0010000000474974513): show 6 digits.
    else if (s.kind === 'float' && typeof v === 'number') el.value = String(Number(v.toPrecision(6)));
    else el.value = String(v);
    clearFieldError(s.key);
  }
}

/** @param {import('./state.js').Setting} s @param {HTMLInputElement | HTMLSelectElement} input */
function onSettingChange(s, input) {
  const raw = input instanceof HTMLInputElement && input.type === 'checkbox' ? input.checked : input.value;
  const parsed = parseSetting(s, raw);
  if ('error' in parsed) {
    showFieldError(s.key, parsed.error, 'config');
    return;
  }
  clearFieldError(s.key);
  if (s.live) {
    send({ type: 'lr', value: /** @type {number} */ (parsed.value) });
    return;
  }
  // A setting that needs a new model: restart cleanly on the edited settings; the worker
  // keeps the current run if the trainer refuses them.
  const next = { ...ui.config, [s.key]: parsed.value };
  markCustom();
  send({ type: 'config', config: next });
}

function markCustom() {
  const sel = /** @type {HTMLSelectElement} */ ($('preset'));
  sel.value = 'custom';
}

function fillPresets() {
  const sel = /** @type {HTMLSelectElement} */ ($('preset'));
  sel.replaceChildren(
    ...Object.keys(ui.presets).map((name) => new Option(PRESET_LABELS[name] ?? name, name)),
    new Option('custom', 'custom'),
  );
  sel.value = ui.preset;
}

function wireControls() {
  $('play').addEventListener('click', () => {
    ui.autoPaused = false;
    if (ui.running) send({ type: 'pause' });
    else {
      clearStatus();
      send({ type: 'play' });
    }
    ui.running = !ui.running;
    syncPlay();
  });
  $('step-once').addEventListener('click', () => send({ type: 'step', n: 1 }));
  $('copy-link').addEventListener('click', () => void copyLink());
  $('embed-button').addEventListener('click', showEmbed);
  $('story-button').addEventListener('click', () => showStory(Math.max(0, ui.story)));
  $('story-prev').addEventListener('click', () => showStory(ui.story - 1));
  $('story-next').addEventListener('click', () => showStory(ui.story + 1));
  $('story-close').addEventListener('click', closeStory);
  const compare = /** @type {HTMLSelectElement} */ ($('compare'));
  compare.replaceChildren(new Option('no', ''), ...Object.entries(CONTRASTS).map(([k, c]) => new Option(c.label, k)));
  compare.addEventListener('change', () => setCompare(compare.value));
  for (const b of document.querySelectorAll('[data-export]')) {
    b.addEventListener('click', () => void exportAs(/** @type {HTMLElement} */ (b).dataset.export ?? ''));
  }
  const input = /** @type {HTMLInputElement} */ ($('open-file'));
  $('open-button').addEventListener('click', () => input.click());
  input.addEventListener('change', () => {
    const file = input.files?.[0];
    input.value = '';
    if (file) void openFile(file);
  });
  $('viewing-live').addEventListener('click', stopViewing);
  $('viewing-train').addEventListener('click', trainViewed);
  $('reset').addEventListener('click', () => send({ type: 'reset' }));
  $('new-seed').addEventListener('click', () => {
    const seed = Math.floor(Math.random() * 1_000_000);
    send({ type: 'reset', seed });
    const el = /** @type {HTMLInputElement} */ ($('set-seed'));
    el.value = String(seed);
  });
  const speed = /** @type {HTMLSelectElement} */ ($('speed'));
  speed.replaceChildren(...SPEEDS.map(([v, text]) => new Option(text, String(v))));
  speed.value = String(ui.speed);
  speed.addEventListener('change', () => {
    ui.speed = Number(speed.value);
    send({ type: 'speed', speed: ui.speed });
  });
  const preset = /** @type {HTMLSelectElement} */ ($('preset'));
  preset.addEventListener('change', () => {
    if (preset.value === 'custom') return;
    ui.preset = preset.value;
    const config = ui.presets[ui.preset];
    fillForm(config);
    runConfig(config, ui.running);
  });
  const workers = /** @type {HTMLSelectElement} */ ($('workers'));
  const cores = navigator.hardwareConcurrency || 1;
  workers.replaceChildren(new Option('auto', 'auto'),
    ...Array.from({ length: Math.max(cores, 2) }, (_, i) => new Option(String(i + 1), String(i + 1))));
  workers.value = String(ui.workers);
  workers.addEventListener('change', () => {
    ui.workers = workers.value === 'auto' ? 'auto' : Number(workers.value);
    startWorker(ui.config, ui.running);
  });
  $('seq').addEventListener('change', () => {
    send({ type: 'select', seq: Number(/** @type {HTMLSelectElement} */ ($('seq')).value), head: ui.head });
  });
  $('head').addEventListener('change', () => {
    send({ type: 'select', seq: ui.seq, head: Number(/** @type {HTMLSelectElement} */ ($('head')).value) });
  });
  const aligned = /** @type {HTMLInputElement} */ ($('show-aligned'));
  aligned.addEventListener('change', () => {
    for (const m of [alphaMap, betaMap, alphaMapB, betaMapB, ...headMaps]) m.setShowAligned(aligned.checked);
  });
  const cmap = /** @type {HTMLSelectElement} */ ($('colormap'));
  cmap.replaceChildren(...colormapNames.map((n) => new Option(n, n)));
  cmap.addEventListener('change', () => setColormap(cmap.value));
  const theme = /** @type {HTMLSelectElement} */ ($('theme'));
  theme.replaceChildren(...THEMES.map((n) => new Option(n, n)));
  theme.addEventListener('change', () => setTheme(theme.value));
  $('help-button').addEventListener('click', () => /** @type {HTMLDialogElement} */ ($('help')).showModal());
  document.addEventListener('keydown', onShortcut);
  $('panic-reset').addEventListener('click', () => {
    $('panic').hidden = true;
    startWorker(ui.config, false);
  });
}

/** Space play / pause, → one step, R reset, ? help; not while typing, in a menu, in a
 * dialog, or on a heatmap (whose arrow keys move between cells).
 * @param {KeyboardEvent} e */
function onShortcut(e) {
  if (e.ctrlKey || e.metaKey || e.altKey || (e.repeat && e.key !== 'ArrowRight')) return;
  const t = /** @type {HTMLElement | null} */ (e.target instanceof HTMLElement ? e.target : null);
  if (t?.closest('input, select, textarea, [contenteditable], dialog, .ap-heatmap-plot')) return;
  /** @param {string} id */
  const press = (id) => {
    const b = /** @type {HTMLButtonElement} */ ($(id));
    if (!b.closest('[hidden], .ap-part-hidden')) b.click();
  };
  switch (e.key) {
    case ' ':
      if (t?.closest('button, a, summary')) return; // a focused button takes its own Space
      press('play');
      break;
    case 'ArrowRight':
      press('step-once');
      break;
    case 'r':
    case 'R':
      press('reset');
      break;
    case '?':
      if ($('help-button').closest('.ap-part-hidden')) return;
      /** @type {HTMLDialogElement} */ ($('help')).showModal();
      break;
    default:
      return;
  }
  e.preventDefault();
}

hideParts(parts.hidden);
document.documentElement.classList.toggle('embed', embedded);
if (framed()) reportHeight();
watchVisibility(document.body, framed(), onVisible);
buildSettings();
wireControls();
for (const m of [alphaMap, betaMap, alphaMapB, betaMapB]) m.setShowAligned(true);
// Load the wasm first: the link is read against the presets it reports ('ready').
startWorker(null);
requestAnimationFrame(draw);

// A handle for the end-to-end tests (reading state; nothing here is needed by the page).
/** @type {any} */ (window).__ap = { ui, send };
