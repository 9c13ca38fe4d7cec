//! The run's settings: defaults, named presets and `validate()`, whose every error names the
//! field and its allowed range. Nothing here builds a model; `train.rs` does that.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Which mapping from source to target the task asks for (SCIENCE.md 1.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskKind {
    /// `y = x`: target step `t` is aligned with source position `t`.
    Copy,
    /// `y = reverse(x)`: target step `t` is aligned with source position `L - 1 - t`.
    Reverse,
    /// `y_t = π(x_t)` for a fixed random permutation `π` of the vocabulary.
    Translate,
}

/// How the decoder attends (SCIENCE.md 1.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AttentionMode {
    /// `α = softmax((W_q d_t) · h_s)`.
    Learned,
    /// Scores forced to zero: `α` is uniform (the paper's `invasive_uniform`).
    Uniform,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OptimizerKind {
    /// Adam with PyTorch's defaults β = (0.9, 0.999), ε = 1e-8.
    Adam,
    /// Plain stochastic gradient descent.
    Sgd,
}

/// Everything that defines a run; the same config and seed give the same run bit for bit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    pub task: TaskKind,
    /// Sources are `length` distinct tokens out of `vocab` (with `vocab == length`, a
    /// permutation: the hard task); otherwise each token is i.i.d. uniform over `vocab`.
    pub distinct: bool,
    /// `V`, the number of ordinary tokens (EOS and SOS come on top).
    pub vocab: usize,
    /// `L`, the number of tokens of a source before its EOS.
    pub length: usize,
    /// `H`, the width of the embedding and of both LSTMs.
    pub hidden: usize,
    /// Fresh training sequences per step.
    pub batch: usize,
    pub optimizer: OptimizerKind,
    pub learning_rate: f32,
    pub attention: AttentionMode,
    /// `K`, the number of attention heads (their contexts are averaged).
    pub heads: usize,
    /// Bidirectional encoder (outputs concatenated to `2H`, final states averaged).
    pub bidirectional: bool,
    pub seed: u64,
    /// Evaluate every this many steps (and at step 0).
    pub eval_every: usize,
    /// Sequences in the fixed evaluation batch.
    pub eval_batch: usize,
}

impl Default for Config {
    /// The small preset: the paper's contrast in a few seconds (see the README).
    fn default() -> Config {
        Config::preset("small-easy").expect("the default preset exists")
    }
}

/// The named presets, in the order a UI lists them.
pub const PRESETS: [&str; 8] = [
    "small-easy",
    "small-hard",
    "small-uniform",
    "small-heads",
    "small-reverse",
    "small-translate",
    "easy",
    "hard",
];

/// Heads of the "several heads on the hard task" preset.
const RESCUE_HEADS: usize = 8;

/// Sizes of the small preset (the browser's default): found by `reproduce` sweeps.
const SMALL_HIDDEN: usize = 64;
const SMALL_LENGTH: usize = 20;
const SMALL_BATCH: usize = 32;
const SMALL_EASY_VOCAB: usize = 30;

impl Config {
    /// The paper's copying setup (SCIENCE.md 1.3) on the easy task: V = 60, L = 40, H = 256.
    pub fn paper() -> Config {
        Config {
            task: TaskKind::Copy,
            distinct: true,
            vocab: 60,
            length: 40,
            hidden: 256,
            batch: 128,
            optimizer: OptimizerKind::Adam,
            learning_rate: 1e-3,
            attention: AttentionMode::Learned,
            heads: 1,
            bidirectional: false,
            seed: 0,
            eval_every: 10,
            eval_batch: 50,
        }
    }

    /// A named preset, or `None` for an unknown name (see [`PRESETS`]).
    pub fn preset(name: &str) -> Option<Config> {
        let paper = Config::paper();
        let small = Config {
            vocab: SMALL_EASY_VOCAB,
            length: SMALL_LENGTH,
            hidden: SMALL_HIDDEN,
            batch: SMALL_BATCH,
            ..paper.clone()
        };
        Some(match name {
            "easy" => paper,
            "hard" => Config { vocab: 40, ..paper },
            "small-easy" => small,
            "small-hard" => Config {
                vocab: SMALL_LENGTH,
                ..small
            },
            "small-heads" => Config {
                vocab: SMALL_LENGTH,
                heads: RESCUE_HEADS,
                ..small
            },
            "small-uniform" => Config {
                attention: AttentionMode::Uniform,
                ..small
            },
            "small-reverse" => Config {
                task: TaskKind::Reverse,
                ..small
            },
            "small-translate" => Config {
                task: TaskKind::Translate,
                ..small
            },
            _ => return None,
        })
    }

    /// Source length with EOS (`L + 1`); the target has as many predicted steps.
    pub fn src_len(&self) -> usize {
        self.length + 1
    }

    /// Checks every field; the first bad one is reported with its allowed range.
    pub fn validate(&self) -> Result<(), ConfigError> {
        check_range("vocab", self.vocab, 2, 500)?;
        check_range("length", self.length, 1, 100)?;
        check_range("hidden", self.hidden, 1, 1024)?;
        check_range("batch", self.batch, 1, 1024)?;
        check_range("heads", self.heads, 1, 16)?;
        check_range("eval_every", self.eval_every, 1, 100_000)?;
        check_range("eval_batch", self.eval_batch, 1, 512)?;
        if self.distinct && self.length > self.vocab {
            return Err(ConfigError::new(
                "length",
                format!(
                    "must be at most vocab ({}) when tokens are distinct, got {}",
                    self.vocab, self.length
                ),
            ));
        }
        let lr = self.learning_rate;
        if !(lr.is_finite() && lr > 0.0 && lr <= 100.0) {
            return Err(ConfigError::new(
                "learning_rate",
                format!("must be a number greater than 0 and at most 100, got {lr}"),
            ));
        }
        Ok(())
    }
}

fn check_range(field: &'static str, value: usize, lo: usize, hi: usize) -> Result<(), ConfigError> {
    if (lo..=hi).contains(&value) {
        Ok(())
    } else {
        Err(ConfigError::new(
            field,
            format!("must be a whole number from {lo} to {hi}, got {value}"),
        ))
    }
}

/// A rejected setting: which field, and what it must be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    pub field: &'static str,
    pub message: String,
}

impl ConfigError {
    pub fn new(field: &'static str, message: String) -> ConfigError {
        ConfigError { field, message }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for ConfigError {}
