//! One training run of the copying lab, as a UI drives it one step at a time: the run's
//! replica (the only one, or the leader of a data-parallel run, `parallel.rs`), the
//! evaluation maps `α` and `β` of the fixed evaluation batch gathered from the replicas'
//! parts, and the run's series of training losses and evaluations in bounded memory
//! (`series.rs`). Everything is allocated in `new`; a step allocates nothing.

use super::config::Config;
use super::metrics::mean_over_heads;
use super::model::Seq2Seq;
use super::parallel::{evaluation_shard, EvaluationPart, Evaluator, Replica, Shard};
use super::streams::Checkpoint;
use super::tasks::Batch;
use crate::placement::{self, Placement, RunMaker};
use crate::run::{Run, RunError, HISTORY_RECENT, HISTORY_THINNED};
use crate::run::{LOSSES_RECENT, LOSSES_THINNED};
use crate::series::Series;
use crate::settings::SettingsError;
use ndarray::{s, Array3, Array4};

pub use super::metrics::Evaluation;
pub use super::streams::check_params;

/// A run's evaluations: the latest maps of the whole evaluation batch, the evaluation
/// being gathered from the replicas' parts, and the series of them all. Every backend
/// keeps its run's evaluations here.
pub(crate) struct Evaluations {
    alpha: Array4<f32>, // (K, Be, Lt, Ls) attention of each head on the evaluation batch
    alpha_mean: Array3<f32>, // (Be, Lt, Ls)
    beta: Array3<f32>,  // (Be, Lt, Ls) KTIW probe
    /// The due evaluation: the weighted sum of its parts' metrics so far, and how many
    /// parts are still to come.
    gathering: Option<(Evaluation, usize)>,
    history: Series<Evaluation>, // by step
}

impl Evaluations {
    /// No evaluation yet, for maps of `config`'s shape.
    pub(crate) fn new(config: &Config) -> Evaluations {
        let (k, be, l) = (config.heads, config.eval_batch, config.src_len());
        Evaluations {
            alpha: Array4::zeros((k, be, l, l)),
            alpha_mean: Array3::zeros((be, l, l)),
            beta: Array3::zeros((be, l, l)),
            gathering: None,
            history: Series::new(HISTORY_THINNED, HISTORY_RECENT),
        }
    }

    /// Records the evaluation of the whole batch in one part.
    pub(crate) fn record(&mut self, part: &EvaluationPart) {
        self.expect(part.evaluation.step, 1);
        self.add(part);
    }

    pub(crate) fn history(&self) -> &Series<Evaluation> {
        &self.history
    }

    pub(crate) fn clear(&mut self) {
        self.gathering = None;
        self.history.clear();
    }

    /// Takes `history`'s evaluations up to `step` as its own (a run that goes on here from
    /// another trainer's checkpoint).
    fn adopt(&mut self, history: &Series<Evaluation>, step: u64) {
        self.gathering = None;
        self.history.copy_from(history);
        self.history.truncate(step);
    }

    /// `α` (Lt, Ls) of evaluation sequence `seq`: of one head, or averaged over heads.
    pub(crate) fn attention(&self, seq: usize, head: Option<usize>) -> &[f32] {
        let m = match head {
            Some(k) => self.alpha.slice(s![k, seq, .., ..]),
            None => self.alpha_mean.slice(s![seq, .., ..]),
        };
        m.to_slice().expect("a sequence's map is contiguous")
    }

    /// KTIW `β` (Lt, Ls) of evaluation sequence `seq`.
    pub(crate) fn ktiw(&self, seq: usize) -> &[f32] {
        self.beta
            .slice(s![seq, .., ..])
            .to_slice()
            .expect("a sequence's map is contiguous")
    }

    /// `α` averaged over heads (Be, Lt, Ls) and `β` (Be, Lt, Ls) of the whole batch.
    pub(crate) fn maps(&self) -> (&[f32], &[f32]) {
        let contiguous = "the evaluation maps are contiguous";
        (
            self.alpha_mean.as_slice().expect(contiguous),
            self.beta.as_slice().expect(contiguous),
        )
    }

    /// Starts gathering the evaluation of `step` from `parts` parts.
    fn expect(&mut self, step: u64, parts: usize) {
        let sum = Evaluation {
            step,
            ..Evaluation::default()
        };
        self.gathering = Some((sum, parts));
    }

    /// Whether `part` is one of the due evaluation's, of the maps' shape.
    fn fits(&self, part: &EvaluationPart) -> bool {
        let (k, be, l) = (self.alpha.dim().0, self.beta.dim().0, self.beta.dim().1);
        let rows = part.hi.saturating_sub(part.lo);
        self.gathering
            .is_some_and(|(sum, missing)| sum.step == part.evaluation.step && missing > 0)
            && part.hi <= be
            && rows > 0
            && part.alpha.len() == k * rows * l * l
            && part.beta.len() == rows * l * l
    }

    /// Places a part's maps into the whole batch's and adds its metrics, weighted by its
    /// rows; records the evaluation once no part is missing.
    fn add(&mut self, part: &EvaluationPart) {
        let (k, be, l) = (self.alpha.dim().0, self.beta.dim().0, self.beta.dim().1);
        let (lo, hi) = (part.lo, part.hi);
        // Rows lo..hi of one head's α, and of β, lie together: each is one slice copy.
        for (head, a) in part.alpha.chunks_exact((hi - lo) * l * l).enumerate() {
            let mut dst = self.alpha.slice_mut(s![head, lo..hi, .., ..]);
            dst.as_slice_mut()
                .expect("a head's rows are contiguous")
                .copy_from_slice(a);
        }
        let mut beta = self.beta.slice_mut(s![lo..hi, .., ..]);
        beta.as_slice_mut()
            .expect("rows are contiguous")
            .copy_from_slice(part.beta);
        let mut mean = self.alpha_mean.slice_mut(s![lo..hi, .., ..]);
        mean_over_heads(
            part.alpha,
            k,
            mean.as_slice_mut().expect("rows are contiguous"),
        );
        let (sum, missing) = self.gathering.as_mut().expect("an evaluation is due");
        sum.add_scaled(&part.evaluation, (hi - lo) as f32 / be as f32);
        *missing -= 1;
        if *missing == 0 {
            let e = *sum;
            self.gathering = None;
            self.history.record(e.step, e);
        }
    }
}

pub struct Trainer {
    replica: Replica,
    /// Evaluates the whole evaluation batch at once (a new run, a reset, loaded weights)
    /// where the replica evaluates only its share: a data-parallel run's leader.
    full_batch: Option<Evaluator>,
    /// Replicas of this run that evaluate a share of the evaluation batch.
    evaluating: usize,
    evaluations: Evaluations,
    /// The weighted training loss of the step being reduced.
    pending_loss: f32,
    last_loss: f32,
    losses: Series<f32>, // training loss of each update, by the step it made
}

impl Trainer {
    /// A fresh run of `config` on one worker, evaluated once at step 0.
    pub fn new(config: Config) -> Result<Trainer, SettingsError> {
        Trainer::leader(config, 1)
    }

    /// A fresh run of `config` whose batches `count` replicas share: this trainer is
    /// replica 0 (see `parallel.rs`); the others are [`Replica`]s `1..count`.
    pub fn leader(config: Config, count: usize) -> Result<Trainer, SettingsError> {
        let mut trainer = Trainer::unevaluated(config, count)?;
        trainer.restart();
        Ok(trainer)
    }

    /// The trainer of `leader`, its series empty and nothing evaluated yet.
    fn unevaluated(config: Config, count: usize) -> Result<Trainer, SettingsError> {
        let replica = Replica::new(config.clone(), 0, count)?;
        let full_batch = (count > 1).then(|| {
            let all = Shard::new(0, 1, config.eval_batch);
            Evaluator::new(replica.model(), &config, all)
        });
        let evaluating = (0..count)
            .filter(|&i| !evaluation_shard(i, count, config.eval_batch).is_empty())
            .count();
        Ok(Trainer {
            evaluations: Evaluations::new(&config),
            replica,
            full_batch,
            evaluating,
            pending_loss: 0.0,
            last_loss: f32::NAN,
            losses: Series::new(LOSSES_THINNED, LOSSES_RECENT),
        })
    }

    /// A run of `config` (on one worker) that goes on from checkpoint `c` of another trainer
    /// of the same run, with that run's evaluations and losses up to the checkpoint's step:
    /// it trains on as the other would have (the same batches, weights and optimiser
    /// state). The checkpoint's step is evaluated again, here. Refused (kind `weights`)
    /// where the checkpoint is not of a run of these settings.
    pub fn resume(
        config: Config,
        c: &Checkpoint,
        history: &Series<Evaluation>,
        losses: &Series<f32>,
    ) -> Result<Trainer, RunError> {
        let mut t = Trainer::unevaluated(config, 1)?;
        t.replica.resume(c)?;
        t.evaluations.adopt(history, c.step);
        t.losses.copy_from(losses);
        t.losses.truncate(c.step);
        t.last_loss = t.losses.last().map_or(f32::NAN, |(_, l)| l);
        t.evaluate();
        Ok(t)
    }

    /// Its state after the last update, into `out` (of its parameters' size), from which
    /// `Trainer::resume` goes on.
    pub fn save(&self, out: &mut Checkpoint) {
        self.replica.save(out);
    }

    /// The run starts over from the replica's current step: the series are cleared and the
    /// whole evaluation batch is evaluated.
    fn restart(&mut self) {
        self.last_loss = f32::NAN;
        self.evaluations.clear();
        self.losses.clear();
        self.evaluate();
    }

    /// The first part of a data-parallel step: draws the batch and computes this replica's
    /// weighted gradient and loss (the start of their sums).
    pub fn compute_gradient(&mut self) -> Result<f32, RunError> {
        let loss = self.replica.compute_gradient()?;
        self.pending_loss = loss;
        Ok(loss)
    }

    /// Adds another replica's weighted gradient and loss to the sums.
    pub fn add_gradient(&mut self, part: &[f32], loss: f32) {
        self.replica.add_gradient(part);
        self.pending_loss += loss;
    }

    /// The gradient buffer: after [`Trainer::add_gradient`] of every other replica, the sum
    /// that every replica applies.
    pub fn gradient(&self) -> &[f32] {
        self.replica.gradient()
    }

    /// Applies the summed gradient as one update and records the step's loss. When an
    /// evaluation is due this replica evaluates its rows; the other replicas' parts follow
    /// through [`Trainer::add_evaluation_part`] ([`Trainer::evaluation_pending`] until then).
    pub fn apply(&mut self) {
        let due = self.replica.apply();
        let step = self.replica.step_count();
        self.last_loss = self.pending_loss;
        self.losses.push(step, self.pending_loss);
        if !due {
            return;
        }
        self.evaluations.expect(step, self.evaluating);
        if let Some(part) = self.replica.evaluate_rows() {
            self.evaluations.add(&part);
        }
    }

    /// Whether an evaluation waits for the other replicas' parts.
    pub fn evaluation_pending(&self) -> bool {
        self.evaluations.gathering.is_some()
    }

    /// Adds another replica's part of the due evaluation; with the last one the evaluation
    /// is recorded. A part of another step or shape is refused.
    pub fn add_evaluation_part(&mut self, part: &EvaluationPart) -> Result<(), RunError> {
        if !self.evaluations.fits(part) {
            return Err(RunError::Internal(format!(
                "an evaluation part that does not fit: step {}, rows {}..{}",
                part.evaluation.step, part.lo, part.hi
            )));
        }
        self.evaluations.add(part);
        Ok(())
    }

    pub fn model(&self) -> &Seq2Seq {
        self.replica.model()
    }

    /// The flat parameter buffer (layout `model().layout`), at hand on the CPU without the
    /// `&mut` that [`Run::params`] asks of every backend.
    pub fn weights(&self) -> &[f32] {
        self.replica.params()
    }

    /// The training batch of the latest step.
    pub fn train_batch(&self) -> &Batch {
        self.replica.train_batch()
    }

    /// The replica of this run that this trainer is (its shard of each batch).
    pub fn shard(&self) -> Shard {
        self.replica.shard()
    }
}

/// What a run of the copying lab shows of its last evaluation, whatever trains it: the fixed
/// evaluation batch and its maps. The facade draws a copying run from these and `Run`; a
/// second backend of the lab implements both.
pub trait EvaluationMaps {
    /// The fixed evaluation batch (its tokens label the heatmaps' axes).
    fn eval_batch(&self) -> &Batch;
    /// `α` (Lt, Ls) of evaluation sequence `seq`: of one head, or averaged over heads.
    fn attention(&self, seq: usize, head: Option<usize>) -> &[f32];
    /// KTIW `β` (Lt, Ls) of evaluation sequence `seq`.
    fn ktiw(&self, seq: usize) -> &[f32];
    /// `α` averaged over heads (Be, Lt, Ls) and `β` (Be, Lt, Ls) of the whole batch.
    fn evaluation_maps(&self) -> (&[f32], &[f32]);
}

/// A copying run on any backend, as the tools drive it: `Run` and the evaluation's maps.
pub trait CopyingRun: Run<Config = Config, Evaluation = Evaluation> + EvaluationMaps {}
impl<R: Run<Config = Config, Evaluation = Evaluation> + EvaluationMaps> CopyingRun for R {}

/// The copying lab's CPU backend for the tools: a `Trainer` on one worker.
pub struct OnCpu;

impl RunMaker<dyn CopyingRun> for OnCpu {
    fn placement(&self) -> Placement {
        Placement::on(placement::CPU)
    }

    fn describe(&self) -> String {
        "the CPU".to_string()
    }

    fn make(&self, config: Config) -> Result<Box<dyn CopyingRun>, RunError> {
        Ok(Box::new(Trainer::new(config)?))
    }
}

impl EvaluationMaps for Trainer {
    fn eval_batch(&self) -> &Batch {
        self.replica.eval_batch()
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

impl Run for Trainer {
    type Config = Config;
    type Evaluation = Evaluation;

    fn config(&self) -> &Config {
        self.replica.config()
    }

    /// One training step on a fresh batch, for a run on one worker (a data-parallel run
    /// steps through `compute_gradient`, `add_gradient` and `apply`).
    fn step(&mut self) -> Result<f32, RunError> {
        assert_eq!(
            self.replica.shard().count,
            1,
            "a data-parallel run steps through compute_gradient, add_gradient and apply"
        );
        let loss = self.compute_gradient()?;
        self.apply();
        Ok(loss)
    }

    /// Evaluates the whole evaluation batch now.
    fn evaluate(&mut self) -> Evaluation {
        let step = self.replica.step_count();
        let part = match self.full_batch.as_mut() {
            Some(w) => {
                let r = &self.replica;
                Some(w.evaluate(r.model(), r.params(), r.eval_batch(), step))
            }
            None => self.replica.evaluate_rows(),
        };
        self.evaluations
            .record(&part.expect("one evaluator evaluates every row"));
        *self.latest()
    }

    fn reset(&mut self, seed: Option<u64>) {
        self.replica.reset(seed);
        self.restart();
    }

    fn apply_live(&mut self, config: &Config) -> Result<(), RunError> {
        Ok(self.replica.apply_live(config)?)
    }

    /// The flat parameter buffer (layout `model().layout`).
    fn params(&mut self) -> &[f32] {
        self.replica.params()
    }

    /// Saved weights (a trained model shown without retraining): the optimizer's moments
    /// and the training batches start afresh (the saved weights do not hold them), so
    /// training on from here is not the original run's continuation.
    fn load_params(&mut self, params: &[f32], step: u64) -> Result<(), RunError> {
        self.replica.load_params(params, step)?;
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
        self.replica.step_count()
    }

    fn last_loss(&self) -> f32 {
        self.last_loss
    }

    fn heads(&self) -> usize {
        self.config().heads
    }
}
