// @ts-check
// The views demo page: two heatmaps and two line charts fed synthetic data every animation
// frame for a few seconds, to check the views' drawing, resizing and redraw cost by eye or by script.

import { Heatmap } from '../../www/views/heatmap.js';
import { LineChart } from '../../www/views/chart.js';
import { colormapNames } from '../../www/views/colormap.js';

const params = new URLSearchParams(location.search);
let size = clampInt(params.get('size'), 21, 2, 200);
const nPoints = clampInt(params.get('points'), 300, 0, 100000);
const seconds = Number(params.get('seconds') ?? 4) || 4;

/**
 * @param {string | null} s
 * @param {number} fallback
 * @param {number} lo
 * @param {number} hi
 */
function clampInt(s, fallback, lo, hi) {
  const n = s === null ? NaN : Math.round(Number(s));
  return Number.isFinite(n) ? Math.max(lo, Math.min(hi, n)) : fallback;
}

/** A small seeded generator (mulberry32), so screenshots repeat. @param {number} seed */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** @param {string} id */
function byId(id) {
  const e = document.getElementById(id);
  if (!e) throw new Error(`#${id} missing`);
  return e;
}

const alpha = new Heatmap(byId('alpha'), { title: 'Attention α', kind: 'attention' });
const beta = new Heatmap(byId('beta'), { title: 'KTIW β', kind: 'ktiw' });
const loss = new LineChart(byId('loss'), {
  title: 'Loss',
  yRange: 'auto',
  series: [
    { key: 'loss', label: 'train loss' },
    { key: 'valLoss', label: 'validation loss' },
  ],
});
const acc = new LineChart(byId('acc'), {
  title: 'Accuracy',
  yRange: [0, 1],
  series: [
    { key: 'tokenAcc', label: 'token accuracy' },
    { key: 'attnAcc', label: 'attention accuracy' },
    { key: 'ktiwAcc', label: 'KTIW accuracy' },
    { key: 'ktiwScore', label: 'KTIW score' },
  ],
});

// ---- synthetic data ---------------------------------------------------------------------

/** @param {number} n source length including the end token */
function tokens(n) {
  const r = rng(7 + n);
  const letters = 'abcdefghij';
  const src = Array.from({ length: n - 1 }, () => letters[Math.floor(r() * letters.length)]);
  src.push('</s>');
  return src;
}

/**
 * α for the copying task: target step t attends near source position t, sharper as `p`
 * (training progress, 0..1) grows; each row a softmax.
 * @param {number} n
 * @param {number} p
 * @param {() => number} r
 */
function attention(n, p, r) {
  const values = new Float32Array(n * n);
  const sharp = 0.15 + 6 * p * p;
  for (let t = 0; t < n; t++) {
    let sum = 0;
    const centre = t + (1 - p) * 2 * Math.sin(t * 0.7 + p * 9);
    for (let s = 0; s < n; s++) {
      const d = s - centre;
      const e = Math.exp(-sharp * d * d + 0.6 * (1 - p) * r());
      values[t * n + s] = e;
      sum += e;
    }
    for (let s = 0; s < n; s++) values[t * n + s] /= sum;
  }
  return values;
}

/**
 * β, log-odds: mostly negative noise, the aligned cell rising with progress.
 * @param {number} n
 * @param {number} p
 * @param {() => number} r
 */
function ktiw(n, p, r) {
  const values = new Float32Array(n * n);
  for (let i = 0; i < n * n; i++) values[i] = -14 + 12 * r() + 4 * Math.sin(i * 0.37 + p * 6);
  for (let t = 0; t < n; t++) values[t * n + t] = -6 + 20 * p + 2 * r();
  values[1 * n + 3] = NaN;
  values[2 * n + 5] = -Infinity;
  return values;
}

/** @param {number} step @param {() => number} r */
function point(step, r) {
  const p = 1 - Math.exp(-step / 120);
  const gap = step % 97 < 4; // the KTIW probe "not run" for a few steps: a gap
  return {
    step,
    loss: 2.3 * Math.exp(-step / 90) + 0.08 + 0.06 * r(),
    valLoss: step % 150 < 6 ? NaN : 2.4 * Math.exp(-step / 100) + 0.12 + 0.02 * r(),
    tokenAcc: Math.min(1, 0.1 + 0.88 * p + 0.03 * r()),
    attnAcc: Math.min(1, 0.05 + 0.9 * p * p + 0.04 * r()),
    ktiwAcc: gap ? NaN : Math.min(1, 0.2 + 0.75 * p + 0.05 * r()),
    ktiwScore: gap ? NaN : Math.min(1, 0.1 + 0.8 * p * p + 0.03 * r()),
  };
}

// ---- wiring -----------------------------------------------------------------------------

const cmap = /** @type {HTMLSelectElement} */ (byId('cmap'));
for (const name of colormapNames) cmap.add(new Option(name, name));
cmap.addEventListener('change', () => {
  alpha.setColormap(cmap.value);
  beta.setColormap(cmap.value);
});
const alignedBox = /** @type {HTMLInputElement} */ (byId('aligned'));
alignedBox.addEventListener('change', () => {
  alpha.setShowAligned(alignedBox.checked);
  beta.setShowAligned(alignedBox.checked);
});
for (const b of document.querySelectorAll('button[data-size]')) {
  b.addEventListener('click', () => {
    size = Number(/** @type {HTMLElement} */ (b).dataset.size);
    run();
  });
}
byId('replay').addEventListener('click', () => run());
byId('clear').addEventListener('click', () => {
  history.length = 0;
  loss.clear();
  acc.clear();
});

/** @type {ReturnType<typeof point>[]} */
const history = [];
const status = byId('status');
let runId = 0;

/** Animates for `seconds`, one update of every view per frame. */
function run() {
  const id = ++runId;
  const r = rng(1);
  const src = tokens(size);
  const aligned = Array.from({ length: size }, (_, t) => t);
  history.length = 0;
  for (let i = 0; i < nPoints; i++) history.push(point(i, r));
  document.documentElement.dataset.demo = 'running';
  const start = performance.now();
  let frames = 0;
  let busy = 0;
  /** @param {number} now */
  const frame = (now) => {
    if (id !== runId) return;
    const p = Math.min(1, (now - start) / (seconds * 1000));
    const t0 = performance.now();
    const common = { rows: size, cols: size, rowLabels: src, colLabels: src, aligned };
    alpha.update({ ...common, values: attention(size, p, r), range: [0, 1] });
    beta.update({ ...common, values: ktiw(size, p, r) });
    history.push(point(history.length, r));
    loss.update(history);
    acc.update(history);
    busy += performance.now() - t0;
    frames++;
    if (p < 1) {
      requestAnimationFrame(frame);
    } else {
      status.textContent = `${frames} frames, ${size}×${size}, ${history.length} points, ${(busy / frames).toFixed(2)} ms per frame of updates`;
      document.documentElement.dataset.demo = 'done';
    }
  };
  requestAnimationFrame(frame);
}

run();
