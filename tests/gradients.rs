//! Finite-difference checks of the hand-written backward pass, tensor by tensor, for every
//! encoder direction and attention mode. Central differences with Richardson extrapolation
//! (error O(h⁴)), along random directions of each tensor and on single entries.

mod common;

use attention_playground::copying::model::params::TENSOR_NAMES;
use attention_playground::rng::Rng;
use common::{tiny, Tiny};

/// d/dε loss(θ + ε u) at ε = 0, by extrapolated central differences.
fn directional(t: &mut Tiny, u: &[f32]) -> f64 {
    let base = t.params.clone();
    let mut at = |eps: f32| -> f64 {
        let moved: Vec<f32> = base.iter().zip(u).map(|(p, d)| p + eps * d).collect();
        t.loss_at(&moved) as f64
    };
    let h = 4e-2f32;
    let d1 = (at(h) - at(-h)) / (2.0 * h as f64);
    let d2 = (at(h / 2.0) - at(-h / 2.0)) / (h as f64);
    (4.0 * d2 - d1) / 3.0
}

/// How far a check is from its tolerance (≤ 1 passes): `|num − an| ≤ ATOL + RTOL·max(|num|, |an|)`.
/// ATOL is the f32 round-off floor of this model's loss seen through the differences
/// (measured discrepancies stay below 1e-5); RTOL bounds the truncation error.
fn rel_err(numeric: f64, analytic: f64, _gnorm: f64) -> f64 {
    const ATOL: f64 = 3e-5;
    const RTOL: f64 = 1e-2;
    (numeric - analytic).abs() / (ATOL + RTOL * analytic.abs().max(numeric.abs()))
}

/// Checks every tensor; returns the worst relative error seen, per tensor.
fn check(bidirectional: bool, heads: usize, uniform: bool) -> Vec<(&'static str, f64)> {
    let mut t = tiny(bidirectional, heads, uniform, 42);
    let (_, grads) = t.gradient();
    let ranges: Vec<(&'static str, std::ops::Range<usize>)> = {
        let mut v = Vec::new();
        t.model
            .layout
            .ranges
            .visit(|name, r| v.push((name, r.clone())));
        v
    };
    assert_eq!(ranges.len(), TENSOR_NAMES.len());
    let mut rng = Rng::new(7, 0);
    let mut report = Vec::new();
    for (name, range) in ranges {
        let g = &grads[range.clone()];
        let gnorm = g.iter().map(|x| (*x as f64).powi(2)).sum::<f64>().sqrt();
        if uniform && (name == "w_q" || name == "b_q") {
            // Uniform attention never reads the query: its gradient is exactly zero.
            assert_eq!(gnorm, 0.0, "{name} has a gradient under uniform attention");
            continue;
        }
        assert!(gnorm > 1e-6, "{name}: gradient is zero, nothing to check");
        let mut worst = 0.0f64;
        // Along random directions of this tensor (unit norm), and along the gradient itself.
        for trial in 0..4 {
            let mut u = vec![0.0f32; t.params.len()];
            for i in range.clone() {
                u[i] = if trial == 0 { grads[i] } else { rng.normal() };
            }
            let norm = u.iter().map(|x| (*x as f64).powi(2)).sum::<f64>().sqrt();
            u.iter_mut().for_each(|x| *x = (*x as f64 / norm) as f32);
            let analytic: f64 = u
                .iter()
                .zip(&grads)
                .map(|(a, b)| *a as f64 * *b as f64)
                .sum();
            let numeric = directional(&mut t, &u);
            let err = rel_err(numeric, analytic, gnorm);
            if std::env::var("GRAD_DEBUG").is_ok() {
                eprintln!("{name} trial {trial}: analytic {analytic:.6e} numeric {numeric:.6e} gnorm {gnorm:.3e}");
            }
            worst = worst.max(err);
        }
        // Single entries: the largest gradient entries.
        let mut idx: Vec<usize> = range.clone().collect();
        idx.sort_by(|&a, &b| grads[b].abs().total_cmp(&grads[a].abs()));
        for &i in idx.iter().take(3) {
            let mut u = vec![0.0f32; t.params.len()];
            u[i] = 1.0;
            let numeric = directional(&mut t, &u);
            let analytic = grads[i] as f64;
            let err = rel_err(numeric, analytic, gnorm);
            worst = worst.max(err);
        }
        report.push((name, worst));
    }
    report
}

fn assert_all_close(bidirectional: bool, heads: usize, uniform: bool) {
    let report = check(bidirectional, heads, uniform);
    let mut bad = Vec::new();
    for (name, err) in &report {
        eprintln!("bi={bidirectional} heads={heads} uniform={uniform} {name:>10}: worst |num-an| / tolerance = {err:.3}");
        if *err > 1.0 {
            bad.push(format!("{name} ({err:.2})"));
        }
    }
    assert!(bad.is_empty(), "gradient mismatch in: {}", bad.join(", "));
}

#[test]
fn unidirectional_learned_attention() {
    assert_all_close(false, 1, false);
}

#[test]
fn bidirectional_learned_attention() {
    assert_all_close(true, 1, false);
}

#[test]
fn unidirectional_uniform_attention() {
    assert_all_close(false, 1, true);
}

#[test]
fn bidirectional_uniform_attention() {
    assert_all_close(true, 1, true);
}

#[test]
fn three_heads() {
    assert_all_close(false, 3, false);
}

#[test]
fn three_heads_bidirectional() {
    assert_all_close(true, 3, false);
}
