// @ts-check
// The TensorFlow.js 4.22 peer benchmark page: the playground's model in TF.js, trained and timed on its wasm or cpu backend.
//
// Query: ?backend=wasm|cpu&size=small|paper&steps=N[&seed=S][&budget=SECONDS]. Builds the
// model, runs two warm-up steps, then times N steps (fewer if the timed steps pass the time
// budget, but at least one); result: { backend, simd, size, msPerStep, losses, ... } where
// msPerStep is the median over the timed steps and losses holds every step's loss (warm-up
// ones first).

/** The UMD global of tfjs-core and its backends (bench/tfjs.html loads them). @type {any} */
const tf = /** @type {any} */ (globalThis).tf;

const WASM_DIR = '/node_modules/@tensorflow/tfjs-backend-wasm/dist/';
const WARMUP = 2;

/** @typedef {{ V: number, L: number, H: number, B: number }} Size */
/** @type {Record<string, Size>} */
const SIZES = {
  small: { V: 30, L: 20, H: 64, B: 32 },
  paper: { V: 60, L: 40, H: 256, B: 128 },
};

/** A small seeded generator of uniform numbers in [0, 1): Marsaglia's xorshift32 on a
 * state scrambled from the seed (never 0). @param {number} seed */
function rng(seed) {
  let x = (Math.imul(seed >>> 0, 2654435761) ^ 0x9e3779b9) >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 4294967296;
  };
}

/** @param {() => number} rand @param {number} n @param {number} bound U(−bound, bound) */
function uniform(rand, n, bound) {
  const a = new Float32Array(n);
  for (let i = 0; i < n; i++) a[i] = (2 * rand() - 1) * bound;
  return a;
}

/** N(0, 1) by Box–Muller. @param {() => number} rand @param {number} n */
function normal(rand, n) {
  const a = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const u = 1 - rand();
    a[i] = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
  }
  return a;
}

/**
 * The parameters, weights stored (in, out) so that a layer is x·W + b (PyTorch keeps Wᵀ; the
 * same numbers). LSTM gate columns in PyTorch's order i, f, g, o; b_ih and b_hh kept apart.
 * @param {Size} s @param {() => number} rand
 */
function initParams(s, rand) {
  const { V, H } = s;
  const NT = V + 2;
  const k = 1 / Math.sqrt(H);
  /** @param {number[]} shape @param {Float32Array} data */
  const v = (shape, data) => tf.variable(tf.tensor(data, shape, 'float32'));
  /** @param {number[]} shape @param {number} bound */
  const u = (shape, bound) => v(shape, uniform(rand, shape.reduce((a, b) => a * b, 1), bound));
  const lstm = () => ({ wih: u([H, 4 * H], k), whh: u([H, 4 * H], k), bih: u([4 * H], k), bhh: u([4 * H], k) });
  return {
    emb: v([NT, H], normal(rand, NT * H)),
    enc: lstm(),
    dec: lstm(),
    wq: u([H, H], k), bq: u([H], k),
    wc: u([H, H], k), bc: u([H], k),
    w: u([2 * H, H], 1 / Math.sqrt(2 * H)), b: u([H], 1 / Math.sqrt(2 * H)),
    wo: u([H, NT], k), bo: u([NT], k),
  };
}

/** @typedef {ReturnType<typeof initParams>} Params */

/**
 * A fresh batch of the copy task with distinct tokens: each source is L distinct tokens of V
 * (a partial Fisher–Yates shuffle). Source and decoder input are time-major (t·B + b), the
 * targets batch-major (b·Lt + t) to match the logits' rows.
 * @param {Size} s @param {() => number} rand
 */
function makeBatch(s, rand) {
  const { V, L, B } = s;
  const T = L + 1;
  const EOS = V;
  const SOS = V + 1;
  const src = new Int32Array(T * B);
  const tgtIn = new Int32Array(T * B);
  const tgtOut = new Int32Array(B * T);
  const pool = new Int32Array(V);
  for (let b = 0; b < B; b++) {
    for (let i = 0; i < V; i++) pool[i] = i;
    for (let i = 0; i < L; i++) {
      const j = i + Math.floor(rand() * (V - i));
      const x = pool[j];
      pool[j] = pool[i];
      pool[i] = x;
      src[i * B + b] = x;
      tgtIn[(i + 1) * B + b] = x;
      tgtOut[b * T + i] = x;
    }
    src[L * B + b] = EOS;
    tgtIn[b] = SOS;
    tgtOut[b * T + L] = EOS;
  }
  return { src, tgtIn, tgtOut };
}

/**
 * One LSTM layer over a sequence whose input projections x·W_ih + b_ih + b_hh (T·B, 4H) are
 * already computed in one matMul; one matMul per time step for the recurrence.
 * @param {any} xProj @param {number} T @param {number} B @param {number} H
 * @param {any} whh @param {any} h @param {any} c
 */
function lstm(xProj, T, B, H, whh, h, c) {
  const xs = tf.unstack(tf.reshape(xProj, [T, B, 4 * H]));
  const outs = [];
  for (let t = 0; t < T; t++) {
    const gates = tf.add(xs[t], tf.matMul(h, whh));
    const [i, f, g, o] = tf.split(gates, 4, 1);
    c = tf.add(tf.mul(tf.sigmoid(f), c), tf.mul(tf.sigmoid(i), tf.tanh(g)));
    h = tf.mul(tf.sigmoid(o), tf.tanh(c));
    outs.push(h);
  }
  return { out: tf.stack(outs), h, c };
}

/**
 * The mean cross-entropy of one batch.
 * @param {Params} p @param {Size} s @param {ReturnType<typeof makeBatch>} batch
 */
function loss(p, s, batch) {
  const { V, L, H, B } = s;
  const NT = V + 2;
  const T = L + 1;
  // One-hot rows as float32 by a cast: the wasm backend's OneHot kernel writes int32 whatever
  // dtype it is asked for.
  /** @param {Int32Array} ids */
  const oneHot = (ids) => tf.cast(tf.oneHot(tf.tensor1d(ids, 'int32'), NT), 'float32');
  // Embedding lookup as one-hot · table: the wasm backend has no kernel for tf.gather's
  // gradient (UnsortedSegmentSum), so a gather-based embedding cannot train there.
  /** @param {Int32Array} ids */
  const embed = (ids) => tf.matMul(oneHot(ids), p.emb);
  /** @param {typeof p.enc} l @param {Int32Array} ids */
  const project = (l, ids) => tf.add(tf.add(tf.matMul(embed(ids), l.wih), l.bih), l.bhh);

  const zero = tf.zeros([B, H]);
  const enc = lstm(project(p.enc, batch.src), T, B, H, p.enc.whh, zero, zero);
  const dec = lstm(project(p.dec, batch.tgtIn), T, B, H, p.dec.whh, enc.h, enc.c);

  const hs = tf.transpose(enc.out, [1, 0, 2]); // (B, Ls, H)
  const d = tf.reshape(tf.transpose(dec.out, [1, 0, 2]), [B * T, H]); // rows b·Lt + t
  const q = tf.reshape(tf.add(tf.matMul(d, p.wq), p.bq), [B, T, H]);
  const alpha = tf.softmax(tf.matMul(q, hs, false, true)); // (B, Lt, Ls), softmax over s
  const ctx = tf.add(tf.matMul(tf.reshape(tf.matMul(alpha, hs), [B * T, H]), p.wc), p.bc);
  const hidden = tf.tanh(tf.add(tf.matMul(tf.concat([d, ctx], 1), p.w), p.b));
  const logits = tf.add(tf.matMul(hidden, p.wo), p.bo);
  return tf.losses.softmaxCrossEntropy(oneHot(batch.tgtOut), logits); // mean over the B·Lt tokens
}

/** @param {number[]} xs */
function median(xs) {
  const a = [...xs].sort((x, y) => x - y);
  const m = a.length >> 1;
  return a.length % 2 ? a[m] : (a[m - 1] + a[m]) / 2;
}

/**
 * @param {string} backend @param {string} sizeName @param {number} steps @param {number} seed
 * @param {number} budgetMs
 */
async function run(backend, sizeName, steps, seed, budgetMs) {
  const s = SIZES[sizeName];
  if (!s) throw new Error(`unknown size ${sizeName}`);
  if (backend !== 'wasm' && backend !== 'cpu') throw new Error(`unknown backend ${backend}`);
  if (backend === 'wasm') tf.wasm.setWasmPaths(WASM_DIR);
  if (!(await tf.setBackend(backend))) throw new Error(`backend ${backend} failed to start`);
  await tf.ready();
  const simd = backend === 'wasm' && (await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT')) === true;
  const threads = backend === 'wasm' ? tf.wasm.getThreadsCount() : 1;
  const wasmFile = performance.getEntriesByType('resource').map((e) => e.name).find((n) => n.endsWith('.wasm'));

  const rand = rng(seed);
  const p = initParams(s, rand);
  const vars = [p.emb, ...Object.values(p.enc), ...Object.values(p.dec), p.wq, p.bq, p.wc, p.bc, p.w, p.b, p.wo, p.bo];
  const optimizer = tf.train.adam(1e-3, 0.9, 0.999, 1e-8);
  const out = /** @type {HTMLElement} */ (document.getElementById('out'));

  /** @type {number[]} */
  const losses = [];
  /** @type {number[]} */
  const times = [];
  /** @type {number[]} */
  const numTensors = [];
  let timed = 0;
  for (let i = 0; i < WARMUP + steps; i++) {
    if (i > WARMUP && timed > budgetMs) break;
    const batch = makeBatch(s, rand);
    const t0 = performance.now();
    const l = tf.tidy(() => optimizer.minimize(() => loss(p, s, batch), true, vars));
    const value = l.dataSync()[0];
    const t1 = performance.now();
    l.dispose();
    losses.push(value);
    if (i >= WARMUP) {
      times.push(t1 - t0);
      timed += t1 - t0;
    }
    numTensors.push(tf.memory().numTensors);
    out.textContent = `${backend} ${sizeName}: step ${i + 1}/${WARMUP + steps}, loss ${value.toFixed(4)}, ${(t1 - t0).toFixed(1)} ms`;
    await new Promise((r) => setTimeout(r, 0)); // let the page paint and the driver poll
  }
  const msPerStep = median(times);
  return {
    backend, simd, threads, wasmFile: wasmFile ?? null, size: sizeName, ...s,
    warmup: WARMUP, steps: times.length, msPerStep, times, losses, numTensors, tfVersion: tf.version_core,
  };
}

const params = new URLSearchParams(location.search);
/** Shows the result and hands it to the driver. @param {any} result */
function finish(result) {
  /** @type {HTMLElement} */ (document.getElementById('out')).textContent = JSON.stringify(result, null, 1);
  /** @type {any} */ (window).__tfjs = result;
}
// Started in a task of its own once the page has loaded: a step blocks the thread (minutes for
// the paper size on cpu), and the page's load events should not wait for one.
window.addEventListener('load', () => setTimeout(() => {
  run(
    params.get('backend') ?? 'wasm',
    params.get('size') ?? 'small',
    Number(params.get('steps') ?? 20),
    Number(params.get('seed') ?? 1),
    Number(params.get('budget') ?? Infinity) * 1000,
  ).then(finish, (e) => finish({ error: String(e?.stack ?? e) }));
}, 0));
export {};
