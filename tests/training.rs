//! The training API end to end: bit-for-bit determinism, reset, divergence handling, a
//! step that allocates nothing, and the access to α and β a UI reads.

use attention_playground::copying::config::Config;
use attention_playground::copying::parallel::Replica;
use attention_playground::copying::streams::Checkpoint;
use attention_playground::copying::train::{check_params, Evaluation, EvaluationMaps, Trainer};
use attention_playground::optim::OptimizerKind;
use attention_playground::rng::Rng;
use attention_playground::run::{Run, RunError, LOSSES_RECENT, LOSSES_THINNED};
use attention_playground::series::Series;

#[path = "common/counting.rs"]
mod counting;
use counting::allocations;

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

fn evaluations(t: &Trainer) -> Vec<Evaluation> {
    t.history().iter().map(|(_, e)| e).collect()
}

fn losses(t: &mut Trainer, n: usize) -> Vec<u32> {
    (0..n).map(|_| t.step().unwrap().to_bits()).collect()
}

/// A run resumed from a checkpoint (what a GPU run hands the CPU where its device is lost)
/// trains on as the run itself, bit for bit: the same losses, weights and evaluations, with
/// the run's series up to the checkpoint and none after it. Adam's moments, its update count
/// and the training stream each matter: a checkpoint without one of them goes elsewhere. A
/// checkpoint whose moments are not finite is refused, and saving allocates nothing.
#[test]
fn a_run_resumed_from_its_checkpoint_trains_on_as_itself() {
    let config = Config {
        eval_every: 5,
        ..small(6)
    };
    let mut run = Trainer::new(config.clone()).unwrap();
    let mut c = Checkpoint::new(&config);
    losses(&mut run, 15);
    let before = allocations();
    run.save(&mut c);
    assert_eq!(allocations() - before, 0, "saving allocated");
    // Three more steps that the resumed run trains again.
    let (history, lost) = (run.history().clone(), {
        losses(&mut run, 3);
        run.losses().clone()
    });
    let mut resumed = Trainer::resume(config.clone(), &c, &history, &lost).unwrap();
    assert_eq!(resumed.step_count(), 15);
    assert_eq!(
        resumed.losses().len(),
        15,
        "the losses up to the checkpoint"
    );
    assert_eq!(
        resumed.history().iter().map(|(s, _)| s).collect::<Vec<_>>(),
        [0, 5, 10, 15]
    );
    let go_on = losses(&mut resumed, 15);
    let mut again = Trainer::new(config.clone()).unwrap();
    let whole = losses(&mut again, 30);
    assert_eq!(go_on, whole[15..], "the losses after the checkpoint");
    assert_eq!(resumed.weights(), again.weights());
    assert_eq!(evaluations(&resumed), evaluations(&again));
    let all = |t: &Trainer| {
        t.losses()
            .iter()
            .map(|(s, l)| (s, l.to_bits()))
            .collect::<Vec<_>>()
    };
    assert_eq!(all(&resumed), all(&again), "the whole loss series");
    // Each part of the state matters.
    type Spoil = fn(&mut Checkpoint);
    let parts: [(&str, Spoil); 3] = [
        ("moments", |c| c.m.fill(0.0)),
        ("update count", |c| c.updates = 0),
        ("stream", |c| c.streams.train_rng = Rng::new(0, 0)),
    ];
    for (what, spoil) in parts {
        let mut bad = c.clone();
        spoil(&mut bad);
        let mut t = Trainer::resume(config.clone(), &bad, &history, &lost).unwrap();
        assert_ne!(
            losses(&mut t, 15),
            whole[15..],
            "a checkpoint without its {what}"
        );
    }
    let mut bad = c.clone();
    bad.v[3] = f32::NAN;
    let err = Trainer::resume(config, &bad, &history, &lost)
        .err()
        .unwrap();
    assert_eq!(err.kind(), "weights", "{err}");
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
    let history = evaluations(&t);
    t.reset(None);
    assert_eq!(t.step_count(), 0);
    assert_eq!(t.history().len(), 1);
    assert_eq!(t.losses().len(), 0);
    assert_eq!(losses(&mut t, 20), first);
    assert_eq!(evaluations(&t), history);
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
    let before = allocations();
    for _ in 0..30 {
        t.step().unwrap();
    }
    let after = allocations();
    assert_eq!(
        after - before,
        0,
        "30 steps (4 evaluations) allocated {} times",
        after - before
    );
}

/// Nor does a data-parallel step: the replicas' gradients, their sum, the update and the
/// evaluation parts gathered by the leader.
#[test]
fn a_shared_step_allocates_nothing() {
    let config = Config {
        eval_every: 7,
        ..small(2)
    };
    let mut leader = Trainer::leader(config.clone(), 2).unwrap();
    let mut helper = Replica::new(config, 1, 2).unwrap();
    let step = |leader: &mut Trainer, helper: &mut Replica| {
        leader.compute_gradient().unwrap();
        let theirs = helper.compute_gradient().unwrap();
        leader.add_gradient(helper.gradient(), theirs);
        let part = helper.apply_sum(leader.gradient());
        leader.apply();
        if let Some(part) = part {
            leader.add_evaluation_part(&part).unwrap();
        }
    };
    step(&mut leader, &mut helper);
    let before = allocations();
    for _ in 0..30 {
        step(&mut leader, &mut helper);
    }
    let allocated = allocations() - before;
    assert_eq!(leader.history().len(), 5, "evaluated at 0, 7, 14, 21, 28");
    assert_eq!(allocated, 0, "30 shared steps allocated {allocated} times");
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
    let Some(RunError::Diverged { step, .. }) = diverged else {
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

/// Each head's attention accuracy is the share of target steps whose argmax over that
/// head's own `α` is the aligned position, over the whole evaluation batch; one head's is
/// the run's attention accuracy, and heads the model does not have count 0.
#[test]
fn each_heads_attention_accuracy_is_its_own_maps() {
    for heads in [1, 3] {
        let mut t = Trainer::new(Config { heads, ..small(4) }).unwrap();
        for _ in 0..30 {
            t.step().unwrap();
        }
        let e = t.latest();
        let b = t.eval_batch();
        let (lt, ls) = (b.tgt_len, b.src_len);
        for k in 0..heads {
            let mut hits = 0;
            for seq in 0..b.batch {
                let a = t.attention(seq, Some(k));
                for (row, &want) in a.chunks_exact(ls).zip(&b.aligned) {
                    let best = (0..ls).fold(0, |m, s| if row[s] > row[m] { s } else { m });
                    hits += usize::from(best == want as usize);
                }
            }
            let want = hits as f32 / (b.batch * lt) as f32;
            assert!(
                (e.head_attention[k] - want).abs() < 1e-6,
                "head {k}: {} against {want}",
                e.head_attention[k]
            );
        }
        if heads == 1 {
            assert_eq!(e.head_attention[0], e.attention_accuracy);
        }
        assert!(e.head_attention[heads..].iter().all(|&x| x == 0.0));
    }
}

/// A run shared by two replicas, driven by the calls the page's workers make through the
/// wasm facade (www/training/worker.js, www/training/replica.js): each replica computes its rows' weighted
/// gradient, the leader sums them, every replica applies the sum, and an evaluation due is
/// gathered from each replica's rows. The same as one trainer up to summation order.
#[test]
fn a_run_shared_by_replicas_equals_one_trainer() {
    let config = Config {
        batch: 9,      // shards of 4 and 5 rows
        eval_batch: 7, // evaluation parts of 3 and 4 sequences
        eval_every: 4,
        heads: 2,
        ..small(12)
    };
    let mut one = Trainer::new(config.clone()).unwrap();
    let mut leader = Trainer::leader(config.clone(), 2).unwrap();
    let mut helper = Replica::new(config.clone(), 1, 2).unwrap();
    assert_eq!((leader.shard().len(), helper.shard().len()), (4, 5));
    assert_eq!(
        evaluations(&leader),
        evaluations(&one),
        "step 0, whole batch"
    );
    let mut worst = 0.0f32;
    for _ in 0..25 {
        let want = one.step().unwrap();
        // The worker's step: the helper's reply, the leader's sum, every replica applies it.
        let own = leader.compute_gradient().unwrap();
        let theirs = helper.compute_gradient().unwrap();
        assert!(
            (own + theirs - want).abs() <= 1e-5 * want,
            "weighted losses"
        );
        leader.add_gradient(helper.gradient(), theirs);
        let part = helper.apply_sum(leader.gradient());
        leader.apply();
        let due = one.step_count().is_multiple_of(4);
        assert_eq!(leader.evaluation_pending(), due);
        assert_eq!(part.is_some(), due);
        if let Some(part) = part {
            assert_eq!((part.lo, part.hi), (3, 7));
            leader.add_evaluation_part(&part).unwrap();
            assert!(!leader.evaluation_pending());
            assert!(
                leader.add_evaluation_part(&part).is_err(),
                "a part is added once"
            );
            let (got, want) = (leader.latest(), one.latest());
            assert_eq!(got.step, want.step);
            for (g, w) in got.metrics().into_iter().zip(want.metrics()) {
                assert!(
                    (g - w).abs() <= 1e-5 * w.abs().max(1.0),
                    "{got:?} vs {want:?}"
                );
            }
            for seq in 0..7 {
                for head in [None, Some(0), Some(1)] {
                    close(leader.attention(seq, head), one.attention(seq, head), 1e-5);
                }
                close(leader.ktiw(seq), one.ktiw(seq), 1e-4);
            }
        }
        assert!(
            (leader.last_loss() - want).abs() <= 1e-5 * want,
            "loss {} vs {want}",
            leader.last_loss()
        );
        worst = worst.max(
            one.params()
                .iter()
                .zip(leader.params())
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f32::max),
        );
    }
    assert_eq!(
        leader.params(),
        helper.params(),
        "replicas stay bit-identical"
    );
    assert!(
        worst < 1e-4,
        "parameters drift from the single trainer by {worst}"
    );
    assert_eq!(leader.history().len(), one.history().len());
    assert!(
        Replica::new(config.clone(), 0, 10).is_err(),
        "more workers than rows"
    );
    assert!(
        Replica::new(config, 2, 2).is_err(),
        "a replica past the count"
    );
}

/// Fewer evaluation sequences than replicas: the leader evaluates them all, the others none.
#[test]
fn a_small_evaluation_batch_is_evaluated_by_the_leader_alone() {
    let config = Config {
        eval_batch: 1,
        eval_every: 2,
        ..small(3)
    };
    let mut one = Trainer::new(config.clone()).unwrap();
    let mut leader = Trainer::leader(config.clone(), 2).unwrap();
    let mut helper = Replica::new(config, 1, 2).unwrap();
    for _ in 0..4 {
        one.step().unwrap();
        leader.compute_gradient().unwrap();
        let theirs = helper.compute_gradient().unwrap();
        leader.add_gradient(helper.gradient(), theirs);
        assert!(helper.apply_sum(leader.gradient()).is_none());
        leader.apply();
        assert!(!leader.evaluation_pending());
    }
    assert_eq!(leader.history().len(), 3);
    close(leader.attention(0, None), one.attention(0, None), 1e-5);
}

/// A run's series keep its whole length in bounded memory: a million steps' losses through
/// the slots a trainer gives them allocate nothing, and what is kept is every recent loss
/// and an evenly thinned record of the rest, from the first step on.
#[test]
fn a_million_steps_fit_in_a_runs_series() {
    let mut s = Series::new(LOSSES_THINNED, LOSSES_RECENT);
    let before = allocations();
    for step in 1..=1_000_000u64 {
        s.push(step, step as f32);
    }
    assert_eq!(allocations() - before, 0, "appending allocated");
    let kept: Vec<u64> = s.iter().map(|(step, _)| step).collect();
    assert!(kept.len() <= s.capacity(), "{} entries kept", kept.len());
    assert!(
        kept.len() > LOSSES_THINNED / 2,
        "{} entries kept",
        kept.len()
    );
    assert_eq!(s.count(), 1_000_000);
    let r = s.resolution();
    assert_eq!(kept.first(), Some(&1));
    assert_eq!(kept.last(), Some(&1_000_000));
    let older: Vec<u64> = kept
        .iter()
        .copied()
        .filter(|&k| k < r.recent_from)
        .collect();
    assert!(
        older.windows(2).all(|w| w[1] - w[0] == r.stride),
        "evenly thinned"
    );
    let recent = kept.len() - older.len();
    assert_eq!(recent, LOSSES_RECENT);
    assert_eq!(r.recent_from, 1_000_000 - LOSSES_RECENT as u64 + 1);
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
    fresh.load_params(&saved, 30).unwrap();
    let loaded = *fresh.latest();
    assert_eq!(fresh.step_count(), 30);
    assert_eq!(
        fresh.history().len(),
        1,
        "the history restarts at the loaded step"
    );
    assert_eq!(fresh.losses().len(), 0);
    assert_eq!(loaded.loss.to_bits(), e.loss.to_bits());
    for seq in [0, 3] {
        assert_eq!(fresh.attention(seq, None), trained.attention(seq, None));
        assert_eq!(fresh.ktiw(seq), trained.ktiw(seq));
    }
    // Refused: the wrong length, or a non-finite value; nothing changes.
    let before = fresh.params().to_vec();
    let err = fresh.load_params(&saved[1..], 7).unwrap_err();
    assert_eq!(err.kind(), "weights");
    assert!(
        err.to_string().contains("values, but this model has"),
        "{err}"
    );
    let mut bad = saved.clone();
    bad[5] = f32::NAN;
    assert!(fresh
        .load_params(&bad, 7)
        .unwrap_err()
        .to_string()
        .contains("value 5 is NaN"));
    // A finite value too large for a forward pass, by its size: refused with the bound; the
    // bound itself is taken.
    for (x, ok) in [(3e38f32, false), (-2e6, false), (1e6, true), (-1e6, true)] {
        let mut huge = saved.clone();
        huge[9] = x;
        let got = check_params(&small(4), &huge);
        if ok {
            assert_eq!(got, Ok(()), "{x}");
        } else {
            let said = got.unwrap_err().to_string();
            let shown = if x.abs() < 1e7 {
                x.to_string()
            } else {
                format!("{x:e}")
            };
            assert!(said.contains(&format!("value 9 is {shown},")), "{said}");
            assert!(said.contains("from −1e6 to 1e6"), "{said}");
        }
    }
    // The same verdicts without a trainer, from the settings alone.
    assert_eq!(check_params(&small(4), &saved), Ok(()));
    assert_eq!(check_params(&small(4), &saved[1..]), Err(err));
    assert!(check_params(&small(4), &bad).is_err());
    assert_eq!(fresh.params(), &before[..]);
    assert_eq!(fresh.step_count(), 30);
}
