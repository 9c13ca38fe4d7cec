//! What a training run is to whatever drives it (the wasm facade, the native tools), for
//! every lab and every backend: the `Run` trait (a step, an evaluation, a reset, the
//! live settings, the flat parameters, the series of losses and evaluations), the metrics
//! an evaluation names (`Metrics`), and the one error type a run refuses with (`RunError`,
//! with its kind). How a lab's model steps is the lab's.

use crate::series::Series;
use crate::settings::{Settings, SettingsError};
use std::fmt;

/// Slots of a run's training-loss series: the thinned record of the whole run, and every
/// loss of the latest steps.
pub const LOSSES_THINNED: usize = 4096;
pub const LOSSES_RECENT: usize = 1024;
/// The same for its evaluations (one every `eval_every` steps).
pub const HISTORY_THINNED: usize = 2048;
pub const HISTORY_RECENT: usize = 512;

/// A loss above this many times chance level (the loss of a uniform guess) means the run
/// has diverged: with bounded gradients the weights grow without ever reaching NaN, so
/// waiting for a NaN would wait for ever.
pub const DIVERGED_FACTOR: f32 = 10.0;

/// One training run of a lab, on one backend, as a UI or a tool drives it one step at a
/// time. Everything a run needs is allocated when it is made; a step allocates nothing.
pub trait Run {
    type Config: Settings;
    type Evaluation: Metrics;

    /// The run's settings as it has them (the live fields as last applied).
    fn config(&self) -> &Self::Config;
    /// One training step; evaluates when the step count reaches a multiple of the
    /// settings' evaluation interval. Returns the step's training loss; a divergence
    /// ([`RunError::Diverged`]) leaves the parameters as they were.
    fn step(&mut self) -> Result<f32, RunError>;
    /// Evaluates the current parameters now (replacing an evaluation of the same step).
    fn evaluate(&mut self) -> Self::Evaluation;
    /// Starts again from step 0, with the same seed or `seed`.
    fn reset(&mut self, seed: Option<u64>);
    /// Takes the fields of `config` that its settings mark `live` from the next step on (the
    /// run goes on; its other fields stay the run's). Settings that the result would not
    /// validate are refused ([`RunError::Setting`]) and change nothing.
    fn apply_live(&mut self, config: &Self::Config) -> Result<(), RunError>;
    /// The flat parameter buffer (P,) as of the last update (a backend whose parameters
    /// live elsewhere, such as on a GPU, copies them here first).
    fn params(&mut self) -> &[f32];
    /// Replaces the parameters with saved ones as the state after `step` updates; the
    /// series restart with an evaluation of them, the optimiser and the batches start
    /// afresh. Weights of another length or with a non-finite value are refused
    /// ([`RunError::Weights`]) and change nothing.
    fn load_params(&mut self, params: &[f32], step: u64) -> Result<(), RunError>;
    /// The evaluations of the run, oldest first (every one of the latest, an evenly
    /// thinned record of the rest).
    fn history(&self) -> &Series<Self::Evaluation>;
    /// The training loss of every update by the step it made (resolution as `history`).
    fn losses(&self) -> &Series<f32>;
    /// Updates applied so far.
    fn step_count(&self) -> u64;
    /// Training loss of the last update (NaN before the first).
    fn last_loss(&self) -> f32;
    /// The model's attention heads.
    fn heads(&self) -> usize;

    /// The latest evaluation (a run is evaluated when it starts).
    fn latest(&self) -> &Self::Evaluation {
        self.history().last_value().expect("evaluated at start")
    }
}

/// What an evaluation measures, by name: the columns of a run's history.
pub trait Metrics: Copy {
    /// The metrics' names, in order.
    const NAMES: &'static [&'static str];
    /// The metric measured per head, if any (the history then has a column `NAME_hK` for
    /// each head `K` from 1, with several heads).
    const BY_HEAD: Option<&'static str> = None;
    /// Metric `i` of [`Metrics::NAMES`] (a yes or no as 1 or 0).
    fn metric(&self, i: usize) -> f32;
    /// The per-head metric of head `k` (from 0).
    fn by_head(&self, _k: usize) -> f32 {
        f32::NAN
    }
}

/// Why a run refused a call: its kind (what the page does about it) and its message.
#[derive(Clone, Debug, PartialEq)]
pub enum RunError {
    /// The loss is NaN, infinite or above [`DIVERGED_FACTOR`] × chance, or a gradient is not
    /// finite; the parameters were left as they were.
    Diverged { step: u64, loss: f32 },
    /// Weights that this model cannot take (their count, a value).
    Weights(String),
    /// A setting out of its range, or settings that do not go together.
    Setting(SettingsError),
    /// The backend asked for cannot run here (no GPU adapter, a device refused or lost).
    Backend(String),
    /// Something that should not happen (parts of a data-parallel step that do not fit).
    Internal(String),
}

impl RunError {
    /// Its kind as the page names it: `diverged`, `weights`, `setting`, `backend` or
    /// `internal`.
    pub fn kind(&self) -> &'static str {
        match self {
            RunError::Diverged { .. } => "diverged",
            RunError::Weights(_) => "weights",
            RunError::Setting(_) => "setting",
            RunError::Backend(_) => "backend",
            RunError::Internal(_) => "internal",
        }
    }

    /// The setting refused, for a refusal of one.
    pub fn field(&self) -> Option<&str> {
        match self {
            RunError::Setting(e) => Some(&e.field),
            _ => None,
        }
    }
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Diverged { step, loss } => write!(
                f,
                "training diverged at step {step} (loss {loss}): lower the learning rate and reset"
            ),
            RunError::Weights(m) | RunError::Backend(m) | RunError::Internal(m) => f.write_str(m),
            RunError::Setting(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for RunError {}

impl From<SettingsError> for RunError {
    fn from(e: SettingsError) -> RunError {
        RunError::Setting(e)
    }
}

/// The largest magnitude of a weight a model takes: with every weight within it, no forward
/// pass of either lab's largest model overflows f32 (sums of at most a few thousand
/// products of weights, embeddings and bounded activations stay below 1e33).
pub const MAX_WEIGHT: f32 = 1e6;

/// Whether `params` are weights a model of `len` parameters takes: `len` finite values of
/// magnitude at most [`MAX_WEIGHT`].
pub fn check_weights(len: usize, params: &[f32]) -> Result<(), RunError> {
    if params.len() != len {
        return Err(RunError::Weights(format!(
            "weights: {} values, but this model has {len} (are the settings the same?)",
            params.len()
        )));
    }
    if let Some(i) = params
        .iter()
        .position(|x| !x.is_finite() || x.abs() > MAX_WEIGHT)
    {
        let x = params[i];
        let shown = if x.is_finite() && x.abs() < 1e7 {
            x.to_string()
        } else {
            format!("{x:e}")
        };
        return Err(RunError::Weights(format!(
            "weights: value {i} is {shown}, but a weight must be a finite number from −{MAX_WEIGHT:e} to {MAX_WEIGHT:e} (a larger one overflows a forward pass)"
        )));
    }
    Ok(())
}
