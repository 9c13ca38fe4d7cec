//! A run of the copying lab trained on the GPU: the same run as `copying::train::Trainer`
//! (the same settings, seeded data, series and evaluations), with each step's forward pass,
//! backward pass and update done by `GpuModel`, and each evaluation's forward pass and KTIW
//! probe too; its metrics are measured from the maps read back by the CPU run's own
//! `Maps::measure`. At each evaluation it reads back the run's state (a `Checkpoint`), from
//! which the CPU's `Trainer` goes on where the device is lost (`to_cpu`). Everything that
//! waits for the GPU is async (a browser delivers what it reads back through its event
//! loop); natively the `Run` trait waits for it.

use super::device::Gpu;
use super::model::{EvalMaps, GpuModel};
use crate::copying::config::{AttentionMode, Config};
use crate::copying::metrics::{ktiw_score, Evaluation};
use crate::copying::model::Seq2Seq;
use crate::copying::parallel::{EvaluationPart, Maps};
use crate::copying::streams::{dims_of, initialise, Checkpoint, Streams};
use crate::copying::tasks::Batch;
use crate::copying::train::{EvaluationMaps, Evaluations, Trainer};
use crate::run::{check_weights, RunError, LOSSES_RECENT, LOSSES_THINNED};
use crate::series::Series;
use crate::settings::Settings;

pub struct GpuTrainer {
    config: Config,
    model: Seq2Seq, // the model's structure: its layout, and the metrics' sizes
    gpu: GpuModel,
    streams: Streams,
    train_batch: Batch,   // (B sequences) the step's batch
    alpha_mean: Vec<f32>, // (Be, Lt, Ls) α averaged over heads, of the last evaluation
    evaluations: Evaluations,
    params: Vec<f32>, // (P,) a copy of the GPU's parameters, current when `synced`
    synced: bool,
    losses: Series<f32>,
    last_loss: f32,
    step: u64,
    /// Updates since the optimiser's moments were last cleared (Adam's bias correction).
    updates: u64,
    /// Whether the last step diverged (the next one retries, as on the CPU).
    diverged: bool,
    /// The run's state at its last evaluation (or its start).
    checkpoint: Checkpoint,
}

/// Measures a GPU evaluation's maps `m` of `batch` at `step` as the CPU run does
/// (`Maps::measure`, with `alpha_mean` (B, Lt, Ls) its scratch) and records it in
/// `evaluations`.
pub(super) fn record(
    model: &Seq2Seq,
    m: &EvalMaps,
    batch: &Batch,
    alpha_mean: &mut [f32],
    step: u64,
    evaluations: &mut Evaluations,
) -> Evaluation {
    let maps = Maps {
        alpha: m.alpha,
        beta: m.beta,
        logp: m.logp,
        loss: m.loss,
        ktiw_score: ktiw_score(m.beta, batch),
    };
    let evaluation = maps.measure(model, batch, alpha_mean, step);
    evaluations.record(&EvaluationPart {
        evaluation,
        lo: 0,
        hi: batch.batch,
        alpha: m.alpha,
        beta: m.beta,
    });
    evaluation
}

/// A device that failed under a run: the run cannot go on on this backend.
fn lost(e: String) -> RunError {
    RunError::Backend(e)
}

impl GpuTrainer {
    /// A fresh run of `config` on the machine's GPU, evaluated once at step 0; refused with
    /// kind `setting` for bad settings, `backend` where no GPU can train it.
    pub async fn request(config: Config) -> Result<GpuTrainer, RunError> {
        config.validate()?;
        let gpu = Gpu::request().await.map_err(RunError::Backend)?;
        GpuTrainer::on_async(gpu, config).await
    }

    /// A fresh run of `config` on `gpu`, evaluated once at step 0.
    pub async fn on_async(gpu: Gpu, config: Config) -> Result<GpuTrainer, RunError> {
        config.validate()?;
        let uniform = config.attention == AttentionMode::Uniform;
        let model = Seq2Seq::new(dims_of(&config), uniform);
        let (b, be, l) = (config.batch, config.eval_batch, config.src_len());
        let gpu = GpuModel::new(gpu, model.dims, b, be, l, uniform, 1)
            .await
            .map_err(lost)?;
        let mut t = GpuTrainer {
            alpha_mean: vec![0.0; be * l * l],
            evaluations: Evaluations::new(&config),
            streams: Streams::new(&config),
            train_batch: Batch::new(b, config.length),
            params: vec![0.0; model.layout.len],
            checkpoint: Checkpoint::new(&config),
            synced: true,
            losses: Series::new(LOSSES_THINNED, LOSSES_RECENT),
            last_loss: f32::NAN,
            step: 0,
            updates: 0,
            diverged: false,
            gpu,
            model,
            config,
        };
        t.reset_async(None).await?;
        Ok(t)
    }

    /// The GPU it trains on, in words.
    pub fn device(&self) -> String {
        self.gpu.gpu.describe()
    }

    /// Gives the device back (to train another run on it).
    pub fn into_gpu(self) -> Gpu {
        self.gpu.gpu
    }

    /// The model on its device (the benchmark times its step).
    pub fn model(&self) -> &GpuModel {
        &self.gpu
    }

    /// One training step on a fresh batch (`Run::step`); evaluates when one is due.
    pub async fn step_async(&mut self) -> Result<f32, RunError> {
        if self.diverged {
            self.gpu.clear_divergence(0);
            self.diverged = false;
        }
        self.streams.next_batch(&mut self.train_batch);
        let c = &self.config;
        let batch = std::slice::from_ref(&self.train_batch);
        let r = self
            .gpu
            .step_async(batch, c.optimizer, c.learning_rate, self.updates + 1)
            .await
            .map_err(lost)?[0];
        if r.diverged {
            self.diverged = true;
            return Err(r.divergence(self.step, self.model.dims.n_tok));
        }
        self.synced = false;
        self.updates += 1;
        self.step += 1;
        self.last_loss = r.loss;
        self.losses.push(self.step, r.loss);
        if self.step.is_multiple_of(self.config.eval_every as u64) {
            self.evaluate_async().await?;
        }
        Ok(r.loss)
    }

    /// Evaluates the current parameters now (`Run::evaluate`).
    pub async fn evaluate_async(&mut self) -> Result<Evaluation, RunError> {
        let batch = &self.streams.eval_batch;
        self.gpu
            .evaluate_async(std::slice::from_ref(batch))
            .await
            .map_err(lost)?;
        let m = self.gpu.eval_maps(0);
        let evaluation = record(
            &self.model,
            &m,
            batch,
            &mut self.alpha_mean,
            self.step,
            &mut self.evaluations,
        );
        self.save_async().await?;
        Ok(evaluation)
    }

    /// Reads the run's state back into its checkpoint (where the reading fails, the
    /// checkpoint stays as it was).
    async fn save_async(&mut self) -> Result<(), RunError> {
        let c = &mut self.checkpoint;
        let r = self
            .gpu
            .read_state_async(0, &mut c.params, &mut c.m, &mut c.v);
        r.await.map_err(lost)?;
        self.save_host();
        self.params.copy_from_slice(&self.checkpoint.params);
        self.synced = true;
        Ok(())
    }

    /// The checkpoint's step, update count and stream: the run's now.
    fn save_host(&mut self) {
        let c = &mut self.checkpoint;
        c.step = self.step;
        c.updates = self.updates;
        c.streams.follow(&self.streams);
    }

    /// The run on the CPU from its last evaluation on (where the GPU can no longer train
    /// it): its state then, its evaluations and losses up to it; it trains on as this run
    /// would have. The steps after that evaluation are trained again.
    pub fn to_cpu(&self) -> Result<Trainer, RunError> {
        let (history, losses) = (self.history(), self.losses());
        Trainer::resume(self.config.clone(), &self.checkpoint, history, losses)
    }

    /// Destroys its device, as a lost GPU would be (tests of what happens then).
    pub fn lose_device(&self) {
        self.gpu.gpu.device.destroy();
    }

    /// The step its last evaluation saved.
    pub fn saved_step(&self) -> u64 {
        self.checkpoint.step
    }

    /// Starts again from step 0, with the same seed or `seed` (`Run::reset`).
    pub async fn reset_async(&mut self, seed: Option<u64>) -> Result<(), RunError> {
        self.config.seed = seed.unwrap_or(self.config.seed);
        initialise(&self.model.layout, &mut self.params, self.config.seed);
        self.streams.start(&self.config);
        self.step = 0;
        self.restart().await
    }

    /// Saved weights as the state after `step` updates (`Run::load_params`): as the CPU
    /// run, the optimiser's moments and the training batches start afresh.
    pub async fn load_params_async(&mut self, params: &[f32], step: u64) -> Result<(), RunError> {
        check_weights(self.params.len(), params)?;
        self.params.copy_from_slice(params);
        self.streams.restart_training(self.config.seed);
        self.step = step;
        self.restart().await
    }

    /// The parameters (P,) read back from the GPU (`Run::params`).
    pub async fn params_async(&mut self) -> Result<&[f32], RunError> {
        if !self.synced {
            self.gpu
                .read_params_async(0, &mut self.params)
                .await
                .map_err(lost)?;
            self.synced = true;
        }
        Ok(&self.params)
    }

    /// Takes the live fields of `config` from the next step on (`Run::apply_live`).
    pub fn apply_live(&mut self, config: &Config) -> Result<(), RunError> {
        self.config = self.config.with_live(config)?;
        Ok(())
    }

    /// The GPU's parameters, loaded from the host copy: the optimiser and the series start
    /// afresh, with an evaluation.
    async fn restart(&mut self) -> Result<(), RunError> {
        self.gpu.load(0, &self.params);
        self.synced = true;
        self.updates = 0;
        // The checkpoint of the new start, before anything is read back: a device lost in
        // the evaluation below goes on on the CPU from here, not from the run before.
        self.checkpoint.params.copy_from_slice(&self.params);
        self.checkpoint.m.fill(0.0);
        self.checkpoint.v.fill(0.0);
        self.save_host();
        self.last_loss = f32::NAN;
        self.losses.clear();
        self.evaluations.clear();
        self.evaluate_async().await?;
        Ok(())
    }

    // What the run shows, on every target (`Run`'s accessors).

    pub fn config(&self) -> &Config {
        &self.config
    }

    pub fn history(&self) -> &Series<Evaluation> {
        self.evaluations.history()
    }

    pub fn losses(&self) -> &Series<f32> {
        &self.losses
    }

    pub fn step_count(&self) -> u64 {
        self.step
    }

    pub fn last_loss(&self) -> f32 {
        self.last_loss
    }
}

impl EvaluationMaps for GpuTrainer {
    fn eval_batch(&self) -> &Batch {
        &self.streams.eval_batch
    }

    fn attention(&self, seq: usize, head: Option<usize>) -> &[f32] {
        self.evaluations.attention(seq, head)
    }

    fn ktiw(&self, seq: usize) -> &[f32] {
        self.evaluations.ktiw(seq)
    }

    fn evaluation_maps(&self) -> (&[f32], &[f32]) {
        self.evaluations.maps()
    }
}

/// Natively a GPU run is driven as any run, each call waiting for the GPU.
#[cfg(not(target_arch = "wasm32"))]
pub use native::OnGpu;

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use super::*;
    use crate::copying::gpu::device::block_on;
    use crate::copying::train::CopyingRun;
    use crate::placement::{self, Placement, RunMaker};
    use crate::run::Run;

    impl GpuTrainer {
        /// A fresh run of `config` on the machine's GPU ([`GpuTrainer::request`]).
        pub fn new(config: Config) -> Result<GpuTrainer, RunError> {
            block_on(GpuTrainer::request(config))
        }

        /// A fresh run of `config` on `gpu` ([`GpuTrainer::on_async`]).
        pub fn on(gpu: Gpu, config: Config) -> Result<GpuTrainer, RunError> {
            block_on(GpuTrainer::on_async(gpu, config))
        }
    }

    /// The copying lab's GPU backend for the tools: runs on this GPU.
    pub struct OnGpu(pub Gpu);

    impl RunMaker<dyn CopyingRun> for OnGpu {
        fn placement(&self) -> Placement {
            Placement::on(placement::GPU)
        }

        fn describe(&self) -> String {
            self.0.describe()
        }

        fn make(&self, config: Config) -> Result<Box<dyn CopyingRun>, RunError> {
            Ok(Box::new(GpuTrainer::on(self.0.clone(), config)?))
        }
    }

    impl Run for GpuTrainer {
        type Config = Config;
        type Evaluation = Evaluation;

        fn config(&self) -> &Config {
            &self.config
        }

        fn step(&mut self) -> Result<f32, RunError> {
            block_on(self.step_async())
        }

        /// Panics where the device is lost (natively, nothing else can go on).
        fn evaluate(&mut self) -> Evaluation {
            block_on(self.evaluate_async()).unwrap_or_else(|e| panic!("{e}"))
        }

        fn reset(&mut self, seed: Option<u64>) {
            block_on(self.reset_async(seed)).unwrap_or_else(|e| panic!("{e}"));
        }

        fn apply_live(&mut self, config: &Config) -> Result<(), RunError> {
            GpuTrainer::apply_live(self, config)
        }

        fn params(&mut self) -> &[f32] {
            block_on(self.params_async()).unwrap_or_else(|e| panic!("{e}"))
        }

        fn load_params(&mut self, params: &[f32], step: u64) -> Result<(), RunError> {
            block_on(self.load_params_async(params, step))
        }

        fn history(&self) -> &Series<Evaluation> {
            self.evaluations.history()
        }

        fn losses(&self) -> &Series<f32> {
            &self.losses
        }

        fn step_count(&self) -> u64 {
            self.step
        }

        fn last_loss(&self) -> f32 {
            self.last_loss
        }

        fn heads(&self) -> usize {
            self.config.heads
        }
    }
}
