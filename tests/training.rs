//! The training API end to end: bit-for-bit determinism, reset, divergence handling, a
//! step that allocates nothing, and the access to α and β a UI reads.

use attention_playground::config::{Config, OptimizerKind};
use attention_playground::train::{check_params, Evaluation, StepError, Trainer};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Counts this thread's allocations, so a test can assert a region allocates nothing.
struct Counting;

thread_local! {
    static ALLOCS: Cell<usize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.with(|a| a.set(a.get() + 1));
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCS.with(|a| a.set(a.get() + 1));
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn small(seed: u64) -> Config {
    Config {
        vocab: 9,
        length: 6,
        hidden: 16,
        batch: 8,
        eval_batch: 5,
        seed,
        ..Config::default()
    }
}

/// `a` and `b` agree elementwise within `tol` (absolute).
fn close(a: &[f32], b: &[f32], tol: f32) {
    assert_eq!(a.len(), b.len());
    let worst = a
        .iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max);
    assert!(worst <= tol, "differ by {worst}");
}

fn losses(t: &mut Trainer, n: usize) -> Vec<u32> {
    (0..n).map(|_| t.step().unwrap().to_bits()).collect()
}

#[test]
fn same_seed_same_loss_bits_over_50_steps() {
    let a = losses(&mut Trainer::new(small(3)).unwrap(), 50);
    let b = losses(&mut Trainer::new(small(3)).unwrap(), 50);
    let c = losses(&mut Trainer::new(small(4)).unwrap(), 50);
    assert_eq!(a, b);
    assert_ne!(a[0], c[0], "another seed, another first loss");
    assert!(a.iter().zip(&c).filter(|(x, y)| x != y).count() >= 49);
}

#[test]
fn reset_replays_the_run_and_a_new_seed_is_a_fresh_run() {
    let mut t = Trainer::new(small(5)).unwrap();
    let first = losses(&mut t, 20);
    let history = t.history().to_vec();
    t.reset(None);
    assert_eq!(t.step_count(), 0);
    assert_eq!(t.history().len(), 1);
    assert_eq!(losses(&mut t, 20), first);
    assert_eq!(t.history(), &history[..]);
    t.reset(Some(6));
    let fresh = losses(&mut Trainer::new(small(6)).unwrap(), 20);
    assert_eq!(losses(&mut t, 20), fresh);
    assert_eq!(t.config().seed, 6);
}

#[test]
fn learning_happens_on_the_small_task() {
    let mut t = Trainer::new(Config {
        learning_rate: 1e-2,
        ..small(1)
    })
    .unwrap();
    let start = *t.latest();
    for _ in 0..300 {
        t.step().unwrap();
    }
    let end = *t.latest();
    assert_eq!(end.step, 300);
    assert!(end.loss < start.loss * 0.5, "{start:?} → {end:?}");
    assert!(end.token_accuracy > 0.8, "{end:?}");
}

#[test]
fn a_step_allocates_nothing() {
    let mut t = Trainer::new(Config {
        eval_every: 7,
        ..small(2)
    })
    .unwrap();
    t.step().unwrap();
    let before = ALLOCS.with(|a| a.get());
    for _ in 0..30 {
        t.step().unwrap();
    }
    let after = ALLOCS.with(|a| a.get());
    assert_eq!(
        after - before,
        0,
        "30 steps (4 evaluations) allocated {} times",
        after - before
    );
}

#[test]
fn divergence_is_reported_and_the_parameters_survive() {
    let config = Config {
        optimizer: OptimizerKind::Sgd,
        learning_rate: 100.0,
        ..small(7)
    };
    let mut t = Trainer::new(config).unwrap();
    let mut diverged = None;
    for _ in 0..500 {
        match t.step() {
            Ok(_) => {}
            Err(e) => {
                diverged = Some(e);
                break;
            }
        }
    }
    let Some(StepError::Diverged { step, .. }) = diverged else {
        panic!("lr 100 with SGD never diverged");
    };
    assert_eq!(step, t.step_count(), "the failed step was not counted");
    assert!(
        t.params().iter().all(|p| p.is_finite()),
        "parameters stay finite"
    );
    assert!(diverged.unwrap().to_string().contains("diverged"));
}

#[test]
fn attention_and_ktiw_matrices_have_the_evaluation_shape() {
    let mut t = Trainer::new(Config {
        heads: 2,
        ..small(8)
    })
    .unwrap();
    t.step().unwrap();
    let (lt, ls) = (t.eval_batch().tgt_len, t.eval_batch().src_len);
    for seq in 0..5 {
        let mean = t.attention(seq, None);
        assert_eq!(mean.len(), lt * ls);
        for row in mean.chunks_exact(ls) {
            assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        }
        let (h0, h1) = (t.attention(seq, Some(0)), t.attention(seq, Some(1)));
        for i in 0..lt * ls {
            assert!((mean[i] - 0.5 * (h0[i] + h1[i])).abs() < 1e-6);
        }
        assert_eq!(t.ktiw(seq).len(), lt * ls);
        assert!(t.ktiw(seq).iter().all(|b| b.is_finite()));
    }
}

/// Two replicas on half a batch each, their gradients averaged by weight and applied as
/// one update on both, give the single trainer's run up to summation order; so do their
/// evaluations, each of half the evaluation batch, gathered on replica 0.
#[test]
fn sharded_replicas_equal_one_trainer() {
    let config = Config {
        batch: 9,      // shards of 4 and 5 rows
        eval_batch: 7, // evaluation parts of 3 and 4 sequences
        eval_every: 4,
        heads: 2,
        ..small(12)
    };
    let mut one = Trainer::new(config.clone()).unwrap();
    let mut reps = [
        Trainer::new(config.clone()).unwrap(),
        Trainer::new(config).unwrap(),
    ];
    for (i, r) in reps.iter_mut().enumerate() {
        r.set_shard(i, 2).unwrap();
    }
    assert_eq!((reps[0].shard().len(), reps[1].shard().len()), (4, 5));
    let mut worst = 0.0f32;
    for _ in 0..25 {
        let want = one.step().unwrap();
        // As the page's workers do: replica 0 gathers the weighted sum, the others copy it.
        let (w0, w1) = (reps[0].shard_weight(), reps[1].shard_weight());
        let loss = w0 * reps[0].shard_gradient().unwrap() + w1 * reps[1].shard_gradient().unwrap();
        let [r0, r1] = &mut reps;
        r0.scale_gradient(w0);
        r0.add_to_gradient(r1.gradient(), w1);
        r1.gradient_mut().copy_from_slice(r0.gradient());
        for r in reps.iter_mut() {
            r.apply_gradient(loss);
        }
        let due = one.step_count().is_multiple_of(4);
        assert_eq!(reps[0].evaluation_pending(), due);
        if due {
            let [r0, r1] = &mut reps;
            let part = r1
                .take_evaluation_part()
                .expect("replica 1 evaluated its part");
            assert_eq!((part.lo, part.hi), (3, 7));
            r0.add_evaluation_part(&part).unwrap();
            r0.finish_evaluation();
            assert!(r1.take_evaluation_part().is_none(), "a part is taken once");
            let (got, want) = (r0.latest(), one.latest());
            assert_eq!(got.step, want.step);
            let metrics = |e: &Evaluation| {
                [
                    e.loss,
                    e.token_accuracy,
                    e.attention_accuracy,
                    e.ktiw_accuracy,
                    e.ktiw_score,
                    e.agreement,
                ]
            };
            for (g, w) in metrics(got).into_iter().zip(metrics(want)) {
                assert!(
                    (g - w).abs() <= 1e-5 * w.abs().max(1.0),
                    "{got:?} vs {want:?}"
                );
            }
            for seq in 0..7 {
                for head in [None, Some(0), Some(1)] {
                    close(r0.attention(seq, head), one.attention(seq, head), 1e-5);
                }
                close(r0.ktiw(seq), one.ktiw(seq), 1e-4);
            }
        }
        assert!((loss - want).abs() <= 1e-5 * want, "loss {loss} vs {want}");
        worst = worst.max(
            one.params()
                .iter()
                .zip(reps[0].params())
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f32::max),
        );
    }
    assert_eq!(
        reps[0].params(),
        reps[1].params(),
        "replicas stay bit-identical"
    );
    assert!(
        worst < 1e-4,
        "parameters drift from the single trainer by {worst}"
    );
    assert_eq!(reps[0].history().len(), one.history().len());
    assert!(
        reps[1].history().len() == 1,
        "only replica 0 records evaluations"
    );
    assert!(reps[0].set_shard(0, 10).is_err(), "more workers than rows");
}

#[test]
fn saved_weights_load_into_a_fresh_trainer_and_show_the_same_maps() {
    let mut trained = Trainer::new(small(4)).unwrap();
    for _ in 0..30 {
        trained.step().unwrap();
    }
    let e = trained.evaluate();
    let saved = trained.params().to_vec();
    let mut fresh = Trainer::new(small(4)).unwrap();
    assert_ne!(fresh.attention(0, None), trained.attention(0, None));
    let loaded = fresh.load_params(&saved, 30).unwrap();
    assert_eq!(fresh.step_count(), 30);
    assert_eq!(
        fresh.history().len(),
        1,
        "the history restarts at the loaded step"
    );
    assert_eq!(loaded.loss.to_bits(), e.loss.to_bits());
    for seq in [0, 3] {
        assert_eq!(fresh.attention(seq, None), trained.attention(seq, None));
        assert_eq!(fresh.ktiw(seq), trained.ktiw(seq));
    }
    // Refused: the wrong length, or a non-finite value; nothing changes.
    let before = fresh.params().to_vec();
    let err = fresh.load_params(&saved[1..], 7).unwrap_err();
    assert!(err.contains("values, but this model has"), "{err}");
    let mut bad = saved.clone();
    bad[5] = f32::NAN;
    assert!(fresh
        .load_params(&bad, 7)
        .unwrap_err()
        .contains("value 5 is NaN"));
    // The same verdicts without a trainer, from the settings alone.
    assert_eq!(check_params(&small(4), &saved), Ok(()));
    assert_eq!(check_params(&small(4), &saved[1..]), Err(err));
    assert!(check_params(&small(4), &bad).is_err());
    assert_eq!(fresh.params(), &before[..]);
    assert_eq!(fresh.step_count(), 30);
}
