// @ts-check
// The link format: the URL is the run. `readLink` turns a query string into a lab's preset,
// the settings that differ from it and the view choices, with a message for every key it
// had to ignore; `writeLink` turns the page's state back into the shortest query. Pure
// functions of the lab's schema (tests/unit/url.test.js runs them in Node); ranges are the
// trainer's to check (store.js asks it).
//
// Version 1: ?v=1&lab=NAME&preset=NAME&FIELD=VALUE…&speed=S&seq=I&head=K&workers=W…
// - `lab` when not the default one; `preset` when not the lab's default one; a FIELD (any
//   field of the trainer's settings) when its value differs from the preset's. Floats are
//   written with the fewest digits that give back the same f32, so the run is the same bit
//   for bit.
// - The view (`speed`, `seq` shown, `head` shown, `workers`, `colormap`, `theme`, `compare`,
//   `story` step) when not the default. The worker count is part of the run's bits
//   (gradients are summed in another order).
// - Switches of the page itself pass through unchanged: `variant`, `autoplay`, `embed`,
//   `hide`.

import { SPEEDS, DEFAULT_SPEED, THEMES, parseSetting, same } from './settings.js';
import { colormapNames } from './views/colormap.js';

/** @typedef {import('./labs/index.js').Lab} Lab */

const LINK_VERSION = 1;
/** Keys that belong to the page, not the run: kept as they are. */
const PASSTHROUGH = ['variant', 'autoplay', 'embed', 'hide'];

/**
 * @typedef {{ speed: number, seq: number, head: number, workers: 'auto' | number,
 *   colormap: string, theme: string, compare: string, story: number }} View
 * @typedef {{ preset: string, overrides: Record<string, unknown>, view: Partial<View>,
 *   passthrough: [string, string][], problems: string[] }} Link
 */

/** The default view. @type {View} */
export const DEFAULT_VIEW = { speed: DEFAULT_SPEED, seq: 0, head: -1, workers: 'auto', colormap: 'viridis', theme: 'auto', compare: '', story: 0 };

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
  const seen = new Set();
  for (const [key] of params) {
    if (seen.has(key)) problems.push(`“${key}” is given twice; the first value is used`);
    seen.add(key);
  }
  const version = params.get('v');
  if (version !== null && version !== String(LINK_VERSION)) {
    problems.push(`link format v=${version} is not this page's (v=${LINK_VERSION}); read as v=${LINK_VERSION}`);
  }
  const given = params.get('preset');
  const own = Object.hasOwn;
  const preset = given !== null && !own(presets, given) && own(lab.presetAliases, given) ? lab.presetAliases[given] : given;
  if (preset !== null) {
    if (own(presets, preset)) link.preset = preset;
    else problems.push(`preset “${preset}” does not exist (known: ${Object.keys(presets).join(', ')})`);
  }
  const base = presets[link.preset] ?? {};
  for (const [key, raw] of uniqueEntries(params)) {
    if (key === 'v' || key === 'preset' || key === 'lab') continue;
    if (PASSTHROUGH.includes(key)) {
      // The switches take 1 or 0 (`hide` is embed.js's to read, `variant` variant.js's).
      if (key === 'embed' || key === 'autoplay') {
        const v = parseBool(key, raw);
        if ('error' in v) problems.push(v.error);
      }
      link.passthrough.push([key, raw]);
    } else if (own(DEFAULT_VIEW, key)) {
      const v = parseView(lab, /** @type {keyof View} */ (key), raw);
      if ('error' in v) problems.push(v.error);
      else /** @type {any} */ (link.view)[key] = v.value;
    } else if (own(base, key)) {
      const v = parseField(lab, key, raw, base[key]);
      if ('error' in v) problems.push(v.error);
      else link.overrides[key] = v.value;
    } else {
      problems.push(`unknown key “${key}”`);
    }
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

/** @param {Lab} lab @param {string} key @param {string} raw @param {unknown} like the preset's value */
function parseField(lab, key, raw, like) {
  const setting = lab.settings.find((s) => s.key === key);
  if (setting) {
    const text = setting.kind === 'checkbox' ? parseBool(key, raw) : { value: raw };
    if ('error' in text) return text;
    return parseSetting(setting, /** @type {string | boolean} */ (text.value));
  }
  if (typeof like === 'boolean') return parseBool(key, raw);
  if (typeof like === 'number') {
    return parseSetting({ key, label: key, kind: Number.isInteger(like) ? 'int' : 'float', help: '' }, raw);
  }
  return { value: raw };
}

/** @param {string} key @param {string} raw @returns {{ value: boolean } | { error: string }} */
function parseBool(key, raw) {
  if (raw === '1' || raw === 'true') return { value: true };
  if (raw === '0' || raw === 'false') return { value: false };
  return { error: `${key}: must be 1 or 0, got “${raw}”` };
}

/** @param {Lab} lab @param {keyof View} key @param {string} raw @returns {{ value: unknown } | { error: string }} */
function parseView(lab, key, raw) {
  const int = /^-?\d+$/.test(raw) ? Number(raw) : NaN;
  switch (key) {
    case 'speed': {
      const n = Number(raw);
      return SPEEDS.some(([v]) => v === n) ? { value: n }
        : { error: `speed: must be one of ${SPEEDS.map(([v]) => v).join(', ')}, got “${raw}”` };
    }
    case 'seq':
      return int >= 0 ? { value: int } : { error: `seq: must be a whole number ≥ 0, got “${raw}”` };
    case 'head':
      return int >= -1 ? { value: int } : { error: `head: must be a whole number ≥ −1, got “${raw}”` };
    case 'workers':
      if (raw === 'auto') return { value: 'auto' };
      return int >= 1 && int <= 16 ? { value: int } : { error: `workers: must be auto or 1 to 16, got “${raw}”` };
    case 'colormap':
      return colormapNames.includes(raw) ? { value: raw }
        : { error: `colormap: must be one of ${colormapNames.join(', ')}, got “${raw}”` };
    case 'compare':
      return Object.hasOwn(lab.contrasts, raw) ? { value: raw }
        : { error: `compare: must be one of ${Object.keys(lab.contrasts).join(', ')}, got “${raw}”` };
    case 'story':
      return int >= 1 && int <= lab.story.length ? { value: int }
        : { error: `story: must be a step from 1 to ${lab.story.length}, got “${raw}”` };
    case 'theme':
      return THEMES.includes(raw) ? { value: raw } : { error: `theme: must be one of ${THEMES.join(', ')}, got “${raw}”` };
  }
}

/**
 * The query string of a state: only what differs from the defaults.
 * @param {{ lab: string, preset: string, config: Record<string, unknown>, view: View,
 *   passthrough?: [string, string][] }} state
 * @param {{ defaultLab: string, defaultPreset: string, presets: Record<string, Record<string, unknown>> }} defaults
 */
export function writeLink(state, defaults) {
  const out = new URLSearchParams();
  out.set('v', String(LINK_VERSION));
  if (state.lab !== defaults.defaultLab) out.set('lab', state.lab);
  if (state.preset !== defaults.defaultPreset) out.set('preset', state.preset);
  const base = defaults.presets[state.preset] ?? {};
  for (const [key, value] of Object.entries(state.config)) {
    if (!Object.hasOwn(base, key) || same(value, base[key])) continue;
    out.set(key, formatValue(value));
  }
  for (const key of /** @type {(keyof View)[]} */ (Object.keys(DEFAULT_VIEW))) {
    if (state.view[key] !== DEFAULT_VIEW[key]) out.set(key, String(state.view[key]));
  }
  for (const [k, v] of state.passthrough ?? []) out.set(k, v);
  return `?${out}`;
}

/** A value as the link writes it: booleans as 1 / 0, floats with the fewest digits that
 * give back the same f32. @param {unknown} v */
export function formatValue(v) {
  if (typeof v === 'boolean') return v ? '1' : '0';
  if (typeof v === 'number' && !Number.isInteger(v)) {
    for (let p = 1; p <= 9; p++) {
      const t = Number(v.toPrecision(p));
      if (Math.fround(t) === Math.fround(v)) return String(t);
    }
  }
  return String(v);
}
