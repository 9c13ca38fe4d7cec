//! The copying model of `copying/model/` on the GPU: its buffers, made once for a batch
//! size, and one training step (forward pass, backward pass, divergence check and update)
//! recorded once as a list of dispatches that each step replays in one submission. The
//! math is the CPU model's, term for term (the comments name the CPU function each block
//! mirrors); only the order of summation differs.

use super::device::Gpu;
use super::kernels::{grid, le_words, put_words, Kernel, Mat, Recorder, Recording, View};
use crate::copying::model::params::{Dims, Layout};
use crate::copying::tasks::Batch;
use crate::optim::{adam_scales, OptimizerKind, ADAM};
use crate::run::{RunError, DIVERGED_FACTOR};

/// What a step reports: the mean training loss, and whether it diverged (a loss that is not
/// finite or above the limit, or a gradient that is not finite, at this step or an earlier
/// one since the weights were loaded: the update was skipped).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepResult {
    pub loss: f32,
    pub diverged: bool,
}

impl StepResult {
    /// The divergence of a diverged step `step` of a model of `n_tok` tokens, as the CPU
    /// reports it: its loss, or NaN where the loss was fine and a gradient was not.
    pub fn divergence(&self, step: u64, n_tok: usize) -> RunError {
        let limit = DIVERGED_FACTOR * (n_tok as f32).ln();
        let fine = self.loss.is_finite() && self.loss <= limit;
        RunError::Diverged {
            step,
            loss: if fine { f32::NAN } else { self.loss },
        }
    }
}

/// How many seeds of a model of `dims` (batches of `batch`, evaluation batches of
/// `eval_batch`, source length `src_len`) one device trains at once by its limits: each
/// seed's part of its largest buffer and the evaluation's read-back within the largest
/// buffer, and a dispatch's `batch × seeds` workgroups within 65,535 (at least 1; a single
/// seed too large is refused by [`GpuModel::new`], and so is a chunk too large for the
/// device's memory, which the limits do not tell).
pub fn max_seeds(gpu: &Gpu, dims: Dims, batch: usize, eval_batch: usize, src_len: usize) -> usize {
    let p = Layout::new(dims).len;
    let e = Sizes::new(dims, eval_batch, src_len);
    let largest = [batch, eval_batch]
        .into_iter()
        .map(|b| Sizes::new(dims, b, src_len).largest())
        .chain([p, PROBE_CHUNK, e.read_back()])
        .max()
        .expect("sizes");
    let by_size = gpu.limits.max_storage_buffer_binding_size as usize / (largest * 4);
    let by_grid = MAX_GROUPS / batch.max(eval_batch);
    by_size.min(by_grid).max(1)
}

/// How a model that does not fit the device's memory is refused (the start of the message).
pub const OUT_OF_MEMORY: &str = "the GPU has too little memory for this model";

/// The most workgroups a dispatch has along one dimension.
const MAX_GROUPS: usize = 65_535;

/// Sizes of one model and batch: `T` = source length = target length, `N = T·B` rows,
/// `G = 4H` gate width, `NL = D + 1` LSTMs (the encoder's directions, then the decoder).
#[derive(Clone, Copy, Debug)]
struct Sizes {
    b: usize,
    t: usize,
    h: usize,
    nt: usize,
    d: usize,
    k: usize,
    hs: usize,
    n: usize,
    g: usize,
    nl: usize,
}

impl Sizes {
    /// Values an evaluation of this batch reads back per seed: α, log-probabilities, β and
    /// the stats.
    fn read_back(&self) -> usize {
        let tt = self.t * self.t;
        self.k * self.b * tt + self.n * self.nt + self.b * tt + 4
    }

    /// The most values one seed's part of a buffer of this batch holds.
    fn largest(&self) -> usize {
        let Sizes {
            b,
            t,
            h,
            nt,
            k,
            hs,
            n,
            g,
            nl,
            ..
        } = *self;
        [
            nl * t * b * g,
            nl * (t + 1) * b * h,
            k * b * t * t,
            k * n * hs,
            n * nt,
            nl * nt * g,
        ]
        .into_iter()
        .max()
        .expect("sizes")
    }

    fn new(dims: Dims, batch: usize, src_len: usize) -> Sizes {
        let (b, t, h) = (batch, src_len, dims.hidden);
        Sizes {
            b,
            t,
            h,
            nt: dims.n_tok,
            d: dims.dirs,
            k: dims.heads,
            hs: dims.dirs * h,
            n: t * b,
            g: 4 * h,
            nl: dims.dirs + 1,
        }
    }
}

/// Every buffer of a run, in elements (f32 unless marked u32).
struct Buffers {
    params: wgpu::Buffer,   // (P,) flat, the CPU model's layout
    grads: wgpu::Buffer,    // (P,)
    adam_m: wgpu::Buffer,   // (P,)
    adam_v: wgpu::Buffer,   // (P,)
    tok: wgpu::Buffer,      // u32 (4, T, B): source, source reversed, target in, target out
    wt: wgpu::Buffer,       // (NL, H, G) W_hhᵀ of each LSTM
    table: wgpu::Buffer,    // (NL, NT, G) E W_ihᵀ + b_ih + b_hh
    gates: wgpu::Buffer,    // (NL, T, B, G) activated gates
    hs: wgpu::Buffer,       // (NL, T+1, B, H) hidden states, [0] the initial one
    cs: wgpu::Buffer,       // (NL, T+1, B, H) cell states
    tc: wgpu::Buffer,       // (NL, T, B, H) tanh of the cell states
    h_enc: wgpu::Buffer,    // (B, T, Hs) encoder outputs, directions concatenated
    q: wgpu::Buffer,        // (K, T, B, Hs) queries
    alpha: wgpu::Buffer,    // (K, B, T, T) attention
    ctx: wgpu::Buffer,      // (K, T, B, Hs) raw contexts
    m_ctx: wgpu::Buffer,    // (K, H, Hs) fused context maps W_c' W_c^k / K
    b_ctx: wgpu::Buffer,    // (H,) fused bias
    act: wgpu::Buffer,      // (N, H) tanh(W [d; c] + b)
    logits: wgpu::Buffer,   // (N, NT) log-probabilities after the loss kernel
    nll: wgpu::Buffer,      // (N,)
    dlogits: wgpu::Buffer,  // (N, NT)
    dact: wgpu::Buffer,     // (N, H) gradient w.r.t. the pre-activation
    dd: wgpu::Buffer,       // (N, H) gradient w.r.t. the decoder outputs
    dbias: wgpu::Buffer,    // (H,)
    g_m: wgpu::Buffer,      // (H, Hs) gradient w.r.t. one head's fused map
    dctx: wgpu::Buffer,     // (N, Hs)
    dalpha: wgpu::Buffer,   // (B, T, T)
    dq: wgpu::Buffer,       // (N, Hs)
    dh_enc: wgpu::Buffer,   // (B, T, Hs)
    dh_dir: wgpu::Buffer,   // (T, B, H) one direction's share of dh_enc, in its time order
    dgates: wgpu::Buffer,   // (T, B, G) of the LSTM being differentiated
    carry: wgpu::Buffer,    // (2, B, H) dh into its last step, dc carried back
    dstate0: wgpu::Buffer,  // (2, B, H) gradient w.r.t. the decoder's initial h, c, over D
    dtable: wgpu::Buffer,   // (NT, G)
    stats: wgpu::Buffer,    // u32 (4,): loss bits, diverged
    readback: wgpu::Buffer, // u32 (4,) mapped copy of stats
    download: wgpu::Buffer, // (3, P) mapped copy of one seed's parameters and Adam's moments
}

/// The model on one device, for batches of one size.
pub struct GpuModel {
    pub gpu: Gpu,
    layout: Layout,
    s: Sizes,
    buf: Buffers,
    step: Recording,
    adam: wgpu::Buffer, // the update's parameters, written every step
    tokens: Tokens,
    eval: EvalPass,
    /// Seeds trained at once: every buffer holds one part per seed.
    seeds: usize,
    results: Vec<StepResult>, // (S,) the last step's
}

/// What an evaluation read back: the forward pass's `α` (K, Be, T, T) and log-probabilities
/// (T, Be, NT), its mean loss, and the probe's `β` (Be, T, T).
pub struct EvalMaps<'a> {
    pub alpha: &'a [f32],
    pub logp: &'a [f32],
    pub beta: &'a [f32],
    pub loss: f32,
}

/// The host copies an evaluation reads back into, one part per seed.
struct EvalHost {
    alpha: Vec<f32>, // (S, K, Be, T, T)
    logp: Vec<f32>,  // (S, T, Be, NT)
    beta: Vec<f32>,  // (S, Be, T, T)
    stats: Vec<u32>, // (S, 4): loss bits, …
}

/// The bytes of the tokens a step uploads, made once: (S, 4, T, B) u32 as `tok` holds them.
struct Tokens {
    bytes: Vec<u8>,
}

impl Tokens {
    fn new(seeds: usize, s: &Sizes) -> Tokens {
        Tokens {
            bytes: vec![0; seeds * 4 * s.t * s.b * 4],
        }
    }

    /// Seed `seed`'s part: source, source reversed, target in, target out.
    fn fill(&mut self, seed: usize, batch: &Batch) {
        let (bsz, ls) = (batch.batch, batch.src_len);
        let tb = ls * bsz * 4;
        let part = &mut self.bytes[seed * 4 * tb..(seed + 1) * 4 * tb];
        let (src, rest) = part.split_at_mut(tb);
        let (rev, rest) = rest.split_at_mut(tb);
        let (tin, tout) = rest.split_at_mut(tb);
        put_words(src, batch.source.iter().copied());
        let reversed = (0..ls)
            .rev()
            .flat_map(|pos| &batch.source[pos * bsz..(pos + 1) * bsz]);
        put_words(rev, reversed.copied());
        put_words(tin, batch.target_in.iter().copied());
        put_words(tout, batch.target_out.iter().copied());
    }

    /// Fills every seed's part from `batches` (one per seed, of the pass's shape) and
    /// uploads them into `tok`.
    fn upload(&mut self, gpu: &Gpu, tok: &wgpu::Buffer, batches: &[Batch], s: &Sizes) {
        for (seed, batch) in batches.iter().enumerate() {
            assert_eq!(
                (batch.batch, batch.src_len),
                (s.b, s.t),
                "a batch of another shape"
            );
            self.fill(seed, batch);
        }
        gpu.queue.write_buffer(tok, 0, &self.bytes);
    }
}

/// The evaluation: a forward pass over the evaluation batch on buffers of its size (reading
/// the training pass's parameters), then the KTIW probe, recorded once.
struct EvalPass {
    s: Sizes,
    buf: Buffers,
    u: wgpu::Buffer,       // (T, Be, H) W_d d_t + the fused bias
    v: wgpu::Buffer,       // (Be, T, H) Σ_k M_k h_s
    plogits: wgpu::Buffer, // (chunk rows, NT) the probe's logits, a chunk of sequences at a time
    beta: wgpu::Buffer,    // (Be, T, T)
    out: wgpu::Buffer,     // α, log-probabilities, β and stats, mapped for reading
    rec: Recording,
    tokens: Tokens,
    host: EvalHost,
}

/// The most probe logits one chunk holds (floats).
const PROBE_CHUNK: usize = 1 << 23;

impl EvalPass {
    fn new(
        rec: &Recorder,
        layout: &Layout,
        params: &wgpu::Buffer,
        batch: usize,
        src_len: usize,
        uniform: bool,
    ) -> Result<EvalPass, String> {
        let (gpu, seeds) = (rec.gpu, rec.seeds);
        let s = Sizes::new(layout.dims, batch, src_len);
        let buf = Buffers::new(gpu, &s, layout.len, Some(params), false, seeds)?;
        let (t, h, nt, n) = (s.t, s.h, s.nt, s.n);
        let tt = t * t;
        // Sequences per chunk of the probe: its logits within PROBE_CHUNK floats, its rows
        // within the 65,535 workgroups of 16 rows a dispatch may have.
        let per = (PROBE_CHUNK / (tt * nt))
            .clamp(1, (65_535 * 16) / tt)
            .min(s.b);
        let max = gpu.limits.max_buffer_size as usize;
        let make = |name: &str, len: usize, usage| make_buffer(gpu, name, len, seeds, usage, max);
        use wgpu::BufferUsages as U;
        let st = U::STORAGE | U::COPY_SRC;
        let host = EvalHost {
            alpha: vec![0.0; seeds * s.k * s.b * tt],
            logp: vec![0.0; seeds * n * nt],
            beta: vec![0.0; seeds * s.b * tt],
            stats: vec![0; seeds * 4],
        };
        let out_len = s.read_back();
        let mut pass = EvalPass {
            u: make("u", n * h, st)?,
            v: make("v", s.b * t * h, st)?,
            plogits: make("probe logits", per * tt * nt, st)?,
            beta: make("beta", s.b * tt, st)?,
            out: make("evaluation out", out_len, U::MAP_READ | U::COPY_DST)?,
            rec: Recording::default(),
            tokens: Tokens::new(seeds, &s),
            host,
            buf,
            s,
        };
        let mut list = Recording::default();
        let plan = Plan {
            rec,
            s,
            buf: &pass.buf,
            layout,
        };
        plan.forward(&mut list, uniform);
        plan.probe(&mut list, &pass, per);
        pass.rec = list;
        Ok(pass)
    }
}

const SRC: usize = 0;
const REV: usize = 1;
const TIN: usize = 2;
const TOUT: usize = 3;

impl GpuModel {
    /// Buffers and the recorded step of a model of `dims` for batches of `batch` sequences
    /// of source length `src_len`; `uniform` forces `α` uniform. An error where a buffer
    /// passes the device's limits.
    pub async fn new(
        gpu: Gpu,
        dims: Dims,
        batch: usize,
        eval_batch: usize,
        src_len: usize,
        uniform: bool,
        seeds: usize,
    ) -> Result<GpuModel, String> {
        if batch.max(eval_batch) * seeds > MAX_GROUPS {
            return Err(format!(
                "{seeds} seeds of batches of {} sequences pass a GPU dispatch's {MAX_GROUPS} \
                 workgroups: train fewer seeds at once",
                batch.max(eval_batch)
            ));
        }
        let scope = gpu.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let made = GpuModel::make(gpu, dims, batch, eval_batch, src_len, uniform, seeds);
        if let Some(e) = scope.pop().await {
            return Err(format!("{OUT_OF_MEMORY}: {e}"));
        }
        made
    }

    fn make(
        gpu: Gpu,
        dims: Dims,
        batch: usize,
        eval_batch: usize,
        src_len: usize,
        uniform: bool,
        seeds: usize,
    ) -> Result<GpuModel, String> {
        let layout = Layout::new(dims);
        let s = Sizes::new(dims, batch, src_len);
        let buf = Buffers::new(&gpu, &s, layout.len, None, true, seeds)?;
        let rec = Recorder { gpu: &gpu, seeds };
        let mut step = Recording::default();
        let plan = Plan {
            rec: &rec,
            s,
            buf: &buf,
            layout: &layout,
        };
        plan.forward(&mut step, uniform);
        plan.backward(&mut step, !uniform);
        let adam = plan.update(&mut step);
        let eval = EvalPass::new(&rec, &layout, &buf.params, eval_batch, src_len, uniform)?;
        Ok(GpuModel {
            tokens: Tokens::new(seeds, &s),
            seeds,
            results: vec![
                StepResult {
                    loss: f32::NAN,
                    diverged: false
                };
                seeds
            ],
            gpu,
            layout,
            s,
            buf,
            step,
            adam,
            eval,
        })
    }

    /// Evaluates each seed's current parameters on its evaluation batch (`batches`, one per
    /// seed, of the size the model was made for) and waits; [`GpuModel::eval_maps`] then
    /// reads each seed's maps.
    pub async fn evaluate_async(&mut self, batches: &[Batch]) -> Result<(), String> {
        let e = &mut self.eval;
        assert_eq!(batches.len(), self.seeds, "one evaluation batch per seed");
        e.tokens.upload(&self.gpu, &e.buf.tok, batches, &e.s);
        let mut enc = self.gpu.device.create_command_encoder(&Default::default());
        enc.clear_buffer(&e.buf.stats, 0, None);
        e.rec.encode(&mut enc);
        let mut at = 0u64;
        for (src, len) in [
            (&e.buf.alpha, e.host.alpha.len()),
            (&e.buf.logits, e.host.logp.len()),
            (&e.beta, e.host.beta.len()),
            (&e.buf.stats, e.host.stats.len()),
        ] {
            let bytes = (len * 4) as u64;
            enc.copy_buffer_to_buffer(src, 0, &e.out, at, bytes);
            at += bytes;
        }
        self.gpu.queue.submit([enc.finish()]);
        let h = &mut e.host;
        read_mapped(&self.gpu, &e.out, e.out.size(), |bytes| {
            let mut words = le_words(bytes);
            for v in [&mut h.alpha, &mut h.logp, &mut h.beta] {
                for (x, w) in v.iter_mut().zip(&mut words) {
                    *x = f32::from_bits(w);
                }
            }
            for (x, w) in h.stats.iter_mut().zip(&mut words) {
                *x = w;
            }
        })
        .await
    }

    /// [`GpuModel::evaluate_async`], waited for.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn evaluate(&mut self, batches: &[Batch]) -> Result<(), String> {
        super::device::block_on(self.evaluate_async(batches))
    }

    /// Seed `seed`'s maps of the last [`GpuModel::evaluate`].
    pub fn eval_maps(&self, seed: usize) -> EvalMaps<'_> {
        let h = &self.eval.host;
        let seeds = self.seeds;
        EvalMaps {
            alpha: part(&h.alpha, seed, seeds),
            logp: part(&h.logp, seed, seeds),
            beta: part(&h.beta, seed, seeds),
            loss: f32::from_bits(h.stats[seed * 4]),
        }
    }

    /// Seconds of `times` steps' dispatches on the current contents, submitted back to
    /// back with no read-back between them (the step's GPU time, for the benchmark).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn time_steps(&self, times: usize) -> f64 {
        self.step.time(&self.gpu, times)
    }

    /// The device's multiply-add peak (kernels::peak_gflops).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn peak_gflops(&self) -> f64 {
        super::kernels::peak_gflops(&self.gpu)
    }

    /// Dispatches in one step.
    pub fn dispatches(&self) -> usize {
        self.step.len()
    }

    /// Seeds trained at once.
    pub fn seeds(&self) -> usize {
        self.seeds
    }

    /// Replaces seed `seed`'s parameters (P,) and clears its optimiser's moments and its
    /// divergence.
    pub fn load(&self, seed: usize, params: &[f32]) {
        assert_eq!(params.len(), self.layout.len);
        self.clear_divergence(seed);
        let q = &self.gpu.queue;
        let at = (seed * params.len() * 4) as u64;
        let mut bytes = vec![0u8; params.len() * 4];
        put_words(&mut bytes, params.iter().map(|x| x.to_bits()));
        q.write_buffer(&self.buf.params, at, &bytes);
        let zeros = vec![0u8; params.len() * 4];
        q.write_buffer(&self.buf.adam_m, at, &zeros);
        q.write_buffer(&self.buf.adam_v, at, &zeros);
    }

    /// Forgets seed `seed`'s divergence: its next step updates again if it does not diverge
    /// (a lone run retries as the CPU's does; a sweep keeps its stopped seeds stopped).
    pub fn clear_divergence(&self, seed: usize) {
        let q = &self.gpu.queue;
        q.write_buffer(&self.buf.stats, (seed * 16) as u64, &[0u8; 16]);
    }

    /// Copies seed `seed`'s parameters into `out` (P,).
    pub async fn read_params_async(&self, seed: usize, out: &mut [f32]) -> Result<(), String> {
        self.read_parts(seed, [&self.buf.params], [out]).await
    }

    /// Copies seed `seed`'s parameters and optimiser moments into `params`, `m` and `v` (P,)
    /// each, read back at once: all three or, where the reading fails, none.
    pub async fn read_state_async(
        &self,
        seed: usize,
        params: &mut [f32],
        m: &mut [f32],
        v: &mut [f32],
    ) -> Result<(), String> {
        let b = &self.buf;
        self.read_parts(seed, [&b.params, &b.adam_m, &b.adam_v], [params, m, v])
            .await
    }

    /// [`GpuModel::read_params_async`], waited for.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn read_params(&self, seed: usize, out: &mut [f32]) -> Result<(), String> {
        super::device::block_on(self.read_params_async(seed, out))
    }

    /// For tests: seed `seed`'s gradient (P,) of the last step (left as it was computed).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn read_grads(&self, seed: usize, out: &mut [f32]) -> Result<(), String> {
        super::device::block_on(self.read_parts(seed, [&self.buf.grads], [out]))
    }

    /// Copies seed `seed`'s part (P,) of each of `srcs` (at most 3) into the `outs` beside it,
    /// through one copy into the download buffer and one mapping: all of them or, where the
    /// reading fails, none.
    async fn read_parts<const N: usize>(
        &self,
        seed: usize,
        srcs: [&wgpu::Buffer; N],
        outs: [&mut [f32]; N],
    ) -> Result<(), String> {
        assert!(N <= 3, "the download buffer holds three parts");
        let p = self.layout.len;
        assert!(outs.iter().all(|o| o.len() == p));
        let bytes = (p * 4) as u64;
        let mut enc = self.gpu.device.create_command_encoder(&Default::default());
        for (i, src) in srcs.into_iter().enumerate() {
            let to = i as u64 * bytes;
            enc.copy_buffer_to_buffer(src, seed as u64 * bytes, &self.buf.download, to, bytes);
        }
        self.gpu.queue.submit([enc.finish()]);
        read_mapped(&self.gpu, &self.buf.download, N as u64 * bytes, |b| {
            let mut words = le_words(b);
            for out in outs {
                for (o, w) in out.iter_mut().zip(&mut words) {
                    *o = f32::from_bits(w);
                }
            }
        })
        .await
    }

    /// [`GpuModel::step_async`], waited for.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn step(
        &mut self,
        batches: &[Batch],
        kind: OptimizerKind,
        lr: f32,
        t: u64,
    ) -> Result<&[StepResult], String> {
        super::device::block_on(self.step_async(batches, kind, lr, t))
    }

    /// One training step of every seed on its batch (`batches`, one per seed): the update
    /// `t` (from 1) of `kind` with learning rate `lr`, skipped for a seed whose step
    /// diverges. Resolves with each seed's loss once it is read back.
    pub async fn step_async(
        &mut self,
        batches: &[Batch],
        kind: OptimizerKind,
        lr: f32,
        t: u64,
    ) -> Result<&[StepResult], String> {
        assert_eq!(batches.len(), self.seeds, "one batch per seed");
        self.tokens
            .upload(&self.gpu, &self.buf.tok, batches, &self.s);
        let q = &self.gpu.queue;
        let (b1, b2, eps) = ADAM;
        let (step, inv_sqrt_bc2) = adam_scales(lr, b1, b2, t);
        let adam = [
            self.layout.len as u32,
            u32::from(kind == OptimizerKind::Sgd),
            0,
            0,
            lr.to_bits(),
            step.to_bits(),
            inv_sqrt_bc2.to_bits(),
            eps.to_bits(),
            b1.to_bits(),
            b2.to_bits(),
            0,
            0,
        ];
        let mut bytes = [0u8; 48];
        put_words(&mut bytes, adam);
        q.write_buffer(&self.adam, 0, &bytes);
        let mut enc = self.gpu.device.create_command_encoder(&Default::default());
        enc.clear_buffer(&self.buf.grads, 0, None);
        self.step.encode(&mut enc);
        let bytes = self.buf.stats.size();
        enc.copy_buffer_to_buffer(&self.buf.stats, 0, &self.buf.readback, 0, bytes);
        q.submit([enc.finish()]);
        let (results, readback) = (&mut self.results, &self.buf.readback);
        read_mapped(&self.gpu, readback, readback.size(), |b| {
            for (r, c) in results.iter_mut().zip(b.chunks_exact(16)) {
                let mut words = le_words(c);
                let mut next = || words.next().expect("a seed's 4 stats");
                let (loss, step_diverged, diverged) = (next(), next(), next());
                *r = StepResult {
                    loss: f32::from_bits(loss),
                    diverged: step_diverged != 0 || diverged != 0,
                };
            }
        })
        .await?;
        Ok(&self.results)
    }
}

/// A buffer of `len` values (at least 4) per seed, `seeds` parts; refused past `max` bytes.
fn make_buffer(
    gpu: &Gpu,
    name: &str,
    len: usize,
    seeds: usize,
    usage: wgpu::BufferUsages,
    max: usize,
) -> Result<wgpu::Buffer, String> {
    let bytes = len.max(4) * 4 * seeds;
    if bytes > max {
        return Err(format!(
            "the GPU's largest buffer is {} MiB; {seeds} seed(s) of this model need {} MiB for \
             {name}: use fewer seeds at once, fewer sequences per batch or a smaller width",
            max >> 20,
            bytes >> 20
        ));
    }
    Ok(gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(name),
        size: bytes as u64,
        usage,
        mapped_at_creation: false,
    }))
}

/// Part `seed` of `seeds` equal parts of `v`.
fn part(v: &[f32], seed: usize, seeds: usize) -> &[f32] {
    let n = v.len() / seeds;
    &v[seed * n..(seed + 1) * n]
}

/// Maps `buf` for reading, waits, hands its bytes to `f`, unmaps; an error where the device
/// is lost.
async fn read_mapped(
    gpu: &Gpu,
    buf: &wgpu::Buffer,
    bytes: u64,
    f: impl FnOnce(&[u8]),
) -> Result<(), String> {
    gpu.map_read(buf, bytes).await?;
    let view = buf
        .slice(..bytes)
        .get_mapped_range()
        .map_err(|e| format!("reading from the GPU failed: {e}"))?;
    f(&view);
    drop(view);
    buf.unmap();
    Ok(())
}

impl Buffers {
    /// The buffers of a pass over batches of `s`'s shape: for training, or (`training`
    /// false) a forward pass alone that reads `params` (the backward pass's buffers then
    /// hold one value each).
    fn new(
        gpu: &Gpu,
        s: &Sizes,
        p: usize,
        params: Option<&wgpu::Buffer>,
        training: bool,
        seeds: usize,
    ) -> Result<Buffers, String> {
        let Sizes {
            b,
            t,
            h,
            nt,
            k,
            hs,
            n,
            g,
            nl,
            ..
        } = *s;
        let max = gpu.limits.max_storage_buffer_binding_size as usize;
        let make = |name: &str, len: usize, usage| make_buffer(gpu, name, len, seeds, usage, max);
        use wgpu::BufferUsages as U;
        let st = U::STORAGE | U::COPY_DST | U::COPY_SRC;
        let map = U::MAP_READ | U::COPY_DST;
        let tr = |len: usize| if training { len } else { 1 };
        Ok(Buffers {
            params: match params {
                Some(b) => b.clone(),
                None => make("params", p, st)?,
            },
            grads: make("grads", tr(p), st)?,
            adam_m: make("adam m", tr(p), st)?,
            adam_v: make("adam v", tr(p), st)?,
            tok: make("tokens", 4 * t * b, st)?,
            wt: make("wt", nl * h * g, st)?,
            table: make("table", nl * nt * g, st)?,
            gates: make("gates", nl * t * b * g, st)?,
            hs: make("hs", nl * (t + 1) * b * h, st)?,
            cs: make("cs", nl * (t + 1) * b * h, st)?,
            tc: make("tc", nl * t * b * h, st)?,
            h_enc: make("h_enc", b * t * hs, st)?,
            q: make("q", k * n * hs, st)?,
            alpha: make("alpha", k * b * t * t, st)?,
            ctx: make("ctx", k * n * hs, st)?,
            m_ctx: make("m_ctx", k * h * hs, st)?,
            b_ctx: make("b_ctx", h, st)?,
            act: make("act", n * h, st)?,
            logits: make("logits", n * nt, st)?,
            nll: make("nll", n, st)?,
            dlogits: make("dlogits", n * nt, st)?,
            dact: make("dact", tr(n * h), st)?,
            dd: make("dd", tr(n * h), st)?,
            dbias: make("dbias", tr(h), st)?,
            g_m: make("g_m", tr(h * hs), st)?,
            dctx: make("dctx", tr(n * hs), st)?,
            dalpha: make("dalpha", tr(b * t * t), st)?,
            dq: make("dq", tr(n * hs), st)?,
            dh_enc: make("dh_enc", tr(b * t * hs), st)?,
            dh_dir: make("dh_dir", tr(t * b * h), st)?,
            dgates: make("dgates", tr(t * b * g), st)?,
            carry: make("carry", tr(2 * b * h), st)?,
            dstate0: make("dstate0", tr(2 * b * h), st)?,
            dtable: make("dtable", tr(nt * g), st)?,
            stats: make("stats", 4, st)?,
            readback: make("readback", 4, map)?,
            // One seed's at a time, whatever the number of seeds.
            download: make_buffer(gpu, "download", tr(3 * p), 1, map, max)?,
        })
    }
}

/// Records the step's dispatches.
struct Plan<'a> {
    rec: &'a Recorder<'a>,
    s: Sizes,
    buf: &'a Buffers,
    layout: &'a Layout,
}

/// Where LSTM `l`'s weights are in the flat parameters.
struct LstmAt {
    w_ih: usize,
    w_hh: usize,
    b_ih: usize,
    b_hh: usize,
}

impl Plan<'_> {
    fn lstm_at(&self, l: usize) -> LstmAt {
        let r = &self.layout.ranges;
        let (gh, g) = (self.s.g * self.s.h, self.s.g);
        if l < self.s.d {
            LstmAt {
                w_ih: r.enc_w_ih.start + l * gh,
                w_hh: r.enc_w_hh.start + l * gh,
                b_ih: r.enc_b_ih.start + l * g,
                b_hh: r.enc_b_hh.start + l * g,
            }
        } else {
            LstmAt {
                w_ih: r.dec_w_ih.start,
                w_hh: r.dec_w_hh.start,
                b_ih: r.dec_b_ih.start,
                b_hh: r.dec_b_hh.start,
            }
        }
    }

    /// Offset of LSTM `l`'s part of `hs`/`cs` (T+1 states), and of `gates`/`tc` per element
    /// of width `w`.
    fn states(&self, l: usize) -> usize {
        l * (self.s.t + 1) * self.s.b * self.s.h
    }

    fn steps(&self, l: usize, w: usize) -> usize {
        l * self.s.t * self.s.b * w
    }

    /// The decoder's outputs d (N, H): its states from [1].
    fn d_off(&self) -> usize {
        self.states(self.s.d) + self.s.b * self.s.h
    }

    fn tok_off(&self, part: usize) -> usize {
        part * self.s.t * self.s.b
    }

    /// Parameters of lstm.wgsl at step `t` of LSTM `l`, its weights at `w_off` (W_hhᵀ in
    /// `wt` forward, W_hh in the parameters backward) and its tokens at `tok`.
    fn lstm_params(&self, l: usize, t: usize, w_off: usize, tok: usize) -> [u32; 16] {
        let s = self.s;
        [
            t as u32,
            s.t as u32,
            s.b as u32,
            s.h as u32,
            u32::from(l < s.d),
            w_off as u32,
            (l * s.nt * s.g) as u32,
            tok as u32,
            self.steps(l, s.g) as u32,
            self.states(l) as u32,
            self.states(l) as u32,
            self.steps(l, s.h) as u32,
            0,
            0,
            0,
            0,
        ]
    }

    /// lstm_forward's steps of LSTM `l` over the tokens at `tok`, one dispatch each.
    fn lstm_forward(&self, rec: &mut Recording, l: usize, tok: usize) {
        let (s, b) = (self.s, self.buf);
        for step in 0..s.t {
            let p = self.lstm_params(l, step, l * s.h * s.g, tok);
            self.rec.push(
                rec,
                Kernel::LstmForward,
                &p,
                &[&b.wt, &b.table, &b.tok, &b.gates, &b.hs, &b.cs, &b.tc],
                grid(s.b * s.h),
            );
        }
    }

    /// Forward pass (Seq2Seq::forward_with), ending with the loss in stats and dlogits.
    fn forward(&self, rec: &mut Recording, uniform: bool) {
        let (r, s, b) = (self.rec, self.s, self.buf);
        let lr = &self.layout.ranges;
        let (h, g, nt, hs, n, t, bsz) = (s.h, s.g, s.nt, s.hs, s.n, s.t, s.b);
        let bh = bsz * h;
        // lstm_forward's table and W_hhᵀ, for each LSTM
        for l in 0..s.nl {
            let at = self.lstm_at(l);
            r.gemm(
                rec,
                (nt, g, h, 1),
                Mat::rows(&b.params, lr.embedding.start, h),
                Mat::rows(&b.params, at.w_ih, h).t(),
                Mat::rows(&b.table, l * nt * g, g),
                1.0,
                0.0,
            );
            r.rows(
                rec,
                Kernel::AddBias,
                (nt, g, g),
                (&b.table, l * nt * g),
                (&b.params, at.b_ih),
                Some(at.b_hh),
                0.0,
            );
            r.copy(
                rec,
                [1, h, g],
                View {
                    buf: &b.params,
                    off: at.w_hh as i64,
                    s: [0, 1, h as i64],
                },
                View {
                    buf: &b.wt,
                    off: (l * h * g) as i64,
                    s: [0, g as i64, 1],
                },
                1.0,
                0.0,
            );
        }
        // the encoder's directions, each from a zero state
        for l in 0..s.d {
            self.lstm_forward(rec, l, self.tok_off(if l == 0 { SRC } else { REV }));
            // h_enc[b, s, l·H + j] = h[step + 1][b, j], step = s, or T − 1 − s backwards
            let (off, s0) = if l == 0 {
                (self.states(l) + bh, bh as i64)
            } else {
                (self.states(l) + t * bh, -(bh as i64))
            };
            r.copy(
                rec,
                [t, bsz, h],
                View {
                    buf: &b.hs,
                    off: off as i64,
                    s: [s0, h as i64, 1],
                },
                View {
                    buf: &b.h_enc,
                    off: (l * h) as i64,
                    s: [hs as i64, (t * hs) as i64, 1],
                },
                1.0,
                0.0,
            );
        }
        // the decoder starts from the encoder's final state, averaged over directions
        let inv_d = 1.0 / s.d as f32;
        for state in [&b.hs, &b.cs] {
            for l in 0..s.d {
                r.copy(
                    rec,
                    [1, 1, bh],
                    vector(state, self.states(l) + t * bh),
                    vector(state, self.states(s.d)),
                    inv_d,
                    if l == 0 { 0.0 } else { 1.0 },
                );
            }
        }
        self.lstm_forward(rec, s.d, self.tok_off(TIN));
        let d = Mat::rows(&b.hs, self.d_off(), h);
        // attention_forward, each head
        let (qn, an) = (n * hs, bsz * t * t);
        if uniform {
            r.fill(rec, [1, 1, s.k * an], vector(&b.alpha, 0), 1.0 / t as f32);
        }
        for k in 0..s.k {
            if !uniform {
                r.gemm(
                    rec,
                    (n, hs, h, 1),
                    d,
                    Mat::rows(&b.params, lr.w_q.start + k * hs * h, h).t(),
                    Mat::rows(&b.q, k * qn, hs),
                    1.0,
                    0.0,
                );
                r.rows(
                    rec,
                    Kernel::AddBias,
                    (n, hs, hs),
                    (&b.q, k * qn),
                    (&b.params, lr.b_q.start + k * hs),
                    None,
                    0.0,
                );
                // e_b (T, T) = q_b h_enc_bᵀ for each sequence b
                r.gemm(
                    rec,
                    (t, t, hs, bsz),
                    Mat::rows(&b.q, k * qn, bsz * hs).batch(hs),
                    Mat::rows(&b.h_enc, 0, hs).t().batch(t * hs),
                    Mat::rows(&b.alpha, k * an, t).batch(t * t),
                    1.0,
                    0.0,
                );
                r.rows(
                    rec,
                    Kernel::Softmax,
                    (bsz * t, t, t),
                    (&b.alpha, k * an),
                    (&b.alpha, 0),
                    None,
                    0.0,
                );
            }
            // ctx_b (T, Hs) = α_b h_enc_b
            r.gemm(
                rec,
                (t, hs, t, bsz),
                Mat::rows(&b.alpha, k * an, t).batch(t * t),
                Mat::rows(&b.h_enc, 0, hs).batch(t * hs),
                Mat::rows(&b.ctx, k * qn, bsz * hs).batch(hs),
                1.0,
                0.0,
            );
        }
        // fuse_context
        let inv_k = 1.0 / s.k as f32;
        for k in 0..s.k {
            r.gemm(
                rec,
                (h, hs, h, 1),
                Mat::rows(&b.params, lr.w_comb.start + h, 2 * h),
                Mat::rows(&b.params, lr.w_c.start + k * h * hs, hs),
                Mat::rows(&b.m_ctx, k * h * hs, hs),
                inv_k,
                0.0,
            );
        }
        let out = self.output_params();
        r.push(
            rec,
            Kernel::FuseBias,
            &out,
            &[&b.params, &b.b_ctx],
            [(h as u32).div_ceil(64), 1, 1],
        );
        // output_forward
        r.gemm(
            rec,
            (n, h, h, 1),
            d,
            Mat::rows(&b.params, lr.w_comb.start, 2 * h).t(),
            Mat::rows(&b.act, 0, h),
            1.0,
            0.0,
        );
        for k in 0..s.k {
            r.gemm(
                rec,
                (n, h, hs, 1),
                Mat::rows(&b.ctx, k * qn, hs),
                Mat::rows(&b.m_ctx, k * h * hs, hs).t(),
                Mat::rows(&b.act, 0, h),
                1.0,
                1.0,
            );
        }
        r.rows(
            rec,
            Kernel::BiasTanh,
            (n, h, h),
            (&b.act, 0),
            (&b.b_ctx, 0),
            None,
            0.0,
        );
        r.gemm(
            rec,
            (n, nt, h, 1),
            Mat::rows(&b.act, 0, h),
            Mat::rows(&b.params, lr.w_out.start, h).t(),
            Mat::rows(&b.logits, 0, nt),
            1.0,
            0.0,
        );
        r.rows(
            rec,
            Kernel::AddBias,
            (n, nt, nt),
            (&b.logits, 0),
            (&b.params, lr.b_out.start),
            None,
            0.0,
        );
        let chance = (nt as f32).ln();
        let loss = [
            n as u32,
            nt as u32,
            self.tok_off(TOUT) as u32,
            0,
            (1.0 / n as f32).to_bits(),
            (DIVERGED_FACTOR * chance).to_bits(),
            0,
            0,
        ];
        r.push(
            rec,
            Kernel::Nll,
            &loss,
            &[&b.logits, &b.tok, &b.nll, &b.dlogits],
            grid(n),
        );
        r.push(rec, Kernel::Reduce, &loss, &[&b.nll, &b.stats], [1, 1, 1]);
    }

    /// Parameters of output.wgsl's kernels.
    fn output_params(&self) -> [u32; 12] {
        let s = self.s;
        let lr = &self.layout.ranges;
        [
            s.h as u32,
            s.k as u32,
            lr.w_comb.start as u32,
            lr.b_comb.start as u32,
            lr.b_c.start as u32,
            0,
            s.nt as u32,
            0,
            (1.0 / s.k as f32).to_bits(),
            0,
            0,
            0,
        ]
    }

    /// Backward pass (Seq2Seq::backward) into `grads` (cleared before the step).
    fn backward(&self, rec: &mut Recording, learned: bool) {
        let (r, s, b) = (self.rec, self.s, self.buf);
        let lr = &self.layout.ranges;
        let (h, g, nt, hs, n, t, bsz) = (s.h, s.g, s.nt, s.hs, s.n, s.t, s.b);
        let bh = bsz * h;
        let d = Mat::rows(&b.hs, self.d_off(), h);
        let dpre = Mat::rows(&b.dact, 0, h);
        // output_backward
        r.gemm(
            rec,
            (nt, h, n, 1),
            Mat::rows(&b.dlogits, 0, nt).t(),
            Mat::rows(&b.act, 0, h),
            Mat::rows(&b.grads, lr.w_out.start, h),
            1.0,
            1.0,
        );
        r.rows(
            rec,
            Kernel::ColSums,
            (n, nt, nt),
            (&b.grads, lr.b_out.start),
            (&b.dlogits, 0),
            None,
            1.0,
        );
        r.gemm(
            rec,
            (n, h, nt, 1),
            Mat::rows(&b.dlogits, 0, nt),
            Mat::rows(&b.params, lr.w_out.start, h),
            Mat::rows(&b.dact, 0, h),
            1.0,
            0.0,
        );
        r.rows(
            rec,
            Kernel::TanhBack,
            (n, h, h),
            (&b.dact, 0),
            (&b.act, 0),
            None,
            0.0,
        );
        r.gemm(
            rec,
            (h, h, n, 1),
            dpre.t(),
            d,
            Mat::rows(&b.grads, lr.w_comb.start, 2 * h),
            1.0,
            1.0,
        );
        r.rows(
            rec,
            Kernel::ColSums,
            (n, h, h),
            (&b.dbias, 0),
            (&b.dact, 0),
            None,
            0.0,
        );
        r.copy(
            rec,
            [1, 1, h],
            vector(&b.dbias, 0),
            vector(&b.grads, lr.b_comb.start),
            1.0,
            1.0,
        );
        r.gemm(
            rec,
            (n, h, h, 1),
            dpre,
            Mat::rows(&b.params, lr.w_comb.start, 2 * h),
            Mat::rows(&b.dd, 0, h),
            1.0,
            0.0,
        );
        // fused_bias_backward
        let out = self.output_params();
        r.push(
            rec,
            Kernel::BiasBack,
            &out,
            &[&b.params, &b.dbias, &b.grads],
            grid(h * h),
        );
        r.fill(rec, [1, 1, bsz * t * hs], vector(&b.dh_enc, 0), 0.0);
        let (qn, an) = (n * hs, bsz * t * t);
        let inv_k = 1.0 / s.k as f32;
        for k in 0..s.k {
            // context_backward
            r.gemm(
                rec,
                (h, hs, n, 1),
                dpre.t(),
                Mat::rows(&b.ctx, k * qn, hs),
                Mat::rows(&b.g_m, 0, hs),
                inv_k,
                0.0,
            );
            r.gemm(
                rec,
                (h, h, hs, 1),
                Mat::rows(&b.g_m, 0, hs),
                Mat::rows(&b.params, lr.w_c.start + k * h * hs, hs).t(),
                Mat::rows(&b.grads, lr.w_comb.start + h, 2 * h),
                1.0,
                1.0,
            );
            r.gemm(
                rec,
                (h, hs, h, 1),
                Mat::rows(&b.params, lr.w_comb.start + h, 2 * h).t(),
                Mat::rows(&b.g_m, 0, hs),
                Mat::rows(&b.grads, lr.w_c.start + k * h * hs, hs),
                1.0,
                1.0,
            );
            r.gemm(
                rec,
                (n, hs, h, 1),
                dpre,
                Mat::rows(&b.m_ctx, k * h * hs, hs),
                Mat::rows(&b.dctx, 0, hs),
                1.0,
                0.0,
            );
            // attention_backward
            let dctx_b = Mat::rows(&b.dctx, 0, bsz * hs).batch(hs);
            let dh_enc_b = Mat::rows(&b.dh_enc, 0, hs).batch(t * hs);
            r.gemm(
                rec,
                (t, hs, t, bsz),
                Mat::rows(&b.alpha, k * an, t).t().batch(t * t),
                dctx_b,
                dh_enc_b,
                1.0,
                1.0,
            );
            if !learned {
                continue;
            }
            r.gemm(
                rec,
                (t, t, hs, bsz),
                dctx_b,
                Mat::rows(&b.h_enc, 0, hs).t().batch(t * hs),
                Mat::rows(&b.dalpha, 0, t).batch(t * t),
                1.0,
                0.0,
            );
            r.rows(
                rec,
                Kernel::SoftmaxBack,
                (bsz * t, t, t),
                (&b.dalpha, 0),
                (&b.alpha, k * an),
                None,
                0.0,
            );
            r.gemm(
                rec,
                (t, hs, t, bsz),
                Mat::rows(&b.dalpha, 0, t).batch(t * t),
                Mat::rows(&b.h_enc, 0, hs).batch(t * hs),
                Mat::rows(&b.dq, 0, bsz * hs).batch(hs),
                1.0,
                0.0,
            );
            r.gemm(
                rec,
                (t, hs, t, bsz),
                Mat::rows(&b.dalpha, 0, t).t().batch(t * t),
                Mat::rows(&b.q, k * qn, bsz * hs).batch(hs),
                dh_enc_b,
                1.0,
                1.0,
            );
            let w_q = lr.w_q.start + k * hs * h;
            r.gemm(
                rec,
                (hs, h, n, 1),
                Mat::rows(&b.dq, 0, hs).t(),
                d,
                Mat::rows(&b.grads, w_q, h),
                1.0,
                1.0,
            );
            r.rows(
                rec,
                Kernel::ColSums,
                (n, hs, hs),
                (&b.grads, lr.b_q.start + k * hs),
                (&b.dq, 0),
                None,
                1.0,
            );
            r.gemm(
                rec,
                (n, h, hs, 1),
                Mat::rows(&b.dq, 0, hs),
                Mat::rows(&b.params, w_q, h),
                Mat::rows(&b.dd, 0, h),
                1.0,
                1.0,
            );
        }
        // the decoder, then its initial state's gradient over D into each direction
        r.fill(rec, [1, 1, 2 * bh], vector(&b.carry, 0), 0.0);
        self.lstm_backward(rec, s.d, &b.dd, self.tok_off(TIN));
        let inv_d = 1.0 / s.d as f32;
        r.gemm(
            rec,
            (bsz, h, g, 1),
            Mat::rows(&b.dgates, 0, g),
            Mat::rows(&b.params, self.lstm_at(s.d).w_hh, h),
            Mat::rows(&b.dstate0, 0, h),
            inv_d,
            0.0,
        );
        r.copy(
            rec,
            [1, 1, bh],
            vector(&b.carry, bh),
            vector(&b.dstate0, bh),
            inv_d,
            0.0,
        );
        for l in 0..s.d {
            // dh_dir[step, b, j] = dh_enc[b, s, l·H + j], step = s, or T − 1 − s backwards
            let (off, s0) = if l == 0 {
                (0, bh as i64)
            } else {
                ((t - 1) * bh, -(bh as i64))
            };
            r.copy(
                rec,
                [t, bsz, h],
                View {
                    buf: &b.dh_enc,
                    off: (l * h) as i64,
                    s: [hs as i64, (t * hs) as i64, 1],
                },
                View {
                    buf: &b.dh_dir,
                    off: off as i64,
                    s: [s0, h as i64, 1],
                },
                1.0,
                0.0,
            );
            r.copy(
                rec,
                [1, 1, 2 * bh],
                vector(&b.dstate0, 0),
                vector(&b.carry, 0),
                1.0,
                0.0,
            );
            let tok = self.tok_off(if l == 0 { SRC } else { REV });
            self.lstm_backward(rec, l, &b.dh_dir, tok);
        }
    }

    /// lstm_backward of LSTM `l` from the gradient `dout` (T, B, H) of its outputs and the
    /// final-state gradient in `carry`: its steps, then its weights' gradients.
    fn lstm_backward(&self, rec: &mut Recording, l: usize, dout: &wgpu::Buffer, tok: usize) {
        let (r, s, b) = (self.rec, self.s, self.buf);
        let (h, g, nt, t, bsz) = (s.h, s.g, s.nt, s.t, s.b);
        let at = self.lstm_at(l);
        for step in (0..t).rev() {
            let p = self.lstm_params(l, step, at.w_hh, tok);
            r.push(
                rec,
                Kernel::LstmBackward,
                &p,
                &[&b.params, &b.gates, &b.cs, &b.tc, dout, &b.dgates, &b.carry],
                grid(bsz * h),
            );
        }
        // dW_hh += Σ_t dgates[t]ᵀ h[t]
        r.gemm(
            rec,
            (g, h, t * bsz, 1),
            Mat::rows(&b.dgates, 0, g).t(),
            Mat::rows(&b.hs, self.states(l), h),
            Mat::rows(&b.grads, at.w_hh, h),
            1.0,
            1.0,
        );
        // dtable[tok] += dgates[t, b]; then the biases, W_ih and the embedding
        let mut p = self.output_params();
        p[5] = (t * bsz) as u32;
        p[7] = tok as u32;
        r.push(
            rec,
            Kernel::DTable,
            &p,
            &[&b.tok, &b.dgates, &b.dtable],
            grid(nt * g),
        );
        for bias in [at.b_ih, at.b_hh] {
            r.rows(
                rec,
                Kernel::ColSums,
                (nt, g, g),
                (&b.grads, bias),
                (&b.dtable, 0),
                None,
                1.0,
            );
        }
        let lr = &self.layout.ranges;
        r.gemm(
            rec,
            (g, h, nt, 1),
            Mat::rows(&b.dtable, 0, g).t(),
            Mat::rows(&b.params, lr.embedding.start, h),
            Mat::rows(&b.grads, at.w_ih, h),
            1.0,
            1.0,
        );
        r.gemm(
            rec,
            (nt, h, g, 1),
            Mat::rows(&b.dtable, 0, g),
            Mat::rows(&b.params, at.w_ih, h),
            Mat::rows(&b.grads, lr.embedding.start, h),
            1.0,
            1.0,
        );
    }

    /// The KTIW probe after a forward pass (KtiwProbe::run): `u`, `v`, then the logits and
    /// `β` of `per` sequences at a time.
    fn probe(&self, rec: &mut Recording, pass: &EvalPass, per: usize) {
        let (r, s, b) = (self.rec, self.s, self.buf);
        let lr = &self.layout.ranges;
        let (h, hs, n, t, nt) = (s.h, s.hs, s.n, s.t, s.nt);
        r.gemm(
            rec,
            (n, h, h, 1),
            Mat::rows(&b.hs, self.d_off(), h),
            Mat::rows(&b.params, lr.w_comb.start, 2 * h).t(),
            Mat::rows(&pass.u, 0, h),
            1.0,
            0.0,
        );
        r.rows(
            rec,
            Kernel::AddBias,
            (n, h, h),
            (&pass.u, 0),
            (&b.b_ctx, 0),
            None,
            0.0,
        );
        for k in 0..s.k {
            r.gemm(
                rec,
                (s.b * t, h, hs, 1),
                Mat::rows(&b.h_enc, 0, hs),
                Mat::rows(&b.m_ctx, k * h * hs, hs).t(),
                Mat::rows(&pass.v, 0, h),
                1.0,
                if k == 0 { 0.0 } else { 1.0 },
            );
        }
        let mut b0 = 0;
        while b0 < s.b {
            let rows = (s.b - b0).min(per) * t * t;
            let p = [
                rows as u32,
                t as u32,
                s.b as u32,
                h as u32,
                nt as u32,
                b0 as u32,
                lr.w_out.start as u32,
                lr.b_out.start as u32,
                self.tok_off(TOUT) as u32,
                0,
                0,
                0,
            ];
            let groups = [(nt as u32).div_ceil(16), (rows as u32).div_ceil(16), 1];
            r.push(
                rec,
                Kernel::ProbeLogits,
                &p,
                &[&pass.u, &pass.v, &b.params, &pass.plogits],
                groups,
            );
            r.push(
                rec,
                Kernel::LogOdds,
                &p,
                &[&pass.plogits, &b.tok, &pass.beta],
                grid(rows),
            );
            b0 += per;
        }
    }

    /// The divergence check and the update; returns the update's parameter buffer.
    fn update(&self, rec: &mut Recording) -> wgpu::Buffer {
        let (r, b) = (self.rec, self.buf);
        let p = self.layout.len;
        let check = [0, 0, 0, p as u32, 0, 0, 0, 0];
        r.push(rec, Kernel::Check, &check, &[&b.grads, &b.stats], grid(p));
        r.push(
            rec,
            Kernel::Adam,
            &[0; 12],
            &[&b.params, &b.grads, &b.adam_m, &b.adam_v, &b.stats],
            grid(p),
        )
    }
}

/// A plain vector at `off`.
fn vector(buf: &wgpu::Buffer, off: usize) -> View<'_> {
    View {
        buf,
        off: off as i64,
        s: [0, 0, 1],
    }
}
