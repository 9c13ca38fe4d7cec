//! A lab's settings as fields, whatever the lab: each field's key (in a link, a file and
//! JS), the words a person knows it by, its range, and whether it applies to a running
//! model; reading a field from the text, number or switch a page, a link or a file gives,
//! with a refusal that names the field in words and its range. The `settings!` macro
//! declares a lab's settings struct and its field table from one list, and `choices!` a
//! choice field's enum with its names; the checks between fields are each lab's own.

use std::fmt;

/// The largest seed: 2^53 − 1, so that a seed is exact as a JS number and in a JSON file.
pub const MAX_SEED: u64 = (1 << 53) - 1;
/// The largest learning rate a run takes.
pub const MAX_LEARNING_RATE: f64 = 100.0;

/// One value of a choice field: its name (in a link, a file and JS) and its words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choice {
    pub name: &'static str,
    pub words: &'static str,
}

/// What values a field takes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Range {
    /// A whole number from the first bound to the second, both included.
    Whole(u64, u64),
    /// A number greater than 0 and at most the bound.
    Positive(f64),
    /// A number from 0 to the bound, both included.
    NonNegative(f64),
    /// One of these.
    Choice(&'static [Choice]),
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
            Range::NonNegative(max) => write!(f, "must be a number from 0 to {max}"),
            Range::Choice(choices) => {
                let names: Vec<&str> = choices.iter().map(|c| c.name).collect();
                write!(f, "must be one of {}", names.join(", "))
            }
            Range::Switch => write!(f, "must be 1 or 0"),
        }
    }
}

/// One field of a lab's settings.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    /// Its name in a link, a file and JS.
    pub key: &'static str,
    /// The words a person knows it by.
    pub words: &'static str,
    pub range: Range,
    /// It applies to a running model from the next step on (the run goes on); any other
    /// field's change is a new run.
    pub live: bool,
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

/// A type a field holds: how a given value is read into it, and whether a value of it (in
/// a struct made otherwise than field by field, say deserialised) is within the field's
/// range.
pub trait FieldValue: Sized {
    /// `value` as this type, if it is of the field's kind and within `range`.
    fn read(value: Value<'_>, range: &Range) -> Option<Self>;
    /// The value as a message echoes it, if it is outside `range`; None if within.
    fn outside(&self, range: &Range) -> Option<String>;
}

impl FieldValue for u64 {
    fn read(value: Value<'_>, range: &Range) -> Option<u64> {
        let Range::Whole(lo, hi) = *range else {
            return None;
        };
        let x = number(value, is_whole_text)?;
        (x.fract() == 0.0 && x >= lo as f64 && x <= hi as f64).then_some(x as u64)
    }

    fn outside(&self, range: &Range) -> Option<String> {
        match *range {
            Range::Whole(lo, hi) if (lo..=hi).contains(self) => None,
            _ => Some(self.to_string()),
        }
    }
}

impl FieldValue for usize {
    fn read(value: Value<'_>, range: &Range) -> Option<usize> {
        // Every whole field's range but the seed's fits in a usize of 32 bits.
        u64::read(value, range).and_then(|x| usize::try_from(x).ok())
    }

    fn outside(&self, range: &Range) -> Option<String> {
        (*self as u64).outside(range)
    }
}

impl FieldValue for f32 {
    fn read(value: Value<'_>, range: &Range) -> Option<f32> {
        let (max, zero) = match *range {
            Range::Positive(max) => (max, false),
            Range::NonNegative(max) => (max, true),
            _ => return None,
        };
        let x = number(value, is_decimal_text)?;
        // Read as f64 and rounded once to f32, as a page's Math.fround does; a positive
        // value that rounds to 0 (in f32, or already in f64: "1e-400") is refused, not
        // taken as 0.
        let x32 = x as f32;
        let written_zero = match value {
            Value::Text(t) => !t
                .split(['e', 'E'])
                .next()
                .is_some_and(|m| m.contains(|c: char| ('1'..='9').contains(&c))),
            _ => true,
        };
        let low = if zero {
            (x == 0.0 && written_zero) || x32 > 0.0
        } else {
            x32 > 0.0
        };
        (x.is_finite() && x >= 0.0 && x <= max && low).then_some(if x == 0.0 { 0.0 } else { x32 })
    }

    fn outside(&self, range: &Range) -> Option<String> {
        let x = f64::from(*self);
        let within = match *range {
            Range::Positive(max) => x > 0.0 && x <= max,
            Range::NonNegative(max) => x >= 0.0 && x <= max,
            _ => false,
        };
        (!within).then(|| x.to_string())
    }
}

impl FieldValue for bool {
    fn read(value: Value<'_>, range: &Range) -> Option<bool> {
        if *range != Range::Switch {
            return None;
        }
        match value {
            Value::Switch(b) => Some(b),
            Value::Number(x) if x == 0.0 || x == 1.0 => Some(x == 1.0),
            Value::Text("1" | "true") => Some(true),
            Value::Text("0" | "false") => Some(false),
            _ => None,
        }
    }

    fn outside(&self, _range: &Range) -> Option<String> {
        None
    }
}

/// A settings struct's fields, as `settings!` writes them from its field list.
pub trait Fields {
    /// Every field, in the order a form lists them.
    fn fields() -> &'static [Field];
    /// Sets field `f` (one of [`Fields::fields`]) from `value`; false, changing nothing,
    /// if the value is not of the field's kind or outside its range.
    fn read_field(&mut self, f: &Field, value: Value<'_>) -> bool;
    /// The first field outside its range, with its value as a message echoes it.
    fn outside(&self) -> Option<(&'static Field, String)>;
    /// Takes every field marked `live` from `from`, leaving the others as they are.
    fn take_live(&mut self, from: &Self);
}

/// A lab's settings as a run and the field machinery use them: the fields (`settings!`),
/// and the lab's own checks between them.
pub trait Settings: Fields + Clone + Default {
    /// The run's seed (every lab's settings have one: `seed`).
    fn seed(&self) -> u64;
    /// Checks every field and the checks between them; the first bad one is refused with
    /// its range.
    fn validate(&self) -> Result<(), SettingsError>;

    /// Sets one field from the value a page, a link or a file gives for it: its text, a
    /// number, or a switch. Refuses (naming the field and its range) a value of the wrong
    /// kind or outside the field's range, and a key that is no field; leaves the other
    /// fields as they are. Checks between fields are [`Settings::validate`]'s.
    fn set(&mut self, key: &str, value: Value<'_>) -> Result<(), SettingsError> {
        let fields = Self::fields();
        let Some(f) = fields.iter().find(|f| f.key == key) else {
            let keys: Vec<&str> = fields.iter().map(|f| f.key).collect();
            return Err(SettingsError::of(
                fields,
                shown_text(key),
                format!("is not a setting (settings: {})", keys.join(", ")),
            ));
        };
        if self.read_field(f, value) {
            Ok(())
        } else {
            let message = format!("{}, got {value}", f.range);
            Err(SettingsError::of(fields, f.key, message))
        }
    }

    /// Checks every field against its range (a struct deserialised, not set field by
    /// field, may hold anything); the first one out of it is refused.
    fn check_fields(&self) -> Result<(), SettingsError> {
        match self.outside() {
            Some((f, got)) => Err(SettingsError::of(
                Self::fields(),
                f.key,
                format!("{}, got {got}", f.range),
            )),
            None => Ok(()),
        }
    }

    /// These settings with the fields marked `live` taken from `from` (the others are kept:
    /// they do not change while a run trains), checked as [`Settings::validate`] does; a
    /// refusal names the field.
    fn with_live(&self, from: &Self) -> Result<Self, SettingsError> {
        let mut c = self.clone();
        c.take_live(from);
        c.validate()?;
        Ok(c)
    }

    /// A refusal of field `key` of these settings (its words found in the field list).
    fn refuse(key: &str, message: String) -> SettingsError {
        SettingsError::of(Self::fields(), key, message)
    }
}

/// Declares a lab's settings struct from one list of its fields, each with its type, its
/// words, its range, its default and (`live`) whether it applies to a running model, and
/// implements `Default` and [`Fields`] for it (the lab implements [`Settings`]: its checks
/// between fields): every field is written once.
///
/// ```ignore
/// settings! {
///     #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
///     pub struct MySettings {
///         /// `T`, the bits of an input.
///         pub length: usize = "Length T", Range::Whole(2, 256), default 32;
///         pub learning_rate: f32 = "Learning rate", Range::Positive(MAX_LEARNING_RATE),
///             default 1e-2, live;
///     }
/// }
/// ```
macro_rules! settings {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $(
                $(#[$field_meta:meta])*
                pub $field:ident : $ty:ty = $words:literal, $range:expr,
                    default $default:expr $(, $live:ident)?;
            )*
        }
    ) => {
        $(#[$meta])*
        pub struct $name {
            $(
                $(#[$field_meta])*
                pub $field: $ty,
            )*
        }

        impl Default for $name {
            /// Every field's default.
            fn default() -> $name {
                $name {
                    $($field: $default,)*
                }
            }
        }

        impl $name {
            /// Every field, in the order a form lists them.
            pub const FIELDS: &'static [$crate::settings::Field] = &[
                $(
                    $crate::settings::Field {
                        key: stringify!($field),
                        words: $words,
                        range: $range,
                        live: $crate::settings::settings!(@live $($live)?),
                    },
                )*
            ];

            /// A field of [`Self::FIELDS`] by its key.
            fn field(key: &str) -> &'static $crate::settings::Field {
                Self::FIELDS
                    .iter()
                    .find(|f| f.key == key)
                    .expect("every field is listed")
            }
        }

        impl $crate::settings::Fields for $name {
            fn fields() -> &'static [$crate::settings::Field] {
                Self::FIELDS
            }

            fn read_field(
                &mut self,
                f: &$crate::settings::Field,
                value: $crate::settings::Value<'_>,
            ) -> bool {
                use $crate::settings::FieldValue;
                $(
                    if f.key == stringify!($field) {
                        return match <$ty as FieldValue>::read(value, &f.range) {
                            Some(v) => {
                                self.$field = v;
                                true
                            }
                            None => false,
                        };
                    }
                )*
                false
            }

            fn outside(&self) -> Option<(&'static $crate::settings::Field, String)> {
                use $crate::settings::FieldValue;
                $(
                    let f = Self::field(stringify!($field));
                    if let Some(got) = self.$field.outside(&f.range) {
                        return Some((f, got));
                    }
                )*
                None
            }

            fn take_live(&mut self, from: &Self) {
                $(
                    if $crate::settings::settings!(@live $($live)?) {
                        self.$field = from.$field.clone();
                    }
                )*
            }
        }
    };
    (@live live) => {
        true
    };
    (@live) => {
        false
    };
}

pub(crate) use settings;

/// Declares a choice field's enum from its values, each with its name (in a link, a file,
/// JS and serde) and its words; `CHOICES` is the field's range.
macro_rules! choices {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $(
                $(#[$variant_meta:meta])*
                $variant:ident = $key:literal ($words:literal),
            )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
        pub enum $name {
            $(
                $(#[$variant_meta])*
                #[serde(rename = $key)]
                $variant,
            )*
        }

        impl $name {
            /// The values, as a choice field's range lists them.
            pub const CHOICES: &'static [$crate::settings::Choice] = &[
                $($crate::settings::Choice { name: $key, words: $words },)*
            ];
            const ALL: &'static [$name] = &[$($name::$variant,)*];

            /// Its name (in a link, a file and JS).
            pub fn name(self) -> &'static str {
                let i = Self::ALL.iter().position(|&v| v == self).expect("listed");
                Self::CHOICES[i].name
            }
        }

        impl $crate::settings::FieldValue for $name {
            fn read(
                value: $crate::settings::Value<'_>,
                _range: &$crate::settings::Range,
            ) -> Option<$name> {
                let $crate::settings::Value::Text(t) = value else {
                    return None;
                };
                let i = Self::CHOICES.iter().position(|c| c.name == t)?;
                Some(Self::ALL[i])
            }

            fn outside(&self, _range: &$crate::settings::Range) -> Option<String> {
                None
            }
        }
    };
}

pub(crate) use choices;

/// A number given as one, or as text of the form `text_ok` accepts.
fn number(value: Value<'_>, text_ok: fn(&str) -> bool) -> Option<f64> {
    match value {
        Value::Number(x) => Some(x),
        Value::Text(t) if text_ok(t.trim()) => t.trim().parse().ok(),
        _ => None,
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
pub struct SettingsError {
    pub field: String,
    pub message: String,
    words: Option<&'static str>,
}

impl SettingsError {
    /// A refusal of something that is no field of a lab's settings ("workers"), by its name.
    pub fn new(field: impl Into<String>, message: String) -> SettingsError {
        SettingsError::of(&[], field, message)
    }

    /// A refusal of field `field` of `fields` (or of something that is none, by its name).
    pub fn of(fields: &[Field], field: impl Into<String>, message: String) -> SettingsError {
        let field = field.into();
        let words = fields.iter().find(|f| f.key == field).map(|f| f.words);
        SettingsError {
            field,
            message,
            words,
        }
    }
}

impl fmt::Display for SettingsError {
    /// "Width H (hidden): must be a whole number from 1 to 1024, got 0": the field in words
    /// (where it is one), its key, what it must be.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.words {
            Some(words) => write!(f, "{words} ({}): {}", self.field, self.message),
            None => write!(f, "{}: {}", self.field, self.message),
        }
    }
}

impl std::error::Error for SettingsError {}
