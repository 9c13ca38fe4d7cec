//! Data parallelism over replicas of one model: every replica draws the same batches,
//! computes the gradient of its share of each batch's rows (weighted by that share), the
//! replicas' gradients are summed ([`accumulate`]) and every replica applies the same sum,
//! so they stay identical; evaluations are split by rows the same way and gathered by the
//! run ([`crate::copying::train::Trainer`]). A run on one worker is one replica of one. How the
//! gradients travel (messages between workers) is the page's business.

use crate::copying::config::{AttentionMode, Config, MAX_HEADS};
use crate::copying::metrics::{
    aligned_accuracy, mean_agreement, mean_over_heads, token_accuracy, Evaluation, KtiwProbe,
};
use crate::copying::model::{Seq2Seq, Workspace};
use crate::copying::tasks::Batch;
use crate::optim::Optimizer;
use crate::params::ParamLayout;
use crate::run::{check_weights, RunError, DIVERGED_FACTOR};
use crate::settings::{Settings, SettingsError};

use crate::copying::streams::{dims_of, initialise, Checkpoint, Streams};

/// Rows `lo..hi` of a batch: share `index` of `count` near-equal parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
    pub lo: usize,
    pub hi: usize,
}

impl Shard {
    pub fn new(index: usize, count: usize, rows: usize) -> Shard {
        Shard {
            index,
            count,
            lo: index * rows / count,
            hi: (index + 1) * rows / count,
        }
    }

    /// No rows: a replica that evaluates nothing.
    pub fn none(index: usize, count: usize) -> Shard {
        Shard {
            index,
            count,
            lo: 0,
            hi: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.hi - self.lo
    }

    pub fn is_empty(&self) -> bool {
        self.hi == self.lo
    }
}

/// Which rows of the evaluation batch (`rows` sequences) replica `index` of `count`
/// evaluates: its share, unless there are fewer rows than replicas; then replica 0
/// evaluates them all.
pub fn evaluation_shard(index: usize, count: usize, rows: usize) -> Shard {
    match (count, index) {
        (c, _) if c > 1 && rows >= c => Shard::new(index, count, rows),
        (_, 0) => Shard::new(0, 1, rows),
        _ => Shard::none(index, count),
    }
}

/// The replicas' reduction: `sum += part` (each replica's gradient is already weighted by
/// its share of the batch, so the sum is the whole batch's gradient).
pub fn accumulate(sum: &mut [f32], part: &[f32]) {
    assert_eq!(sum.len(), part.len(), "a gradient of another model");
    for (s, &p) in sum.iter_mut().zip(part) {
        *s += p;
    }
}

/// One replica's evaluation of its rows `lo..hi` of the evaluation batch: the metrics are
/// means over those rows, `alpha` (K, rows, Lt, Ls) and `beta` (rows, Lt, Ls) their maps.
#[derive(Clone, Copy, Debug)]
pub struct EvaluationPart<'a> {
    pub evaluation: Evaluation,
    pub lo: usize,
    pub hi: usize,
    pub alpha: &'a [f32],
    pub beta: &'a [f32],
}

/// What an evaluation computes of a batch, on whichever backend: the forward pass's `α`
/// (K, B, Lt, Ls), log-probabilities (Lt, B, NT) and mean loss, and the probe's `β`
/// (B, Lt, Ls) and KTIW score.
pub struct Maps<'a> {
    pub alpha: &'a [f32],
    pub beta: &'a [f32],
    pub logp: &'a [f32],
    pub loss: f32,
    pub ktiw_score: f32,
}

impl Maps<'_> {
    /// The metrics of `batch`'s evaluation at `step` (docs/science.md 1.4), as means over its
    /// sequences; leaves `α` averaged over heads in `alpha_mean` (B, Lt, Ls).
    pub fn measure(
        &self,
        model: &Seq2Seq,
        batch: &Batch,
        alpha_mean: &mut [f32],
        step: u64,
    ) -> Evaluation {
        let (ls, lt) = (batch.src_len, batch.tgt_len);
        mean_over_heads(self.alpha, model.dims.heads, alpha_mean);
        let mut head_attention = [0.0; MAX_HEADS];
        let per_head = alpha_mean.len();
        for (k, acc) in head_attention.iter_mut().take(model.dims.heads).enumerate() {
            let alpha = &self.alpha[k * per_head..(k + 1) * per_head];
            *acc = aligned_accuracy(alpha, &batch.aligned, ls);
        }
        Evaluation {
            step,
            loss: self.loss,
            token_accuracy: token_accuracy(self.logp, &batch.target_out, model.dims.n_tok),
            attention_accuracy: aligned_accuracy(alpha_mean, &batch.aligned, ls),
            ktiw_accuracy: aligned_accuracy(self.beta, &batch.aligned, ls),
            ktiw_score: self.ktiw_score,
            agreement: mean_agreement(alpha_mean, self.beta, lt, ls),
            head_attention,
        }
    }
}

/// Evaluates rows `rows.lo..rows.hi` of the fixed evaluation batch, in buffers of its own.
#[derive(Clone, Debug)]
pub struct Evaluator {
    rows: Shard,
    batch: Batch, // (rows) its sequences of the evaluation batch
    ws: Workspace,
    probe: KtiwProbe,
    alpha_mean: Vec<f32>, // (rows, Lt, Ls)
    beta: Vec<f32>,       // (rows, Lt, Ls)
}

impl Evaluator {
    pub fn new(model: &Seq2Seq, config: &Config, rows: Shard) -> Evaluator {
        let (ls, lt, n) = (config.src_len(), config.src_len(), rows.len());
        Evaluator {
            rows,
            batch: Batch::new(n, config.length),
            ws: model.workspace(n, ls, lt),
            probe: KtiwProbe::new(model, n, ls, lt),
            alpha_mean: vec![0.0; n * lt * ls],
            beta: vec![0.0; n * lt * ls],
        }
    }

    /// The forward pass of its rows of `eval_batch`, `α` averaged over heads, `β` by the
    /// probe, and the metrics as means over its rows.
    pub fn evaluate(
        &mut self,
        model: &Seq2Seq,
        params: &[f32],
        eval_batch: &Batch,
        step: u64,
    ) -> EvaluationPart<'_> {
        let Shard { lo, hi, .. } = self.rows;
        eval_batch.copy_rows(lo, hi, &mut self.batch);
        let p = model.layout.split(params);
        let loss = model.forward(&p, &mut self.ws, &self.batch);
        let ktiw_score = self
            .probe
            .run(model, &p, &self.ws, &self.batch, &mut self.beta);
        let maps = Maps {
            alpha: &self.ws.alpha,
            beta: &self.beta,
            logp: &self.ws.logp,
            loss,
            ktiw_score,
        };
        let evaluation = maps.measure(model, &self.batch, &mut self.alpha_mean, step);
        EvaluationPart {
            evaluation,
            lo,
            hi,
            alpha: &self.ws.alpha,
            beta: &self.beta,
        }
    }
}

/// One replica of a model in training: its parameters and optimiser, the task's seeded
/// batch stream (the same on every replica), the gradient of its rows of each batch, and
/// the evaluation of its rows of the fixed evaluation batch. Everything is allocated in
/// `new`; a step allocates nothing.
#[derive(Clone, Debug)]
pub struct Replica {
    config: Config,
    model: Seq2Seq,
    params: Vec<f32>, // (P,) flat, layout `model.layout`
    grads: Vec<f32>,  // (P,) the gradient of this replica's rows, weighted by their share
    optimizer: Optimizer,
    streams: Streams,
    train_batch: Batch, // (B sequences) the step's batch, the same on every replica
    shard: Shard,
    shard_batch: Batch,  // (hi − lo sequences) this replica's rows, when sharded
    train_ws: Workspace, // sized for the shard
    evaluator: Option<Evaluator>,
    step: u64,
}

impl Replica {
    /// Replica `index` of `count` of a run of `config`, at step 0. With `count == 1` it
    /// trains on whole batches.
    pub fn new(config: Config, index: usize, count: usize) -> Result<Replica, SettingsError> {
        config.validate()?;
        let b = config.batch;
        if count == 0 || count > b {
            return Err(SettingsError::new(
                "workers",
                format!("must be a whole number from 1 to the batch size {b}, got {count}"),
            ));
        }
        if index >= count {
            return Err(SettingsError::new(
                "worker",
                format!("must be below the number of workers {count}, got {index}"),
            ));
        }
        let model = Seq2Seq::new(dims_of(&config), config.attention == AttentionMode::Uniform);
        let (ls, lt, n) = (config.src_len(), config.src_len(), model.layout.len);
        let shard = Shard::new(index, count, b);
        let eval_rows = evaluation_shard(index, count, config.eval_batch);
        let evaluator = (!eval_rows.is_empty()).then(|| Evaluator::new(&model, &config, eval_rows));
        let mut replica = Replica {
            params: vec![0.0; n],
            grads: vec![0.0; n],
            optimizer: Optimizer::new(config.optimizer, config.learning_rate, n),
            streams: Streams::new(&config),
            train_batch: Batch::new(b, config.length),
            shard,
            shard_batch: Batch::new(if count > 1 { shard.len() } else { 0 }, config.length),
            train_ws: model.workspace(shard.len(), ls, lt),
            evaluator,
            step: 0,
            model,
            config,
        };
        replica.start(replica.config.seed);
        Ok(replica)
    }

    /// (Re)initialises everything that depends on the seed, in place: step 0.
    fn start(&mut self, seed: u64) {
        self.config.seed = seed;
        initialise(&self.model.layout, &mut self.params, seed);
        self.optimizer.reset();
        self.streams.start(&self.config);
        self.step = 0;
    }

    /// Starts again from step 0, with the same seed or a new one.
    pub fn reset(&mut self, seed: Option<u64>) {
        self.start(seed.unwrap_or(self.config.seed));
    }

    /// Takes the live fields of `config` from the next step on (`Run::apply_live`).
    pub fn apply_live(&mut self, config: &Config) -> Result<(), SettingsError> {
        let c = self.config.with_live(config)?;
        self.optimizer.learning_rate = c.learning_rate;
        self.config = c;
        Ok(())
    }

    /// Draws the next batch and computes the gradient of the mean loss over this replica's
    /// rows, weighted by its share of the batch, into [`Replica::gradient`]; returns that
    /// loss, weighted the same way. Nothing is updated yet.
    pub fn compute_gradient(&mut self) -> Result<f32, RunError> {
        self.streams.next_batch(&mut self.train_batch);
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
            return Err(RunError::Diverged {
                step: self.step,
                loss,
            });
        }
        self.model
            .backward(&p, &mut self.grads, &mut self.train_ws, batch);
        if !self.grads.iter().all(|g| g.is_finite()) {
            return Err(RunError::Diverged {
                step: self.step,
                loss: f32::NAN,
            });
        }
        let w = self.weight();
        if w != 1.0 {
            self.grads.iter_mut().for_each(|g| *g *= w);
        }
        Ok(w * loss)
    }

    /// This replica's share of each batch's rows: the weight of its gradient and loss.
    pub fn weight(&self) -> f32 {
        self.shard.len() as f32 / self.config.batch as f32
    }

    /// The gradient buffer (P,): this replica's weighted gradient after
    /// [`Replica::compute_gradient`], the sum once the other replicas' are added.
    pub fn gradient(&self) -> &[f32] {
        &self.grads
    }

    pub fn gradient_mut(&mut self) -> &mut [f32] {
        &mut self.grads
    }

    /// Adds another replica's weighted gradient to the gradient buffer ([`accumulate`]).
    pub fn add_gradient(&mut self, part: &[f32]) {
        accumulate(&mut self.grads, part);
    }

    /// Applies the gradient buffer as one optimiser update; returns whether an evaluation
    /// is due at the new step (a multiple of `eval_every`).
    pub fn apply(&mut self) -> bool {
        self.optimizer.update(&mut self.params, &self.grads);
        self.step += 1;
        self.step.is_multiple_of(self.config.eval_every as u64)
    }

    /// A replica other than the run's: applies the replicas' summed gradient `sum`, and
    /// returns its part of the evaluation when one is due.
    pub fn apply_sum(&mut self, sum: &[f32]) -> Option<EvaluationPart<'_>> {
        self.grads.copy_from_slice(sum);
        if self.apply() {
            self.evaluate_rows()
        } else {
            None
        }
    }

    /// Evaluates this replica's rows of the evaluation batch (none: `None`).
    pub fn evaluate_rows(&mut self) -> Option<EvaluationPart<'_>> {
        let e = self.evaluator.as_mut()?;
        Some(e.evaluate(
            &self.model,
            &self.params,
            &self.streams.eval_batch,
            self.step,
        ))
    }

    /// Replaces the parameters with saved ones as the state after `step` updates; the
    /// optimiser's moments and the batch stream start afresh. A buffer of another length or
    /// with a non-finite value changes nothing.
    pub fn load_params(&mut self, params: &[f32], step: u64) -> Result<(), RunError> {
        check_weights(self.params.len(), params)?;
        self.params.copy_from_slice(params);
        self.optimizer.reset();
        self.streams.restart_training(self.config.seed);
        self.step = step;
        Ok(())
    }

    /// The training batch of its latest step (B sequences, the whole batch on every
    /// replica).
    pub fn train_batch(&self) -> &Batch {
        &self.train_batch
    }

    /// Its state, into `out` (of its parameters' size): allocates nothing.
    pub fn save(&self, out: &mut Checkpoint) {
        out.step = self.step;
        out.updates = self.optimizer.t;
        out.params.copy_from_slice(&self.params);
        out.streams.follow(&self.streams);
        // SGD keeps no moments: theirs are zero.
        let (om, ov) = self.optimizer.moments();
        for (out, kept) in [(&mut out.m, om), (&mut out.v, ov)] {
            let (have, none) = out.split_at_mut(kept.len());
            have.copy_from_slice(kept);
            none.fill(0.0);
        }
    }

    /// Goes on from `c` (a checkpoint of a run of its settings): refused with kind
    /// `weights`, changing nothing, where its sizes or values are not a run's.
    pub fn resume(&mut self, c: &Checkpoint) -> Result<(), RunError> {
        let p = self.params.len();
        check_weights(p, &c.params)?;
        if c.m.len() != p || c.v.len() != p || c.m.iter().chain(&c.v).any(|x| !x.is_finite()) {
            return Err(RunError::Weights(format!(
                "the optimiser's moments must be {p} finite numbers each"
            )));
        }
        self.params.copy_from_slice(&c.params);
        self.optimizer.t = c.updates;
        let (m, v) = self.optimizer.moments_mut();
        let n = m.len();
        m.copy_from_slice(&c.m[..n]);
        v.copy_from_slice(&c.v[..n]);
        self.streams.follow(&c.streams);
        self.step = c.step;
        Ok(())
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    pub fn model(&self) -> &Seq2Seq {
        &self.model
    }

    /// The flat parameter buffer (layout `model().layout`).
    pub fn params(&self) -> &[f32] {
        &self.params
    }

    pub fn shard(&self) -> Shard {
        self.shard
    }

    /// Updates applied so far.
    pub fn step_count(&self) -> u64 {
        self.step
    }

    /// The fixed evaluation batch (its tokens label the heatmaps' axes).
    pub fn eval_batch(&self) -> &Batch {
        &self.streams.eval_batch
    }
}
