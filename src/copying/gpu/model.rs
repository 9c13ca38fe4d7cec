//! The copying model of `copying/model/` on the GPU (`GpuModel`) and its public calls
//! (step, evaluate, load, read back): its buffers, made once for a batch size, and one
//! training step (forward pass, backward pass, divergence check and update) recorded once
//! as a list of dispatches that each step replays in one submission, for several seeds at
//! once. The math is the CPU model's, term for term (the comments name the CPU function
//! each block mirrors); only the order of summation differs. The buffers are `buffers.rs`'s,
//! the step's passes `forward.rs`'s and `backward.rs`'s, the evaluation `eval.rs`'s.

use super::buffers::{read_mapped, Buffers, Sizes, Tokens};
use super::device::Gpu;
use super::eval::{EvalPass, PROBE_CHUNK};
use super::kernels::{le_words, put_words, Recording};
use super::plan::Plan;
use crate::copying::model::params::{Dims, Layout};
use crate::copying::tasks::Batch;
use crate::optim::{adam_scales, OptimizerKind, ADAM};
use crate::run::{RunError, DIVERGED_FACTOR};

pub use super::eval::EvalMaps;

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
    let eval = Sizes::new(dims, eval_batch, src_len);
    let largest = [batch, eval_batch]
        .into_iter()
        .map(|b| Sizes::new(dims, b, src_len).largest())
        .chain([p, PROBE_CHUNK, eval.read_back()])
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

/// The model on one device, for batches of one size.
pub struct GpuModel {
    pub gpu: Gpu,
    layout: Layout,
    sizes: Sizes,
    buf: Buffers,
    step: Recording,    // the step's dispatches: forward, backward, check and update
    adam: wgpu::Buffer, // the update's parameters, written every step
    tokens: Tokens,
    eval: EvalPass,
    /// Seeds trained at once: every buffer holds one part per seed.
    seeds: usize,
    results: Vec<StepResult>, // (S,) the last step's
}

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
        let sizes = Sizes::new(dims, batch, src_len);
        let buf = Buffers::new(&gpu, &sizes, layout.len, None, true, seeds)?;
        let recorder = gpu.recorder(seeds);
        let mut step = Recording::default();
        let plan = Plan {
            recorder: &recorder,
            sizes,
            buf: &buf,
            layout: &layout,
        };
        plan.forward(&mut step, uniform);
        plan.backward(&mut step, !uniform);
        let adam = plan.update(&mut step);
        let params = &buf.params;
        let eval = EvalPass::new(
            &gpu, &recorder, &layout, params, eval_batch, src_len, uniform,
        );
        let eval = eval?;
        Ok(GpuModel {
            tokens: Tokens::new(seeds, &sizes),
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
            sizes,
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
        assert_eq!(batches.len(), self.seeds, "one evaluation batch per seed");
        self.eval.run(&self.gpu, batches).await
    }

    /// [`GpuModel::evaluate_async`], waited for.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn evaluate(&mut self, batches: &[Batch]) -> Result<(), String> {
        super::device::block_on(self.evaluate_async(batches))
    }

    /// Seed `seed`'s maps of the last [`GpuModel::evaluate`].
    pub fn eval_maps(&self, seed: usize) -> EvalMaps<'_> {
        self.eval.maps(seed, self.seeds)
    }

    /// Seconds of `times` steps' dispatches on the current contents, submitted back to
    /// back with no read-back between them (the step's GPU time, for the benchmark).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn time_steps(&self, times: usize) -> f64 {
        self.step.time(&self.gpu.device, &self.gpu.queue, times)
    }

    /// The device's multiply-add peak (kernels::peak_gflops).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn peak_gflops(&self) -> f64 {
        let gpu = &self.gpu;
        super::kernels::peak_gflops(&gpu.device, &gpu.queue, &gpu.kernels)
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
        let queue = &self.gpu.queue;
        let at = (seed * params.len() * 4) as u64;
        let mut bytes = vec![0u8; params.len() * 4];
        put_words(&mut bytes, params.iter().map(|x| x.to_bits()));
        queue.write_buffer(&self.buf.params, at, &bytes);
        let zeros = vec![0u8; params.len() * 4];
        queue.write_buffer(&self.buf.adam_m, at, &zeros);
        queue.write_buffer(&self.buf.adam_v, at, &zeros);
    }

    /// Forgets seed `seed`'s divergence: its next step updates again if it does not diverge
    /// (a lone run retries as the CPU's does; a sweep keeps its stopped seeds stopped).
    pub fn clear_divergence(&self, seed: usize) {
        let queue = &self.gpu.queue;
        queue.write_buffer(&self.buf.stats, (seed * 16) as u64, &[0u8; 16]);
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
        let buf = &self.buf;
        let srcs = [&buf.params, &buf.adam_m, &buf.adam_v];
        self.read_parts(seed, srcs, [params, m, v]).await
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
        read_mapped(&self.gpu, &self.buf.download, N as u64 * bytes, |mapped| {
            let mut words = le_words(mapped);
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
            .upload(&self.gpu, &self.buf.tok, batches, &self.sizes);
        let queue = &self.gpu.queue;
        let mut bytes = [0u8; 48];
        put_words(&mut bytes, adam_params(self.layout.len, kind, lr, t));
        queue.write_buffer(&self.adam, 0, &bytes);
        let mut enc = self.gpu.device.create_command_encoder(&Default::default());
        enc.clear_buffer(&self.buf.grads, 0, None);
        self.step.encode(&mut enc);
        let bytes = self.buf.stats.size();
        enc.copy_buffer_to_buffer(&self.buf.stats, 0, &self.buf.readback, 0, bytes);
        queue.submit([enc.finish()]);
        let (results, readback) = (&mut self.results, &self.buf.readback);
        read_mapped(&self.gpu, readback, readback.size(), |mapped| {
            for (result, stats) in results.iter_mut().zip(mapped.chunks_exact(16)) {
                let mut words = le_words(stats);
                let mut next = || words.next().expect("a seed's 4 stats");
                let (loss, step_diverged, diverged) = (next(), next(), next());
                *result = StepResult {
                    loss: f32::from_bits(loss),
                    diverged: step_diverged != 0 || diverged != 0,
                };
            }
        })
        .await?;
        Ok(&self.results)
    }
}

/// The parameters of adam.wgsl for update `t` (from 1) of `kind` with learning rate `lr`, for
/// a model of `p` parameters.
fn adam_params(p: usize, kind: OptimizerKind, lr: f32, t: u64) -> [u32; 12] {
    let (b1, b2, eps) = ADAM;
    let (step, inv_sqrt_bc2) = adam_scales(lr, b1, b2, t);
    [
        p as u32,
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
    ]
}
