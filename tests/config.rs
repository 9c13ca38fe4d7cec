//! Config validation: every bad field is refused with a message naming it and its range,
//! through `validate`, `Trainer::new` and `apply_live`, and nothing else changes.

use attention_playground::copying::config::{Config, PRESETS};
use attention_playground::copying::train::Trainer;
use attention_playground::run::Run;
use attention_playground::settings::Settings;
use attention_playground::settings::{Range, Value, MAX_SEED};

fn rejected(config: Config, field: &str) {
    let err = config.validate().expect_err("should be refused");
    assert_eq!(err.field, field);
    let text = err.to_string();
    assert!(text.contains(&format!("({field}): ")), "{text}");
    assert!(text.contains("must be"), "says what is allowed: {text}");
    let err = Trainer::new(config)
        .err()
        .expect("Trainer::new refuses it too");
    assert_eq!(err.field, field);
}

#[test]
fn every_bad_field_is_named() {
    let ok = Config::default();
    rejected(
        Config {
            vocab: 1,
            ..ok.clone()
        },
        "vocab",
    );
    rejected(
        Config {
            vocab: 501,
            ..ok.clone()
        },
        "vocab",
    );
    rejected(
        Config {
            length: 0,
            ..ok.clone()
        },
        "length",
    );
    rejected(
        Config {
            length: 101,
            vocab: 200,
            ..ok.clone()
        },
        "length",
    );
    rejected(
        Config {
            hidden: 0,
            ..ok.clone()
        },
        "hidden",
    );
    rejected(
        Config {
            hidden: 1025,
            ..ok.clone()
        },
        "hidden",
    );
    rejected(
        Config {
            batch: 0,
            ..ok.clone()
        },
        "batch",
    );
    rejected(
        Config {
            heads: 0,
            ..ok.clone()
        },
        "heads",
    );
    rejected(
        Config {
            heads: 17,
            ..ok.clone()
        },
        "heads",
    );
    rejected(
        Config {
            eval_every: 0,
            ..ok.clone()
        },
        "eval_every",
    );
    rejected(
        Config {
            eval_batch: 0,
            ..ok.clone()
        },
        "eval_batch",
    );
    for lr in [0.0, -1.0, f32::NAN, f32::INFINITY, 101.0] {
        rejected(
            Config {
                learning_rate: lr,
                ..ok.clone()
            },
            "learning_rate",
        );
    }
    // Distinct tokens need L ≤ V.
    rejected(
        Config {
            distinct: true,
            vocab: 10,
            length: 11,
            ..ok.clone()
        },
        "length",
    );
    assert!(Config {
        distinct: false,
        vocab: 10,
        length: 11,
        ..ok
    }
    .validate()
    .is_ok());
}

#[test]
fn range_is_in_the_message() {
    let err = Config {
        heads: 40,
        ..Config::default()
    }
    .validate()
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Heads K (heads): must be a whole number from 1 to 16, got 40"
    );
}

#[test]
fn presets_are_valid_and_unknown_is_none() {
    for name in PRESETS {
        let c = Config::preset(name).unwrap();
        c.validate().unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    assert!(Config::preset("nope").is_none());
    let hard = Config::preset("hard").unwrap();
    assert_eq!(
        (hard.vocab, hard.length, hard.hidden, hard.batch),
        (40, 40, 256, 128)
    );
    let easy = Config::preset("easy").unwrap();
    assert_eq!((easy.vocab, easy.length), (60, 40));
}

#[test]
fn bad_learning_rate_change_keeps_the_run() {
    let mut t = Trainer::new(Config {
        hidden: 8,
        length: 4,
        vocab: 6,
        batch: 4,
        ..Config::default()
    })
    .unwrap();
    t.step().unwrap();
    let bad = Config {
        learning_rate: -3.0,
        ..t.config().clone()
    };
    let err = t.apply_live(&bad).unwrap_err();
    assert_eq!(err.field(), Some("learning_rate"));
    assert_eq!(err.kind(), "setting");
    assert_eq!(t.config().learning_rate, 1e-3);
    assert_eq!(t.step_count(), 1);
    // The live field is taken; a field that is not live stays the run's.
    let asked = Config {
        learning_rate: 0.01,
        hidden: 99,
        ..t.config().clone()
    };
    t.apply_live(&asked).unwrap();
    assert_eq!(t.config().learning_rate, 0.01);
    assert_eq!(t.config().hidden, 8);
    t.step().unwrap();
}

/// Sets `key` from `value` on the default settings: the refusal's text, or the settings.
fn set(key: &str, value: Value) -> Result<Config, String> {
    let mut c = Config::default();
    c.set(key, value).map_err(|e| e.to_string())?;
    Ok(c)
}

#[test]
fn a_field_is_read_from_text_and_numbers_of_its_kind() {
    let c = set("hidden", Value::Text(" 48 ")).unwrap();
    assert_eq!(c.hidden, 48);
    assert_eq!(set("hidden", Value::Number(48.0)).unwrap().hidden, 48);
    assert_eq!(set("seed", Value::Text("+7")).unwrap().seed, 7);
    assert_eq!(
        set("seed", Value::Number(MAX_SEED as f64)).unwrap().seed,
        MAX_SEED
    );
    assert_eq!(
        set("learning_rate", Value::Text("2e-3"))
            .unwrap()
            .learning_rate,
        0.002_f64 as f32
    );
    assert_eq!(
        set("learning_rate", Value::Text(".5"))
            .unwrap()
            .learning_rate,
        0.5
    );
    assert!(set("distinct", Value::Text("0"))
        .unwrap()
        .distinct
        .eq(&false));
    assert!(
        set("bidirectional", Value::Switch(true))
            .unwrap()
            .bidirectional
    );
    assert_eq!(
        set("task", Value::Text("reverse")).unwrap().task,
        attention_playground::copying::config::TaskKind::Reverse
    );
    // Only the field changes.
    let c = set("heads", Value::Text("3")).unwrap();
    assert_eq!(Config { heads: 1, ..c }, Config::default());
}

#[test]
fn a_bad_value_names_its_field_in_words_with_its_range_and_changes_nothing() {
    let long = "9".repeat(20_000);
    let cases: Vec<(&str, Value, &str)> = vec![
        ("hidden", Value::Text("-1"), "Width H (hidden): must be a whole number from 1 to 1024, got “-1”"),
        ("vocab", Value::Number(-1.0), "Vocabulary V (vocab): must be a whole number from 2 to 500, got -1"),
        ("seed", Value::Text("99999999999999999999"), "Seed (seed): must be a whole number from 0 to 9007199254740991, got “99999999999999999999”"),
        ("seed", Value::Number(2.5), "Seed (seed): must be a whole number from 0 to 9007199254740991, got 2.5"),
        ("batch", Value::Text("0x10"), "Batch (batch): must be a whole number from 1 to 1024, got “0x10”"),
        ("heads", Value::Text("1e1"), "Heads K (heads): must be a whole number from 1 to 16, got “1e1”"),
        ("heads", Value::Other("null"), "Heads K (heads): must be a whole number from 1 to 16, got null"),
        ("eval_every", Value::Text(""), "Evaluation interval (steps) (eval_every): must be a whole number from 1 to 100000, got “”"),
        ("learning_rate", Value::Text("inf"), "Learning rate (learning_rate): must be a number greater than 0 and at most 100, got “inf”"),
        ("learning_rate", Value::Number(f64::NAN), "Learning rate (learning_rate): must be a number greater than 0 and at most 100, got NaN"),
        ("learning_rate", Value::Text("1e-50"), "Learning rate (learning_rate): must be a number greater than 0 and at most 100, got “1e-50”"),
        ("task", Value::Text("toString"), "Task (task): must be one of copy, reverse, translate, got “toString”"),
        ("distinct", Value::Text("yes"), "Distinct tokens (distinct): must be 1 or 0, got “yes”"),
        ("eval_batch", Value::Text(&long), "Evaluation batch (eval_batch): must be a whole number from 1 to 512, got “9999999999999999999999999999999…”"),
        ("bogus", Value::Text("1"), "bogus: is not a setting (settings: task, distinct, vocab, length, hidden, batch, learning_rate, optimizer, attention, heads, bidirectional, seed, eval_every, eval_batch)"),
    ];
    for (key, value, want) in cases {
        let mut c = Config::default();
        let err = c.set(key, value).expect_err(key);
        assert_eq!(err.to_string(), want);
        assert_eq!(c, Config::default(), "{key}: nothing changed");
    }
}

#[test]
fn every_field_is_listed_with_a_range_validate_agrees_with() {
    for f in Config::FIELDS {
        // Tokens i.i.d., so that any length goes with any vocabulary.
        let mut c = Config {
            distinct: false,
            ..Config::default()
        };
        match f.range {
            Range::Whole(lo, hi) => {
                for x in [lo, hi] {
                    c.set(f.key, Value::Number(x as f64)).unwrap();
                    c.validate().unwrap_or_else(|e| panic!("{e}"));
                }
                assert!(c.set(f.key, Value::Number(hi as f64 + 1.0)).is_err());
                if lo > 0 {
                    assert!(c.set(f.key, Value::Number(lo as f64 - 1.0)).is_err());
                }
            }
            Range::Positive(max) => c.set(f.key, Value::Number(max)).unwrap(),
            Range::NonNegative(max) => {
                c.set(f.key, Value::Number(0.0)).unwrap();
                c.set(f.key, Value::Number(max)).unwrap();
            }
            Range::Choice(choices) => {
                for choice in choices {
                    c.set(f.key, Value::Text(choice.name)).unwrap();
                }
            }
            Range::Switch => c.set(f.key, Value::Switch(true)).unwrap(),
        }
    }
    let mut c = Config::default();
    let json = debug_keys(&c);
    for f in Config::FIELDS {
        assert!(
            json.contains(&f.key.to_string()),
            "{} is a field of Config",
            f.key
        );
    }
    assert_eq!(json.len(), Config::FIELDS.len(), "FIELDS lists every field");
    c.seed = MAX_SEED + 1;
    assert_eq!(c.validate().unwrap_err().field, "seed");
}

/// The fields of a Config, by its Debug text.
fn debug_keys(c: &Config) -> Vec<String> {
    let text = format!("{c:?}");
    // `Config { task: Copy, distinct: true, … }`
    text.trim_start_matches("Config {")
        .trim_end_matches('}')
        .split(", ")
        .map(|kv| kv.split(':').next().unwrap().trim().to_string())
        .collect()
}
