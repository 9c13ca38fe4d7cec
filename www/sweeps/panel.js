// @ts-check
// The sweep panel: for each sweep (one, or two compared) its outcome so far in words, the
// chart of its seeds' curves (chart.js) and a table of its seeds, each of which
// opens as the run on screen. It draws what Sweeps (sweeps.js) holds, at most once per
// animation frame; it changes nothing but through the store (openSeed) and its own
// choice of curve.

import { SweepChart } from './chart.js';
import { byId, h, setText } from '../ui/dom.js';
import { redrawLoop } from '../ui/redraw.js';

/** @typedef {import('./sweeps.js').Sweeps} Sweeps */
/** @typedef {import('../state/store.js').Store} Store */
/** @typedef {import('./seeds.js').Outcome} Outcome */
/** @typedef {import('./seeds.js').SeedResult} SeedResult */
/** @typedef {import('./seeds.js').SweepSummary} SweepSummary */

/** Each outcome's colour and words. @type {Record<Outcome, { color: string, words: string }>} */
const OUTCOME = {
  reached: { color: 'var(--ap-series-3)', words: 'reached' },
  learning: { color: 'var(--ap-series-5)', words: 'still learning' },
  stalled: { color: 'var(--ap-muted)', words: 'stalled' },
  waiting: { color: 'var(--ap-axis)', words: 'waiting' },
  failed: { color: 'var(--ap-fg)', words: 'stopped' },
};

/** The shortest time between two drawings while the sweep trains (ms). */
const DRAW_MS = 200;

/** @param {number} x */
const pct = (x) => `${(100 * x).toFixed(1)}%`;

export class SweepPanel {
  /** @param {{ store: Store, sweeps: Sweeps }} o */
  constructor({ store, sweeps }) {
    /** @private */ this.store = store;
    /** @private */ this.sweeps = sweeps;
    /** @private */ this.box = byId('sweep');
    /** @private */ this.cols = byId('sweep-columns');
    /** @private */ this.metric = /** @type {HTMLSelectElement} */ (byId('sweep-metric'));
    const spec = store.lab.sweep;
    this.metric.replaceChildren(...spec.curves.map((c) => new Option(c.label, c.key)));
    this.metric.addEventListener('change', () => {
      this.dirty = true;
    });
    byId('sweep-close').addEventListener('click', () => store.setView({ seeds: '' }));
    byId('sweep-pause').addEventListener('click', () => sweeps.setPaused(!sweeps.paused));
    const s = spec.success;
    setText(byId('sweep-legend'), `Curves coloured by outcome: ${s.words} (green); still learning (orange); stalled: below `
      + `${pct(s.at)} with ${spec.stall.words} once half the steps are trained (grey). The dashed line `
      + `is ${pct(s.at)} for ${spec.curves[0].label}, 50% for the others; the dots below are each seed’s latest value. Click a curve, or choose one with the arrow keys and `
      + 'press Enter, to open that seed as the run on screen.');
    /** Whether what is shown changed since it was drawn. */
    this.dirty = true;
    /** @private @type {{ charts: SweepChart[], head: HTMLElement[], tables: HTMLTableSectionElement[], rows: string[] }} */
    this.parts = { charts: [], head: [], tables: [], rows: [] };
    /** @private */ this.layout = '';
    // The workers train on the same cores as this page: while they do, it draws at most
    // every DRAW_MS, which is live enough for curves that change every evaluation.
    redrawLoop({ dirty: () => this.dirty, minMs: () => (this.sweeps.finished() ? 0 : DRAW_MS), draw: () => this.draw() });
  }

  /** The page's colours changed. */
  invalidate() {
    for (const c of this.parts.charts) c.invalidate();
    this.dirty = true;
  }

  /** The columns, one per sweep, made anew when the sweeps' number or names change. @private */
  build() {
    const names = this.sweeps.sweeps.map((w) => w.name);
    const key = JSON.stringify(names);
    if (key === this.layout) return;
    this.layout = key;
    for (const c of this.parts.charts) c.destroy();
    this.parts = { charts: [], head: [], tables: [], rows: [] };
    this.cols.replaceChildren();
    const spec = this.store.lab.sweep;
    names.forEach((name, i) => {
      const col = h('div', { class: 'sweep-column', 'data-sweep': i });
      const head = h('p', { class: 'sweep-summary' });
      col.append(h('h3', {}, name || 'Seeds'), head);
      const chart = new SweepChart(col, { onOpen: (seed) => this.open(seed) });
      const body = h('tbody');
      const table = h('table', { class: 'sweep-seeds' },
        h('thead', {}, h('tr', {}, ...['seed', 'outcome', `${pct(spec.success.at)} at`, 'now',
          ...(spec.order ? ['first passed'] : [])].map((t) => h('th', { scope: 'col' }, t)),
        h('th', { scope: 'col' }, h('span', { class: 'ap-visually-hidden' }, 'open as the run on screen')))),
        body);
      col.append(h('details', { class: 'sweep-table' }, h('summary', {}, 'Each seed'), table));
      this.cols.append(col);
      this.parts.charts.push(chart);
      this.parts.head.push(head);
      this.parts.tables.push(body);
      this.parts.rows.push('');
    });
  }

  /** Opens seed `seed` as the run on screen. @private @param {number} seed */
  open(seed) {
    this.store.openSeed(seed);
  }

  /** @private */
  draw() {
    this.dirty = false;
    const s = this.store.state;
    this.box.hidden = !s.seeds;
    if (!s.seeds) return;
    this.build();
    const w0 = this.sweeps.sweeps[0];
    const secs = this.sweeps.seconds();
    const pause = byId('sweep-pause');
    pause.hidden = this.sweeps.finished();
    setText(pause, this.sweeps.paused ? 'Go on' : 'Pause the sweep');
    pause.setAttribute('aria-pressed', String(this.sweeps.paused));
    const [first, last] = w0 ? [w0.seeds[0].seed, w0.seeds[w0.seeds.length - 1].seed] : [0, 0];
    // Where the sweeps train: batched on the GPU, or on the CPU with why, where the GPU failed.
    const where = this.sweeps.sweeps.map((w) => (w.backend === 'gpu' ? 'batched on the GPU' : w.reason ? `on the CPU (${w.reason})` : ''));
    const each = where.every((x) => x === where[0]) ? (where[0] && `, ${where[0]}`)
      : `; ${this.sweeps.sweeps.map((w, i) => `${w.name} ${where[i] || 'on the CPU'}`).join('; ')}`;
    setText(byId('sweep-title'), w0
      ? `${w0.seeds.length} seeds (${first}–${last}), ${w0.steps} steps each${each}: `
        + (this.sweeps.finished() && secs === 0 ? 'trained before'
          : `${this.sweeps.finished() ? 'finished in' : this.sweeps.paused ? 'paused at' : 'training,'} ${secs.toFixed(1)} s`)
      : 'Seeds');
    const spec = this.store.lab.sweep;
    const key = this.metric.value || spec.curves[0].key;
    const label = spec.curves.find((c) => c.key === key)?.label ?? key;
    const summaries = this.sweeps.summaries();
    // Said once, when the last seed ends (the summaries change too often to be read out live).
    const said = this.sweeps.finished() ? `Sweep finished. ${summaries.map((sum, i) => `${this.sweeps.sweeps[i].name} ${this.words(sum)}`).join(' ')}` : '';
    setText(byId('sweep-announce'), said);
    this.sweeps.sweeps.forEach((w, i) => {
      const sum = summaries[i];
      setText(this.parts.head[i], this.words(sum));
      this.parts.charts[i].update({
        steps: w.steps,
        threshold: key === spec.success.key ? spec.success.at : 0.5,
        label,
        shown: s.config.seed === undefined ? null : Number(s.config.seed),
        curves: w.seeds.map((r, k) => {
          const res = sum.results[k];
          return {
            seed: r.seed,
            steps: r.evaluations.map((e) => e.step),
            values: r.evaluations.map((e) => e[key]),
            color: OUTCOME[res.outcome].color,
            words: this.seedWords(res),
          };
        }),
      });
      this.table(i, sum.results);
    });
  }

  /** A sweep's outcome so far, in words. @private @param {SweepSummary} sum */
  words(sum) {
    const spec = this.store.lab.sweep;
    const c = sum.counts;
    const parts = [
      `${sum.reached} of ${sum.total} ${spec.success.words}`
        + (sum.medianReachedAt !== null ? ` (median step ${sum.medianReachedAt})` : ''),
      `${c.learning} still learning`,
      `${c.stalled} stalled`,
    ];
    if (c.failed) parts.push(`${c.failed} stopped`);
    parts.push(`${sum.done} of ${sum.total} done`);
    let text = `${parts.join(' · ')}.`;
    if (spec.order) text += ` ${spec.order.words} in ${sum.orderFirst} of the ${sum.orderBoth} seeds where both passed it.`;
    return text;
  }

  /** @private @param {SeedResult} r */
  seedWords(r) {
    const spec = this.store.lab.sweep;
    const now = r.value === null ? 'not evaluated yet' : `${pct(r.value)} at step ${r.step}`;
    if (r.failed) return `stopped at step ${r.step}: ${r.failed}`;
    return r.outcome === 'reached'
      ? `${spec.success.words} at step ${r.reachedAt}; now ${now}`
      : `${OUTCOME[r.outcome].words}; ${now}`;
  }

  /** The table of sweep `i`'s seeds: a row per seed, made when the seeds change and
   * rewritten cell by cell (a focused Open button keeps its focus).
   * @private @param {number} i @param {SeedResult[]} results */
  table(i, results) {
    const body = this.parts.tables[i];
    const order = this.store.lab.sweep.order;
    const seeds = results.map((r) => r.seed).join(',');
    if (seeds !== this.parts.rows[i]) {
      this.parts.rows[i] = seeds;
      body.replaceChildren(...results.map((r) => {
        const open = h('button', { type: 'button', 'data-seed': r.seed, 'aria-label': `Open seed ${r.seed}` }, 'Open');
        open.addEventListener('click', () => this.open(r.seed));
        const cells = Array.from({ length: order ? 4 : 3 }, () => h('td'));
        return h('tr', {}, h('td', {}, String(r.seed)), ...cells, h('td', {}, open));
      }));
    }
    results.forEach((r, k) => {
      const tr = /** @type {HTMLTableRowElement} */ (body.rows[k]);
      if (tr.dataset.outcome !== r.outcome) tr.dataset.outcome = r.outcome;
      let first = '';
      if (order && r.firstAt !== null && r.thenAt !== null) first = order.names[r.firstAt < r.thenAt ? 0 : 1];
      const cells = [OUTCOME[r.outcome].words, r.reachedAt === null ? '–' : String(r.reachedAt), r.value === null ? '–' : pct(r.value), ...(order ? [first] : [])];
      cells.forEach((text, c) => setText(/** @type {HTMLElement} */ (tr.cells[c + 1]), text));
      const why = r.failed ?? '';
      if (tr.cells[1].title !== why) tr.cells[1].title = why;
    });
  }
}
