//! Config validation: every bad field is refused with a message naming it and its range,
//! through `validate`, `Trainer::new` and `set_learning_rate`, and nothing else changes.

use attention_playground::config::{Config, PRESETS};
use attention_playground::train::Trainer;

fn rejected(config: Config, field: &str) {
    let err = config.validate().expect_err("should be refused");
    assert_eq!(err.field, field);
    let text = err.to_string();
    assert!(text.starts_with(field), "{text}");
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
        "heads: must be a whole number from 1 to 16, got 40"
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
    let err = t.set_learning_rate(-3.0).unwrap_err();
    assert_eq!(err.field, "learning_rate");
    assert_eq!(t.config().learning_rate, 1e-3);
    assert_eq!(t.step_count(), 1);
    t.set_learning_rate(0.01).unwrap();
    assert_eq!(t.config().learning_rate, 0.01);
}
