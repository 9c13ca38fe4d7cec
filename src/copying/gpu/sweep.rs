//! Many seeds of one setting trained as one GPU run: each seed has its own weights, data,
//! Adam state, evaluations and losses (the seeds lie along every dispatch's z), and one
//! step steps them all. Each seed's run is the one `GpuTrainer` would train alone from that
//! seed, summed in the same order. A seed that diverges stops (its update skipped, its
//! series kept); the others go on. Everything that waits for the GPU is async (the page's
//! sweep awaits it in a worker); natively `new`, `step`, `evaluate` and `params` wait.

#[cfg(not(target_arch = "wasm32"))]
use super::device::block_on;
use super::device::Gpu;
use super::model::{max_seeds, GpuModel};
use super::trainer::record;
use crate::copying::config::{AttentionMode, Config};
use crate::copying::metrics::Evaluation;
use crate::copying::model::Seq2Seq;
use crate::copying::streams::{dims_of, initialise, Streams};
use crate::copying::tasks::Batch;
use crate::copying::train::Evaluations;
use crate::run::{RunError, LOSSES_RECENT, LOSSES_THINNED};
use crate::series::Series;
use crate::settings::Settings;

/// One seed of a sweep.
struct Seed {
    streams: Streams,
    evaluations: Evaluations,
    losses: Series<f32>,
    /// Why it stopped, if it did.
    stopped: Option<RunError>,
}

pub struct GpuSweep {
    config: Config,
    seeds: Vec<u64>,
    model: Seq2Seq,
    gpu: GpuModel,
    runs: Vec<Seed>,
    train_batches: Vec<Batch>, // (S) each seed's batch of the step
    eval_batches: Vec<Batch>,  // (S) each seed's fixed evaluation batch
    alpha_mean: Vec<f32>,      // (Be, Lt, Ls) scratch of the metrics
    step: u64,
}

impl GpuSweep {
    /// The runs of `config` with each seed of `seeds` (its own `seed` is not used), at step
    /// 0 and evaluated; refused with kind `setting` or `backend` as `GpuTrainer::on` (a chunk
    /// too large for the device's memory: a message that starts with `OUT_OF_MEMORY`), and
    /// kind `internal` for no seeds.
    pub async fn on_async(gpu: Gpu, config: Config, seeds: &[u64]) -> Result<GpuSweep, RunError> {
        config.validate()?;
        if seeds.is_empty() {
            return Err(RunError::Internal("a sweep needs at least one seed".into()));
        }
        let uniform = config.attention == AttentionMode::Uniform;
        let model = Seq2Seq::new(dims_of(&config), uniform);
        let (b, be, l) = (config.batch, config.eval_batch, config.src_len());
        let gpu = GpuModel::new(gpu, model.dims, b, be, l, uniform, seeds.len())
            .await
            .map_err(RunError::Backend)?;
        let mut params = vec![0.0; model.layout.len];
        let mut runs = Vec::with_capacity(seeds.len());
        for (i, &seed) in seeds.iter().enumerate() {
            let c = Config {
                seed,
                ..config.clone()
            };
            initialise(&model.layout, &mut params, seed);
            gpu.load(i, &params);
            runs.push(Seed {
                streams: Streams::new(&c),
                evaluations: Evaluations::new(&c),
                losses: Series::new(LOSSES_THINNED, LOSSES_RECENT),
                stopped: None,
            });
        }
        let mut sweep = GpuSweep {
            train_batches: (0..seeds.len())
                .map(|_| Batch::new(b, config.length))
                .collect(),
            eval_batches: runs.iter().map(|r| r.streams.eval_batch.clone()).collect(),
            alpha_mean: vec![0.0; be * l * l],
            seeds: seeds.to_vec(),
            step: 0,
            config,
            model,
            gpu,
            runs,
        };
        sweep.evaluate_async().await?;
        Ok(sweep)
    }

    /// The most seeds of `config` that one sweep on `gpu` trains at once (the device's
    /// limits; its memory may hold fewer: `on_async` says so).
    pub fn capacity(gpu: &Gpu, config: &Config) -> usize {
        let (b, be, l) = (config.batch, config.eval_batch, config.src_len());
        max_seeds(gpu, dims_of(config), b, be, l)
    }

    /// One step of every seed; evaluates when the step count reaches a multiple of the
    /// evaluation interval. A seed that diverges stops; a device lost stops them all
    /// (kind `backend`).
    pub async fn step_async(&mut self) -> Result<(), RunError> {
        for (run, batch) in self.runs.iter_mut().zip(&mut self.train_batches) {
            run.streams.next_batch(batch);
        }
        let c = &self.config;
        let n_tok = self.model.dims.n_tok;
        let results = self
            .gpu
            .step_async(
                &self.train_batches,
                c.optimizer,
                c.learning_rate,
                self.step + 1,
            )
            .await
            .map_err(RunError::Backend)?;
        for (run, r) in self.runs.iter_mut().zip(results) {
            if run.stopped.is_some() {
                continue;
            }
            if r.diverged {
                run.stopped = Some(r.divergence(self.step, n_tok));
            } else {
                run.losses.push(self.step + 1, r.loss);
            }
        }
        self.step += 1;
        if self.step.is_multiple_of(self.config.eval_every as u64) {
            self.evaluate_async().await?;
        }
        Ok(())
    }

    /// Evaluates every seed that is still training.
    pub async fn evaluate_async(&mut self) -> Result<(), RunError> {
        self.gpu
            .evaluate_async(&self.eval_batches)
            .await
            .map_err(RunError::Backend)?;
        for (i, run) in self.runs.iter_mut().enumerate() {
            if run.stopped.is_some() {
                continue;
            }
            let (batch, m) = (&self.eval_batches[i], self.gpu.eval_maps(i));
            let (model, scratch) = (&self.model, &mut self.alpha_mean);
            record(model, &m, batch, scratch, self.step, &mut run.evaluations);
        }
        Ok(())
    }

    /// The seeds, in the order of every per-seed accessor.
    pub fn seeds(&self) -> &[u64] {
        &self.seeds
    }

    /// Updates applied so far (to every seed that has not stopped).
    pub fn step_count(&self) -> u64 {
        self.step
    }

    /// Seed `i`'s evaluations, oldest first.
    pub fn history(&self, i: usize) -> &Series<Evaluation> {
        self.runs[i].evaluations.history()
    }

    /// Seed `i`'s training losses, by step.
    pub fn losses(&self, i: usize) -> &Series<f32> {
        &self.runs[i].losses
    }

    /// Why seed `i` stopped, if it did.
    pub fn stopped(&self, i: usize) -> Option<&RunError> {
        self.runs[i].stopped.as_ref()
    }

    /// Seed `i`'s parameters (P,), read back.
    pub async fn params_async(&self, i: usize, out: &mut [f32]) -> Result<(), RunError> {
        let r = self.gpu.read_params_async(i, out).await;
        r.map_err(RunError::Backend)
    }

    /// The settings of every seed (`seed` aside).
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The GPU it trains on, in words.
    pub fn device(&self) -> String {
        self.gpu.gpu.describe()
    }

    /// The model on its device.
    pub fn model(&self) -> &GpuModel {
        &self.gpu
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl GpuSweep {
    /// [`GpuSweep::on_async`], waited for.
    pub fn new(gpu: Gpu, config: Config, seeds: &[u64]) -> Result<GpuSweep, RunError> {
        block_on(GpuSweep::on_async(gpu, config, seeds))
    }

    /// [`GpuSweep::step_async`], waited for.
    pub fn step(&mut self) -> Result<(), RunError> {
        block_on(self.step_async())
    }

    /// [`GpuSweep::evaluate_async`], waited for.
    pub fn evaluate(&mut self) -> Result<(), RunError> {
        block_on(self.evaluate_async())
    }

    /// [`GpuSweep::params_async`], waited for.
    pub fn params(&self, i: usize, out: &mut [f32]) -> Result<(), RunError> {
        block_on(self.params_async(i, out))
    }
}
