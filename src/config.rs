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
        check_wholes(self)?;
        if self.distinct && self.length > self.vocab {
            return Err(ConfigError::new(
                "length",
                format!(
                    "must be at most vocab ({}) when tokens are distinct, got {}",
                    self.vocab, self.length
                ),
            ));
        }
        let lr = f64::from(self.learning_rate);
        if !(lr.is_finite() && lr > 0.0 && lr <= MAX_LEARNING_RATE) {
            return Err(ConfigError::new(
                "learning_rate",
                format!("{}, got {lr}", Range::Positive(MAX_LEARNING_RATE)),
            ));
        }
        Ok(())
    }

    /// Sets one field from the value a page, a link or a file gives for it: its text, a
    /// number, or a switch. Refuses (naming the field and its range) a value of the wrong
    /// kind or outside the field's range, and a key that is no field; leaves the other
    /// fields as they are. Checks between fields are [`Config::validate`]'s.
    pub fn set(&mut self, key: &str, value: Value<'_>) -> Result<(), ConfigError> {
        set_field(self, key, value)
    }
}

impl Settings for Config {
    fn fields() -> &'static [Field] {
        &FIELDS
    }

    fn validate(&self) -> Result<(), ConfigError> {
        Config::validate(self)
    }

    fn set_positive(&mut self, _key: &str, x: f32) {
        self.learning_rate = x;
    }

    fn set_choice(&mut self, key: &str, name: &str) -> bool {
        fn to<T: serde::de::DeserializeOwned>(slot: &mut T, name: &str) -> bool {
            by_name(name).map(|v| *slot = v).is_some()
        }
        match key {
            "task" => to(&mut self.task, name),
            "optimizer" => to(&mut self.optimizer, name),
            _ => to(&mut self.attention, name),
        }
    }

    fn set_switch(&mut self, key: &str, on: bool) {
        match key {
            "distinct" => self.distinct = on,
            _ => self.bidirectional = on,
        }
    }

    fn whole(&self, key: &str) -> u64 {
        match key {
            "vocab" => self.vocab as u64,
            "length" => self.length as u64,
            "hidden" => self.hidden as u64,
            "batch" => self.batch as u64,
            "heads" => self.heads as u64,
            "seed" => self.seed,
            "eval_every" => self.eval_every as u64,
            "eval_batch" => self.eval_batch as u64,
            _ => unreachable!("{key} is not a whole-number field"),
        }
    }

    fn set_whole(&mut self, key: &str, x: u64) {
        // Every whole field's range fits in a usize of 32 bits, but the seed's.
        let n = x as usize;
        match key {
            "vocab" => self.vocab = n,
            "length" => self.length = n,
            "hidden" => self.hidden = n,
            "batch" => self.batch = n,
            "heads" => self.heads = n,
            "seed" => self.seed = x,
            "eval_every" => self.eval_every = n,
            "eval_batch" => self.eval_batch = n,
            _ => unreachable!("{key} is not a whole-number field"),
        }
    }
}

/// A lab's settings as the field machinery reads and writes them: its fields, and their
/// values by key. [`set_field`] and [`check_wholes`] are written once against it.
pub trait Settings {
    /// Every field, in the order a form lists them.
    fn fields() -> &'static [Field];
    /// A whole-number field's value.
    fn whole(&self, key: &str) -> u64;
    fn set_whole(&mut self, key: &str, x: u64);
    /// Sets a field of [`Range::Positive`] (checked).
    fn set_positive(&mut self, key: &str, x: f32);
    /// Sets a choice field to the value called `name`; false if none is.
    fn set_choice(&mut self, key: &str, name: &str) -> bool;
    fn set_switch(&mut self, key: &str, on: bool);
    /// Checks every field and the checks between them.
    fn validate(&self) -> Result<(), ConfigError>;
}

/// Sets one field of `settings` from the value a page, a link or a file gives for it: its
/// text, a number, or a switch. Refuses (naming the field and its range) a value of the
/// wrong kind or outside the field's range, and a key that is no field; leaves the other
/// fields as they are.
pub fn set_field<S: Settings>(
    settings: &mut S,
    key: &str,
    value: Value<'_>,
) -> Result<(), ConfigError> {
    let fields = S::fields();
    let Some(f) = fields.iter().find(|f| f.key == key) else {
        let keys: Vec<&str> = fields.iter().map(|f| f.key).collect();
        return Err(ConfigError::of(
            fields,
            shown_text(key),
            format!("is not a setting (settings: {})", keys.join(", ")),
        ));
    };
    let refuse = || ConfigError::of(fields, f.key, format!("{}, got {}", f.range, value));
    match f.range {
        Range::Whole(lo, hi) => {
            let x = number(value, is_whole_text).ok_or_else(refuse)?;
            if !(x.fract() == 0.0 && x >= lo as f64 && x <= hi as f64) {
                return Err(refuse());
            }
            settings.set_whole(f.key, x as u64);
        }
        Range::Positive(max) => {
            let x = number(value, is_decimal_text).ok_or_else(refuse)?;
            // Read as f64 and rounded once to f32, as a page's Math.fround does.
            let x32 = x as f32;
            if !(x.is_finite() && x > 0.0 && x <= max && x32 > 0.0) {
                return Err(refuse());
            }
            settings.set_positive(f.key, x32);
        }
        Range::Choice(_) => {
            let Value::Text(t) = value else {
                return Err(refuse());
            };
            if !settings.set_choice(f.key, t) {
                return Err(refuse());
            }
        }
        Range::Switch => {
            let on = match value {
                Value::Switch(b) => b,
                Value::Number(x) if x == 0.0 || x == 1.0 => x == 1.0,
                Value::Text("1" | "true") => true,
                Value::Text("0" | "false") => false,
                _ => return Err(refuse()),
            };
            settings.set_switch(f.key, on);
        }
    }
    Ok(())
}

/// Checks every whole-number field of `settings` against its range; the first one out of
/// it is refused.
pub fn check_wholes<S: Settings>(settings: &S) -> Result<(), ConfigError> {
    for f in S::fields() {
        let Range::Whole(lo, hi) = f.range else {
            continue;
        };
        let value = settings.whole(f.key);
        if !(lo..=hi).contains(&value) {
            let message = format!("{}, got {value}", f.range);
            return Err(ConfigError::of(S::fields(), f.key, message));
        }
    }
    Ok(())
}

/// The largest learning rate a run takes.
const MAX_LEARNING_RATE: f64 = 100.0;

/// The largest seed: 2^53 − 1, so that a seed is exact as a JS number and in a JSON file.
pub const MAX_SEED: u64 = (1 << 53) - 1;
/// The most attention heads a model may have.
pub const MAX_HEADS: usize = 16;

/// What values a field takes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Range {
    /// A whole number from the first bound to the second, both included.
    Whole(u64, u64),
    /// A number greater than 0 and at most the bound.
    Positive(f64),
    /// One of these names.
    Choice(&'static [&'static str]),
    /// On or off: `1` or `0` (`true` or `false`).
    Switch,
}

impl fmt::Display for Range {
    /// The range as a message says it: "must be …".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Range::Whole(lo, hi) => write!(f, "must be a whole number from {lo} to {hi}"),
            Range::Positive(max) => {
                write!(f, "must be a number greater than 0 and at most {max}")
            }
            Range::Choice(names) => write!(f, "must be one of {}", names.join(", ")),
            Range::Switch => write!(f, "must be 1 or 0"),
        }
    }
}

/// One field of [`Config`]: its key (in a link, a file and JS), the words a person knows it
/// by, and its range.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    pub key: &'static str,
    pub words: &'static str,
    pub range: Range,
}

/// Every field of [`Config`], in the order a form lists them.
pub const FIELDS: [Field; 14] = [
    Field {
        key: "task",
        words: "Task",
        range: Range::Choice(&["copy", "reverse", "translate"]),
    },
    Field {
        key: "distinct",
        words: "Distinct tokens",
        range: Range::Switch,
    },
    Field {
        key: "vocab",
        words: "Vocabulary V",
        range: Range::Whole(2, 500),
    },
    Field {
        key: "length",
        words: "Length L",
        range: Range::Whole(1, 100),
    },
    Field {
        key: "hidden",
        words: "Width H",
        range: Range::Whole(1, 1024),
    },
    Field {
        key: "batch",
        words: "Batch",
        range: Range::Whole(1, 1024),
    },
    Field {
        key: "learning_rate",
        words: "Learning rate",
        range: Range::Positive(MAX_LEARNING_RATE),
    },
    Field {
        key: "optimizer",
        words: "Optimiser",
        range: Range::Choice(&["adam", "sgd"]),
    },
    Field {
        key: "attention",
        words: "Attention",
        range: Range::Choice(&["learned", "uniform"]),
    },
    Field {
        key: "heads",
        words: "Heads K",
        range: Range::Whole(1, MAX_HEADS as u64),
    },
    Field {
        key: "bidirectional",
        words: "Bidirectional encoder",
        range: Range::Switch,
    },
    Field {
        key: "seed",
        words: "Seed",
        range: Range::Whole(0, MAX_SEED),
    },
    Field {
        key: "eval_every",
        words: "Evaluation interval (steps)",
        range: Range::Whole(1, 100_000),
    },
    Field {
        key: "eval_batch",
        words: "Evaluation batch",
        range: Range::Whole(1, 512),
    },
];

/// A number given as one, or as text of the form `text_ok` accepts.
fn number(value: Value<'_>, text_ok: fn(&str) -> bool) -> Option<f64> {
    match value {
        Value::Number(x) => Some(x),
        Value::Text(t) if text_ok(t.trim()) => t.trim().parse().ok(),
        _ => None,
    }
}

/// A choice field's value by the name its serde form gives it ("copy", "sgd", …).
pub(crate) fn by_name<T: serde::de::DeserializeOwned>(name: &str) -> Option<T> {
    use serde::de::IntoDeserializer;
    let d: serde::de::value::StrDeserializer<'_, serde::de::value::Error> =
        name.into_deserializer();
    T::deserialize(d).ok()
}

/// A field's value as a page, a link or a file gives it.
#[derive(Clone, Copy, Debug)]
pub enum Value<'a> {
    /// Text, as typed or as in a link: a number in decimal notation, a name, `1` / `0`.
    Text(&'a str),
    Number(f64),
    Switch(bool),
    /// Anything else, by what it is ("null", "an object"): refused.
    Other(&'a str),
}

impl fmt::Display for Value<'_> {
    /// The value as a message echoes it: text quoted and cut to a few dozen characters.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Text(t) => write!(f, "“{}”", shown_text(t)),
            Value::Number(x) => write!(f, "{}", shown_text(&x.to_string())),
            Value::Switch(b) => write!(f, "{b}"),
            Value::Other(what) => write!(f, "{what}"),
        }
    }
}

/// Text cut to at most 32 characters (an ellipsis marks the cut).
fn shown_text(t: &str) -> String {
    const MAX: usize = 32;
    if t.chars().count() <= MAX {
        t.to_string()
    } else {
        let mut s: String = t.chars().take(MAX - 1).collect();
        s.push('…');
        s
    }
}

/// `[+-]?digits`: a whole number in decimal notation.
fn is_whole_text(t: &str) -> bool {
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// `[+-]?(digits[.digits] | .digits)([eE][+-]?digits)?`: a number in decimal notation
/// (no `inf`, `NaN`, hex or blanks).
fn is_decimal_text(t: &str) -> bool {
    let t = t.strip_prefix(['+', '-']).unwrap_or(t);
    let (mantissa, exponent) = match t.find(['e', 'E']) {
        Some(i) => (&t[..i], Some(&t[i + 1..])),
        None => (t, None),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok =
        digits(whole) && digits(fraction) && !(whole.is_empty() && fraction.is_empty());
    mantissa_ok && exponent.is_none_or(is_whole_text)
}

/// A rejected setting: which field (its key, and the words a person knows it by where it is
/// a field), and what it must be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    pub field: String,
    pub message: String,
    words: Option<&'static str>,
}

impl ConfigError {
    /// A refusal of a field of [`Config`] (or of something that is no field, by its name).
    pub fn new(field: impl Into<String>, message: String) -> ConfigError {
        ConfigError::of(&FIELDS, field, message)
    }

    /// A refusal of a field of `fields` (another lab's settings).
    pub fn of(fields: &[Field], field: impl Into<String>, message: String) -> ConfigError {
        let field = field.into();
        let words = fields.iter().find(|f| f.key == field).map(|f| f.words);
        ConfigError {
            field,
            message,
            words,
        }
    }
}

impl fmt::Display for ConfigError {
    /// "Width H (hidden): must be a whole number from 1 to 1024, got 0": the field in words
    /// (where it is one), its key, what it must be.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.words {
            Some(words) => write!(f, "{words} ({}): {}", self.field, self.message),
            None => write!(f, "{}: {}", self.field, self.message),
        }
    }
}

impl std::error::Error for ConfigError {}
