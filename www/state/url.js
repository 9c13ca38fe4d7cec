// @ts-check
// The link format: the URL is the run. `readLink` turns a query string into a lab's preset,
// the settings that differ from it and the view choices, with a message for every key it
// had to ignore (each names the key in words with what it must be, and echoes at most 32
// characters of it); `writeLink` turns the page's state back into the shortest query. Pure
// functions of the lab's schema (tests/unit/url.test.js runs them in Node); the model's
// settings are passed on as text, for the trainer to read and check (store.js asks it).
//
// Version 1: ?v=1&lab=NAME&preset=NAME&FIELD=VALUE…&speed=S&seq=I&head=K&workers=W…
// - `lab` when not the default one; `preset` when not the lab's default one; a FIELD (any
//   field of the trainer's settings) when its value differs from the preset's. Floats are
//   written with the fewest digits that give back the same f32, so the run is the same bit
//   for bit.
// - The view (`speed`, `seq` shown, `head` shown, `workers`, `colormap`, `theme`, `compare`,
//   `story` step, `seeds` of a sweep, `experiment` open) when not the default. The worker count is part of the run's bits
//   (gradients are summed in another order).
// - Switches of the page itself pass through unchanged: `variant`, `backend`, `autoplay`,
//   `embed`, `hide`.

import { SPEEDS, DEFAULT_SPEED, THEMES, same, formatValue } from './options.js';
import { VARIANTS, BACKENDS } from './builds.js';

export { formatValue };
import { colormapNames } from '../views/colormap.js';
import { storySetup } from '../labs/index.js';
import { parseSeeds, formatSeeds, SEEDS_RANGE } from './seed-range.js';

/** @typedef {import('../labs/index.js').Lab} Lab */

const LINK_VERSION = 1;
/** The most workers a link may ask for. */
const MAX_WORKERS = 16;
/** Keys that belong to the page, not the run: kept as they are. */
const PASSTHROUGH = ['variant', 'backend', 'autoplay', 'embed', 'hide'];

/**
 * @typedef {{ speed: number, seq: number, head: number, workers: 'auto' | number,
 *   colormap: string, theme: string, compare: string, story: number, seeds: string, experiment: boolean }} View
 * `seeds`: a sweep's seed range as the link writes it (sweeps/seeds.js), '' for one run.
 * `experiment`: the lab's experiment (Lab.experiment) open beside the run.
 * @typedef {{ preset: string, overrides: Record<string, string>, view: Partial<View>,
 *   passthrough: [string, string][], problems: string[] }} Link
 * `overrides`: the model's settings the link gives, as their text.
 */

/** The default view. @type {View} */
export const DEFAULT_VIEW = { speed: DEFAULT_SPEED, seq: 0, head: -1, workers: 'auto', colormap: 'viridis', theme: 'auto', compare: '', story: 0, seeds: '', experiment: false };

/**
 * Reads a query string for `lab`. Every key it cannot use is named in `problems` and
 * ignored; the rest of the link still applies. (`lab` itself is the page's to read.)
 * @param {string} search `location.search`
 * @param {Lab} lab
 * @param {Record<string, Record<string, unknown>>} presets the trainer's presets of the lab
 * @returns {Link}
 */
export function readLink(search, lab, presets) {
  const params = new URLSearchParams(search);
  /** @type {string[]} */
  const problems = [];
  /** @type {Link} */
  const link = { preset: lab.defaultPreset, overrides: {}, view: {}, passthrough: [], problems };
  /** @type {Map<string, number>} */
  const counts = new Map();
  for (const [key] of params) counts.set(key, (counts.get(key) ?? 0) + 1);
  for (const [key, n] of counts) {
    if (n > 1) problems.push(`“${quote(key)}” is given ${n === 2 ? 'twice' : `${n} times`}; the first value is used`);
  }
  const version = params.get('v');
  if (version !== null && version !== String(LINK_VERSION)) {
    problems.push(`Link format (v): must be ${LINK_VERSION}, got “${quote(version)}”; read as v=${LINK_VERSION}`);
  }
  // A story step's run is the link's default: its preset, contrast, sweep and speed apply
  // unless the link gives its own.
  const story = params.get('story');
  const asked = story === null ? null : parseView(lab, 'story', story);
  const step = asked && 'value' in asked ? storySetup(lab, Number(asked.value) - 1) : null;
  if (step) link.preset = step.preset;
  const given = params.get('preset');
  const own = Object.hasOwn;
  const preset = given !== null && !own(presets, given) && own(lab.presetAliases, given) ? lab.presetAliases[given] : given;
  if (preset !== null) {
    if (own(presets, preset)) link.preset = preset;
    else problems.push(`Preset (preset): must be one of ${Object.keys(presets).join(', ')}, got “${quote(preset)}”`);
  }
  const base = presets[link.preset] ?? {};
  for (const [key, raw] of uniqueEntries(params)) {
    if (key === 'v' || key === 'preset' || key === 'lab') continue;
    if (PASSTHROUGH.includes(key)) {
      const v = parsePassthrough(key, raw);
      if (v) problems.push(v);
      else link.passthrough.push([key, raw]);
    } else if (own(DEFAULT_VIEW, key)) {
      const v = parseView(lab, /** @type {keyof View} */ (key), raw);
      if ('error' in v) problems.push(v.error);
      else /** @type {any} */ (link.view)[key] = v.value;
    } else if (own(base, key)) {
      // A setting of the model: the trainer reads its text and checks its range (store.js).
      link.overrides[key] = raw;
    } else {
      problems.push(`unknown key “${quote(key)}”`);
    }
  }
  if (step) {
    link.view.compare ??= step.compare;
    if (step.seeds) link.view.seeds ??= step.seeds;
    if (step.speed !== undefined) link.view.speed ??= step.speed;
  }
  return link;
}

/** The first value of each key, in order. @param {URLSearchParams} params */
function uniqueEntries(params) {
  /** @type {Map<string, string>} */
  const out = new Map();
  for (const [k, v] of params) if (!out.has(k)) out.set(k, v);
  return out;
}

/** Text as a message echoes it: cut to 32 characters (an ellipsis marks the cut). @param {string} text */
export function quote(text) {
  const chars = [...text];
  return chars.length <= 32 ? text : `${chars.slice(0, 31).join('')}…`;
}

/** At most `max` messages, then how many more there are. @param {string[]} messages @param {number} [max] */
export function summarize(messages, max = 8) {
  if (messages.length <= max) return messages.join('; ');
  return `${messages.slice(0, max).join('; ')}; and ${messages.length - max} more`;
}

/** Whole numbers in decimal notation, as a link writes them. */
const WHOLE = /^-?\d{1,15}$/;
/** Numbers in decimal notation (no hex, no `Infinity`). */
const DECIMAL = /^-?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i;

/** The page's own switches: `embed` and `autoplay` take 1 or 0, `variant` a wasm build,
 * `backend` where runs train;
 * `hide` is embed.js's to read. @param {string} key @param {string} raw @returns {string | null} */
function parsePassthrough(key, raw) {
  if (key === 'embed' || key === 'autoplay') {
    const v = parseBool(key, raw);
    return 'error' in v ? v.error : null;
  }
  if (key === 'variant' && !VARIANTS.includes(/** @type {any} */ (raw))) {
    return `WebAssembly build (variant): must be one of ${VARIANTS.join(', ')}, got “${quote(raw)}”`;
  }
  if (key === 'backend' && !/** @type {readonly string[]} */ (BACKENDS).includes(raw)) {
    return `Backend (backend): must be one of ${BACKENDS.join(', ')}, got “${quote(raw)}”`;
  }
  return null;
}

/**
 * The page's `variant` and `backend` as the page uses them: a valid value, else none (the
 * store's reading of the link reports a bad one).
 * @param {string} search
 * @returns {{ variant: import('./builds.js').Variant | null, backend: import('./builds.js').Backend }}
 */
export function pageSwitches(search) {
  const p = new URLSearchParams(search);
  const valid = (/** @type {string} */ key) => {
    const raw = p.get(key);
    return raw !== null && parsePassthrough(key, raw) === null ? raw : null;
  };
  return {
    variant: /** @type {import('./builds.js').Variant | null} */ (valid('variant')),
    backend: /** @type {import('./builds.js').Backend} */ (valid('backend') ?? 'auto'),
  };
}

/** The words for the page's own keys, as messages name them. */
const WORDS = /** @type {Record<string, string>} */ ({
  embed: 'Embed mode', autoplay: 'Play on load', speed: 'Speed, steps per frame', seq: 'Sequence shown', head: 'Head shown',
  workers: 'Workers', colormap: 'Colour map', theme: 'Theme', compare: 'Compare', story: 'Story step',
  seeds: 'Seeds in a sweep', experiment: 'Experiment',
});

/** A refusal of the page's key `key`: "Words (key): must be …, got “raw”".
 * @param {string} key @param {string} must @param {string} raw */
const refuse = (key, must, raw) => ({ error: `${WORDS[key]} (${key}): must be ${must}, got “${quote(raw)}”` });

/** @param {string} key @param {string} raw @returns {{ value: boolean } | { error: string }} */
function parseBool(key, raw) {
  if (raw === '1' || raw === 'true') return { value: true };
  if (raw === '0' || raw === 'false') return { value: false };
  return refuse(key, '1 or 0', raw);
}

/** @param {Lab} lab @param {keyof View} key @param {string} raw @returns {{ value: unknown } | { error: string }} */
function parseView(lab, key, raw) {
  const int = WHOLE.test(raw) ? Number(raw) : NaN;
  switch (key) {
    case 'speed': {
      const n = DECIMAL.test(raw) ? Number(raw) : NaN;
      return SPEEDS.some(([v]) => v === n) ? { value: n } : refuse(key, `one of ${SPEEDS.map(([v]) => (v === 0 ? '0 (gentle start)' : v)).join(', ')}`, raw);
    }
    case 'seq':
      // The run's number of sequences bounds it too (store.js).
      return int >= 0 ? { value: int } : refuse(key, 'a whole number from 0 to the evaluation batch − 1', raw);
    case 'head':
      return int >= -1 ? { value: int } : refuse(key, 'a whole number from −1 (the average) to the heads − 1', raw);
    case 'workers':
      if (raw === 'auto') return { value: 'auto' };
      return int >= 1 && int <= MAX_WORKERS ? { value: int } : refuse(key, `auto or a whole number from 1 to ${MAX_WORKERS}`, raw);
    case 'colormap':
      return colormapNames.includes(raw) ? { value: raw } : refuse(key, `one of ${colormapNames.join(', ')}`, raw);
    case 'compare':
      if (raw === 'none') return { value: '' };
      return Object.hasOwn(lab.contrasts, raw) ? { value: raw } : refuse(key, `one of none, ${Object.keys(lab.contrasts).join(', ')}`, raw);
    case 'story':
      return int >= 1 && int <= lab.story.length ? { value: int } : refuse(key, `a step from 1 to ${lab.story.length}`, raw);
    case 'seeds': {
      if (raw === 'none') return { value: '' };
      const r = parseSeeds(raw);
      return r ? { value: formatSeeds(r) } : refuse(key, `none, ${SEEDS_RANGE}`, raw);
    }
    case 'theme':
      return THEMES.includes(raw) ? { value: raw } : refuse(key, `one of ${THEMES.join(', ')}`, raw);
    case 'experiment': {
      const v = parseBool(key, raw);
      if ('value' in v && v.value && !lab.experiment) return refuse(key, `0 (the ${lab.name} lab has no experiment)`, raw);
      return v;
    }
  }
}

/**
 * The query string of a state: only what differs from the defaults.
 * @param {{ lab: string, preset: string, config: Record<string, unknown>, view: View,
 *   passthrough?: [string, string][] }} state
 * @param {{ defaultLab: string, lab: Lab, presets: Record<string, Record<string, unknown>> }} defaults
 */
export function writeLink(state, defaults) {
  const out = new URLSearchParams();
  out.set('v', String(LINK_VERSION));
  if (state.lab !== defaults.defaultLab) out.set('lab', state.lab);
  // A story step's run is the default (readLink reads it so).
  const step = state.view.story > 0 ? storySetup(defaults.lab, state.view.story - 1) : null;
  /** @type {View} */
  const view = step ? { ...DEFAULT_VIEW, compare: step.compare, seeds: step.seeds, speed: step.speed ?? DEFAULT_VIEW.speed } : DEFAULT_VIEW;
  if (state.preset !== (step?.preset ?? defaults.lab.defaultPreset)) out.set('preset', state.preset);
  const base = defaults.presets[state.preset] ?? {};
  for (const [key, value] of Object.entries(state.config)) {
    if (!Object.hasOwn(base, key) || same(value, base[key])) continue;
    out.set(key, formatValue(value));
  }
  for (const key of /** @type {(keyof View)[]} */ (Object.keys(DEFAULT_VIEW))) {
    const v = state.view[key];
    if (v !== view[key]) out.set(key, (key === 'compare' || key === 'seeds') && v === '' ? 'none' : typeof v === 'boolean' ? formatValue(v) : String(v));
  }
  for (const [k, v] of state.passthrough ?? []) out.set(k, v);
  return `?${out}`;
}

