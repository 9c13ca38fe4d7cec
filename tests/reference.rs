//! Holds the native trainer to a committed reference run (`tests/fixtures/reference-run.txt`),
//! the same run that the wasm tests replay through the wasm facade: together they show that
//! a step in WebAssembly matches the native one on the same seed. Kernels may differ in
//! summation order and fused multiply-adds, so the comparison has a tolerance.
//! `UPDATE_REFERENCE=1 cargo test --test reference` rewrites the fixture and fails, so that
//! only a run without it can pass.

mod common;

use attention_playground::copying::train::Trainer;
use attention_playground::run::Run;
use common::{reference_config, LOSS_RTOL};

fn run() -> Vec<f32> {
    let mut t = Trainer::new(reference_config()).unwrap();
    let mut out: Vec<f32> = (0..20).map(|_| t.step().unwrap()).collect();
    for (_, e) in t.history().iter() {
        out.extend([
            e.loss,
            e.token_accuracy,
            e.attention_accuracy,
            e.ktiw_accuracy,
            e.ktiw_score,
        ]);
    }
    out
}

#[test]
fn native_run_matches_the_reference() {
    let got = run();
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/reference-run.txt"
    );
    if std::env::var("UPDATE_REFERENCE").is_ok() {
        let text: String = got.iter().map(|x| format!("{x:e}\n")).collect();
        std::fs::write(path, text).unwrap();
        panic!("rewrote {path}: check the change with git diff, then run without UPDATE_REFERENCE");
    }
    let want: Vec<f32> = std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!(
            (g - w).abs() <= LOSS_RTOL * w.abs().max(1.0),
            "value {i}: native {g} vs reference {w}"
        );
    }
}
