//! `scaling trace`: each seed's run at one length and size, followed every N steps: its
//! loss, accuracies, attention on the hidden bits and each tensor's norm.

use crate::{parse, protocol};
use attention_playground::run::Run as _;
use attention_playground::sparse::config::SparseConfig;
use attention_playground::sparse::train::SparseTrainer;

/// `scaling trace`: each seed's run at one length and size, its evaluations and the norm of
/// each tensor every `--eval-every` steps.
pub fn trace(argv: &[String]) -> Result<(), String> {
    let a = parse(argv)?;
    let (Some(m), [t]) = (a.samples, a.lengths.as_slice()) else {
        return Err("trace: give one length (--lengths T) and one size (--samples M)".into());
    };
    let every = a.eval_every.unwrap_or((a.steps as usize / 10).max(1));
    for &seed in &a.seeds {
        let config = SparseConfig {
            length: *t,
            samples: m,
            seed,
            eval_every: every,
            ..a.config.clone()
        };
        let mut run = SparseTrainer::new(config).map_err(|e| e.to_string())?;
        println!(
            "\nseed {seed}, T {t}, m {m}{}:",
            protocol(
                run.config().positions.name(),
                &run.config().weight_decay.to_string(),
                run.config().decay_scope.name()
            )
        );
        let mut names = Vec::new();
        run.model().ranges.visit(|name, _| names.push(name));
        println!(
            "{:>6} {:>8} {:>6} {:>6} {:>6} {:>6}   norms: {}",
            "step",
            "loss",
            "train",
            "test",
            "on S",
            "max α",
            names.join(" ")
        );
        let row = |run: &mut SparseTrainer| {
            let e = *run.latest();
            let heads = run.config().heads;
            let attention = run.attention().to_vec(); // (K, T)
            let most = (0..*t)
                .map(|i| (0..heads).map(|k| attention[k * t + i]).sum::<f32>() / heads as f32)
                .fold(0.0f32, f32::max);
            let ranges = run.model().ranges.clone();
            let params = run.params();
            let mut norms = Vec::new();
            ranges.visit(|_, r| {
                let n = params[r.clone()].iter().map(|x| x * x).sum::<f32>().sqrt();
                norms.push(format!("{n:.3}"));
            });
            println!(
                "{:>6} {:>8.4} {:>6.3} {:>6.3} {:>6.3} {:>6.3}   {}",
                e.step,
                e.train_loss,
                e.train_accuracy,
                e.test_accuracy,
                e.mass,
                most,
                norms.join(" ")
            );
        };
        row(&mut run);
        for _ in 0..a.steps {
            if let Err(e) = run.step() {
                println!("stopped: {e}");
                break;
            }
            if run.step_count() % every as u64 == 0 {
                row(&mut run);
            }
        }
    }
    Ok(())
}
