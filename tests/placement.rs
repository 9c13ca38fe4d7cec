//! Where a run trains, as the native tools choose it (`placement`): a backend is one more
//! `RunMaker`, and a toy one plugs in beside the CPU's, is picked by its name and makes runs
//! that train; a name no maker has is refused with the names there are.
#![cfg(not(target_arch = "wasm32"))]

use attention_playground::copying::config::Config;
use attention_playground::copying::train::{CopyingRun, OnCpu, Trainer};
use attention_playground::placement::{self, pick, Placement, RunMaker};
use attention_playground::run::RunError;
use std::sync::{Arc, Mutex};

/// A toy backend: CPU runs, on a backend of its own name, that remembers the seeds it was
/// asked for.
struct Toy {
    asked: Arc<Mutex<Vec<u64>>>,
}

impl RunMaker<dyn CopyingRun> for Toy {
    fn placement(&self) -> Placement {
        Placement {
            backend: "toy",
            workers: 1,
        }
    }

    fn describe(&self) -> String {
        "a toy".into()
    }

    fn make(&self, config: Config) -> Result<Box<dyn CopyingRun>, RunError> {
        self.asked.lock().unwrap().push(config.seed);
        Ok(Box::new(Trainer::new(config)?))
    }
}

fn small(seed: u64) -> Config {
    Config {
        hidden: 8,
        length: 4,
        vocab: 6,
        batch: 4,
        eval_every: 2,
        seed,
        ..Config::default()
    }
}

#[test]
fn a_toy_backend_plugs_in_and_is_picked_by_name() {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let makers: Vec<Box<dyn RunMaker<dyn CopyingRun> + Sync>> = vec![
        Box::new(OnCpu),
        Box::new(Toy {
            asked: asked.clone(),
        }),
    ];
    let cpu = pick(&makers, placement::CPU).unwrap();
    assert_eq!(cpu.placement().backend, placement::CPU);
    let toy = pick(&makers, "toy").unwrap();
    assert_eq!(toy.describe(), "a toy");
    let mut run = toy.make(small(7)).unwrap();
    for _ in 0..4 {
        run.step().unwrap();
    }
    assert_eq!(run.step_count(), 4);
    assert_eq!(run.latest().step, 4, "evaluated every 2 steps");
    assert!(
        !run.eval_batch().source.is_empty(),
        "a copying run: its evaluation batch"
    );
    // The same settings and seed train the same run on the CPU's backend, step for step.
    let mut same = cpu.make(small(7)).unwrap();
    for _ in 0..4 {
        same.step().unwrap();
    }
    assert_eq!(same.last_loss(), run.last_loss());
    assert_eq!(same.params(), run.params());
    let err = pick(&makers, "tpu").err().expect("no such backend");
    assert_eq!(err, "--backend: cpu or toy here, got \"tpu\"");
    // Settings the backend cannot train are refused by it, naming the field.
    let bad = toy.make(Config {
        hidden: 0,
        ..small(1)
    });
    assert_eq!(
        bad.err()
            .and_then(|e| e.field().map(String::from))
            .as_deref(),
        Some("hidden")
    );
    assert_eq!(
        *asked.lock().unwrap(),
        [7, 1],
        "the toy made the runs asked of it"
    );
}
