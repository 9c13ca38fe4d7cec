//! Invariants of the task generators: token ranges, EOS/SOS framing, distinct tokens for
//! the permutation task, alignment for reversal and translation, seeded repeatability.

use attention_playground::copying::config::{Config, TaskKind};
use attention_playground::copying::tasks::{Batch, Task};
use attention_playground::rng::Rng;

fn make(task: TaskKind, distinct: bool, vocab: usize, length: usize, seed: u64) -> (Task, Batch) {
    let config = Config {
        task,
        distinct,
        vocab,
        length,
        ..Config::default()
    };
    let mut rng = Rng::new(seed, 0);
    let mut task = Task::new(&config, &mut rng);
    let mut batch = Batch::new(64, length);
    task.fill(&mut rng, &mut batch);
    (task, batch)
}

fn check_framing(task: &Task, b: &Batch) {
    let l = task.length;
    for s in 0..b.batch {
        assert_eq!(b.src(l, s), task.eos(), "source ends in EOS");
        assert_eq!(b.tgt(l, s), task.eos(), "target ends in EOS");
        assert_eq!(b.target_in[s], task.sos(), "decoder input starts with SOS");
        for t in 0..l {
            assert!(b.src(t, s) < task.vocab as u32);
            // Teacher forcing: the input at t + 1 is the output at t.
            assert_eq!(b.target_in[(t + 1) * b.batch + s], b.tgt(t, s));
        }
    }
}

#[test]
fn permutation_sources_have_distinct_tokens() {
    for (v, l) in [(40, 40), (60, 40), (7, 3)] {
        let (task, b) = make(TaskKind::Copy, true, v, l, 1);
        check_framing(&task, &b);
        for s in 0..b.batch {
            let mut seen = vec![false; v];
            for t in 0..l {
                let x = b.src(t, s) as usize;
                assert!(!seen[x], "token {x} repeats in sequence {s} (V={v}, L={l})");
                seen[x] = true;
            }
            if v == l {
                assert!(seen.iter().all(|&x| x), "V = L: every token appears once");
            }
        }
    }
}

#[test]
fn distinct_subsets_vary_and_cover_the_vocabulary() {
    let (_, b) = make(TaskKind::Copy, true, 60, 40, 2);
    let mut count = vec![0usize; 60];
    for s in 0..b.batch {
        for t in 0..40 {
            count[b.src(t, s) as usize] += 1;
        }
    }
    // Each token is in a sequence with probability 2/3: about 43 of 64 sequences.
    assert!(count.iter().all(|&c| (25..=60).contains(&c)), "{count:?}");
}

#[test]
fn iid_copy_repeats_tokens_and_copies() {
    let (task, b) = make(TaskKind::Copy, false, 5, 12, 3);
    check_framing(&task, &b);
    let mut repeats = 0;
    for s in 0..b.batch {
        for t in 0..12 {
            assert_eq!(b.tgt(t, s), b.src(t, s));
            assert_eq!(b.aligned[t], t as u32);
            if (0..t).any(|u| b.src(u, s) == b.src(t, s)) {
                repeats += 1;
            }
        }
    }
    assert!(
        repeats > 0,
        "i.i.d. tokens out of 5 must repeat in 12 draws"
    );
}

#[test]
fn reversal_alignment() {
    let (task, b) = make(TaskKind::Reverse, true, 20, 9, 4);
    check_framing(&task, &b);
    for t in 0..9 {
        assert_eq!(b.aligned[t], (8 - t) as u32);
    }
    assert_eq!(b.aligned[9], 9, "EOS is aligned with EOS");
    for s in 0..b.batch {
        for t in 0..=9 {
            assert_eq!(b.tgt(t, s), b.src(b.aligned[t] as usize, s));
        }
    }
}

#[test]
fn translation_uses_a_fixed_permutation_table() {
    let (task, b) = make(TaskKind::Translate, false, 15, 10, 5);
    check_framing(&task, &b);
    let mut sorted = task.table.clone();
    sorted.sort();
    assert_eq!(
        sorted,
        (0..15).collect::<Vec<u32>>(),
        "the table is a permutation"
    );
    assert_ne!(
        task.table,
        (0..15).collect::<Vec<u32>>(),
        "and not the identity"
    );
    for s in 0..b.batch {
        for t in 0..10 {
            assert_eq!(b.aligned[t], t as u32);
            assert_eq!(b.tgt(t, s), task.table[b.src(t, s) as usize]);
        }
    }
}

#[test]
fn same_seed_same_batches() {
    let (_, a) = make(TaskKind::Copy, true, 60, 40, 6);
    let (_, b) = make(TaskKind::Copy, true, 60, 40, 6);
    let (_, c) = make(TaskKind::Copy, true, 60, 40, 7);
    assert_eq!(a.source, b.source);
    assert_ne!(a.source, c.source);
}
