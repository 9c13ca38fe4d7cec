//! The sparse lab's settings (docs/science.md 2): defaults, named presets, and `set` and
//! `validate`, whose every refusal names the field in words and its allowed range. The
//! field machinery (ranges, values, refusals) is `crate::settings`'s.

use crate::settings::{
    choices, settings, Range, Settings, SettingsError, MAX_LEARNING_RATE, MAX_SEED,
};
use serde::{Deserialize, Serialize};

choices! {
    /// The Boolean function of the hidden bits `x_S` that labels an input.
    pub enum BoolFunction {
        /// 1 iff every hidden bit is 1 (bits are 1 with probability `2^(−1/s)`).
        And = "and" ("AND"),
        /// 1 iff some hidden bit is 1 (bits are 1 with probability `1 − 2^(−1/s)`).
        Or = "or" ("OR"),
        /// 1 iff more than half of the hidden bits are 1 (`s` odd; fair bits).
        Majority = "majority" ("majority"),
        /// 1 iff an odd number of the hidden bits are 1 (fair bits).
        Parity = "parity" ("parity"),
    }
}

impl BoolFunction {
    /// The label of `ones` ones among `s` hidden bits.
    pub fn of(self, ones: usize, s: usize) -> bool {
        match self {
            BoolFunction::And => ones == s,
            BoolFunction::Or => ones > 0,
            BoolFunction::Majority => 2 * ones > s,
            BoolFunction::Parity => ones % 2 == 1,
        }
    }

    /// The probability that a bit is 1, chosen so that both labels are equally likely.
    pub fn p_one(self, s: usize) -> f64 {
        let half_root = 0.5f64.powf(1.0 / s as f64);
        match self {
            BoolFunction::And => half_root,
            BoolFunction::Or => 1.0 - half_root,
            BoolFunction::Majority | BoolFunction::Parity => 0.5,
        }
    }
}

choices! {
    /// How a position is coded in the input vector (added to its bit's embedding).
    pub enum Positions {
        /// A learned embedding of each position (drawn as `nn.Embedding`, trained).
        Learned = "learned" ("learned"),
        /// Fixed `sin`/`cos` codes of the position at `d/2` frequencies (Vaswani et al.).
        Sinusoidal = "sinusoidal" ("sinusoidal, fixed"),
        /// Fixed one-hot codes: position `t` is unit vector `t` (needs `d ≥ T`).
        OneHot = "one-hot" ("one-hot, fixed"),
        /// Fixed random codes: the learned embedding's initial draw, never trained.
        Random = "random" ("random, fixed"),
    }
}

choices! {
    /// What weight decay shrinks.
    pub enum DecayScope {
        /// The weight matrices and the `[CLS]` query, not the embeddings or biases (minGPT's
        /// rule of decaying only linear layers' weights).
        Matrices = "matrices" ("the weight matrices only"),
        /// Every parameter but the biases: the bit and position embeddings too (AdamW as
        /// most code applies it; fixed position codes are not parameters and stay as set).
        All = "all" ("all but the biases, embeddings too"),
    }
}

impl Positions {
    /// Whether training leaves the codes as they were set.
    pub fn fixed(self) -> bool {
        self != Positions::Learned
    }
}

settings! {
    /// Everything that defines a run of the sparse lab; the same settings give the same run
    /// bit for bit. The defaults are the preset `and-3`.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default, deny_unknown_fields)]
    pub struct SparseConfig {
        pub function: BoolFunction = "Function", Range::Choice(BoolFunction::CHOICES),
            default BoolFunction::And;
        /// `T`, the bits of an input.
        pub length: usize = "Length T", Range::Whole(2, MAX_LENGTH as u64), default 32;
        /// `s`, the hidden positions the label depends on.
        pub sparsity: usize = "Hidden bits s", Range::Whole(1, MAX_SPARSITY as u64), default 3;
        /// `m`, the fixed training set's size.
        pub samples: usize = "Training samples m", Range::Whole(1, 100_000), default 200;
        /// The fresh test set's size.
        pub test_samples: usize = "Test samples", Range::Whole(100, 20_000), default 2000;
        /// `d`, the width of the embeddings, keys, queries and values.
        pub width: usize = "Width d", Range::Whole(1, 128), default 16;
        /// How positions are coded.
        pub positions: Positions = "Position codes", Range::Choice(Positions::CHOICES),
            default Positions::Learned;
        /// `K`, the attention heads (their outputs are concatenated).
        pub heads: usize = "Heads K", Range::Whole(1, MAX_HEADS as u64), default 4;
        /// The width of the ReLU layer between the heads and the logit.
        pub mlp: usize = "MLP width", Range::Whole(1, 512), default 32;
        /// Training samples per step (at most `m`: a smaller set is one batch).
        pub batch: usize = "Batch", Range::Whole(1, 4096), default 64;
        pub learning_rate: f32 = "Learning rate", Range::Positive(MAX_LEARNING_RATE),
            default 1e-2, live;
        /// AdamW's decoupled weight decay `λ`: before each Adam update, every parameter that
        /// `decay_scope` names is multiplied by `1 − lr·λ`.
        pub weight_decay: f32 = "Weight decay", Range::NonNegative(MAX_WEIGHT_DECAY),
            default 0.0;
        /// What the decay shrinks: the weight matrices (the query, the key, value, hidden
        /// and output maps) only, or every parameter but the biases, embeddings included.
        pub decay_scope: DecayScope = "Weight decay reaches", Range::Choice(DecayScope::CHOICES),
            default DecayScope::Matrices;
        pub seed: u64 = "Seed", Range::Whole(0, MAX_SEED), default 0;
        /// Evaluate every this many steps (and at step 0).
        pub eval_every: usize = "Evaluation interval (steps)", Range::Whole(1, 100_000), default 10;
    }
}

/// The named presets, in the order a UI lists them.
pub const PRESETS: [&str; 5] = [
    "and-3",
    "and-3-few",
    "and-3-one-head",
    "majority-3",
    "parity-2",
];

impl SparseConfig {
    /// The settings of a named preset.
    pub fn preset(name: &str) -> Option<SparseConfig> {
        let base = SparseConfig::default();
        Some(match name {
            "and-3" => base,
            "and-3-few" => SparseConfig {
                samples: 20,
                ..base
            },
            "and-3-one-head" => SparseConfig { heads: 1, ..base },
            "majority-3" => SparseConfig {
                function: BoolFunction::Majority,
                samples: 400,
                ..base
            },
            "parity-2" => SparseConfig {
                function: BoolFunction::Parity,
                length: 16,
                sparsity: 2,
                samples: 100,
                eval_every: 25,
                ..base
            },
            _ => return None,
        })
    }
}

impl Settings for SparseConfig {
    fn seed(&self) -> u64 {
        self.seed
    }

    /// Checks every field and the checks between them; the first bad one is reported with
    /// its allowed range.
    fn validate(&self) -> Result<(), SettingsError> {
        let refuse = SparseConfig::refuse;
        self.check_fields()?;
        if self.sparsity >= self.length {
            return Err(refuse(
                "sparsity",
                format!(
                    "must be less than the length T ({}), got {}",
                    self.length, self.sparsity
                ),
            ));
        }
        if self.positions == Positions::OneHot && self.width < self.length {
            return Err(refuse(
                "positions",
                format!(
                    "must be learned, sinusoidal or random when the width d ({}) is less than \
                     the length T ({}): one-hot codes need d ≥ T, got one-hot",
                    self.width, self.length
                ),
            ));
        }
        // As the optimiser computes it: each decayed weight is multiplied by 1 − lr·λ in f32.
        if 1.0 - self.learning_rate * self.weight_decay <= 0.0 {
            return Err(refuse(
                "weight_decay",
                format!(
                    "must be less than 1 ÷ the learning rate ({}) so that a step keeps part \
                     of each weight, got {}",
                    1.0 / self.learning_rate,
                    self.weight_decay
                ),
            ));
        }
        if self.function == BoolFunction::Majority && self.sparsity.is_multiple_of(2) {
            return Err(refuse(
                "sparsity",
                format!(
                    "must be odd for majority (a tie has no label), got {}",
                    self.sparsity
                ),
            ));
        }
        Ok(())
    }
}

/// The longest input (the model's tables and a run's picture of attention grow with it).
pub const MAX_LENGTH: usize = 2048;
/// The largest weight decay.
pub const MAX_WEIGHT_DECAY: f64 = 10.0;
/// The most hidden positions.
pub const MAX_SPARSITY: usize = 4;

/// The most attention heads.
pub const MAX_HEADS: usize = 8;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::Value;

    #[test]
    fn presets_are_valid() {
        for name in PRESETS {
            let c = SparseConfig::preset(name).unwrap();
            c.validate().unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        assert!(SparseConfig::preset("nope").is_none());
    }

    #[test]
    fn refusals_name_the_field_in_words_with_its_range() {
        let mut c = SparseConfig::default();
        let e = c.set("length", Value::Text("1")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "Length T (length): must be a whole number from 2 to 2048, got “1”"
        );
        assert_eq!(c, SparseConfig::default(), "a refusal changes nothing");
        let e = c.set("function", Value::Text("xor")).unwrap_err();
        assert!(e
            .to_string()
            .starts_with("Function (function): must be one of and, or"));
        let e = c.set("vocab", Value::Number(3.0)).unwrap_err();
        assert!(e.to_string().contains("is not a setting"), "{e}");
        c.set("length", Value::Text("5")).unwrap();
        c.set("sparsity", Value::Number(4.0)).unwrap();
        c.validate().unwrap();
        c.set("length", Value::Number(4.0)).unwrap();
        let e = c.validate().unwrap_err();
        assert_eq!(e.field, "sparsity");
        assert!(e
            .to_string()
            .starts_with("Hidden bits s (sparsity): must be less than"));
        // Four of the longest inputs: the training set's check does not enumerate every set.
        c.set("length", Value::Number(MAX_LENGTH as f64)).unwrap();
        c.validate().unwrap();
        c.set("length", Value::Number(8.0)).unwrap();
        c.set("function", Value::Text("majority")).unwrap();
        assert!(c.validate().unwrap_err().message.contains("odd"));
    }

    /// Weight decay takes 0 and up to its bound, times the learning rate below 1; one-hot
    /// position codes need a width of at least the length.
    #[test]
    fn weight_decay_and_position_codes_are_checked() {
        let mut c = SparseConfig::default();
        for bad in ["-1", "10.5", "NaN", "1e-50", "1e-400", "x"] {
            let e = c.set("weight_decay", Value::Text(bad)).unwrap_err();
            assert!(
                e.to_string()
                    .starts_with("Weight decay (weight_decay): must be a number from 0 to 10, got"),
                "{bad}: {e}"
            );
        }
        assert_eq!(c, SparseConfig::default());
        c.set("weight_decay", Value::Text("0")).unwrap();
        c.set("weight_decay", Value::Text("0.000e-5")).unwrap();
        c.set("weight_decay", Value::Number(-0.0)).unwrap();
        assert!(c.weight_decay.is_sign_positive() && c.weight_decay == 0.0);
        c.set("weight_decay", Value::Text("10")).unwrap();
        c.validate().unwrap();
        c.set("learning_rate", Value::Text("0.1")).unwrap();
        let e = c.validate().unwrap_err();
        assert_eq!(e.field, "weight_decay");
        assert!(
            e.message.contains("less than 1 ÷ the learning rate (10)"),
            "{e}"
        );
        let mut c = SparseConfig::default();
        c.set("positions", Value::Text("one-hot")).unwrap();
        let e = c.validate().unwrap_err();
        assert_eq!(e.field, "positions");
        assert!(
            e.message
                .contains("the width d (16) is less than the length T (32)"),
            "{e}"
        );
        c.set("width", Value::Number(32.0)).unwrap();
        c.validate().unwrap();
        let e = c.set("positions", Value::Text("fixed")).unwrap_err();
        assert!(e.to_string().starts_with(
            "Position codes (positions): must be one of learned, sinusoidal, one-hot, random"
        ));
    }

    /// The bit probability balances the labels: P(f(x_S) = 1) = 1/2 exactly, by summing
    /// over the number of ones.
    #[test]
    fn bit_probability_balances_the_labels() {
        for f in [
            BoolFunction::And,
            BoolFunction::Or,
            BoolFunction::Majority,
            BoolFunction::Parity,
        ] {
            for s in 1..=MAX_SPARSITY {
                if f == BoolFunction::Majority && s % 2 == 0 {
                    continue;
                }
                let p = f.p_one(s);
                let mut one = 0.0;
                for k in 0..=s {
                    let ways = (0..k).fold(1.0, |c, i| c * (s - i) as f64 / (i + 1) as f64);
                    if f.of(k, s) {
                        one += ways * p.powi(k as i32) * (1.0 - p).powi((s - k) as i32);
                    }
                }
                assert!((one - 0.5).abs() < 1e-12, "{f:?} s {s}: {one}");
            }
        }
    }
}
