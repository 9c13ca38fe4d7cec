// @ts-check
// The page's one store: the settings of the run asked for (always ones the trainer
// accepts), the view options, the user's intent to play, the story step, the saved run
// being viewed, and the link they round-trip through. Controls write only through its
// actions; the run controller, the views and the address bar read it. Runs' snapshots never
// write here. Pure: no DOM (tests/unit/store.test.js runs it in Node).

import { readLink, writeLink, quote, DEFAULT_VIEW } from './url.js';
import { differs } from './options.js';
import { storySetup, budgetOf } from '../labs/index.js';

/** @typedef {import('../labs/index.js').Lab} Lab */
/** @typedef {import('./url.js').View} View */
/** @typedef {import('./history.js').SavedRun} SavedRun */

/**
 * @typedef {View & {
 *   lab: string, preset: string, config: Record<string, unknown>,
 *   marks: boolean, playing: boolean, viewing: SavedRun | null,
 *   passthrough: [string, string][], fresh: number }} State
 * `fresh` counts the requests for a new run (a preset chosen, a setting changed, a story
 * step): the run restarts even where the settings stay the same.
 */

/**
 * The trainer's verdict on settings (each given as text, a number or a switch): the
 * settings as it reads them, or why not (naming the field in words with its range) and
 * which field.
 * @typedef {(config: Record<string, unknown>) => { config: Record<string, unknown> } | { error: string, field?: string }} Validate
 */

/**
 * What the trainer says of a lab's settings: their fields (in the order a form lists
 * them), its presets by name, and its verdict on settings.
 * @typedef {{ fields: import('../labs/index.js').Field[], presets: Record<string, Record<string, unknown>>,
 *   validate: Validate }} Trainer
 */

export class Store {
  /**
   * @param {Lab} lab
   * @param {Trainer} trainer the trainer's fields, presets and verdict of the lab
   * @param {string} defaultLab
   */
  constructor(lab, { fields, presets, validate }, defaultLab) {
    /** @readonly */ this.lab = lab;
    /** @readonly */ this.fields = fields;
    /** The keys of the settings that apply to a running model (the rest start a new run).
     * @readonly */
    this.live = fields.filter((f) => f.live).map((f) => f.key);
    /** @readonly */ this.presets = presets;
    /** @private */ this.validate = validate;
    /** @private */ this.defaultLab = defaultLab;
    /** @private @type {((s: State, prev: State) => void)[]} */ this.listeners = [];
    /** @type {State} */
    this.state = {
      ...DEFAULT_VIEW,
      lab: lab.name,
      preset: lab.defaultPreset,
      config: presets[lab.defaultPreset],
      marks: true,
      playing: false,
      viewing: null,
      passthrough: [],
      fresh: 0,
    };
  }

  /** Calls `f(state, previous)` after every change. @param {(s: State, prev: State) => void} f */
  subscribe(f) {
    this.listeners.push(f);
  }

  /** @private @param {Partial<State>} patch */
  update(patch) {
    const prev = this.state;
    const next = { ...prev, ...patch };
    const { sequences, heads } = this.lab.limits(next.config);
    next.seq = Math.max(0, Math.min(next.seq, sequences - 1));
    if (!(next.head >= -1 && next.head < heads)) next.head = -1;
    this.state = next;
    for (const f of this.listeners) f(next, prev);
  }

  /**
   * Applies a link: its preset, the settings the trainer accepts, its view. Returns what
   * had to be ignored, one message per key.
   * @param {string} search
   */
  readLink(search) {
    const link = readLink(search, this.lab, this.presets);
    const problems = [...link.problems];
    let config = this.presets[link.preset];
    const all = this.validate({ ...config, ...link.overrides });
    if ('config' in all) {
      config = all.config;
    } else {
      // Setting by setting, until none more applies: a refused one is named and dropped,
      // the others stand (one may need another first: vocab before a longer length).
      /** @type {Map<string, string>} */
      const refused = new Map();
      let pending = Object.entries(link.overrides);
      for (let progress = true; progress && pending.length > 0;) {
        progress = false;
        /** @type {[string, string][]} */
        const next = [];
        for (const [key, raw] of pending) {
          const r = this.validate({ ...config, [key]: raw });
          if ('config' in r) {
            config = r.config;
            progress = true;
            refused.delete(key);
          } else {
            next.push([key, raw]);
            refused.set(key, r.field === key ? r.error : `${r.error}, so ${key}=“${quote(raw)}” is not applied`);
          }
        }
        pending = next;
      }
      problems.push(...refused.values());
    }
    const { sequences, heads } = this.lab.limits(config);
    const v = link.view;
    if (v.seq !== undefined && v.seq >= sequences) {
      problems.push(`Sequence shown (seq): must be a whole number from 0 to ${sequences - 1} (this run evaluates ${sequences} sequences), got ${v.seq}`);
    }
    if (v.head !== undefined && v.head >= heads) {
      problems.push(`Head shown (head): must be a whole number from −1 (the average) to ${heads - 1} (this run has ${heads} head${heads > 1 ? 's' : ''}), got ${v.head}`);
    }
    this.update({ ...DEFAULT_VIEW, ...v, preset: link.preset, config, passthrough: link.passthrough, fresh: this.state.fresh + 1 });
    return problems;
  }

  /** The link of the state (only what differs from the defaults). */
  link() {
    const s = this.state;
    const view = { speed: s.speed, seq: s.seq, head: s.head, workers: s.workers, colormap: s.colormap, theme: s.theme, compare: s.compare, story: s.story, seeds: s.seeds, experiment: s.experiment };
    return writeLink({ lab: s.lab, preset: s.preset, config: s.config, view, passthrough: s.passthrough },
      { defaultLab: this.defaultLab, lab: this.lab, presets: this.presets });
  }

  /** Whether the settings differ from their preset's in more than the live ones (a
   * learning rate changed while training keeps the preset) and those in `ignore`.
   * @param {string[]} [ignore] */
  isCustom(ignore = []) {
    const same = new Set([...this.live, ...ignore]);
    const base = Object.fromEntries(Object.entries(this.presets[this.state.preset] ?? {}).filter(([k]) => !same.has(k)));
    return differs(this.state.config, base);
  }

  /** The budget of the state's run: its preset's or story step's, none for settings of the
   * user's own (the claims are over seeds: another seed keeps it). */
  budget() {
    const s = this.state;
    return this.isCustom(['seed']) ? null : budgetOf(this.lab, s.preset, s.compare, s.story);
  }

  /** The steps each seed of a sweep of the state trains: its budget, else the lab's default
   * for a sweep. */
  sweepSteps() {
    return this.budget()?.steps ?? this.lab.sweep.steps;
  }

  /** A new run of a preset. @param {string} name */
  choosePreset(name) {
    if (!Object.hasOwn(this.presets, name)) return;
    this.update({ preset: name, config: this.presets[name], viewing: null, fresh: this.state.fresh + 1 });
  }

  /**
   * Changes one setting, given as typed (text or a number; a switch as a boolean): a live one (the
   * learning rate) on the running model, any other as a new run. A refused one changes
   * nothing; the message names the field and its range.
   * @param {string} key @param {string | number | boolean} value @returns {string | null} the refusal, if any
   */
  setSetting(key, value) {
    const r = this.validate({ ...this.state.config, [key]: value });
    if ('error' in r) return r.error;
    this.update({ config: r.config, viewing: null, fresh: this.state.fresh + (this.live.includes(key) ? 0 : 1) });
    return null;
  }

  /** View options (none of them changes the run's model; `seeds` opens or closes a sweep
   * beside it, whose seeds are its own). @param {Partial<Pick<State, 'speed' | 'workers' | 'seq'
   * | 'head' | 'colormap' | 'theme' | 'compare' | 'marks' | 'seeds' | 'experiment'>>} patch */
  setView(patch) {
    if (patch.compare !== undefined && patch.compare !== '' && !Object.hasOwn(this.lab.contrasts, patch.compare)) return;
    if (patch.experiment && !this.lab.experiment) return;
    this.update(patch);
  }

  /** Shows seed `seed` of the sweep as the run on screen: a new run of the settings with
   * that seed, playing (its budget, or the sweep's steps, pauses it where the sweep did).
   * @param {number} seed */
  openSeed(seed) {
    const r = this.validate({ ...this.state.config, seed });
    if ('error' in r) return;
    this.update({ config: r.config, viewing: null, playing: true, fresh: this.state.fresh + 1 });
  }

  /** Play or pause (what the user asked for; a run that diverges pauses it). @param {boolean} playing */
  setPlaying(playing) {
    if (playing === this.state.playing) return;
    this.update({ playing, viewing: playing ? null : this.state.viewing });
  }

  /**
   * Shows story step `k` (0-based) and, when `apply`, sets its run up: its preset,
   * contrast and sweep as a new run (a step that goes on with the one before keeps the run on screen
   * when reached from that step), its speed, playing or not.
   * @param {number} k @param {boolean} [apply]
   */
  showStory(k, apply = true) {
    const st = this.lab.story[k];
    if (!st) return;
    if (!apply) return this.update({ story: k + 1 });
    const keep = Boolean(st.keep) && this.state.story === k;
    /** @type {Partial<State>} */
    const patch = { story: k + 1, viewing: null };
    if (st.speed !== undefined) patch.speed = st.speed;
    if (!keep) {
      const { preset, compare, seeds } = storySetup(this.lab, k);
      Object.assign(patch, { preset, config: this.presets[preset], compare, seeds, fresh: this.state.fresh + 1 });
    }
    patch.playing = st.play || (keep && this.state.playing);
    this.update(patch);
  }

  closeStory() {
    this.update({ story: 0 });
  }

  /** Shows a saved run instead of the live one, which waits paused. @param {SavedRun} run */
  view(run) {
    this.update({ viewing: run, playing: false });
  }

  stopViewing() {
    if (this.state.viewing) this.update({ viewing: null });
  }

  /** Starts the viewed run's settings afresh as the live run. */
  trainViewed() {
    const run = this.state.viewing;
    if (!run) return;
    const r = this.validate(run.config);
    const preset = Object.hasOwn(this.presets, run.preset) ? run.preset : this.state.preset;
    this.update({ viewing: null, preset, config: 'config' in r ? r.config : this.state.config, fresh: this.state.fresh + 1 });
  }

  /**
   * Saved weights were loaded into the run: their settings (checked by the trainer) and
   * preset are the state's; a comparison, of a run at another step, ends.
   * @param {string} preset @param {Record<string, unknown>} config
   */
  loaded(preset, config) {
    this.update({ preset: Object.hasOwn(this.presets, preset) ? preset : this.state.preset, config, compare: '', viewing: null, playing: false });
  }
}
