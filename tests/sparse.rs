//! The sparse lab's model and trainer: the hand-written backward pass against finite
//! differences, tensor by tensor (scripts/mutants.sh breaks it term by term and expects
//! `sparse_gradients_match_finite_differences` to fail); determinism by seed; a step that
//! allocates nothing; and the two behaviours the lab shows: enough samples learn the hidden
//! set, too few are memorised.

use attention_playground::params::ParamLayout;
use attention_playground::rng::Rng;
use attention_playground::run::Run;
use attention_playground::sparse::config::{BoolFunction, DecayScope, Positions, SparseConfig};
use attention_playground::sparse::model::{Dims, SparseModel, TENSOR_NAMES};
use attention_playground::sparse::train::SparseTrainer;

#[path = "common/counting.rs"]
mod counting;
use counting::allocations;

/// A tiny model, its parameters (scaled up so that every term matters) and a batch.
struct Tiny {
    model: SparseModel,
    params: Vec<f32>,
    bits: Vec<u8>,    // (n, T)
    labels: Vec<f32>, // (n,)
}

fn tiny(heads: usize, seed: u64) -> Tiny {
    let dims = Dims {
        length: 5,
        width: 4,
        heads,
        mlp: 6,
    };
    let model = SparseModel::new(dims);
    let mut rng = Rng::new(seed, 0);
    let mut params = vec![0.0; model.len];
    model.initialise(&mut params, &mut rng);
    params.iter_mut().for_each(|x| *x *= 2.0);
    let n = 7;
    let bits = (0..n * dims.length).map(|_| (rng.below(2)) as u8).collect();
    let labels = (0..n).map(|_| rng.below(2) as f32).collect();
    Tiny {
        model,
        params,
        bits,
        labels,
    }
}

impl Tiny {
    /// The loss at `params`, and which units of the ReLU layer are on.
    fn loss_at(&self, params: &[f32]) -> (f64, Vec<bool>) {
        let mut ws = self.model.workspace(self.labels.len());
        let mut g = vec![0.0; self.model.len];
        let loss = self
            .model
            .gradient(params, &mut g, &mut ws, &self.bits, &self.labels);
        (loss as f64, ws.pre.iter().map(|&x| x > 0.0).collect())
    }

    fn gradient(&self) -> Vec<f32> {
        let mut ws = self.model.workspace(self.labels.len());
        let mut g = vec![0.0; self.model.len];
        self.model
            .gradient(&self.params, &mut g, &mut ws, &self.bits, &self.labels);
        g
    }

    /// d/dε loss(θ + ε u) at ε = 0, by central differences with Richardson extrapolation;
    /// None where a unit of the ReLU layer switches within the differences' reach (the
    /// loss has a kink there, and differences across it measure nothing).
    fn directional(&self, u: &[f32]) -> Option<f64> {
        let (_, on) = self.loss_at(&self.params);
        let at = |eps: f32| -> Option<f64> {
            let moved: Vec<f32> = self
                .params
                .iter()
                .zip(u)
                .map(|(p, d)| p + eps * d)
                .collect();
            let (loss, now) = self.loss_at(&moved);
            (now == on).then_some(loss)
        };
        let h = 2e-2f32;
        let d1 = (at(h)? - at(-h)?) / (2.0 * h as f64);
        let d2 = (at(h / 2.0)? - at(-h / 2.0)?) / (h as f64);
        Some((4.0 * d2 - d1) / 3.0)
    }
}

/// `|num − an|` against its tolerance (≤ 1 passes): f32 round-off plus a relative share.
fn rel_err(numeric: f64, analytic: f64) -> f64 {
    (numeric - analytic).abs() / (2e-5 + 1e-2 * analytic.abs().max(numeric.abs()))
}

/// The worst error per tensor, along random directions of it and on its largest entries
/// (those that cross no kink of the ReLU layer: at least four of the seven).
fn check(heads: usize, seed: u64) -> Vec<(&'static str, f64)> {
    let t = tiny(heads, seed);
    let grads = t.gradient();
    let mut ranges = Vec::new();
    t.model
        .ranges
        .visit(|name, r| ranges.push((name, r.clone())));
    assert_eq!(ranges.len(), TENSOR_NAMES.len());
    let mut rng = Rng::new(7, 0);
    let mut report = Vec::new();
    for (name, range) in ranges {
        let gnorm = grads[range.clone()]
            .iter()
            .map(|x| (*x as f64).powi(2))
            .sum::<f64>()
            .sqrt();
        assert!(gnorm > 1e-6, "{name}: gradient is zero, nothing to check");
        let mut worst = 0.0f64;
        let mut directions: Vec<Vec<f32>> = Vec::new();
        for trial in 0..4 {
            let mut u = vec![0.0f32; t.params.len()];
            for i in range.clone() {
                u[i] = if trial == 0 { grads[i] } else { rng.normal() };
            }
            let norm = u.iter().map(|x| (*x as f64).powi(2)).sum::<f64>().sqrt();
            u.iter_mut().for_each(|x| *x = (*x as f64 / norm) as f32);
            directions.push(u);
        }
        let mut idx: Vec<usize> = range.clone().collect();
        idx.sort_by(|&a, &b| grads[b].abs().total_cmp(&grads[a].abs()));
        for &i in idx.iter().take(3) {
            let mut u = vec![0.0f32; t.params.len()];
            u[i] = 1.0;
            directions.push(u);
        }
        let mut checked = 0;
        for u in &directions {
            let analytic: f64 = u
                .iter()
                .zip(&grads)
                .map(|(a, b)| *a as f64 * *b as f64)
                .sum();
            if let Some(numeric) = t.directional(u) {
                worst = worst.max(rel_err(numeric, analytic));
                checked += 1;
            }
        }
        assert!(
            checked >= 4,
            "{name}: only {checked} directions cross no kink"
        );
        report.push((name, worst));
    }
    report
}

#[test]
fn sparse_gradients_match_finite_differences() {
    let mut bad = Vec::new();
    for (heads, seed) in [(1, 3), (1, 6), (3, 4)] {
        for (name, err) in check(heads, seed) {
            eprintln!("heads={heads} {name:>18}: worst |num-an| / tolerance = {err:.3}");
            if err > 1.0 {
                bad.push(format!("{name} with {heads} heads ({err:.2})"));
            }
        }
    }
    assert!(bad.is_empty(), "gradient mismatch in: {}", bad.join(", "));
}

fn and3(length: usize, samples: usize, seed: u64) -> SparseConfig {
    SparseConfig {
        function: BoolFunction::And,
        length,
        sparsity: 3,
        samples,
        seed,
        ..SparseConfig::default()
    }
}

/// The same settings give the same run bit for bit; another seed another run; a reset
/// starts the same run again.
#[test]
fn runs_are_determined_by_their_seed() {
    let run = |c: SparseConfig| {
        let mut t = SparseTrainer::new(c).unwrap();
        for _ in 0..30 {
            t.step().unwrap();
        }
        (t.params().to_vec(), *t.latest())
    };
    let c = and3(12, 80, 5);
    let a = run(c.clone());
    assert_eq!(a, run(c.clone()));
    assert_ne!(
        a.0,
        run(SparseConfig {
            seed: 6,
            ..c.clone()
        })
        .0
    );
    let mut t = SparseTrainer::new(c).unwrap();
    for _ in 0..30 {
        t.step().unwrap();
    }
    t.reset(None);
    for _ in 0..30 {
        t.step().unwrap();
    }
    assert_eq!((t.params().to_vec(), *t.latest()), a);
}

/// The parameters of a run of `c` after `steps` steps, and the model's tensor ranges.
fn trained(c: SparseConfig, steps: usize) -> (Vec<f32>, SparseModel) {
    let mut t = SparseTrainer::new(c).unwrap();
    for _ in 0..steps {
        t.step().unwrap();
    }
    (t.params().to_vec(), t.model().clone())
}

/// Fixed position codes are set at the start and stay bit for bit as they were through
/// training, while the rest learns; sinusoidal codes are `sin`/`cos` of the position, one-hot
/// ones unit vectors, random ones the learned embedding's initial draw; the other tensors
/// start from the same draw whatever the codes.
#[test]
fn fixed_position_codes_stay_fixed() {
    let base = SparseConfig {
        width: 12,
        ..and3(10, 60, 3)
    };
    let at = |positions: Positions, steps: usize| {
        trained(
            SparseConfig {
                positions,
                ..base.clone()
            },
            steps,
        )
    };
    let (learned0, model) = at(Positions::Learned, 0);
    let pos = model.ranges.position_embedding.clone();
    let (learned, _) = at(Positions::Learned, 25);
    assert_ne!(
        learned[pos.clone()],
        learned0[pos.clone()],
        "learned codes train"
    );
    let d = base.width;
    for positions in [Positions::Sinusoidal, Positions::OneHot, Positions::Random] {
        let (start, _) = at(positions, 0);
        let (end, _) = at(positions, 25);
        assert_eq!(end[pos.clone()], start[pos.clone()], "{positions:?}: fixed");
        assert_ne!(end, start, "{positions:?}: the rest trains");
        assert_eq!(
            start[pos.end..],
            learned0[pos.end..],
            "{positions:?}: same draw"
        );
        let codes = &start[pos.clone()];
        for t in 0..base.length {
            for j in 0..d {
                let x = codes[t * d + j];
                let want = match positions {
                    Positions::Sinusoidal => {
                        let angle = t as f64 / 10_000f64.powf((2 * (j / 2)) as f64 / d as f64);
                        (if j % 2 == 0 { angle.sin() } else { angle.cos() }) as f32
                    }
                    Positions::OneHot => f32::from(u8::from(j == t)),
                    _ => learned0[pos.start + t * d + j],
                };
                assert!(
                    (x - want).abs() < 1e-6,
                    "{positions:?} ({t}, {j}): {x} vs {want}"
                );
            }
        }
    }
}

/// Weight decay λ multiplies each parameter its scope names by `1 − lr·λ` before Adam's
/// step and leaves the rest alone: after one step from the same start, the decayed run's
/// parameters differ from the undecayed one's by `−lr·λ·p₀` exactly there. The matrices
/// scope takes the query and the four maps; the all scope the embeddings too, but never the
/// biases, nor position codes that are fixed.
#[test]
fn weight_decay_shrinks_what_its_scope_names() {
    for (scope, positions) in [
        (DecayScope::Matrices, Positions::Learned),
        (DecayScope::All, Positions::Learned),
        (DecayScope::All, Positions::Sinusoidal),
    ] {
        let base = SparseConfig {
            positions,
            ..and3(12, 80, 2)
        };
        let (p0, model) = trained(base.clone(), 0);
        let (plain, _) = trained(base.clone(), 1);
        let (decayed, _) = trained(
            SparseConfig {
                weight_decay: 2.0,
                decay_scope: scope,
                ..base.clone()
            },
            1,
        );
        let lr_wd = base.learning_rate * 2.0;
        let r = &model.ranges;
        let mut names = vec!["query", "w_key", "w_value", "w_hidden", "w_out"];
        if scope == DecayScope::All {
            names.push("bit_embedding");
            if positions == Positions::Learned {
                names.push("position_embedding");
            }
        }
        let mut seen = Vec::new();
        r.visit(|name, range| {
            let decays = names.contains(&name);
            for i in range.clone() {
                let want = if decays {
                    plain[i] - lr_wd * p0[i]
                } else {
                    plain[i]
                };
                assert!(
                    (decayed[i] - want).abs() < 1e-6,
                    "{scope:?}, {positions:?}: {name}[{i}]: {} vs {want}",
                    decayed[i]
                );
            }
            // A tensor counts as decayed only if the decay moved it (p₀ ≠ 0 somewhere).
            if decays && range.clone().any(|i| p0[i] != 0.0) {
                seen.push(name);
            }
        });
        assert_eq!(
            seen.len(),
            names.len(),
            "{scope:?}, {positions:?}: {seen:?}"
        );
    }
}

/// A training step allocates nothing, evaluation included.
#[test]
fn a_step_allocates_nothing() {
    let mut t = SparseTrainer::new(SparseConfig {
        eval_every: 2,
        ..and3(16, 300, 1)
    })
    .unwrap();
    t.step().unwrap();
    let before = allocations();
    for _ in 0..20 {
        t.step().unwrap();
    }
    assert_eq!(allocations(), before);
}

/// With enough samples the heads find the hidden set and the test accuracy follows; with
/// too few, the training set is memorised and the test accuracy stays low.
#[test]
fn enough_samples_find_the_hidden_set_and_too_few_are_memorised() {
    let mut t = SparseTrainer::new(and3(16, 300, 0)).unwrap();
    let start = *t.latest();
    for _ in 0..600 {
        t.step().unwrap();
    }
    let end = *t.latest();
    assert!(end.test_accuracy > 0.97, "{end:?}");
    assert!(
        end.mass > 0.6 && end.mass > 3.0 * start.mass,
        "{start:?} → {end:?}"
    );
    assert!(end.found, "{end:?}");
    let mut t = SparseTrainer::new(and3(16, 16, 0)).unwrap();
    for _ in 0..600 {
        t.step().unwrap();
    }
    let end = *t.latest();
    assert_eq!(end.train_accuracy, 1.0, "{end:?}");
    assert!(end.test_accuracy < 0.9, "{end:?}");
}

/// A learning rate far too large diverges: the step says so and leaves the parameters.
#[test]
fn a_diverging_step_is_refused() {
    let mut t = SparseTrainer::new(SparseConfig {
        learning_rate: 100.0,
        ..and3(16, 300, 0)
    })
    .unwrap();
    let err = (0..200).find_map(|_| {
        let before = t.params().to_vec();
        t.step().err().map(|e| (e, before))
    });
    let (e, before) = err.expect("lr 100 diverges within 200 steps");
    assert!(e.to_string().contains("lower the learning rate"), "{e}");
    assert_eq!(t.params(), &before[..]);
}

/// A live change is checked with the run's other settings: a learning rate that, with the
/// run's weight decay, would leave no part of a weight is refused and changes nothing; one
/// in range is taken from the next step, and a field that is not live stays the run's.
#[test]
fn a_live_change_is_checked_against_the_runs_settings() {
    let start = SparseConfig {
        weight_decay: 5.0,
        ..and3(16, 64, 0)
    };
    let mut t = SparseTrainer::new(start.clone()).unwrap();
    t.step().unwrap();
    let asked = SparseConfig {
        learning_rate: 0.5,
        length: 32,
        ..start.clone()
    };
    let e = t.apply_live(&asked).unwrap_err();
    assert_eq!(
        (e.kind(), e.field()),
        ("setting", Some("weight_decay")),
        "{e}"
    );
    assert_eq!(t.config(), &start);
    let asked = SparseConfig {
        learning_rate: 0.05,
        ..asked
    };
    t.apply_live(&asked).unwrap();
    assert_eq!(t.config().learning_rate, 0.05);
    assert_eq!(t.config().length, 16);
    t.step().unwrap();
    assert_eq!(t.step_count(), 2);
}
