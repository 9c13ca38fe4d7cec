//! `scaling`: the sparse lab's sample-complexity experiment (docs/science.md 2) from the
//! command line. For each length `T`, searches for the fewest training samples `m*` at
//! which the median test accuracy over the seeds reaches the threshold; writes a CSV row
//! per run, prints a table of `m*` against `T` beside the information limit `log2 C(T, s)`,
//! and fits `m*` against `log2 T` and against `T`. Progress goes to stderr.

use attention_playground::run::Run as _;
use attention_playground::settings::Settings;
use attention_playground::settings::Value;
use attention_playground::sparse::config::SparseConfig;
use attention_playground::sparse::scaling::{fit, log2_choose, median, SampleSearch};
use attention_playground::sparse::train::SparseTrainer;
use std::io::Write;
use std::time::Instant;

mod common;
use common::{num, parallel, parse_seeds, value};

const HELP: &str = "\
scaling: the fewest training samples m* a self-attention head needs to learn a sparse
Boolean function of T bits, for several T (Edelman et al. 2022).

Options (defaults in brackets):
  --preset NAME        start from a sparse-lab preset: and-3 and-3-few and-3-one-head
                       majority-3 parity-2 [and-3]
  --function F         and | or | majority | parity
  --sparsity S         hidden bits s
  --width D  --heads K  --mlp M  --batch B  --lr X  --test-samples N
  --lengths LIST       the lengths T [8,16,32,64,128,256]
  --seeds LIST         seeds per size, e.g. 0-4 or 0,3,7 [0-4]
  --steps N            training steps per run [1000]
  --eval-every N       evaluate every N steps too (timing only: the outcome is the last
                       evaluation's either way) [only at the end]
  --threshold X        median test accuracy that counts as learned [0.95]
  --start M            the first size tried at each length [16]
  --max M              the largest size tried [8192]
  --ratio R            stop when the failing and succeeding sizes are within R [1.19]
  --samples M          train this many samples at each length instead of searching
  --jobs N             runs at once, one thread each [1]
  --csv FILE           write the runs' CSV there instead of standard output
";

/// The CSV's header: one row per run.
const HEADER: &str =
    "function,sparsity,length,samples,seed,train_acc,test_acc,mass,found,rejected,ambiguous";

struct Args {
    config: SparseConfig,
    lengths: Vec<usize>,
    seeds: Vec<u64>,
    steps: u64,
    eval_every: Option<usize>,
    samples: Option<usize>,
    threshold: f32,
    start: usize,
    max: usize,
    ratio: f64,
    jobs: usize,
    csv: Option<String>,
}

fn parse(argv: &[String]) -> Result<Args, String> {
    let mut a = Args {
        config: SparseConfig::default(),
        lengths: vec![8, 16, 32, 64, 128, 256],
        seeds: (0..5).collect(),
        steps: 1000,
        eval_every: None,
        samples: None,
        threshold: 0.95,
        start: 16,
        max: 8192,
        ratio: 1.19,
        jobs: 1,
        csv: None,
    };
    // The preset first, whatever its place: the other flags change it.
    if let Some(i) = argv.iter().position(|x| x == "--preset") {
        let name = argv.get(i + 1).ok_or("--preset needs a value")?;
        a.config = SparseConfig::preset(name).ok_or(format!("--preset: no preset {name:?}"))?;
    }
    let mut it = argv.iter();
    while let Some(flag) = it.next() {
        let mut val = || value(&mut it, flag);
        // A setting of the lab, for its own refusal; or one of this tool's.
        let key = match flag.as_str() {
            "--help" | "-h" => return Err(HELP.into()),
            "--function" => "function",
            "--sparsity" => "sparsity",
            "--width" => "width",
            "--heads" => "heads",
            "--mlp" => "mlp",
            "--batch" => "batch",
            "--lr" => "learning_rate",
            "--test-samples" => "test_samples",
            other => {
                match other {
                    "--preset" => drop(val()?),
                    "--lengths" => {
                        a.lengths = val()?
                            .split(',')
                            .map(|x| num(x, flag))
                            .collect::<Result<_, _>>()?
                    }
                    "--seeds" => a.seeds = parse_seeds(val()?)?,
                    "--steps" => a.steps = num(val()?, flag)?,
                    "--samples" => a.samples = Some(num(val()?, flag)?),
                    "--eval-every" => a.eval_every = Some(num(val()?, flag)?),
                    "--threshold" => a.threshold = num(val()?, flag)?,
                    "--start" => a.start = num(val()?, flag)?,
                    "--max" => a.max = num(val()?, flag)?,
                    "--ratio" => a.ratio = num(val()?, flag)?,
                    "--jobs" => a.jobs = num(val()?, flag)?,
                    "--csv" => a.csv = Some(val()?.to_string()),
                    _ => return Err(format!("unknown option {other:?} (--help lists them)")),
                }
                continue;
            }
        };
        a.config
            .set(key, Value::Text(val()?))
            .map_err(|e| format!("{flag}: {e}"))?;
    }
    if a.lengths.is_empty() || a.seeds.is_empty() || a.steps == 0 || a.jobs == 0 {
        return Err("--lengths, --seeds, --steps and --jobs need at least one".into());
    }
    if a.eval_every.is_some_and(|n| !(1..=100_000).contains(&n)) {
        return Err("--eval-every must be a whole number from 1 to 100000".into());
    }
    if !(a.start >= 1 && a.max >= a.start && a.ratio > 1.0) {
        return Err("--start must be at least 1, --max at least --start, --ratio above 1".into());
    }
    for &t in &a.lengths {
        let c = SparseConfig {
            length: t,
            samples: a.samples.unwrap_or(a.config.samples),
            ..a.config.clone()
        };
        c.validate().map_err(|e| format!("--lengths {t}: {e}"))?;
    }
    Ok(a)
}

/// One run's result.
struct Run {
    seed: u64,
    train: f32,
    test: f32,
    mass: f32,
    found: bool,
    rejected: usize,
    ambiguous: bool,
}

fn train(config: SparseConfig, steps: u64, eval_every: Option<usize>) -> Run {
    let seed = config.seed;
    let mut t = SparseTrainer::new(SparseConfig {
        eval_every: eval_every.unwrap_or(steps as usize),
        ..config
    })
    .expect("settings checked");
    // A run that diverges stops there: its last evaluation is its outcome.
    for _ in 0..steps {
        if t.step().is_err() {
            break;
        }
    }
    if t.latest().step != t.step_count() {
        t.evaluate();
    }
    let e = *t.latest();
    Run {
        seed,
        train: e.train_accuracy,
        test: e.test_accuracy,
        mass: e.mass,
        found: e.found,
        rejected: t.task().rejected,
        ambiguous: t.task().ambiguous,
    }
}

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let a = match parse(&argv) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(if e == HELP { 0 } else { 2 });
        }
    };
    let mut out: Box<dyn Write> = match &a.csv {
        Some(path) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(path).unwrap_or_else(|e| {
                eprintln!("--csv {path}: {e}");
                std::process::exit(2)
            }),
        )),
        None => Box::new(std::io::stdout()),
    };
    writeln!(out, "{HEADER}").unwrap();
    let c = &a.config;
    let function = format!("{:?}", c.function).to_lowercase();
    let started = Instant::now();
    let mut table = Vec::new();
    for &t in &a.lengths {
        let mut search = SampleSearch::new(a.start, a.max, a.ratio);
        // With --samples, that one size: no search.
        let mut once = a.samples;
        while let Some(m) = if a.samples.is_some() {
            once.take()
        } else {
            search.next()
        } {
            let runs = parallel(a.seeds.len(), a.jobs, |i| {
                let config = SparseConfig {
                    length: t,
                    samples: m,
                    seed: a.seeds[i],
                    ..c.clone()
                };
                train(config, a.steps, a.eval_every)
            });
            for r in &runs {
                writeln!(
                    out,
                    "{function},{},{t},{m},{},{},{},{},{},{},{}",
                    c.sparsity,
                    r.seed,
                    r.train,
                    r.test,
                    r.mass,
                    u8::from(r.found),
                    r.rejected,
                    u8::from(r.ambiguous)
                )
                .unwrap();
            }
            let tests: Vec<f32> = runs.iter().map(|r| r.test).collect();
            let med = median(&tests);
            search.record(m, med >= a.threshold);
            eprintln!(
                "T {t:>4}  m {m:>5}: median test accuracy {med:.3} ({:.0} s)",
                started.elapsed().as_secs_f64()
            );
        }
        table.push((t, search.result(), search.failed));
    }
    out.flush().unwrap();
    println!(
        "\n{function} of {} bits, {} seeds, {} steps, median test accuracy >= {}:",
        c.sparsity,
        a.seeds.len(),
        a.steps,
        a.threshold
    );
    println!(
        "{:>6} {:>8} {:>12} {:>14}",
        "T", "m*", "last failed", "log2 C(T, s)"
    );
    for &(t, found, failed) in &table {
        let m = found.map_or("none".to_string(), |m| m.to_string());
        let limit = log2_choose(t, c.sparsity);
        println!("{t:>6} {m:>8} {failed:>12} {limit:>14.1}");
    }
    let points: Vec<(usize, f64)> = table
        .iter()
        .filter_map(|&(t, m, _)| m.map(|m| (t, m as f64)))
        .collect();
    let on = |x: fn(f64) -> f64, y: fn(f64) -> f64| {
        fit(&points
            .iter()
            .map(|&(t, m)| (x(t as f64), y(m)))
            .collect::<Vec<_>>())
    };
    let log_fit = on(f64::log2, |m| m);
    let lin_fit = on(|t| t, |m| m);
    let power_fit = on(f64::log2, f64::log2);
    if let (Some(l), Some(n), Some(p)) = (log_fit, lin_fit, power_fit) {
        println!(
            "m* ~ {:.1} + {:.1} log2 T   (R^2 {:.3})",
            l.intercept, l.slope, l.r2
        );
        println!(
            "m* ~ {:.1} + {:.3} T       (R^2 {:.3})",
            n.intercept, n.slope, n.r2
        );
        let better = if l.r2 >= n.r2 { "log T" } else { "T" };
        println!("m* follows {better} more closely of the two.");
        println!(
            "m* ~ {:.1} T^{:.2}          (R^2 {:.3}, a line on log-log axes)",
            p.intercept.exp2(),
            p.slope,
            p.r2
        );
    }
    eprintln!("done in {:.0} s", started.elapsed().as_secs_f64());
}
