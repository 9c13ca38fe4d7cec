//! `lottery`: the paper's Section 5 experiment (docs/science.md section 3) in this project's
//! model: does one good attention head among eight rescue the hard task?
//!
//! Every weight but the attention heads' is fixed by one seed (the base), and so is the
//! data. Single-head models that differ only in their head (each head drawn from its own
//! seed) are trained; a head is *good* if its model learns the task (final token accuracy
//! above --good) and *bad* if it stalls (below --bad). Then 8-head models made of the base
//! and eight heads are trained: eight bad heads, seven bad and one good, and eight fresh
//! random heads; each kind's success rate (final token accuracy above --good) is printed.
//! `lottery --help` lists the options.

use attention_playground::copying::config::{Config, PRESETS};
use attention_playground::copying::train::Trainer;
use attention_playground::run::Run;
use std::collections::HashMap;
use std::ops::Range;

// It takes no list of seeds: it uses only part of what the tools share.
#[allow(dead_code)]
mod common;
use common::{num, parallel};

const HELP: &str = "\
lottery: one good attention head among eight (Snell et al. 2021, Section 5).

Options:
  --preset NAME    the task and sizes (default small-hard)
  --steps N        training steps of the single-head models (default 400, the small hard
                   preset's budget)
  --combined-steps N  training steps of the combined models (default 600, the budget of
                   the small several-heads preset: more heads learn more slowly)
  --singles N      single-head models drawn, to label heads (default 32)
  --trials N       8-head models of each kind (default 12)
  --heads K        heads of the combined models (default 8)
  --base-seed S    the seed of every weight but the heads', and of the data (default 0)
  --good X         a model learns the task: final token accuracy above X (default 0.95)
  --bad X          a model stalls: final token accuracy below X (default 0.6)
  --jobs N         models trained at once, one thread each (default 1)
";

/// The attention heads' tensors, each (K, …): head `k` is the `k`-th of K equal parts.
const HEAD_TENSORS: [&str; 4] = ["w_q", "b_q", "w_c", "b_c"];

struct Args {
    config: Config,
    steps: u64,
    combined_steps: u64,
    singles: usize,
    trials: usize,
    heads: usize,
    base_seed: u64,
    good: f32,
    bad: f32,
    jobs: usize,
}

fn parse_args() -> Result<Args, String> {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let mut a = Args {
        config: Config::preset("small-hard").expect("preset"),
        steps: 400,
        combined_steps: 600,
        singles: 32,
        trials: 12,
        heads: 8,
        base_seed: 0,
        good: 0.95,
        bad: 0.6,
        jobs: 1,
    };
    let mut it = argv.iter();
    while let Some(flag) = it.next() {
        let mut value = || common::value(&mut it, flag);
        match flag.as_str() {
            "--help" | "-h" => {
                print!("{HELP}");
                std::process::exit(0);
            }
            "--preset" => {
                let name = value()?;
                a.config = Config::preset(name).ok_or_else(|| {
                    format!(
                        "--preset: unknown preset {name:?}; known: {}",
                        PRESETS.join(", ")
                    )
                })?;
            }
            "--steps" => a.steps = num(value()?, flag)?,
            "--combined-steps" => a.combined_steps = num(value()?, flag)?,
            "--singles" => a.singles = num(value()?, flag)?,
            "--trials" => a.trials = num(value()?, flag)?,
            "--heads" => a.heads = num(value()?, flag)?,
            "--base-seed" => a.base_seed = num(value()?, flag)?,
            "--good" => a.good = num(value()?, flag)?,
            "--bad" => a.bad = num(value()?, flag)?,
            "--jobs" => a.jobs = num::<usize>(value()?, flag)?.max(1),
            other => return Err(format!("unknown option {other:?} (see --help)")),
        }
    }
    if a.heads < 2 || a.singles == 0 {
        return Err("--heads must be at least 2 and --singles at least 1".to_string());
    }
    // Only the final evaluation matters: evaluate rarely (train() evaluates at the end).
    a.config.eval_every = a.steps.max(a.combined_steps).max(1) as usize;
    Ok(a)
}

/// The tensors' ranges in a parameter buffer, by name.
fn ranges(t: &Trainer) -> HashMap<&'static str, Range<usize>> {
    let mut out = HashMap::new();
    t.model().layout.ranges.visit(|name, r| {
        out.insert(name, r.clone());
    });
    out
}

/// One head: its part of each head tensor, in [`HEAD_TENSORS`] order.
type Head = Vec<Vec<f32>>;

/// The heads of a kind's trial `t`.
type Chooser<'a> = Box<dyn Fn(usize) -> Vec<Head> + Sync + 'a>;

/// Head `k` of the model `t`.
fn head_of(t: &Trainer, k: usize) -> Head {
    let r = ranges(t);
    let heads = t.config().heads;
    HEAD_TENSORS
        .iter()
        .map(|name| {
            let all = &t.weights()[r[name].clone()];
            let per = all.len() / heads;
            all[k * per..(k + 1) * per].to_vec()
        })
        .collect()
}

/// A model of `heads` heads: the base's other weights, and `chosen` as its heads.
fn assemble(config: &Config, base: &Trainer, chosen: &[&Head]) -> Result<Trainer, String> {
    let mut t = Trainer::new(Config {
        heads: chosen.len(),
        ..config.clone()
    })
    .map_err(|e| e.to_string())?;
    let (to, from) = (ranges(&t), ranges(base));
    let mut params = t.weights().to_vec();
    for (name, r) in &to {
        if !HEAD_TENSORS.contains(name) {
            params[r.clone()].copy_from_slice(&base.weights()[from[name].clone()]);
        }
    }
    for (i, name) in HEAD_TENSORS.iter().enumerate() {
        let r = to[name].clone();
        let per = r.len() / chosen.len();
        for (k, head) in chosen.iter().enumerate() {
            params[r.start + k * per..r.start + (k + 1) * per].copy_from_slice(&head[i]);
        }
    }
    t.load_params(&params, 0).map_err(|e| e.to_string())?;
    Ok(t)
}

/// Trains `t` for `steps` steps; its final token accuracy (0 if it diverged).
fn train(mut t: Trainer, steps: u64) -> f32 {
    for _ in 0..steps {
        if t.step().is_err() {
            return 0.0;
        }
    }
    t.evaluate().token_accuracy
}

/// A small deterministic choice of `k` distinct indices of `0..n` for trial `t`.
fn pick(n: usize, k: usize, t: u64) -> Vec<usize> {
    let mut rng = attention_playground::rng::Rng::new(t, 0x10_77e7);
    let mut all: Vec<usize> = (0..n).collect();
    rng.shuffle(&mut all);
    all.truncate(k);
    all
}

fn main() {
    let a = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("lottery: {e}");
            std::process::exit(2);
        }
    };
    let one = Config {
        heads: 1,
        seed: a.base_seed,
        ..a.config.clone()
    };
    let fail = |e: String| -> ! {
        eprintln!("lottery: {e}");
        std::process::exit(2)
    };
    let base = Trainer::new(one.clone()).unwrap_or_else(|e| fail(e.to_string()));
    // Head j comes from seed base_seed + 1 + j (a 1-head model's only head).
    let draw = |j: u64| -> Head {
        let t = Trainer::new(Config {
            seed: a.base_seed + 1 + j,
            ..one.clone()
        })
        .unwrap_or_else(|e| fail(e.to_string()));
        head_of(&t, 0)
    };
    let heads: Vec<Head> = (0..a.singles as u64).map(draw).collect();
    eprintln!(
        "training {} single-head models, {} steps each",
        a.singles, a.steps
    );
    let single = parallel(a.singles, a.jobs, |j| {
        let t = assemble(&one, &base, &[&heads[j]]).unwrap_or_else(|e| fail(e));
        train(t, a.steps)
    });
    let good: Vec<usize> = (0..a.singles).filter(|&j| single[j] > a.good).collect();
    let bad: Vec<usize> = (0..a.singles).filter(|&j| single[j] < a.bad).collect();
    println!(
        "| head | seed | final token acc after {} steps | label |\n|---:|---:|---:|---|",
        a.steps
    );
    for (j, acc) in single.iter().enumerate() {
        let label = if good.contains(&j) {
            "good"
        } else if bad.contains(&j) {
            "bad"
        } else {
            "–"
        };
        println!(
            "| {j} | {} | {acc:.3} | {label} |",
            a.base_seed + 1 + j as u64
        );
    }
    println!(
        "\n{} good and {} bad of {} heads\n",
        good.len(),
        bad.len(),
        a.singles
    );
    let k = a.heads;
    if bad.len() < k || good.is_empty() {
        fail(format!(
            "need at least {k} bad heads and one good one: draw more with --singles"
        ));
    }
    // Fresh heads for the random kind: seeds after the labelled ones'.
    let fresh: Vec<Head> = (0..(a.trials * k) as u64)
        .map(|j| draw(a.singles as u64 + j))
        .collect();
    let kinds: [(String, Chooser); 3] = [
        (
            format!("{k} bad heads"),
            Box::new(|t| {
                pick(bad.len(), k, t as u64)
                    .iter()
                    .map(|&i| heads[bad[i]].clone())
                    .collect()
            }),
        ),
        (
            format!("{} bad heads + 1 good", k - 1),
            Box::new(|t| {
                let mut chosen: Vec<Head> = pick(bad.len(), k - 1, t as u64)
                    .iter()
                    .map(|&i| heads[bad[i]].clone())
                    .collect();
                chosen.insert(t % k, heads[good[t % good.len()]].clone());
                chosen
            }),
        ),
        (
            format!("{k} random heads"),
            Box::new(|t| fresh[t * k..(t + 1) * k].to_vec()),
        ),
    ];
    println!(
        "| {k}-head models, {} steps | succeed (final token acc > {}) | final token acc |\n|---|---:|---|",
        a.combined_steps, a.good
    );
    for (name, choose) in &kinds {
        eprintln!("training {} models: {name}", a.trials);
        let accs = parallel(a.trials, a.jobs, |t| {
            let chosen = choose(t);
            let refs: Vec<&Head> = chosen.iter().collect();
            let m = assemble(&one, &base, &refs).unwrap_or_else(|e| fail(e));
            train(m, a.combined_steps)
        });
        let wins = accs.iter().filter(|&&x| x > a.good).count();
        let list: Vec<String> = accs.iter().map(|x| format!("{x:.2}")).collect();
        println!("| {name} | {wins} / {} | {} |", a.trials, list.join(", "));
    }
}
