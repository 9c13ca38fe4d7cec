//! The training API a UI drives one step at a time: a `Trainer` owns the model, its
//! optimiser, the seeded task stream and the fixed evaluation batch with its latest `α` and
//! `β`. Everything is allocated in `new`; `step` allocates nothing but the history entry
//! of an evaluation step.

use crate::config::{AttentionMode, Config, ConfigError};
use crate::metrics::{
    aligned_accuracy, mean_agreement, mean_over_heads, token_accuracy, KtiwProbe,
};
use crate::model::params::{Dims, Layout, Tensors};
use crate::model::{Seq2Seq, Workspace};
use crate::optim::Optimizer;
use crate::rng::Rng;
use crate::tasks::{Batch, Task};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The independent random streams of one seed.
const STREAM_INIT: u64 = 1;
const STREAM_TRAIN: u64 = 2;
const STREAM_EVAL: u64 = 3;
const STREAM_TABLE: u64 = 4;

/// The measurements of one evaluation on the fixed evaluation batch (teacher forced).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    /// Updates applied before this evaluation.
    pub step: u64,
    pub loss: f32,
    pub token_accuracy: f32,
    /// Argmax of `α` (averaged over heads) on the aligned position.
    pub attention_accuracy: f32,
    /// Argmax of `β` on the aligned position.
    pub ktiw_accuracy: f32,
    /// Mean probability of the correct token under one-hot attention on the aligned position.
    pub ktiw_score: f32,
    /// Top-5% agreement of `β` with `α`.
    pub agreement: f32,
}

/// A loss above this many times chance level (`ln NT`, the loss of a uniform guess) means
/// the run has diverged: with bounded gradients the weights grow without ever reaching NaN,
/// so waiting for a NaN would wait for ever.
pub const DIVERGED_FACTOR: f32 = 10.0;

/// Which rows of each training batch a replica works on (data parallelism over workers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
    pub lo: usize,
    pub hi: usize,
}

impl Shard {
    /// Shard `index` of `count` near-equal parts of a batch of `batch` rows.
    pub fn new(index: usize, count: usize, batch: usize) -> Shard {
        Shard {
            index,
            count,
            lo: index * batch / count,
            hi: (index + 1) * batch / count,
        }
    }

    pub fn len(&self) -> usize {
        self.hi - self.lo
    }

    pub fn is_empty(&self) -> bool {
        self.hi == self.lo
    }
}

/// A step that could not be applied.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum StepError {
    /// The loss is NaN, infinite or above [`DIVERGED_FACTOR`] × chance, or a gradient is not
    /// finite; the parameters were left as they were.
    Diverged { step: u64, loss: f32 },
}

impl fmt::Display for StepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StepError::Diverged { step, loss } => write!(
                f,
                "training diverged at step {step} (loss {loss}): lower the learning rate and reset"
            ),
        }
    }
}

impl std::error::Error for StepError {}

/// A replica's share of the evaluation batch: its rows and the buffers to evaluate them.
struct EvalPart {
    batch: Batch,
    ws: Workspace,
    probe: KtiwProbe,
    alpha_mean: Vec<f32>, // (rows, Lt, Ls)
    /// The latest part's metrics until they are taken (replicas other than 0); on replica
    /// 0, the weighted sum of the parts gathered so far, until it is recorded.
    done: Option<Evaluation>,
}

/// One replica's evaluation of its rows `lo..hi` of the evaluation batch: the metrics are
/// means over those rows, `alpha` (K, rows, Lt, Ls) and `beta` (rows, Lt, Ls) their maps.
pub struct EvaluationPart<'a> {
    pub evaluation: Evaluation,
    pub lo: usize,
    pub hi: usize,
    pub alpha: &'a [f32],
    pub beta: &'a [f32],
}

pub struct Trainer {
    config: Config,
    model: Seq2Seq,
    params: Vec<f32>, // (P,) flat, layout `model.layout`
    grads: Vec<f32>,  // (P,)
    optimizer: Optimizer,
    task: Task,
    train_rng: Rng,
    train_batch: Batch, // (B sequences) the step's batch, the same on every replica
    /// Data parallelism: this replica computes the gradient of rows `lo..hi` of each batch.
    shard: Shard,
    shard_batch: Batch,  // (hi − lo sequences) this replica's rows, when sharded
    train_ws: Workspace, // sized for the shard
    eval_batch: Batch,
    eval_ws: Workspace,
    probe: KtiwProbe,
    /// Sharded runs: the rows `lo..hi` of the evaluation batch this replica evaluates and
    /// its buffers for them.
    eval_shard: Shard,
    part: Option<EvalPart>,
    eval_alpha: Vec<f32>, // (K, Be, Lt, Ls) attention of each head on the evaluation batch
    eval_alpha_mean: Vec<f32>, // (Be, Lt, Ls)
    eval_beta: Vec<f32>,  // (Be, Lt, Ls) KTIW probe
    step: u64,
    last_loss: f32,
    history: Vec<Evaluation>,
}

impl Trainer {
    /// A fresh run of `config`, evaluated once at step 0.
    pub fn new(config: Config) -> Result<Trainer, ConfigError> {
        config.validate()?;
        let model = Seq2Seq::new(dims_of(&config), config.attention == AttentionMode::Uniform);
        let (ls, lt) = (config.src_len(), config.src_len());
        let n_params = model.layout.len;
        let be = config.eval_batch;
        let mut table_rng = Rng::new(config.seed, STREAM_TABLE);
        let mut trainer = Trainer {
            params: vec![0.0; n_params],
            grads: vec![0.0; n_params],
            optimizer: Optimizer::new(config.optimizer, config.learning_rate, n_params),
            task: Task::new(&config, &mut table_rng),
            train_rng: Rng::new(config.seed, STREAM_TRAIN),
            train_batch: Batch::new(config.batch, config.length),
            shard: Shard::new(0, 1, config.batch),
            shard_batch: Batch::new(0, config.length), // made by set_shard
            train_ws: model.workspace(config.batch, ls, lt),
            eval_batch: Batch::new(be, config.length),
            eval_ws: model.workspace(be, ls, lt),
            probe: KtiwProbe::new(&model, be, ls, lt),
            eval_shard: Shard::new(0, 1, be),
            part: None,
            eval_alpha: vec![0.0; config.heads * be * lt * ls],
            eval_alpha_mean: vec![0.0; be * lt * ls],
            eval_beta: vec![0.0; be * lt * ls],
            step: 0,
            last_loss: f32::NAN,
            history: Vec::with_capacity(1024),
            model,
            config,
        };
        trainer.start(trainer.config.seed);
        Ok(trainer)
    }

    /// (Re)initialises everything that depends on the seed, in place, and evaluates.
    fn start(&mut self, seed: u64) {
        self.config.seed = seed;
        let mut init = Rng::new(seed, STREAM_INIT);
        self.model.layout.initialise(&mut self.params, &mut init);
        self.optimizer.reset();
        self.task = Task::new(&self.config, &mut Rng::new(seed, STREAM_TABLE));
        self.train_rng = Rng::new(seed, STREAM_TRAIN);
        let mut eval_rng = Rng::new(seed, STREAM_EVAL);
        self.task.fill(&mut eval_rng, &mut self.eval_batch);
        self.step = 0;
        self.last_loss = f32::NAN;
        self.history.clear();
        self.evaluate();
    }

    /// Starts the run again from step 0, with the same seed or a new one.
    pub fn reset(&mut self, seed: Option<u64>) {
        self.start(seed.unwrap_or(self.config.seed));
    }

    /// Changes the learning rate from the next step on (the run goes on).
    pub fn set_learning_rate(&mut self, lr: f32) -> Result<(), ConfigError> {
        let candidate = Config {
            learning_rate: lr,
            ..self.config.clone()
        };
        candidate.validate()?;
        self.config.learning_rate = lr;
        self.optimizer.learning_rate = lr;
        Ok(())
    }

    /// One training step on a fresh batch; evaluates when the step count reaches a
    /// multiple of `eval_every`. Returns the training loss of the batch.
    /// (On a sharded replica use [`Trainer::shard_gradient`] and [`Trainer::apply_gradient`].)
    pub fn step(&mut self) -> Result<f32, StepError> {
        let loss = self.shard_gradient()?;
        self.apply_gradient(loss);
        Ok(loss)
    }

    /// Makes this trainer replica `index` of `count`: from the next step on it computes the
    /// gradient of its share of each batch only. Every replica draws the same batches, so
    /// the weighted sum of their gradients is the whole batch's. Evaluations are split the
    /// same way; replica 0 gathers them ([`Trainer::add_evaluation_part`]).
    pub fn set_shard(&mut self, index: usize, count: usize) -> Result<(), ConfigError> {
        let b = self.config.batch;
        if count == 0 || count > b {
            return Err(ConfigError::new(
                "workers",
                format!("must be a whole number from 1 to the batch size {b}, got {count}"),
            ));
        }
        if index >= count {
            return Err(ConfigError::new(
                "worker",
                format!("must be below the number of workers {count}, got {index}"),
            ));
        }
        let shard = Shard::new(index, count, b);
        let (ls, lt) = (self.config.src_len(), self.config.src_len());
        self.shard_batch = Batch::new(shard.len(), self.config.length);
        self.train_ws = self.model.workspace(shard.len(), ls, lt);
        self.shard = shard;
        // The evaluations are split too, unless there are fewer evaluation sequences than
        // replicas: then replica 0 evaluates them all, as an unsharded trainer does.
        let be = self.config.eval_batch;
        (self.eval_shard, self.part) = if count > 1 && be >= count {
            let es = Shard::new(index, count, be);
            let part = EvalPart {
                batch: Batch::new(es.len(), self.config.length),
                ws: self.model.workspace(es.len(), ls, lt),
                probe: KtiwProbe::new(&self.model, es.len(), ls, lt),
                alpha_mean: vec![0.0; es.len() * lt * ls],
                done: None,
            };
            (es, Some(part))
        } else {
            (Shard::new(0, 1, be), None)
        };
        Ok(())
    }

    pub fn shard(&self) -> Shard {
        self.shard
    }

    /// The weight of this replica's gradient in the batch's: its share of the rows.
    pub fn shard_weight(&self) -> f32 {
        self.shard.len() as f32 / self.config.batch as f32
    }

    /// Draws the next batch and computes the gradient of the mean loss over this replica's
    /// rows into [`Trainer::gradient`]; returns that loss. Nothing is updated yet.
    pub fn shard_gradient(&mut self) -> Result<f32, StepError> {
        self.task.fill(&mut self.train_rng, &mut self.train_batch);
        let batch = if self.shard.count == 1 {
            &self.train_batch
        } else {
            self.train_batch
                .copy_rows(self.shard.lo, self.shard.hi, &mut self.shard_batch);
            &self.shard_batch
        };
        let p = self.model.layout.split(&self.params);
        let loss = self.model.forward(&p, &mut self.train_ws, batch);
        let chance = (self.model.dims.n_tok as f32).ln();
        if !(loss.is_finite() && loss <= DIVERGED_FACTOR * chance) {
            return Err(StepError::Diverged {
                step: self.step,
                loss,
            });
        }
        self.model
            .backward(&p, &mut self.grads, &mut self.train_ws, batch);
        if !self.grads.iter().all(|g| g.is_finite()) {
            return Err(StepError::Diverged {
                step: self.step,
                loss: f32::NAN,
            });
        }
        Ok(loss)
    }

    /// The gradient buffer (P,): filled by [`Trainer::shard_gradient`]; a coordinator may
    /// overwrite it with the combined gradient before [`Trainer::apply_gradient`].
    pub fn gradient(&self) -> &[f32] {
        &self.grads
    }

    pub fn gradient_mut(&mut self) -> &mut [f32] {
        &mut self.grads
    }

    /// Multiplies the gradient buffer by `w` (a replica's shard weight, before the other
    /// replicas' gradients are added with [`Trainer::add_to_gradient`]).
    pub fn scale_gradient(&mut self, w: f32) {
        self.grads.iter_mut().for_each(|g| *g *= w);
    }

    /// Adds `w · other` to the gradient buffer: another replica's gradient (same length,
    /// the parameter count) with its shard weight.
    pub fn add_to_gradient(&mut self, other: &[f32], w: f32) {
        assert_eq!(other.len(), self.grads.len(), "gradient of another model");
        for (g, &o) in self.grads.iter_mut().zip(other) {
            *g += w * o;
        }
    }

    /// Applies the gradient buffer as one optimiser update; `loss` is the batch's training
    /// loss, recorded for display. Evaluates when due: the whole evaluation batch on an
    /// unsharded trainer, each replica's share in a sharded run (gathered on replica 0).
    pub fn apply_gradient(&mut self, loss: f32) {
        self.optimizer.update(&mut self.params, &self.grads);
        self.step += 1;
        self.last_loss = loss;
        if self.step.is_multiple_of(self.config.eval_every as u64) {
            if self.part.is_some() {
                self.evaluate_part();
            } else if self.shard.index == 0 {
                self.evaluate();
            }
        }
    }

    /// Sharded runs: evaluates this replica's rows of the evaluation batch into its part
    /// (and into its rows of the full-size `α`, `β`). Replica 0 then starts the weighted
    /// sum that [`Trainer::add_evaluation_part`] completes.
    fn evaluate_part(&mut self) {
        let part = self.part.as_mut().expect("sharded");
        let sh = self.eval_shard;
        let per = self.eval_batch.tgt_len * self.eval_batch.src_len;
        self.eval_batch.copy_rows(sh.lo, sh.hi, &mut part.batch);
        let p = self.model.layout.split(&self.params);
        let beta = &mut self.eval_beta[sh.lo * per..sh.hi * per];
        let e = measure(
            &self.model,
            &p,
            &mut part.ws,
            &part.batch,
            &mut part.probe,
            &mut part.alpha_mean,
            beta,
            self.step,
        );
        self.eval_alpha_mean[sh.lo * per..sh.hi * per].copy_from_slice(&part.alpha_mean);
        let be = self.eval_batch.batch;
        for (k, a) in part.ws.alpha.chunks_exact(sh.len() * per).enumerate() {
            self.eval_alpha[(k * be + sh.lo) * per..(k * be + sh.hi) * per].copy_from_slice(a);
        }
        part.done = Some(if self.shard.index == 0 {
            scaled(&e, sh.len() as f32 / be as f32)
        } else {
            e
        });
    }

    /// Sharded runs, replicas other than 0: the part evaluated at the last step, if one
    /// was due (once; the next call returns `None`).
    pub fn take_evaluation_part(&mut self) -> Option<EvaluationPart<'_>> {
        let sh = self.eval_shard;
        let per = self.eval_batch.tgt_len * self.eval_batch.src_len;
        if self.shard.index == 0 {
            return None; // replica 0's `done` is the sum it gathers
        }
        let part = self.part.as_mut()?;
        let evaluation = part.done.take()?;
        Some(EvaluationPart {
            evaluation,
            lo: sh.lo,
            hi: sh.hi,
            alpha: &part.ws.alpha,
            beta: &self.eval_beta[sh.lo * per..sh.hi * per],
        })
    }

    /// Sharded runs, replica 0: whether its own part of an evaluation is waiting for the
    /// other replicas' ([`Trainer::add_evaluation_part`], then [`Trainer::finish_evaluation`]).
    pub fn evaluation_pending(&self) -> bool {
        self.shard.index == 0 && self.part.as_ref().is_some_and(|p| p.done.is_some())
    }

    /// Replica 0: adds another replica's part (its metrics weighted by its rows, its maps
    /// into the full-size `α`, `β`). A part of another step or shape is refused.
    pub fn add_evaluation_part(&mut self, part: &EvaluationPart) -> Result<(), String> {
        let be = self.eval_batch.batch;
        let per = self.eval_batch.tgt_len * self.eval_batch.src_len;
        let rows = part.hi.saturating_sub(part.lo);
        let heads = self.config.heads;
        let Some(sum) = self.part.as_mut().and_then(|p| p.done.as_mut()) else {
            return Err("no evaluation is waiting for parts".into());
        };
        if part.evaluation.step != sum.step
            || part.hi > be
            || rows == 0
            || part.alpha.len() != heads * rows * per
            || part.beta.len() != rows * per
        {
            return Err(format!(
                "an evaluation part that does not fit: step {}, rows {}..{}",
                part.evaluation.step, part.lo, part.hi
            ));
        }
        add_scaled(sum, &part.evaluation, rows as f32 / be as f32);
        let (lo, hi) = (part.lo, part.hi);
        self.eval_beta[lo * per..hi * per].copy_from_slice(part.beta);
        for (k, a) in part.alpha.chunks_exact(rows * per).enumerate() {
            self.eval_alpha[(k * be + lo) * per..(k * be + hi) * per].copy_from_slice(a);
        }
        mean_over_heads(
            part.alpha,
            heads,
            &mut self.eval_alpha_mean[lo * per..hi * per],
        );
        Ok(())
    }

    /// Replica 0: records the evaluation gathered from every part.
    pub fn finish_evaluation(&mut self) {
        if let Some(e) = self.part.as_mut().and_then(|p| p.done.take()) {
            self.record(e);
        }
    }

    fn record(&mut self, e: Evaluation) {
        if self.history.last().map(|h| h.step) == Some(self.step) {
            self.history.pop();
        }
        self.history.push(e);
    }

    /// Evaluates now on the whole fixed evaluation batch (replacing an evaluation of the
    /// same step).
    pub fn evaluate(&mut self) -> Evaluation {
        let p = self.model.layout.split(&self.params);
        let e = measure(
            &self.model,
            &p,
            &mut self.eval_ws,
            &self.eval_batch,
            &mut self.probe,
            &mut self.eval_alpha_mean,
            &mut self.eval_beta,
            self.step,
        );
        self.eval_alpha.copy_from_slice(&self.eval_ws.alpha);
        if let Some(part) = self.part.as_mut() {
            part.done = None; // a part of an earlier step is not waited for any more
        }
        self.record(e);
        e
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    pub fn model(&self) -> &Seq2Seq {
        &self.model
    }

    /// Updates applied so far.
    pub fn step_count(&self) -> u64 {
        self.step
    }

    /// Training loss of the last applied step (NaN before the first).
    pub fn last_loss(&self) -> f32 {
        self.last_loss
    }

    /// Every evaluation so far, oldest first.
    pub fn history(&self) -> &[Evaluation] {
        &self.history
    }

    pub fn latest(&self) -> &Evaluation {
        self.history.last().expect("evaluated at start")
    }

    /// The fixed evaluation batch (its tokens label the heatmaps' axes).
    pub fn eval_batch(&self) -> &Batch {
        &self.eval_batch
    }

    /// `α` (Lt, Ls) of evaluation sequence `seq`: of one head, or averaged over heads.
    pub fn attention(&self, seq: usize, head: Option<usize>) -> &[f32] {
        let per = self.eval_batch.tgt_len * self.eval_batch.src_len;
        match head {
            Some(k) => {
                let off = (k * self.eval_batch.batch + seq) * per;
                &self.eval_alpha[off..off + per]
            }
            None => &self.eval_alpha_mean[seq * per..(seq + 1) * per],
        }
    }

    /// KTIW `β` (Lt, Ls) of evaluation sequence `seq`.
    pub fn ktiw(&self, seq: usize) -> &[f32] {
        let per = self.eval_batch.tgt_len * self.eval_batch.src_len;
        &self.eval_beta[seq * per..(seq + 1) * per]
    }

    /// The flat parameter buffer (layout `model().layout`).
    pub fn params(&self) -> &[f32] {
        &self.params
    }

    /// Replaces the parameters with saved ones (a trained model shown without retraining),
    /// as the state after `step` updates: the history restarts with an evaluation of them.
    /// The optimizer's moments and the training batches start afresh (the saved weights do
    /// not hold them), so training on from here is not the original run's continuation.
    /// A buffer of another length or with a non-finite value changes nothing.
    pub fn load_params(&mut self, params: &[f32], step: u64) -> Result<Evaluation, String> {
        check_weights(self.params.len(), params)?;
        self.params.copy_from_slice(params);
        self.optimizer.reset();
        self.train_rng = Rng::new(self.config.seed, STREAM_TRAIN);
        self.step = step;
        self.last_loss = f32::NAN;
        self.history.clear();
        Ok(self.evaluate())
    }
}

/// The model sizes of a run's settings.
fn dims_of(config: &Config) -> Dims {
    Dims {
        n_tok: config.vocab + 2,
        hidden: config.hidden,
        dirs: if config.bidirectional { 2 } else { 1 },
        heads: config.heads,
    }
}

/// Whether `params` could be loaded into a model of `config` ([`Trainer::load_params`]),
/// without building one: valid settings, as many values as their model has, all finite.
pub fn check_params(config: &Config, params: &[f32]) -> Result<(), String> {
    config.validate().map_err(|e| e.to_string())?;
    check_weights(Layout::new(dims_of(config)).len, params)
}

/// `params` are `len` finite values.
fn check_weights(len: usize, params: &[f32]) -> Result<(), String> {
    if params.len() != len {
        return Err(format!(
            "weights: {} values, but this model has {len} (are the settings the same?)",
            params.len()
        ));
    }
    if let Some(i) = params.iter().position(|x| !x.is_finite()) {
        return Err(format!("weights: value {i} is {}", params[i]));
    }
    Ok(())
}

/// The forward pass of `batch` in `ws`, `α` averaged over heads into `alpha_mean` (B, Lt,
/// Ls), `β` (B, Lt, Ls) by the probe, and the metrics of one evaluation at `step`.
#[allow(clippy::too_many_arguments)]
fn measure(
    model: &Seq2Seq,
    p: &Tensors<&[f32]>,
    ws: &mut Workspace,
    batch: &Batch,
    probe: &mut KtiwProbe,
    alpha_mean: &mut [f32],
    beta: &mut [f32],
    step: u64,
) -> Evaluation {
    let (ls, lt) = (batch.src_len, batch.tgt_len);
    let loss = model.forward(p, ws, batch);
    mean_over_heads(&ws.alpha, model.dims.heads, alpha_mean);
    let ktiw_score = probe.run(model, p, ws, batch, beta);
    Evaluation {
        step,
        loss,
        token_accuracy: token_accuracy(&ws.logp, &batch.target_out, model.dims.n_tok),
        attention_accuracy: aligned_accuracy(alpha_mean, &batch.aligned, ls),
        ktiw_accuracy: aligned_accuracy(beta, &batch.aligned, ls),
        ktiw_score,
        agreement: mean_agreement(alpha_mean, beta, lt, ls),
    }
}

/// `w · e` (every metric; the step is kept).
fn scaled(e: &Evaluation, w: f32) -> Evaluation {
    let mut out = Evaluation {
        loss: 0.0,
        token_accuracy: 0.0,
        attention_accuracy: 0.0,
        ktiw_accuracy: 0.0,
        ktiw_score: 0.0,
        agreement: 0.0,
        ..*e
    };
    add_scaled(&mut out, e, w);
    out
}

/// `sum += w · e` for every metric.
fn add_scaled(sum: &mut Evaluation, e: &Evaluation, w: f32) {
    sum.loss += w * e.loss;
    sum.token_accuracy += w * e.token_accuracy;
    sum.attention_accuracy += w * e.attention_accuracy;
    sum.ktiw_accuracy += w * e.ktiw_accuracy;
    sum.ktiw_score += w * e.ktiw_score;
    sum.agreement += w * e.agreement;
}
