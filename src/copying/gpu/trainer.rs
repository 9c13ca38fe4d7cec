//! A run of the copying lab trained on the GPU: the same run as `copying::train::Trainer`
//! (the same settings, seeded data, series and evaluations), with each step's forward pass,
//! backward pass and update done by `GpuModel`, and each evaluation's forward pass and KTIW
//! probe too; its metrics are measured from the maps read back by the CPU run's own
//! `Maps::measure`.

use super::device::Gpu;
use super::model::GpuModel;
use crate::copying::config::{AttentionMode, Config};
use crate::copying::metrics::{ktiw_score, Evaluation};
use crate::copying::model::Seq2Seq;
use crate::copying::parallel::{dims_of, initialise, EvaluationPart, Maps, Streams};
use crate::copying::tasks::Batch;
use crate::copying::train::{EvaluationMaps, Evaluations};
use crate::run::{check_weights, Run, RunError, DIVERGED_FACTOR, LOSSES_RECENT, LOSSES_THINNED};
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
}

impl GpuTrainer {
    /// A fresh run of `config` on the machine's GPU, evaluated once at step 0; refused with
    /// kind `setting` for bad settings, `backend` where no GPU can train it.
    pub fn new(config: Config) -> Result<GpuTrainer, RunError> {
        config.validate()?;
        let gpu = Gpu::new().map_err(RunError::Backend)?;
        GpuTrainer::on(gpu, config)
    }

    /// A fresh run of `config` on `gpu`.
    pub fn on(gpu: Gpu, config: Config) -> Result<GpuTrainer, RunError> {
        config.validate()?;
        let uniform = config.attention == AttentionMode::Uniform;
        let model = Seq2Seq::new(dims_of(&config), uniform);
        let (b, l) = (config.batch, config.src_len());
        let be = config.eval_batch;
        let gpu =
            GpuModel::new(gpu, model.dims, b, be, l, uniform, 1).map_err(RunError::Backend)?;
        let mut t = GpuTrainer {
            alpha_mean: vec![0.0; be * l * l],
            evaluations: Evaluations::new(&config),
            streams: Streams::new(&config),
            train_batch: Batch::new(b, config.length),
            params: vec![0.0; model.layout.len],
            synced: true,
            losses: Series::new(LOSSES_THINNED, LOSSES_RECENT),
            last_loss: f32::NAN,
            step: 0,
            updates: 0,
            gpu,
            model,
            config,
        };
        t.reset(None);
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

    /// The GPU's parameters, loaded from the host copy: the optimiser and the series start
    /// afresh.
    fn restart(&mut self) {
        self.gpu.load(0, &self.params);
        self.synced = true;
        self.updates = 0;
        self.last_loss = f32::NAN;
        self.losses.clear();
        self.evaluations.clear();
        self.evaluate();
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

impl Run for GpuTrainer {
    type Config = Config;
    type Evaluation = Evaluation;

    fn config(&self) -> &Config {
        &self.config
    }

    fn step(&mut self) -> Result<f32, RunError> {
        self.streams.next_batch(&mut self.train_batch);
        let c = &self.config;
        let batch = std::slice::from_ref(&self.train_batch);
        let r = self
            .gpu
            .step(batch, c.optimizer, c.learning_rate, self.updates + 1)[0];
        if r.diverged {
            let limit = DIVERGED_FACTOR * (self.model.dims.n_tok as f32).ln();
            let loss = if r.loss.is_finite() && r.loss <= limit {
                f32::NAN // the loss was fine: a gradient was not
            } else {
                r.loss
            };
            return Err(RunError::Diverged {
                step: self.step,
                loss,
            });
        }
        self.synced = false;
        self.updates += 1;
        self.step += 1;
        self.last_loss = r.loss;
        self.losses.push(self.step, r.loss);
        if self.step.is_multiple_of(self.config.eval_every as u64) {
            self.evaluate();
        }
        Ok(r.loss)
    }

    fn evaluate(&mut self) -> Evaluation {
        let batch = &self.streams.eval_batch;
        self.gpu.evaluate(std::slice::from_ref(batch));
        let m = self.gpu.eval_maps(0);
        let maps = Maps {
            alpha: m.alpha,
            beta: m.beta,
            logp: m.logp,
            loss: m.loss,
            ktiw_score: ktiw_score(m.beta, batch),
        };
        let evaluation = maps.measure(&self.model, batch, &mut self.alpha_mean, self.step);
        self.evaluations.record(&EvaluationPart {
            evaluation,
            lo: 0,
            hi: batch.batch,
            alpha: m.alpha,
            beta: m.beta,
        });
        *self.latest()
    }

    fn reset(&mut self, seed: Option<u64>) {
        self.config.seed = seed.unwrap_or(self.config.seed);
        initialise(&self.model.layout, &mut self.params, self.config.seed);
        self.streams.start(&self.config);
        self.step = 0;
        self.restart();
    }

    fn set_learning_rate(&mut self, lr: f32) -> Result<(), RunError> {
        let mut c = self.config.clone();
        c.learning_rate = lr;
        c.validate()?;
        self.config = c;
        Ok(())
    }

    fn params(&mut self) -> &[f32] {
        if !self.synced {
            self.gpu.read_params(0, &mut self.params);
            self.synced = true;
        }
        &self.params
    }

    /// Saved weights: as the CPU run, the optimiser's moments and the training batches
    /// start afresh.
    fn load_params(&mut self, params: &[f32], step: u64) -> Result<(), RunError> {
        check_weights(self.params.len(), params)?;
        self.params.copy_from_slice(params);
        self.streams.restart_training(self.config.seed);
        self.step = step;
        self.restart();
        Ok(())
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
