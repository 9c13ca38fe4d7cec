// @ts-check
// The sweep panel: for each sweep (one, or two compared) its outcome so far in words, the
// chart of its seeds' curves (views/sweep-chart.js) and a table of its seeds, each of which
// opens as the run on screen. It draws what Sweeps (sweeps.js) holds, at most once per
// animation frame; it changes nothing but through the store (openSeed) and its own
// choice of curve.

import { SweepChart } from './views/sweep-chart.js';
import { byId, h, setText } from './dom.js';
import { parseSeeds } from './sweep.js';

/** @typedef {import('./sweeps.js').Sweeps} Sweeps */
/** @typedef {import('./store.js').Store} Store */
/** @typedef {import('./sweep.js').Outcome} Outcome */
/** @typedef {import('./sweep.js').SeedResult} SeedResult */
/** @typedef {import('./sweep.js').SweepSummary} SweepSummary */

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
    const s = spec.success;
    setText(byId('sweep-legend'), `Curves coloured by outcome: ${s.words} (green); still learning (orange); stalled: below `
      + `${pct(s.at)} with ${spec.stall.words} once half the steps are trained (grey). The dashed line `
      + `is ${pct(s.at)}; the dots below are each seed’s latest value. Click a curve, or choose one with the arrow keys and `
      + 'press Enter, to open that seed as the run on screen.');
    /** Whether what is shown changed since it was drawn. */
    this.dirty = true;
    /** @private @type {{ charts: SweepChart[], head: HTMLElement[], tables: HTMLTableSectionElement[], rows: string[] }} */
    this.parts = { charts: [], head: [], tables: [], rows: [] };
    /** @private */ this.layout = '';
    /** @private */ this.drawnAt = -Infinity;
    // The workers train on the same cores as this page: while they do, it draws at most
    // every DRAW_MS, which is live enough for curves that change every evaluation.
    const frame = (/** @type {number} */ now) => {
      requestAnimationFrame(frame);
      if (!this.dirty || (now - this.drawnAt < DRAW_MS && !this.sweeps.finished())) return;
      this.drawnAt = now;
      this.draw();
    };
    requestAnimationFrame(frame);
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
      const head = h('p', { class: 'sweep-summary', 'aria-live': 'polite' });
      col.append(h('h3', {}, name || 'Seeds'), head);
      const chart = new SweepChart(col, { title: '', onOpen: (seed) => this.open(seed) });
      const body = h('tbody');
      const table = h('table', { class: 'sweep-seeds' },
        h('thead', {}, h('tr', {}, ...['seed', 'outcome', `${pct(spec.success.at)} at`, 'now',
          spec.order ? 'first passed' : '', ''].map((t) => h('th', { scope: 'col' }, t)))),
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
    const range = parseSeeds(s.seeds);
    const w0 = this.sweeps.sweeps[0];
    const secs = this.sweeps.sweeps.length ? ((this.sweeps.endedAt ?? performance.now()) - this.sweeps.startedAt) / 1000 : 0;
    setText(byId('sweep-title'), range && w0
      ? `${range.count} seeds (${range.from}–${range.from + range.count - 1}), ${w0.steps} steps each: `
        + `${this.sweeps.finished() ? 'finished in' : 'training,'} ${secs.toFixed(1)} s`
      : 'Seeds');
    const spec = this.store.lab.sweep;
    const key = this.metric.value || spec.curves[0].key;
    const label = spec.curves.find((c) => c.key === key)?.label ?? key;
    const summaries = this.sweeps.summaries();
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
    return r.outcome === 'reached'
      ? `${spec.success.words} at step ${r.reachedAt}; now ${now}`
      : `${OUTCOME[r.outcome].words}; ${now}`;
  }

  /** The table of sweep `i`'s seeds, rewritten when a row changed. @private @param {number} i @param {SeedResult[]} results */
  table(i, results) {
    const sig = JSON.stringify(results.map((r) => [r.outcome, r.reachedAt, r.value?.toFixed(3), r.firstAt, r.thenAt]));
    if (sig === this.parts.rows[i]) return;
    this.parts.rows[i] = sig;
    const spec = this.store.lab.sweep;
    this.parts.tables[i].replaceChildren(...results.map((r) => {
      const open = h('button', { type: 'button', 'data-seed': r.seed }, 'Open');
      open.addEventListener('click', () => this.open(r.seed));
      let order = '';
      if (spec.order && r.firstAt !== null && r.thenAt !== null) order = spec.order.names[r.firstAt < r.thenAt ? 0 : 1];
      const tr = h('tr', { 'data-outcome': r.outcome },
        h('td', {}, String(r.seed)), h('td', {}, OUTCOME[r.outcome].words),
        h('td', {}, r.reachedAt === null ? '–' : String(r.reachedAt)),
        h('td', {}, r.value === null ? '–' : pct(r.value)), h('td', {}, order), h('td', {}, open));
      return tr;
    }));
  }
}
