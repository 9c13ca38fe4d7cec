// @ts-check
// The Record panel: its settings (format, frame rate, width, length), Start / Stop and save,
// the progress, and what was saved or why nothing was. It takes the figures' pictures as
// they are drawn (ui/figures.js's onDrawn) into a Recording (recorder.js); it plays the run
// through the store when recording starts, and changes nothing else.

import { Recording, webmSupport } from './recorder.js';
import { download } from '../files/formats.js';
import { byId, h, setText } from '../ui/dom.js';

/** @typedef {import('../ui/figures.js').Shown} Shown */

/** The choices offered, [value, words]; the defaults are marked by DEFAULTS. */
const CHOICES = {
  format: [['webm', 'WebM video'], ['gif', 'GIF animation'], ['both', 'WebM and GIF']],
  fps: [5, 10, 15, 24, 30].map((v) => [String(v), `${v} a second`]),
  width: [360, 480, 640, 800, 960, 1280].map((v) => [String(v), `${v} px`]),
  seconds: [2, 5, 10, 20, 30, 60].map((v) => [String(v), `${v} s`]),
};
const DEFAULTS = { format: 'webm', fps: '10', width: '640', seconds: '10' };

/** @param {string} id */
const select = (id) => /** @type {HTMLSelectElement} */ (byId(id));

/**
 * Wires the Record button and panel.
 * @param {{ store: import('../state/store.js').Store, runs: import('../training/runs.js').Runs,
 *   figures: import('../ui/figures.js').Figures, words: (shown: Shown) => { caption: string, title: string },
 *   fileName: () => string }} o `words`: the caption under a frame's figures and the title over them;
 *   `fileName`: the files' name without extension
 */
export function recordPanel({ store, runs, figures, words, fileName }) {
  const box = byId('record');
  const open = /** @type {HTMLButtonElement} */ (byId('record-button'));
  const start = /** @type {HTMLButtonElement} */ (byId('record-start'));
  const close = /** @type {HTMLButtonElement} */ (byId('record-close'));
  const progress = /** @type {HTMLProgressElement} */ (byId('record-progress'));
  const status = byId('record-status');
  const support = webmSupport();
  for (const [key, choices] of Object.entries(CHOICES)) {
    const s = select(`record-${key}`);
    s.replaceChildren(...choices.map(([v, words]) => new Option(words, v)));
    s.value = DEFAULTS[/** @type {keyof typeof DEFAULTS} */ (key)];
  }
  /** What the panel says of this browser before anything is recorded. */
  const notes = [];
  if (!support.type) {
    // Only the GIF is left: the video's choices say why they are off.
    for (const o of select('record-format').options) {
      if (o.value !== 'gif') {
        o.disabled = true;
        o.text += ' (not in this browser)';
      }
    }
    select('record-format').value = 'gif';
    notes.push(`No video here: ${support.reason}. The GIF animation still records.`);
  }
  if (window.matchMedia('(prefers-reduced-motion: reduce)').matches) {
    notes.push('This device asks for reduced motion, so the figures are redrawn at most twice a second: a recording takes at most 2 frames a second, and its length in frames takes longer to fill.');
  }
  const note = byId('record-note');
  setText(note, notes.join(' '));
  note.hidden = !notes.length;
  /** @type {Recording | null} */
  let rec = null;
  const links = byId('record-files');
  /** Drops the last recording's links (and the files they hold). */
  const forget = () => {
    for (const a of links.querySelectorAll('a')) URL.revokeObjectURL(a.href);
    links.replaceChildren();
    links.hidden = true;
  };
  /** A canvas the figures are composed on, kept for every frame. */
  const scratch = document.createElement('canvas');

  /** @param {string} text @param {'info' | 'error'} kind */
  const say = (text, kind) => {
    status.dataset.kind = kind;
    setText(status, text);
  };
  const show = (/** @type {boolean} */ visible) => {
    box.hidden = !visible;
    open.setAttribute('aria-expanded', String(visible));
    if (visible) start.focus();
  };
  open.addEventListener('click', () => show(box.hidden));
  close.addEventListener('click', () => show(false));

  /** The panel's state: its fields and buttons while recording or not, and the progress. */
  const sync = () => {
    const on = Boolean(rec?.recording);
    const saving = Boolean(rec?.saving);
    for (const key of Object.keys(CHOICES)) select(`record-${key}`).disabled = on || saving;
    close.disabled = on || saving;
    // While the files are made, no new recording starts (its messages would hide these).
    start.disabled = saving;
    start.textContent = on ? 'Stop and save' : 'Start recording';
    open.textContent = on ? 'Recording…' : saving ? 'Saving…' : 'Record';
    progress.hidden = !on;
    if (saving) say('Saving…', 'info');
    if (!rec || !on) return;
    rec.setLive(live(), performance.now());
    progress.max = rec.wanted;
    progress.value = rec.frames;
    const fps = rec.settings.fps;
    const waiting = rec.live ? '' : ' Paused with the run: frames are taken while it trains (press Play, or Stop and save).';
    say(`Recording: ${rec.frames} of ${rec.wanted} frames (${(rec.frames / fps).toFixed(1)} of ${rec.settings.seconds} s of video).${waiting}`, 'info');
  };
  /** Whether the run trains where it is seen. */
  const live = () => store.state.playing && !document.hidden;
  document.addEventListener('visibilitychange', sync);

  start.addEventListener('click', () => {
    if (rec?.recording) {
      void rec.stop();
      sync();
      return;
    }
    const settings = {
      format: /** @type {import('./recorder.js').RecordFormat} */ (select('record-format').value),
      fps: Number(select('record-fps').value),
      width: Number(select('record-width').value),
      seconds: Number(select('record-seconds').value),
    };
    forget();
    try {
      rec = new Recording(settings, {
        onProgress: sync,
        onDone: (r) => {
          r.files.forEach((f, i) => setTimeout(() => download(f.name, f.blob), 300 * i));
          const files = r.files.map((f) => `${f.name} (${Math.max(1, Math.round(f.blob.size / 1024))} KB)`).join(' and ');
          say(`Saved ${files}: ${r.frames} frames of ${r.width} × ${r.height} pixels.`, 'info');
          // The files again, as links, should the browser have held a download back.
          links.replaceChildren('Download again: ', ...r.files.flatMap((f, i) => {
            const a = h('a', { href: URL.createObjectURL(f.blob), download: f.name }, f.name);
            return i ? [', ', a] : [a];
          }));
          links.hidden = false;
          sync();
        },
        onError: (message) => {
          say(`Not recorded: ${message}.`, 'error');
          sync();
        },
        name: fileName(),
      });
    } catch (err) {
      say(`Not recorded: ${/** @type {Error} */ (err).message}.`, 'error');
      return;
    }
    // Recording is of training: a paused run that can train plays.
    if (!store.state.playing && !store.state.viewing && !runs.first.dead) store.setPlaying(true);
    // The first frame is the figures as they are now.
    figures.dirty = true;
    sync();
  });

  figures.onDrawn = (shown, now) => {
    if (!rec?.wants(now)) return;
    const w = words(shown);
    rec.take(figures.composed(w.caption, scratch), now, shown.runs[0].snapshot.step, w.title);
  };
  store.subscribe(sync);
}
