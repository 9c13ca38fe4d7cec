// @ts-check
// The page's controls: the toolbar, the settings form (built from the lab's settings), the
// story panel, the status line, the help dialog and the keyboard shortcuts. A control
// writes only through the store's actions or the runs' commands, and shows the store's
// state back; it never reads a run's snapshot.

import { GENTLE_PACE, SPEEDS, THEMES } from '../state/options.js';
import { colormapNames } from '../views/colormap.js';
import { byId, h, setText } from './dom.js';
import { presetLabel, LABS, DEFAULT_LAB } from '../labs/index.js';
import { quote } from '../state/url.js';
import { settingInputs } from './form.js';

/** @typedef {import('../state/store.js').Store} Store */
/** @typedef {import('../state/store.js').State} State */
/** @typedef {import('../training/runs.js').Runs} Runs */
/** @typedef {import('../labs/index.js').Field} Field */

/** @param {string} id */
const select = (id) => /** @type {HTMLSelectElement} */ (byId(id));
/** @param {string} id */
const button = (id) => /** @type {HTMLButtonElement} */ (byId(id));

/** @param {string} text @param {'info' | 'warn' | 'error'} kind */
export function showStatus(text, kind) {
  const el = byId('status');
  el.textContent = text;
  el.dataset.kind = kind;
  el.hidden = false;
}

export function clearStatus() {
  byId('status').hidden = true;
}

/** @param {string} message */
export function showPanic(message) {
  byId('panic-message').textContent = message;
  byId('panic').hidden = false;
}

/** The buttons that act on the live run: off while a saved run is viewed. */
const RUN_BUTTONS = ['play', 'step-once', 'reset', 'new-seed', 'seq', 'head'];

/**
 * Builds and wires the controls.
 * @param {{ store: Store, runs: Runs, cores: number, actions: { copyLink(): void, showEmbed(): void,
 *   exportAs(kind: string): void, openFile(f: File): void, charts(): { id: string, label: string }[] } }} o
 */
export function createControls({ store, runs, cores, actions }) {
  const lab = store.lab;
  byId('title').textContent = lab.title;
  byId('tagline').textContent = lab.tagline;
  byId('story-button').title = `A guided tour of what to watch, in ${lab.story.length} short steps`;
  buildSettings(store);
  // Its charts are those shown when it opens (by head, of a comparison).
  buildExportMenu(store, actions);
  byId('export-menu').addEventListener('toggle', () => buildExportMenu(store, actions));

  speedSelect(store);
  // Another lab is another page: its own link, opened in this tab.
  const labs = select('lab');
  labs.replaceChildren(...Object.values(LABS).map((l) => new Option(l.menuName, l.name)));
  labs.value = lab.name;
  labs.addEventListener('change', () => {
    location.assign(labs.value === DEFAULT_LAB ? '?v=1' : `?v=1&lab=${encodeURIComponent(labs.value)}`);
  });
  const preset = select('preset');
  preset.replaceChildren(
    ...Object.keys(store.presets).map((name) => new Option(presetLabel(lab, name), name)),
    new Option('custom', 'custom'),
  );
  preset.addEventListener('change', () => {
    if (preset.value !== 'custom') store.choosePreset(preset.value);
  });
  const workers = select('workers');
  workers.replaceChildren(new Option('auto', 'auto'),
    ...Array.from({ length: Math.max(cores, 2) }, (_, i) => new Option(String(i + 1), String(i + 1))));
  workers.addEventListener('change', () => store.setView({ workers: workers.value === 'auto' ? 'auto' : Number(workers.value) }));
  const seeds = select('seeds');
  seeds.addEventListener('change', () => store.setView({ seeds: seeds.value }));
  const compare = select('compare');
  compare.replaceChildren(new Option('no', ''), ...Object.entries(lab.contrasts).map(([k, c]) => new Option(c.label, k)));
  compare.addEventListener('change', () => store.setView({ compare: compare.value }));
  select('seq').addEventListener('change', () => store.setView({ seq: Number(select('seq').value) }));
  select('head').addEventListener('change', () => store.setView({ head: Number(select('head').value) }));
  const marks = /** @type {HTMLInputElement} */ (byId('show-marks'));
  setText(byId('marks-words'), lab.marks);
  marks.addEventListener('change', () => store.setView({ marks: marks.checked }));
  const cmap = select('colormap');
  cmap.replaceChildren(...colormapNames.map((n) => new Option(n, n)));
  cmap.addEventListener('change', () => store.setView({ colormap: cmap.value }));
  const theme = select('theme');
  theme.replaceChildren(...THEMES.map((n) => new Option(n, n)));
  theme.addEventListener('change', () => store.setView({ theme: theme.value }));

  button('play').addEventListener('click', () => {
    // A run whose trainer could not start or stopped for good trains nothing: Play stays
    // Play, and the status keeps saying why.
    if (!store.state.playing && runs.first.dead) return;
    if (!store.state.playing) clearStatus();
    store.setPlaying(!store.state.playing);
  });
  button('step-once').addEventListener('click', () => runs.step());
  // On a phone (styles.css) the rest of the controls fold behind this button.
  const more = button('more-controls');
  more.addEventListener('click', () => {
    const open = byId('controls').classList.toggle('open');
    more.setAttribute('aria-expanded', String(open));
    more.textContent = open ? 'Less' : 'More';
    more.setAttribute('aria-label', open ? 'Fewer controls' : 'More controls');
  });
  button('reset').addEventListener('click', () => runs.reset());
  button('new-seed').addEventListener('click', () => {
    store.setSetting('seed', Math.floor(Math.random() * 1_000_000));
  });
  button('copy-link').addEventListener('click', () => actions.copyLink());
  button('embed-button').addEventListener('click', () => actions.showEmbed());
  const input = /** @type {HTMLInputElement} */ (byId('open-file'));
  button('open-button').addEventListener('click', () => input.click());
  input.addEventListener('change', () => {
    const file = input.files?.[0];
    input.value = '';
    if (file) actions.openFile(file);
  });
  button('viewing-live').addEventListener('click', () => store.stopViewing());
  button('viewing-train').addEventListener('click', () => store.trainViewed());
  button('story-button').addEventListener('click', () => store.showStory(Math.max(0, store.state.story - 1)));
  button('story-prev').addEventListener('click', () => store.showStory(store.state.story - 2));
  button('story-next').addEventListener('click', () => store.showStory(store.state.story));
  button('story-close').addEventListener('click', () => store.closeStory());
  button('help-button').addEventListener('click', () => /** @type {HTMLDialogElement} */ (byId('help')).showModal());
  button('panic-reset').addEventListener('click', () => {
    byId('panic').hidden = true;
    runs.restart();
  });
  byId('settings').addEventListener('submit', (e) => e.preventDefault());
  document.addEventListener('keydown', onShortcut);

  /** @param {State} s @param {State | null} prev */
  const show = (s, prev) => {
    const play = button('play');
    play.textContent = s.playing ? 'Pause' : 'Play';
    play.setAttribute('aria-pressed', String(s.playing));
    select('speed').value = String(s.speed);
    preset.value = store.isCustom() ? 'custom' : s.preset;
    workers.value = String(s.workers);
    compare.value = s.compare;
    seedChoices(seeds, s.seeds);
    marks.checked = s.marks;
    cmap.value = s.colormap;
    theme.value = s.theme;
    if (!prev || prev.config !== s.config) fillForm(store.fields, s.config);
    syncSelection(store, s);
    showStory(store, s);
    const viewing = s.viewing;
    byId('viewing').hidden = !viewing;
    if (viewing && viewing !== prev?.viewing) {
      byId('viewing-text').textContent = `Viewing the saved run “${quote(viewing.name ?? '')}”: ${presetLabel(lab, viewing.preset)}, seed ${viewing.config.seed}, step ${viewing.shown.step}.`;
      clearStatus();
    }
    for (const id of RUN_BUTTONS) /** @type {HTMLButtonElement | HTMLSelectElement} */ (byId(id)).disabled = Boolean(viewing);
  };
  store.subscribe(show);
  show(store.state, null);
}

/** @param {Store} store */
function speedSelect(store) {
  const speed = select('speed');
  // The gentle start is the lab's: its slow steps and what happens in them.
  const { steps, why } = store.lab.gentle;
  const perSecond = GENTLE_PACE.slow * 60;
  /** @type {HTMLElement} */ (speed.closest('label')).title = `Gentle start: ${perSecond} steps a second to step ${steps}, `
    + `${why}, then ${GENTLE_PACE.fast} steps a frame`;
  speed.replaceChildren(...SPEEDS.map(([v, text]) => new Option(text, String(v))));
  speed.addEventListener('change', () => store.setView({ speed: Number(speed.value) }));
}

/** The sweep choices: one run, or a sweep of 8, 20, 50 or 100 seeds (and a link's own range).
 * @param {HTMLSelectElement} seeds @param {string} value */
function seedChoices(seeds, value) {
  const values = ['', '8', '20', '50', '100'];
  if (!values.includes(value)) values.push(value);
  if (seeds.options.length !== values.length || ![...seeds.options].every((o, i) => o.value === values[i])) {
    seeds.replaceChildren(...values.map((v) => new Option(v === '' ? 'one run' : /^\d+$/.test(v) ? `${v} seeds` : `seeds ${v}`, v)));
  }
  seeds.value = value;
}

/** The sequence and head choices of the run's settings. @param {Store} store @param {State} s */
function syncSelection(store, s) {
  const { sequences, heads } = store.lab.limits(s.config);
  const seq = select('seq');
  if (seq.options.length !== sequences) {
    seq.replaceChildren(...Array.from({ length: sequences }, (_, i) => new Option(`sequence ${i + 1}`, String(i))));
  }
  seq.value = String(s.seq);
  const head = select('head');
  if (head.options.length !== heads + 1) {
    head.replaceChildren(new Option('average of heads', '-1'),
      ...Array.from({ length: heads }, (_, k) => new Option(`head ${k + 1}`, String(k))));
  }
  head.value = String(s.head);
  byId('head-field').hidden = heads < 2;
}

/** @param {Store} store @param {State} s */
function showStory(store, s) {
  const story = store.lab.story;
  const k = s.story - 1;
  byId('story').hidden = k < 0;
  if (k < 0) return;
  byId('story-title').textContent = `${k + 1} of ${story.length}: ${story[k].title}`;
  byId('story-text').textContent = story[k].text;
  button('story-prev').disabled = k === 0;
  button('story-next').disabled = k === story.length - 1;
}

/** The settings form, one input per field of the lab's settings (the trainer's), with the
 * lab's help text (form.js). @param {Store} store */
function buildSettings(store) {
  const form = byId('settings');
  for (const s of settingInputs(store.fields, store.lab.help)) {
    const id = `set-${s.key}`;
    /** @type {HTMLInputElement | HTMLSelectElement} */
    let input;
    if (s.element === 'select') {
      input = h('select', {});
      for (const [value, words] of s.options ?? []) input.append(new Option(words, value));
    } else {
      input = h('input', { type: s.element });
      if (s.inputMode) input.inputMode = s.inputMode;
    }
    input.id = id;
    input.title = s.help;
    input.setAttribute('aria-describedby', `err-${s.key}`);
    const label = h('label', { for: id }, s.label);
    const err = h('div', { id: `err-${s.key}`, class: 'field-error', role: 'alert', hidden: true });
    input.addEventListener('change', () => onSettingChange(store, s.key, input));
    form.append(h('div', { class: 'setting' }, ...(s.element === 'checkbox' ? [input, label, err] : [label, input, err])));
  }
}

/** @param {Store} store @param {string} key @param {HTMLInputElement | HTMLSelectElement} input */
function onSettingChange(store, key, input) {
  const raw = input instanceof HTMLInputElement && input.type === 'checkbox' ? input.checked : input.value;
  const refused = store.setSetting(key, raw);
  if (refused) showFieldError(key, refused);
  else clearFieldError(key);
}

/** Puts settings into the form. @param {Field[]} fields @param {Record<string, unknown>} config */
function fillForm(fields, config) {
  for (const f of fields) {
    const el = /** @type {HTMLInputElement} */ (byId(`set-${f.key}`));
    const v = config[f.key];
    if (f.kind === 'switch') el.checked = Boolean(v);
    // f32 settings arrive widened to f64 (1e-3 → 0.0010000000474974513): show 6 digits.
    else if ((f.kind === 'positive' || f.kind === 'nonnegative') && typeof v === 'number') el.value = String(Number(v.toPrecision(6)));
    else el.value = String(v);
    clearFieldError(f.key);
  }
}

/** @param {string} field @param {string} message */
function showFieldError(field, message) {
  const box = byId(`err-${field}`);
  box.textContent = message;
  box.hidden = false;
  byId(`set-${field}`).setAttribute('aria-invalid', 'true');
}

/** @param {string} field */
function clearFieldError(field) {
  byId(`err-${field}`).hidden = true;
  byId(`set-${field}`).removeAttribute('aria-invalid');
}

/** The Export menu: the lab's figures, the charts shown, all of them, and the files.
 * @param {Store} store @param {{ exportAs(kind: string): void, charts(): { id: string, label: string }[] }} actions */
function buildExportMenu(store, { exportAs, charts }) {
  const items = [
    ...store.lab.figures.map((f) => [f.id, `${f.label} (PNG)`]),
    ...charts().map((c) => [c.id, `${c.label} (PNG)`]),
    ['panel', 'all figures (PNG)'],
    ['csv', 'metric history (CSV)'],
    ['history', 'metric history (JSON)'],
    ['run', 'run file (JSON, opens again)'],
    ['weights', 'model weights (JSON, opens again)'],
  ];
  byId('export-items').replaceChildren(...items.map(([kind, label]) => {
    const b = h('button', { type: 'button', 'data-export': kind }, label);
    b.addEventListener('click', () => exportAs(kind));
    return b;
  }));
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
    const b = button(id);
    if (!b.closest('[hidden], .ap-part-hidden') && !b.disabled) b.click();
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
      if (byId('help-button').closest('.ap-part-hidden')) return;
      /** @type {HTMLDialogElement} */ (byId('help')).showModal();
      break;
    default:
      return;
  }
  e.preventDefault();
}
