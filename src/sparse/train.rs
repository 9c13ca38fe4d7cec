//! One training run of the sparse lab: the model's parameters and Adam, mini-batches drawn
//! in a fresh order each pass over the fixed training set, and the evaluations (train and
//! test loss and accuracy, the attention on the hidden positions) in bounded memory.
//! Everything is allocated in `new`; a step allocates nothing.

use super::config::{DecayScope, SparseConfig, MAX_HEADS, MAX_LENGTH};
use super::model::{position_codes, Dims, SparseModel, Workspace};
use super::task::SparseTask;
use crate::optim::{Optimizer, OptimizerKind};
use crate::params::ParamLayout;
use crate::rng::Rng;
use crate::run::{check_weights, Metrics, Run, RunError, DIVERGED_FACTOR};
use crate::run::{HISTORY_RECENT, HISTORY_THINNED, LOSSES_RECENT, LOSSES_THINNED};
use crate::series::Series;
use crate::settings::{Settings, SettingsError};

/// Random stream of the initialisation, and of the order of the training samples.
const STREAM_INIT: u64 = 0;
const STREAM_ORDER: u64 = 3;
/// Inputs per forward pass of an evaluation.
const EVAL_CHUNK: usize = 256;
/// Slots of the series of the attention over the positions at each evaluation (a row of up to
/// `MAX_LENGTH` values each: the picture of attention over training).
pub const PICTURE_THINNED: usize = 128;
pub const PICTURE_RECENT: usize = 64;
/// Test inputs whose own attention the run keeps at each evaluation (to show one).
pub const EXAMPLES: usize = 16;

/// The attention over the positions at one evaluation, averaged over the test set and the
/// heads (the first `T` entries).
pub type AttentionRow = [f32; MAX_LENGTH];

/// What an evaluation measures, at one step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SparseEvaluation {
    pub step: u64,
    /// Mean logistic loss and accuracy on the whole training set.
    pub train_loss: f32,
    pub train_accuracy: f32,
    /// The same on the test set.
    pub test_loss: f32,
    pub test_accuracy: f32,
    /// The attention's mass on the hidden positions, averaged over the test set and the
    /// heads; and of each head (the first `K` entries).
    pub mass: f32,
    pub head_mass: [f32; MAX_HEADS],
    /// Whether the `s` positions with the most attention (averaged over the test set and
    /// the heads) are the hidden ones.
    pub found: bool,
}

impl SparseEvaluation {
    /// The metrics' names, as the page's history columns are called.
    pub const METRICS: [&'static str; 6] = [
        "train_loss",
        "train_accuracy",
        "test_loss",
        "test_accuracy",
        "mass",
        "found",
    ];

    /// Every metric, in the order of [`SparseEvaluation::METRICS`] (`found` as 1 or 0).
    pub fn metrics(&self) -> [f32; 6] {
        [
            self.train_loss,
            self.train_accuracy,
            self.test_loss,
            self.test_accuracy,
            self.mass,
            f32::from(u8::from(self.found)),
        ]
    }
}

/// A sum over inputs of an evaluation's loss and hits.
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    loss: f64,
    hits: usize,
}

#[derive(Clone, Debug)]
pub struct SparseTrainer {
    config: SparseConfig,
    task: SparseTask,
    model: SparseModel,
    params: Vec<f32>, // (P,) flat, layout `model.ranges`
    grads: Vec<f32>,  // (P,)
    optimizer: Optimizer,
    ws: Workspace,      // batch B
    eval_ws: Workspace, // batch EVAL_CHUNK
    order: Vec<usize>,  // (m,) the training samples in this pass's order
    cursor: usize,      // the next batch starts at order[cursor]
    order_rng: Rng,
    batch_bits: Vec<u8>,    // (B, T)
    batch_labels: Vec<f32>, // (B,)
    attention: Vec<f32>,    // (K, T) each head's attention averaged over the test set
    examples: Vec<f32>,     // (E, K, T) the attention of the first E test inputs
    step: u64,
    last_loss: f32,
    losses: Series<f32>,
    history: Series<SparseEvaluation>,
    picture: Series<AttentionRow>,
}

impl SparseTrainer {
    pub fn new(config: SparseConfig) -> Result<SparseTrainer, SettingsError> {
        config.validate()?;
        let dims = Dims {
            length: config.length,
            width: config.width,
            heads: config.heads,
            mlp: config.mlp,
        };
        let model = SparseModel::new(dims);
        let task = SparseTask::new(&config);
        let batch = config.batch.min(config.samples);
        let r = &model.ranges;
        let mut decayed = vec![
            r.query.clone(),
            r.w_key.clone(),
            r.w_value.clone(),
            r.w_hidden.clone(),
            r.w_out.clone(),
        ];
        if config.decay_scope == DecayScope::All {
            decayed.push(r.bit_embedding.clone());
            // Fixed position codes are not parameters: they stay as they were set.
            if !config.positions.fixed() {
                decayed.push(r.position_embedding.clone());
            }
        }
        let optimizer = Optimizer::new(OptimizerKind::Adam, config.learning_rate, model.len)
            .with_decay(config.weight_decay, decayed);
        let mut t = SparseTrainer {
            params: vec![0.0; model.len],
            grads: vec![0.0; model.len],
            optimizer,
            ws: model.workspace(batch),
            eval_ws: model.workspace(EVAL_CHUNK),
            order: (0..config.samples).collect(),
            cursor: 0,
            order_rng: Rng::new(config.seed, STREAM_ORDER),
            batch_bits: vec![0; batch * config.length],
            batch_labels: vec![0.0; batch],
            attention: vec![0.0; config.heads * config.length],
            examples: vec![0.0; config.test_samples.min(EXAMPLES) * config.heads * config.length],
            step: 0,
            last_loss: f32::NAN,
            losses: Series::new(LOSSES_THINNED, LOSSES_RECENT),
            history: Series::new(HISTORY_THINNED, HISTORY_RECENT),
            picture: Series::new(PICTURE_THINNED, PICTURE_RECENT),
            model,
            task,
            config,
        };
        t.reset(None);
        Ok(t)
    }

    /// Goes on from the current parameters as the state after `step` updates: the optimiser,
    /// the batches' order and the series start afresh, with an evaluation.
    fn restart(&mut self, step: u64) {
        self.optimizer.reset();
        self.order_rng = Rng::new(self.config.seed, STREAM_ORDER);
        self.order.iter_mut().enumerate().for_each(|(i, x)| *x = i);
        self.cursor = self.order.len();
        self.step = step;
        self.last_loss = f32::NAN;
        self.losses.clear();
        self.history.clear();
        self.picture.clear();
        self.evaluate();
    }

    /// Whether the `s` positions of most attention (over heads) are the hidden set.
    fn found(&self) -> bool {
        let (t, k) = (self.config.length, self.config.heads);
        let mean = |pos: usize| (0..k).map(|h| self.attention[h * t + pos]).sum::<f32>();
        // Found iff every hidden position has more attention than every other one.
        let least_hidden = self
            .task
            .hidden
            .iter()
            .map(|&p| mean(p))
            .fold(f32::INFINITY, f32::min);
        (0..t)
            .filter(|p| !self.task.hidden.contains(p))
            .all(|p| mean(p) < least_hidden)
    }

    pub fn task(&self) -> &SparseTask {
        &self.task
    }

    pub fn model(&self) -> &SparseModel {
        &self.model
    }

    /// Each head's attention over the positions (K, T), averaged over the test set, as of
    /// the last evaluation.
    pub fn attention(&self) -> &[f32] {
        &self.attention
    }

    /// The attention (K, T) of test input `i` < [`SparseTrainer::examples`], as of the last
    /// evaluation.
    pub fn example_attention(&self, i: usize) -> &[f32] {
        let kt = self.config.heads * self.config.length;
        &self.examples[i * kt..(i + 1) * kt]
    }

    /// How many test inputs' attention the run keeps.
    pub fn examples(&self) -> usize {
        self.config.test_samples.min(EXAMPLES)
    }

    /// The attention over the positions at each evaluation, averaged over the test set and
    /// the heads: the picture of attention over training (every row of the latest
    /// evaluations, a thinned record of the rest).
    pub fn picture(&self) -> &Series<AttentionRow> {
        &self.picture
    }
}

impl Run for SparseTrainer {
    type Config = SparseConfig;
    type Evaluation = SparseEvaluation;

    fn config(&self) -> &SparseConfig {
        &self.config
    }

    /// One step: the next mini-batch of the training set, its gradient, one Adam update;
    /// evaluates when the step count reaches a multiple of `eval_every`. Returns the batch's
    /// loss; a loss that is not finite or above [`DIVERGED_FACTOR`] × chance (ln 2), or a
    /// gradient that is not finite, is a divergence: the parameters are left as they were.
    fn step(&mut self) -> Result<f32, RunError> {
        let (t, b) = (self.config.length, self.ws.batch);
        if self.cursor + b > self.order.len() {
            self.order_rng.shuffle(&mut self.order);
            self.cursor = 0;
        }
        for (j, &i) in self.order[self.cursor..self.cursor + b].iter().enumerate() {
            self.batch_bits[j * t..(j + 1) * t].copy_from_slice(self.task.train.input(i));
            self.batch_labels[j] = self.task.train.labels[i];
        }
        self.cursor += b;
        let loss = self.model.gradient(
            &self.params,
            &mut self.grads,
            &mut self.ws,
            &self.batch_bits,
            &self.batch_labels,
        );
        let chance = std::f32::consts::LN_2;
        let sane = loss.is_finite() && loss <= DIVERGED_FACTOR * chance;
        if !sane || self.grads.iter().any(|g| !g.is_finite()) {
            return Err(RunError::Diverged {
                step: self.step,
                loss,
            });
        }
        if self.config.positions.fixed() {
            let fixed = self.model.ranges.position_embedding.clone();
            self.grads[fixed].fill(0.0);
        }
        self.optimizer.update(&mut self.params, &self.grads);
        self.step += 1;
        self.last_loss = loss;
        self.losses.push(self.step, loss);
        if self.step.is_multiple_of(self.config.eval_every as u64) {
            self.evaluate();
        }
        Ok(loss)
    }

    /// Evaluates the current parameters on the whole training and test sets now.
    fn evaluate(&mut self) -> SparseEvaluation {
        let (t, k) = (self.config.length, self.config.heads);
        let p = self.model.split(&self.params);
        let ws = &mut self.eval_ws;
        self.model.tables(&p, ws);
        let examples = &mut self.examples;
        let mut tally = |set: &super::task::Samples, attention: Option<&mut Vec<f32>>| {
            let mut sum = Tally::default();
            let mut attention = attention;
            if let Some(a) = attention.as_deref_mut() {
                a.fill(0.0);
            }
            for lo in (0..set.len).step_by(EVAL_CHUNK) {
                let n = EVAL_CHUNK.min(set.len - lo);
                self.model
                    .forward(&p, ws, &set.bits[lo * t..(lo + n) * t], n);
                for (&z, &y) in ws.logit[..n].iter().zip(&set.labels[lo..lo + n]) {
                    sum.loss += f64::from(super::model::logistic_loss(z, y));
                    sum.hits += usize::from((z > 0.0) == (y == 1.0));
                }
                if let Some(a) = attention.as_deref_mut() {
                    if lo == 0 {
                        let e = examples.len();
                        examples.copy_from_slice(&ws.alpha[..e]);
                    }
                    for per_input in ws.alpha[..n * k * t].chunks_exact(k * t) {
                        a.iter_mut().zip(per_input).for_each(|(x, v)| *x += v);
                    }
                }
            }
            if let Some(a) = attention {
                let inv = 1.0 / set.len as f32;
                a.iter_mut().for_each(|x| *x *= inv);
            }
            let n = set.len as f64;
            ((sum.loss / n) as f32, (sum.hits as f64 / n) as f32)
        };
        let (train_loss, train_accuracy) = tally(&self.task.train, None);
        let (test_loss, test_accuracy) = tally(&self.task.test, Some(&mut self.attention));
        let hidden = &self.task.hidden;
        let mut head_mass = [0.0; MAX_HEADS];
        for (h, mass) in head_mass.iter_mut().take(k).enumerate() {
            *mass = hidden.iter().map(|&pos| self.attention[h * t + pos]).sum();
        }
        let mass = head_mass[..k].iter().sum::<f32>() / k as f32;
        let evaluation = SparseEvaluation {
            step: self.step,
            train_loss,
            train_accuracy,
            test_loss,
            test_accuracy,
            mass,
            head_mass,
            found: self.found(),
        };
        self.history.record(self.step, evaluation);
        let mut row = [0.0; MAX_LENGTH];
        for (pos, x) in row.iter_mut().take(t).enumerate() {
            *x = (0..k).map(|h| self.attention[h * t + pos]).sum::<f32>() / k as f32;
        }
        self.picture.record(self.step, row);
        evaluation
    }

    /// Starts the run again from step 0, with the same seed or a new one (a new seed draws
    /// a new task too).
    fn reset(&mut self, seed: Option<u64>) {
        if let Some(seed) = seed.filter(|&s| s != self.config.seed) {
            self.config.seed = seed;
            self.task = SparseTask::new(&self.config);
        }
        let mut rng = Rng::new(self.config.seed, STREAM_INIT);
        self.model.initialise(&mut self.params, &mut rng);
        let codes = self.model.ranges.position_embedding.clone();
        position_codes(
            self.config.positions,
            self.config.width,
            &mut self.params[codes],
        );
        self.restart(0);
    }

    fn apply_live(&mut self, config: &SparseConfig) -> Result<(), RunError> {
        let c = self.config.with_live(config)?;
        self.optimizer.learning_rate = c.learning_rate;
        self.config = c;
        Ok(())
    }

    /// The flat parameter buffer (layout `model().ranges`).
    fn params(&mut self) -> &[f32] {
        &self.params
    }

    /// Saved weights: the optimiser's moments and the batches' order start afresh.
    fn load_params(&mut self, params: &[f32], step: u64) -> Result<(), RunError> {
        check_weights(self.params.len(), params)?;
        self.params.copy_from_slice(params);
        self.restart(step);
        Ok(())
    }

    fn history(&self) -> &Series<SparseEvaluation> {
        &self.history
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

impl Metrics for SparseEvaluation {
    const NAMES: &'static [&'static str] = &SparseEvaluation::METRICS;
    const BY_HEAD: Option<&'static str> = Some("mass");

    fn metric(&self, i: usize) -> f32 {
        self.metrics()[i]
    }

    fn by_head(&self, k: usize) -> f32 {
        self.head_mass[k]
    }
}
