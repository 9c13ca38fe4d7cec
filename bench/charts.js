// @ts-check
// The chart benchmark page (charts.html): the page's own canvas charts (www/views/chart.js,
// www/sweeps/chart.js) against uPlot doing the same work, in one page under the page's
// CSP. Each task runs one library at a time; scripts/bench-charts.js calls them in rounds
// that alternate the libraries and pools the figures. Tasks, all on synthetic data:
// - stream: the copying lab's accuracy chart (4 series, [0, 1]) given one more evaluation
//   each animation frame, redrawn each frame;
// - sweep: a 20-seed sweep chart (20 curves of 40 evaluations, steps 10 to 400), one seed's
//   evaluation arriving each frame and every curve handed over again, as the sweep panel does;
// - still: the full charts redrawn for a change of colour scheme, resized, and made anew.
// Per frame: the synchronous update-and-draw call (performance.now() around it), the main
// thread's whole frame (from the frame's callback to the first task after it: style, layout,
// paint and the canvas's own flush included) and the interval between animation frames.
// Under window.bench; a CSP violation lands in bench.violations.

import { LineChart } from '../www/views/chart.js';
import { SweepChart } from '../www/sweeps/chart.js';
import { Colors } from '../www/views/colors.js';

/** @type {string[]} */
const violations = [];
// Before uPlot is loaded, so that anything it does against the policy is seen.
document.addEventListener('securitypolicyviolation', (e) => {
  violations.push(`${e.violatedDirective}: ${e.blockedURI || '(inline)'} at ${e.sourceFile}:${e.lineNumber}`);
});

// A variable, so that the type checker takes the module's types from the package
// (node_modules/uplot/dist/uPlot.d.ts) and the browser the file the server gives.
const UPLOT_URL = '/node_modules/uplot/dist/uPlot.esm.js';
/** @typedef {import('uplot')} UPlot */
const uPlot = /** @type {typeof import('uplot')} */ ((await import(UPLOT_URL)).default);

/** Width of each chart (CSS px); the heights are the page's (views.css, styles.css). */
const W = 600;
const LINE_H = 176; // --ap-chart-height: 11rem
const SWEEP_H = 224; // .ap-sweep-plot: 14rem
const STRIP_H = 26; // the sweep chart's strip of latest values (www/sweeps/chart.js)

/** The copying lab's accuracy series (www/labs/copying/lab.js). */
const ACCURACIES = [
  ['token_accuracy', 'token accuracy'],
  ['attention_accuracy', 'attention accuracy'],
  ['ktiw_accuracy', 'KTIW accuracy'],
  ['ktiw_score', 'KTIW score'],
];
/** chart.js's default dashes by order. */
const DASHES = [[], [7, 4], [1.5, 3], [9, 3, 2, 3]];
const SEEDS = 20;
const EVALS = 40;
const SWEEP_STEPS = 400;
const THRESHOLD = 0.99;

/** @param {string} id */
function byId(id) {
  const e = document.getElementById(id);
  if (!e) throw new Error(`#${id} missing`);
  return e;
}

/** @param {string} text */
function say(text) {
  byId('out').textContent = text;
}

// Side by side, each column as wide as a chart.
const main = byId('bench');
main.style.display = 'flex';
main.style.gap = '24px';
main.style.alignItems = 'flex-start';
for (const id of ['ours', 'uplot']) {
  byId(id).style.width = `${W}px`;
  byId(id).style.flex = 'none';
}

/** A deterministic generator of numbers in [0, 1). @param {number} seed */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** @param {number} x */
const sigmoid = (x) => 1 / (1 + Math.exp(-x));
/** @param {number} x */
const unit = (x) => Math.min(1, Math.max(0, x));

/** An accuracy history of `n` evaluations (every 10 steps) like the copying lab's: KTIW
 * first, then attention; the KTIW score missing (NaN) now and then, which leaves a gap.
 * @param {number} n @returns {{ step: number, [key: string]: number }[]} */
function accuracyHistory(n) {
  const r = random(7);
  return Array.from({ length: n }, (_, i) => {
    const t = i / n;
    const noise = () => (r() - 0.5) * 0.04;
    return {
      step: 10 * (i + 1),
      token_accuracy: unit(0.05 + 0.93 * sigmoid((t - 0.3) * 14) + noise()),
      attention_accuracy: unit(0.1 + 0.88 * sigmoid((t - 0.45) * 12) + noise()),
      ktiw_accuracy: unit(0.1 + 0.89 * sigmoid((t - 0.2) * 16) + noise()),
      ktiw_score: i % 97 === 5 ? NaN : unit(0.5 + 0.45 * sigmoid((t - 0.25) * 10) + noise()),
    };
  });
}

/** Each seed's 40 evaluations (steps 10 to 400): most reach 99% at their own step, every
 * seventh stalls. */
function sweepValues() {
  return Array.from({ length: SEEDS }, (_, s) => {
    const r = random(100 + s);
    const onset = 80 + r() * 260;
    const stalls = s % 7 === 3;
    return Array.from({ length: EVALS }, (_, k) => {
      const step = 10 * (k + 1);
      const v = stalls ? 0.2 + 0.1 * sigmoid((step - 200) / 60) : 0.1 + 0.9 * sigmoid((step - onset) / 25);
      return unit(v + (r() - 0.5) * 0.02);
    });
  });
}

/** The order in which the evaluations arrive: four seeds train at once, in turn, the next
 * seed starting when one ends (as the sweep's workers do). @returns {number[]} seed per frame */
function arrivals() {
  const have = new Array(SEEDS).fill(0);
  const active = [0, 1, 2, 3];
  let next = active.length;
  let turn = 0;
  /** @type {number[]} */
  const order = [];
  while (active.length) {
    const k = turn % active.length;
    const s = active[k];
    order.push(s);
    if (++have[s] === EVALS) {
      if (next < SEEDS) active[k] = next++;
      else active.splice(k, 1);
    }
    turn++;
  }
  return order;
}

const SWEEP = sweepValues();
const ORDER = arrivals();
const SWEEP_X = Array.from({ length: EVALS }, (_, k) => 10 * (k + 1));

/** A seed's outcome so far, as the sweep panel colours and words it.
 * @param {number[]} values @returns {{ color: string, words: string }} */
function outcome(values) {
  if (!values.length) return { color: 'var(--ap-axis)', words: 'waiting' };
  if (values.some((v) => v >= THRESHOLD)) return { color: 'var(--ap-series-3)', words: 'reached' };
  if (values.length >= 20 && Math.max(...values) < 0.5) return { color: 'var(--ap-muted)', words: 'stalled' };
  return { color: 'var(--ap-series-5)', words: 'still learning' };
}

// ---- measuring ---------------------------------------------------------------------------

/** @typedef {{ n: number[], sync: number[], frame: number[], at: number[] }} FrameLog
 * per frame: the points (or evaluations) drawn, the update-and-draw call's ms, the main
 * thread's frame ms (callback to the first task after the frame), the frame's timestamp */

/** Runs `frames` animation frames; in each, `prepare(i)` (not timed), then `draw()` timed.
 * @param {number} frames @param {(i: number) => number} prepare returns what the log's `n` records
 * @param {() => void} draw @returns {Promise<FrameLog>} */
function frameLoop(frames, prepare, draw) {
  /** @type {FrameLog} */
  const log = { n: [], sync: [], frame: [], at: [] };
  return new Promise((resolve) => {
    let i = 0;
    const channel = new MessageChannel();
    let start = 0;
    channel.port1.onmessage = () => {
      log.frame.push(performance.now() - start);
      if (i < frames) requestAnimationFrame(tick);
      else {
        channel.port1.close();
        resolve(log);
      }
    };
    /** @param {number} at */
    function tick(at) {
      start = performance.now();
      log.at.push(at);
      log.n.push(prepare(i));
      const t0 = performance.now();
      draw();
      log.sync.push(performance.now() - t0);
      i++;
      // The message's task runs once this frame's rendering (style, layout, paint) is done.
      channel.port2.postMessage(null);
    }
    requestAnimationFrame(tick);
  });
}

/** Runs `fn` in an animation frame: its own ms and the main thread's frame ms up to the
 * first task after the frame. @param {() => void} fn @returns {Promise<[number, number]>} */
function inFrame(fn) {
  return new Promise((resolve) => {
    requestAnimationFrame(() => {
      const t0 = performance.now();
      fn();
      const t1 = performance.now();
      const channel = new MessageChannel();
      channel.port1.onmessage = () => {
        channel.port1.close();
        resolve([t1 - t0, performance.now() - t0]);
      };
      channel.port2.postMessage(null);
    });
  });
}

/** Flips the colour scheme (light ↔ dark), as the page's theme toggle does. */
function flipScheme() {
  const root = document.documentElement;
  root.style.colorScheme = root.style.colorScheme === 'dark' ? 'light' : 'dark';
}

// ---- the two libraries, behind one shape ---------------------------------------------------

/**
 * @typedef {object} LineSide
 * @property {(n: number) => void} prepare the first n evaluations, made ready to hand over
 * @property {() => void} full all 2,560 evaluations made ready
 * @property {() => void} draw hand them over and draw
 * @property {() => void} recolor redraw everything with the colours resolved again
 * @property {() => void} destroy
 * @property {() => number} draws how many times the plot was drawn (uPlot's draw hook; -1: unknown)
 *
 * @typedef {object} SweepSide
 * @property {(frame: number) => void} prepare the sweep after `frame + 1` evaluations arrived
 * @property {() => void} full the whole sweep made ready
 * @property {() => void} draw
 * @property {() => void} recolor
 * @property {() => void} destroy
 * @property {() => number} draws
 */

const HISTORY = accuracyHistory(2560);

/** Our LineChart with the accuracy chart's spec. @param {HTMLElement} box @returns {LineSide} */
function ourLine(box) {
  const chart = new LineChart(box, { title: 'Accuracy', series: ACCURACIES.map(([key, label]) => ({ key, label })), yRange: [0, 1] });
  /** @type {typeof HISTORY} */
  let points = [];
  return {
    prepare: (n) => {
      // The owner hands over a new array when an evaluation arrives.
      points = HISTORY.slice(0, n);
    },
    full: () => {
      points = HISTORY.slice();
    },
    draw: () => chart.update(points),
    recolor: () => {
      chart.invalidate();
      chart.update(points);
    },
    destroy: () => chart.destroy(),
    draws: () => -1,
  };
}

/** The axis options both uPlot charts share, in the page's colours.
 * @param {Colors} colors @param {Partial<import('uplot').Axis>} [more] @returns {import('uplot').Axis} */
function axis(colors, more = {}) {
  const grid = () => colors.resolve('var(--ap-grid, rgba(0,0,0,.1))');
  return {
    stroke: () => colors.resolve('var(--ap-muted, #555)'),
    grid: { stroke: grid, width: 1 },
    ticks: { stroke: grid, width: 1, size: 4 },
    font: '11px system-ui, sans-serif',
    ...more,
  };
}

/** uPlot doing the accuracy chart's work: 4 series on the steps, colours and dashes as
 * ours, NaN as null (uPlot breaks a line only at null), y fixed to [0, 1], legend on, a
 * ResizeObserver to follow the box (uPlot has none).
 * @param {HTMLElement} box @returns {LineSide} */
function uplotLine(box) {
  const colors = new Colors(box);
  let drawn = 0;
  /** @type {number[]} */
  const xs = [];
  /** @type {(number | null)[][]} */
  const ys = ACCURACIES.map(() => []);
  /** @type {import('uplot').AlignedData} */
  const data = [xs, ...ys];
  /** @type {import('uplot').Options} */
  const opts = {
    title: 'Accuracy',
    width: W,
    height: LINE_H,
    scales: { x: { time: false }, y: { range: [0, 1] } },
    series: [
      { label: 'step' },
      ...ACCURACIES.map(([, label], i) => ({
        label,
        stroke: () => colors.resolve(`var(--ap-series-${i + 1})`),
        dash: DASHES[i],
        width: 1.75,
        points: { show: false },
      })),
    ],
    axes: [axis(colors, { size: 24 }), axis(colors, { size: 36 })],
    legend: { show: true, live: true },
    cursor: { drag: { x: false, y: false } },
    hooks: { draw: [() => drawn++] },
  };
  const u = new uPlot(opts, data, box);
  const resize = new ResizeObserver((entries) => {
    const w = Math.round(entries[entries.length - 1].contentRect.width);
    if (w > 0 && w !== u.width) u.batch(() => u.setSize({ width: w, height: LINE_H }));
  });
  resize.observe(box);
  /** Columns grow by the evaluations that arrived since (one per frame when streaming).
   * @param {number} n */
  const prepare = (n) => {
    for (let i = xs.length; i < n; i++) {
      const p = HISTORY[i];
      xs.push(p.step);
      ACCURACIES.forEach(([key], k) => ys[k].push(Number.isFinite(p[key]) ? p[key] : null));
    }
  };
  return {
    prepare,
    full: () => prepare(HISTORY.length),
    // batch(): uPlot draws at once instead of in a microtask, so that the call's time is the draw's.
    draw: () => u.batch(() => u.setData(data)),
    recolor: () => {
      colors.clear();
      u.batch(() => u.redraw(true, true));
    },
    destroy: () => {
      resize.disconnect();
      u.destroy();
    },
    draws: () => drawn,
  };
}

/** Our SweepChart. @param {HTMLElement} box @returns {SweepSide} */
function ourSweep(box) {
  const chart = new SweepChart(box, { onOpen: () => {} });
  /** @type {import('../www/sweeps/chart.js').SweepChartData | null} */
  let data = null;
  const have = new Array(SEEDS).fill(0);
  // As the sweep panel does: every curve made anew from its seed's evaluations.
  const make = () => {
    data = {
      steps: SWEEP_STEPS,
      threshold: THRESHOLD,
      label: 'token accuracy',
      shown: null,
      curves: SWEEP.map((values, s) => {
        const v = values.slice(0, have[s]);
        const o = outcome(v);
        return { seed: s, steps: SWEEP_X.slice(0, have[s]), values: v, color: o.color, words: o.words };
      }),
    };
  };
  return {
    prepare: (frame) => {
      have[ORDER[frame]]++;
      make();
    },
    full: () => {
      have.fill(EVALS);
      make();
    },
    draw: () => {
      if (data) chart.update(data);
    },
    recolor: () => chart.invalidate(),
    destroy: () => chart.destroy(),
    draws: () => -1,
  };
}

/** uPlot doing the sweep chart's work: 20 series on the shared steps (null where a seed has
 * no evaluation yet), each seed's colour by its outcome, thin and a little transparent, the
 * hovered one in focus; the threshold and the strip of latest values in a draw hook, as
 * ours draws them; legend on.
 * @param {HTMLElement} box @returns {SweepSide} */
function uplotSweep(box) {
  const colors = new Colors(box);
  let drawn = 0;
  /** @type {string[]} */
  const color = SWEEP.map(() => 'var(--ap-axis)');
  const have = new Array(SEEDS).fill(0);
  /** @type {(number | null)[][]} */
  const ys = SWEEP.map(() => new Array(EVALS).fill(null));
  /** @type {import('uplot').AlignedData} */
  const data = [SWEEP_X, ...ys];
  /** The threshold across the plot and each seed's latest value in the strip below.
   * @param {UPlot} u */
  const extras = (u) => {
    const g = u.ctx;
    const dpr = uPlot.pxRatio;
    const { left, width } = u.bbox;
    g.save();
    g.lineWidth = dpr;
    g.strokeStyle = colors.resolve('var(--ap-axis, #888)');
    g.setLineDash([4 * dpr, 3 * dpr]);
    const y = u.valToPos(THRESHOLD, 'y', true);
    g.beginPath();
    g.moveTo(left, y);
    g.lineTo(left + width, y);
    g.stroke();
    g.setLineDash([]);
    const ty = g.canvas.height - (STRIP_H / 2 + 2) * dpr;
    g.strokeStyle = colors.resolve('var(--ap-grid, #ddd)');
    g.beginPath();
    g.moveTo(left, ty);
    g.lineTo(left + width, ty);
    g.stroke();
    SWEEP.forEach((values, s) => {
      if (!have[s]) return;
      g.fillStyle = colors.resolve(color[s]);
      g.beginPath();
      g.arc(left + values[have[s] - 1] * width, ty + ((s % 5) - 2) * 2.5 * dpr, 2.75 * dpr, 0, 2 * Math.PI);
      g.fill();
    });
    g.restore();
  };
  /** @type {import('uplot').Options} */
  const opts = {
    width: W,
    height: SWEEP_H,
    padding: [8, 8, STRIP_H, 0],
    scales: { x: { time: false, range: [0, SWEEP_STEPS] }, y: { range: [0, 1] } },
    series: [
      { label: 'step' },
      ...SWEEP.map((_, s) => ({
        label: `seed ${s}`,
        stroke: () => colors.resolve(color[s]),
        width: 1.25,
        alpha: 0.85,
        points: { show: false },
      })),
    ],
    axes: [axis(colors, { size: 22 }), axis(colors, { size: 42, values: (_u, splits) => splits.map((v) => `${Math.round(v * 100)}%`) })],
    legend: { show: true, live: true },
    focus: { alpha: 0.35 },
    cursor: { focus: { prox: 8 }, drag: { x: false, y: false } },
    hooks: { draw: [(u) => { drawn++; extras(u); }] },
  };
  const u = new uPlot(opts, data, box);
  const resize = new ResizeObserver((entries) => {
    const w = Math.round(entries[entries.length - 1].contentRect.width);
    if (w > 0 && w !== u.width) u.batch(() => u.setSize({ width: w, height: SWEEP_H }));
  });
  resize.observe(box);
  return {
    prepare: (frame) => {
      const s = ORDER[frame];
      ys[s][have[s]] = SWEEP[s][have[s]];
      have[s]++;
      color[s] = outcome(SWEEP[s].slice(0, have[s])).color;
    },
    full: () => {
      SWEEP.forEach((values, s) => {
        for (let k = 0; k < EVALS; k++) ys[s][k] = values[k];
        have[s] = EVALS;
        color[s] = outcome(values).color;
      });
    },
    draw: () => u.batch(() => u.setData(data)),
    recolor: () => {
      colors.clear();
      u.batch(() => u.redraw(true, true));
    },
    destroy: () => {
      resize.disconnect();
      u.destroy();
    },
    draws: () => drawn,
  };
}

/** @typedef {'ours' | 'uplot'} Lib */

/** A fresh box for a chart of `lib`, in its column. @param {Lib} lib @param {'line' | 'sweep'} kind */
function freshBox(lib, kind) {
  const box = byId(`${lib}-${kind}`);
  box.replaceChildren();
  box.style.width = `${W}px`;
  return box;
}

/** @param {Lib} lib */
function makeLine(lib) {
  const box = freshBox(lib, 'line');
  return { box, side: lib === 'ours' ? ourLine(box) : uplotLine(box) };
}

/** @param {Lib} lib */
function makeSweep(lib) {
  const box = freshBox(lib, 'sweep');
  return { box, side: lib === 'ours' ? ourSweep(box) : uplotSweep(box) };
}

/** A chart is made once its box has its size (the first animation frame). */
const settle = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));

const bench = {
  violations,
  /** What the run was on. */
  info() {
    // uPlot.min.css came through the policy if its rule for .u-over applies.
    const box = freshBox('uplot', 'line');
    const u = new uPlot({ width: 200, height: 100, series: [{}, {}] }, [[1, 2], [1, 2]], box);
    const uplotCss = getComputedStyle(u.over).position === 'absolute';
    u.destroy();
    return {
      userAgent: navigator.userAgent,
      devicePixelRatio: window.devicePixelRatio,
      uplotCss,
      hardwareConcurrency: navigator.hardwareConcurrency,
      isolated: window.crossOriginIsolated,
    };
  },

  /** The accuracy chart streaming: one evaluation more each frame, from 1 to `points`.
   * @param {Lib} lib @param {number} points */
  async stream(lib, points) {
    say(`streaming ${lib}`);
    const { side } = makeLine(lib);
    await settle();
    const before = side.draws();
    const log = await frameLoop(points, (i) => {
      side.prepare(i + 1);
      return i + 1;
    }, side.draw);
    const draws = side.draws() < 0 ? -1 : side.draws() - before;
    side.destroy();
    return { ...log, draws };
  },

  /** The accuracy chart redrawn each frame at a fixed `n` evaluations (a new array handed
   * over each frame, as when an evaluation arrives), both libraries' charts on the page at
   * once and taking turns every `frames` frames, `blocks` turns each: a finer alternation
   * than the streaming rounds, for the whole frame's cost.
   * @param {number} n @param {number} blocks @param {number} frames */
  async steady(n, blocks, frames) {
    say(`steady at ${n}`);
    const sides = { ours: makeLine('ours').side, uplot: makeLine('uplot').side };
    for (const side of Object.values(sides)) {
      side.prepare(n);
      side.draw();
    }
    await settle();
    /** @type {Record<Lib, FrameLog[]>} */
    const logs = { ours: [], uplot: [] };
    for (let b = 0; b < blocks; b++) {
      for (const lib of /** @type {const} */ (['ours', 'uplot'])) {
        const side = sides[lib];
        logs[lib].push(await frameLoop(frames, () => {
          side.prepare(n);
          return n;
        }, side.draw));
      }
    }
    for (const side of Object.values(sides)) side.destroy();
    return logs;
  },

  /** The sweep chart: one seed's evaluation arriving each frame, all 800 of them.
   * @param {Lib} lib @param {number} [frames] */
  async sweep(lib, frames = ORDER.length) {
    say(`sweep ${lib}`);
    const { side } = makeSweep(lib);
    await settle();
    const before = side.draws();
    const log = await frameLoop(frames, (i) => {
      side.prepare(i);
      return i + 1;
    }, side.draw);
    const draws = side.draws() < 0 ? -1 : side.draws() - before;
    side.destroy();
    return { ...log, draws };
  },

  /** The full charts (2,560 evaluations; the whole sweep) redrawn still: `repeats` times each
   * for a flip of the colour scheme (colours resolved again) and a resize (the box 40 px
   * narrower or back), and made anew once. Each as [call ms, frame ms].
   * @param {Lib} lib @param {number} repeats */
  async still(lib, repeats) {
    say(`still ${lib}`);
    /** @type {Record<string, [number, number][]>} */
    const out = { lineTheme: [], lineResize: [], lineCreate: [], sweepTheme: [], sweepResize: [], sweepCreate: [] };
    for (const kind of /** @type {const} */ (['line', 'sweep'])) {
      /** @type {{ box: HTMLElement, side: LineSide | SweepSide } | null} */
      let made = null;
      const key = kind === 'line' ? 'line' : 'sweep';
      out[`${key}Create`].push(await inFrame(() => {
        made = kind === 'line' ? makeLine(lib) : makeSweep(lib);
        made.side.full();
        made.side.draw();
      }));
      await settle();
      const m = /** @type {{ box: HTMLElement, side: LineSide | SweepSide }} */ (/** @type {unknown} */ (made));
      m.side.draw();
      for (let i = 0; i < repeats; i++) {
        out[`${key}Theme`].push(await inFrame(() => {
          flipScheme();
          m.side.recolor();
        }));
        out[`${key}Resize`].push(await inFrame(() => {
          m.box.style.width = `${i % 2 ? W : W - 40}px`;
        }));
      }
      m.box.style.width = `${W}px`;
      if (document.documentElement.style.colorScheme === 'dark') flipScheme();
      await settle();
      m.side.destroy();
    }
    return out;
  },
};

/** Leaves all four charts drawn full, to be looked at (scripts/bench-charts.js --screenshot). */
async function show() {
  for (const lib of /** @type {const} */ (['ours', 'uplot'])) {
    for (const { side } of [makeLine(lib), makeSweep(lib)]) {
      side.full();
      side.draw();
    }
  }
  await settle();
  say('all four charts, full');
}

/** @type {any} */ (window).bench = { ...bench, show };
say('ready');
/** @type {any} */ (window).benchReady = true;
