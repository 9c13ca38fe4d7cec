//! The copying lab's settings (docs/science.md 1): its fields, defaults, named presets and
//! `validate`, whose every error names the field in words and its allowed range. The field
//! machinery is `crate::settings`'s; nothing here builds a model (`train.rs` does that).

use crate::optim::OptimizerKind;
use crate::settings::{
    choices, settings, Range, Settings, SettingsError, MAX_LEARNING_RATE, MAX_SEED,
};
use serde::{Deserialize, Serialize};

choices! {
    /// Which mapping from source to target the task asks for (docs/science.md 1.2).
    pub enum TaskKind {
        /// `y = x`: target step `t` is aligned with source position `t`.
        Copy = "copy" ("copy"),
        /// `y = reverse(x)`: target step `t` is aligned with source position `L - 1 - t`.
        Reverse = "reverse" ("reverse"),
        /// `y_t = π(x_t)` for a fixed random permutation `π` of the vocabulary.
        Translate = "translate" ("translate (word table)"),
    }
}

choices! {
    /// How the decoder attends (docs/science.md 1.1).
    pub enum AttentionMode {
        /// `α = softmax((W_q d_t) · h_s)`.
        Learned = "learned" ("learned"),
        /// Scores forced to zero: `α` is uniform (the paper's `invasive_uniform`).
        Uniform = "uniform" ("uniform"),
    }
}

/// The most attention heads a model may have.
pub const MAX_HEADS: usize = 16;

settings! {
    /// Everything that defines a run; the same config and seed give the same run bit for bit.
    /// The defaults are the small easy preset (the page's first run).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default, deny_unknown_fields)]
    pub struct Config {
        pub task: TaskKind = "Task", Range::Choice(TaskKind::CHOICES), default TaskKind::Copy;
        /// Sources are `length` distinct tokens out of `vocab` (with `vocab == length`, a
        /// permutation: the hard task); otherwise each token is i.i.d. uniform over `vocab`.
        pub distinct: bool = "Distinct tokens", Range::Switch, default true;
        /// `V`, the number of ordinary tokens (EOS and SOS come on top).
        pub vocab: usize = "Vocabulary V", Range::Whole(2, 500), default SMALL_EASY_VOCAB;
        /// `L`, the number of tokens of a source before its EOS.
        pub length: usize = "Length L", Range::Whole(1, 100), default SMALL_LENGTH;
        /// `H`, the width of the embedding and of both LSTMs.
        pub hidden: usize = "Width H", Range::Whole(1, 1024), default SMALL_HIDDEN;
        /// Fresh training sequences per step.
        pub batch: usize = "Batch", Range::Whole(1, 1024), default SMALL_BATCH;
        pub learning_rate: f32 = "Learning rate", Range::Positive(MAX_LEARNING_RATE),
            default 1e-3, live;
        pub optimizer: OptimizerKind = "Optimiser", Range::Choice(OptimizerKind::CHOICES),
            default OptimizerKind::Adam;
        pub attention: AttentionMode = "Attention", Range::Choice(AttentionMode::CHOICES),
            default AttentionMode::Learned;
        /// `K`, the number of attention heads (their contexts are averaged).
        pub heads: usize = "Heads K", Range::Whole(1, MAX_HEADS as u64), default 1;
        /// Bidirectional encoder (outputs concatenated to `2H`, final states averaged).
        pub bidirectional: bool = "Bidirectional encoder", Range::Switch, default false;
        pub seed: u64 = "Seed", Range::Whole(0, MAX_SEED), default 0;
        /// Evaluate every this many steps (and at step 0).
        pub eval_every: usize = "Evaluation interval (steps)", Range::Whole(1, 100_000), default 10;
        /// Sequences in the fixed evaluation batch.
        pub eval_batch: usize = "Evaluation batch", Range::Whole(1, 512), default 50;
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
    /// The paper's copying setup (docs/science.md 1.3) on the easy task: V = 60, L = 40, H = 256.
    pub fn paper() -> Config {
        Config {
            vocab: 60,
            length: 40,
            hidden: 256,
            batch: 128,
            ..Config::default()
        }
    }

    /// A named preset, or `None` for an unknown name (see [`PRESETS`]).
    pub fn preset(name: &str) -> Option<Config> {
        let paper = Config::paper();
        let small = Config::default();
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
}

impl Settings for Config {
    fn seed(&self) -> u64 {
        self.seed
    }

    /// Checks every field; the first bad one is reported with its allowed range.
    fn validate(&self) -> Result<(), SettingsError> {
        self.check_fields()?;
        if self.distinct && self.length > self.vocab {
            return Err(Config::refuse(
                "length",
                format!(
                    "must be at most vocab ({}) when tokens are distinct, got {}",
                    self.vocab, self.length
                ),
            ));
        }
        Ok(())
    }
}
