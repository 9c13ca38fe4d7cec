// @ts-check
// The view of the sparse lab's experiment (scaling.js): m* against T on a log2 axis of T,
// every size tried as a dot (filled where its median test accuracy reached the threshold,
// hollow where not, a ring while it trains), m* joined across the lengths, and the
// information limit log2 C(T, s) drawn for reference; under it a table of the same, with
// how many seeds succeeded at each size, and the three laws of m* against T, judged on m*,
// once two lengths are done, beside what the native tool measured per function.

import { h, setText } from '../../ui/dom.js';
import { Colors } from '../../views/colors.js';
import { ScalingPlan, LENGTHS, SEEDS, THRESHOLD } from './scaling.js';
import { quote } from '../quote.js';

/** What the native tool measured over 20 seeds and T ≤ 1,024, per function (docs/sparse.md). */
const NATIVE = quote('Natively, over 20 seeds and T = 8 to 1,024 (docs/sparse.md): for AND of 3, fitted to T ≤ 256, '
  + '{sparse.scaling.and-3.held-out} predicted 512 and 1,024 best, and resamples of the seeds pick it in {sparse.scaling.and-3.held-out-share} '
  + '(a power of T in {sparse.scaling.and-3.power-share}, {sparse.scaling.and-3.not-fitted} not fitted; the power law’s exponent '
  + '{sparse.scaling.and-3.exponent}); for majority of 3, {sparse.scaling.majority-3.held-out}, picked in '
  + '{sparse.scaling.majority-3.held-out-share} of resamples (exponent {sparse.scaling.majority-3.exponent}).');

const PAD = { left: 44, right: 12, top: 10, bottom: 34 };

/** @param {HTMLElement} box */
export function createScalingView(box) {
  const plot = h('div', { class: 'ap-sweep-plot', role: 'img', 'aria-label': 'm* against T' });
  const canvas = h('canvas', {});
  plot.append(canvas);
  const legend = h('p', { class: 'hint' },
    'Each dot is one size m tried at one length T (filled: the median test accuracy reached 95%; hollow: it did not; a ring: '
    + 'training). The line joins m* across the lengths; the dashed line is the information limit log2 C(T, s), the bits '
    + 'that name the hidden set.');
  const body = h('tbody', {});
  const table = h('table', { class: 'scaling-table' },
    h('thead', {}, h('tr', {}, h('th', {}, 'T'), h('th', {}, 'm*'), h('th', {}, `sizes tried (median test accuracy; seeds of ${SEEDS} reaching ${100 * THRESHOLD}%)`), h('th', {}, 'log2 C(T, s)'))),
    body);
  const fits = h('p', { class: 'hint', id: 'scaling-fits' });
  box.append(plot, legend, table, fits);
  const g = /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d'));
  const colors = new Colors(box);
  /** @type {ScalingPlan | null} */
  let shown = null;
  let size = { w: 0, h: 0 };
  const observer = new ResizeObserver((entries) => {
    const r = entries[entries.length - 1].contentRect;
    size = { w: r.width, h: r.height };
    draw();
  });
  observer.observe(plot);

  function draw() {
    const plan = shown;
    const dpr = window.devicePixelRatio || 1;
    canvas.width = Math.round(size.w * dpr);
    canvas.height = Math.round(size.h * dpr);
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, size.w, size.h);
    if (!plan || size.w === 0) return;
    const fg = colors.resolve('var(--fg, #222)');
    const muted = colors.resolve('var(--muted, #777)');
    const good = colors.resolve('var(--ap-series-3)');
    const bad = colors.resolve('var(--ap-series-6)');
    const line = colors.resolve('var(--ap-series-1)');
    const tried = plan.lengths.flatMap((l) => l.probes.map((p) => p.m));
    const top = Math.max(32, ...tried, ...LENGTHS.map((t) => plan.limit(t))) * 1.1;
    const [x0, x1] = [Math.log2(LENGTHS[0]), Math.log2(LENGTHS.at(-1) ?? 128)];
    const X = (/** @type {number} */ t) => PAD.left + ((Math.log2(t) - x0) / (x1 - x0)) * (size.w - PAD.left - PAD.right);
    const Y = (/** @type {number} */ m) => size.h - PAD.bottom - (m / top) * (size.h - PAD.top - PAD.bottom);
    g.font = '11px sans-serif';
    g.fillStyle = muted;
    g.strokeStyle = muted;
    g.lineWidth = 1;
    // Axes: T on a log2 axis, m from 0.
    g.beginPath();
    g.moveTo(PAD.left, PAD.top);
    g.lineTo(PAD.left, size.h - PAD.bottom);
    g.lineTo(size.w - PAD.right, size.h - PAD.bottom);
    g.stroke();
    g.textAlign = 'center';
    g.textBaseline = 'top';
    for (const t of LENGTHS) g.fillText(String(t), X(t), size.h - PAD.bottom + 4);
    g.fillText('length T (log scale)', (PAD.left + size.w - PAD.right) / 2, size.h - PAD.bottom + 18);
    g.textAlign = 'right';
    g.textBaseline = 'middle';
    const step = top > 400 ? 200 : top > 160 ? 50 : top > 80 ? 20 : 10;
    for (let m = 0; m <= top; m += step) g.fillText(String(m), PAD.left - 4, Y(m));
    g.save();
    g.translate(10, (PAD.top + size.h - PAD.bottom) / 2);
    g.rotate(-Math.PI / 2);
    g.textAlign = 'center';
    g.fillText('training samples m', 0, 0);
    g.restore();
    // The information limit.
    g.setLineDash([5, 4]);
    g.beginPath();
    LENGTHS.forEach((t, i) => (i ? g.lineTo(X(t), Y(plan.limit(t))) : g.moveTo(X(t), Y(plan.limit(t)))));
    g.stroke();
    g.setLineDash([]);
    // m* across the lengths that have one.
    g.strokeStyle = line;
    g.lineWidth = 2;
    g.beginPath();
    let started = false;
    for (const l of plan.lengths) {
      const m = plan.best(l);
      if (m === null) continue;
      if (started) g.lineTo(X(l.t), Y(m));
      else g.moveTo(X(l.t), Y(m));
      started = true;
    }
    g.stroke();
    // Every size tried.
    g.lineWidth = 1.5;
    for (const l of plan.lengths) {
      for (const p of l.probes) {
        g.beginPath();
        g.arc(X(l.t), Y(p.m), p.success === null ? 6 : 4, 0, 2 * Math.PI);
        if (p.success) {
          g.fillStyle = good;
          g.fill();
        } else {
          g.strokeStyle = p.success === null ? fg : bad;
          g.stroke();
        }
      }
    }
  }

  return {
    /** @param {import('../index.js').ExperimentPlan} p */
    update(p) {
      const plan = /** @type {ScalingPlan} */ (p);
      shown = plan;
      draw();
      body.replaceChildren(...plan.lengths.map((l) => {
        const best = plan.best(l);
        const over = ScalingPlan.over(l);
        const tried = l.probes.map((x) => (x.median === null
          ? `${x.m} (${x.accuracies.length} of ${SEEDS} seeds)`
          : `${x.m} (${(100 * x.median).toFixed(1)}%; ${x.accuracies.filter((a) => a >= THRESHOLD).length} of ${SEEDS})`)).join(', ');
        return h('tr', { 'data-length': l.t },
          h('td', {}, String(l.t)),
          h('td', { class: 'm-star' }, best === null ? (over ? 'none' : '…') : over ? String(best) : `≤ ${best}`),
          h('td', {}, tried),
          h('td', {}, plan.limit(l.t).toFixed(1)));
      }));
      const f = plan.laws();
      setText(fits, f
        ? `On the lengths done, m* fits ${f.laws[0].name} best: `
          + f.laws.map((l) => `${l.name}, R² ${l.r2.toFixed(3)} (${l.formula}; at T = ${f.next}: ${Math.round(l.next)})`).join('; ')
          + `. R² is computed on m* for every law. ${f.laws[0].r2 - f.laws[1].r2 < 0.01 ? `The best two are within 0.01: these lengths cannot tell ${f.laws[0].name} from ${f.laws[1].name}. ` : ''}`
          + `The paper’s claim: m* grows like log T (Edelman et al. 2022). ${NATIVE}`
        : '');
    },
    destroy() {
      observer.disconnect();
      box.replaceChildren();
    },
  };
}
