//! `scaling`: the sparse lab's sample-complexity experiment (docs/science.md 2) from the
//! command line. For each length `T`, searches for the fewest training samples `m*` at
//! which the median test accuracy over the seeds reaches the threshold; writes a CSV row
//! per run, prints a table of `m*` against `T` beside the information limit `log2 C(T, s)`,
//! and fits three laws to `m*` (linear in `log T`, linear in `T`, a power of `T`), each
//! judged in the space of `m*` with its residuals, and, fitted up to `--fit-upto`, each
//! one's predictions of the longer lengths. `--shard I/N` trains a share of the lengths
//! (one job of an array); `scaling merge` joins the shards' CSVs and prints the table and
//! fits of the whole. Progress goes to stderr.

use attention_playground::run::Run as _;
use attention_playground::settings::Settings;
use attention_playground::settings::Value;
use attention_playground::sparse::config::{DecayScope, Positions, SparseConfig};
use attention_playground::sparse::scaling::{
    fit_law, held_out, log2_choose, median, Law, Predictions, SampleSearch,
};
use attention_playground::sparse::train::SparseTrainer;
use attention_playground::sparse::uncertainty::{
    bootstrap, logistic_crossing, m_star, share_rule, successes, Bootstrap, Trials,
};
use std::io::Write;
use std::time::Instant;

mod common;
use common::{num, parallel, parse_seeds, parse_shard, value};

const HELP: &str = "\
scaling: the fewest training samples m* a self-attention head needs to learn a sparse
Boolean function of T bits, for several T (Edelman et al. 2022).

Options (defaults in brackets):
  --preset NAME        start from a sparse-lab preset: and-3 and-3-few and-3-one-head
                       majority-3 parity-2 [and-3]
  --function F         and | or | majority | parity
  --sparsity S         hidden bits s
  --width D  --heads K  --mlp M  --batch B  --lr X  --test-samples N
  --positions P        position codes: learned | sinusoidal | one-hot | random [learned]
  --weight-decay X     AdamW's decoupled weight decay [0]
  --decay-scope S      what it shrinks: matrices (the weight matrices only) | all (every
                       parameter but the biases, embeddings too) [matrices]
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
  --fit-upto T         fit the laws to the lengths up to T and say how each predicts the
                       longer ones [256]
  --shard I/N          train only the I-th of N shares of the lengths (1 <= I <= N): the
                       lengths at positions I-1, I-1+N, ... of the list

scaling trace --lengths T --samples M [--seeds LIST] [--steps N] [--eval-every N] [setting flags]
  trains each seed at one length and size and prints, every --eval-every steps (default
  a tenth of --steps), its train loss, train and test accuracy, the attention on the
  hidden positions and the largest attention on any one position (averaged over the test
  set and the heads), and the norm of each tensor: what a run that fails looks like

scaling merge FILE... [--threshold X] [--fit-upto T]
  joins the CSVs of a run's shards (rows of the same function, sparsity and protocol; a
  length in two files is refused) and prints the table and the fits of the whole
";

/// The CSV's header: one row per run.
const HEADER: &str = "function,sparsity,length,samples,seed,train_acc,test_acc,mass,found,\
rejected,ambiguous,positions,weight_decay,decay_scope";
/// The headers of the CSVs written before the decay's scope (the weight matrices only) and
/// before the protocol's columns (learned positions, no weight decay), which `merge` reads.
const HEADER_13: &str = "function,sparsity,length,samples,seed,train_acc,test_acc,mass,found,\
rejected,ambiguous,positions,weight_decay";
const HEADER_11: &str =
    "function,sparsity,length,samples,seed,train_acc,test_acc,mass,found,rejected,ambiguous";

/// The share of the seeds that the share rule asks for.
const SHARE: f64 = 0.75;
/// Resamples of the seeds in the bootstrap, and the draw's seed.
const RESAMPLES: usize = 1000;
const BOOTSTRAP_SEED: u64 = 0;

/// The protocol's words in a title: nothing for the defaults (learned position codes, no
/// weight decay).
fn protocol(positions: &str, weight_decay: &str, scope: &str) -> String {
    let mut out = String::new();
    if positions != "learned" {
        out += &format!(", {positions} position codes");
    }
    if weight_decay.parse::<f64>() != Ok(0.0) {
        out += &format!(", weight decay {weight_decay}");
        if scope == "all" {
            out += " on everything but the biases";
        }
    }
    out
}

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
    fit_upto: usize,
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
        fit_upto: 256,
    };
    let mut shard = None;
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
            "--positions" => "positions",
            "--weight-decay" => "weight_decay",
            "--decay-scope" => "decay_scope",
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
                    "--fit-upto" => a.fit_upto = num(val()?, flag)?,
                    "--shard" => shard = Some(parse_shard(val()?)?),
                    _ => return Err(format!("unknown option {other:?} (--help lists them)")),
                }
                continue;
            }
        };
        a.config
            .set(key, Value::Text(val()?))
            .map_err(|e| format!("{flag}: {e}"))?;
    }
    if let Some((i, n)) = shard {
        a.lengths = a.lengths.iter().skip(i - 1).step_by(n).copied().collect();
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

/// A run's rows as the report reads them: `(length, samples, seed, test accuracy)`.
type Outcome = (usize, usize, u64, f32);

/// A count of resamples as a share in words: "45%".
fn share(k: usize, of: usize) -> String {
    format!("{:.0}%", 100.0 * k as f64 / of.max(1) as f64)
}

/// The fewest seeds the bootstrap resamples.
const BOOTSTRAP_SEEDS: usize = 5;

/// A size the logistic fit gives, as the table writes it: `<lo` or `>hi` where it lies at
/// or beyond the sizes tried (`lo`, `hi`).
fn size_of(m: f64, lo: f64, hi: f64) -> String {
    if m <= lo {
        format!("<{lo:.0}")
    } else if m >= hi {
        format!(">{hi:.0}")
    } else {
        format!("{m:.0}")
    }
}

/// Prints the bootstrap's findings: the laws' slopes over resamples of the seeds, the
/// resamples not fitted and, where lengths beyond `fit_upto` were tried, how often the
/// held-out check picks each law.
fn print_bootstrap(
    boot: &Bootstrap,
    seeds: usize,
    lengths: usize,
    threshold: f32,
    fit_upto: usize,
    tried_beyond: bool,
) {
    println!(
        "\nBootstrap: {RESAMPLES} resamples of the {seeds} seeds (with replacement), m* by the median \
         rule at the {lengths} lengths that have one:"
    );
    let interval = |x: Option<[f64; 3]>, digits: usize| {
        x.map_or("–".to_string(), |[lo, mid, hi]| {
            format!("{mid:.digits$} (90%: {lo:.digits$}–{hi:.digits$})")
        })
    };
    println!(
        "  power of T   exponent {}",
        interval(boot.power_exponent, 3)
    );
    println!("  log T        slope    {}", interval(boot.log_slope, 1));
    if boot.lost > 0 {
        println!(
            "  not fitted in {} of resamples: a length lost its m* (its median reached {threshold} \
             at no size the search tried)",
            share(boot.lost, RESAMPLES)
        );
    }
    if tried_beyond {
        let wins: Vec<String> = Law::ALL
            .iter()
            .zip(boot.held_out_wins)
            .map(|(law, k)| format!("{} in {}", law.name(), share(k, RESAMPLES)))
            .collect();
        println!(
            "  held-out check (fitted to T <= {fit_upto}) picks {}{}{}",
            wins.join(", "),
            if boot.lost > 0 {
                format!(", not fitted in {}", share(boot.lost, RESAMPLES))
            } else {
                String::new()
            },
            if boot.undecided > 0 {
                format!(
                    ", none in {} (too few lengths learned)",
                    share(boot.undecided, RESAMPLES)
                )
            } else {
                String::new()
            }
        );
    }
}

/// Prints under `title` the table of `m*` (the median rule) against `T`, with the last
/// size that failed, the share rule, the logistic `m50` and its bootstrap interval, the
/// information limit and how many seeds reached `threshold` at each size tried; then the
/// three laws fitted to `m*` (each judged in the space of `m*`, with its residuals), how
/// each, fitted up to `fit_upto`, predicts the longer lengths, the bootstrap over seeds of
/// the laws' slopes and of that verdict, and the verdict in words.
fn report(title: &str, sparsity: usize, outcomes: &[Outcome], threshold: f32, fit_upto: usize) {
    let trials = Trials::from_rows(outcomes);
    let seeds = trials.seeds.len();
    let boot = (seeds >= BOOTSTRAP_SEEDS)
        .then(|| bootstrap(&trials, threshold, fit_upto, RESAMPLES, BOOTSTRAP_SEED));
    println!("\n{title}:");
    println!(
        "{:>6} {:>8} {:>12} {:>8} {:>22} {:>14}   seeds reaching {threshold} at each size tried",
        "T",
        "m*",
        "last failed",
        format!("m({:.0}%)", 100.0 * SHARE),
        "m50 [90% bootstrap]",
        "log2 C(T, s)"
    );
    let mut points = Vec::new();
    for (i, l) in trials.lengths.iter().enumerate() {
        let t = l.length;
        let found = m_star(l, threshold, seeds);
        if let Some(m) = found {
            points.push((t as f64, m as f64));
        }
        let failed = l
            .probes
            .iter()
            .filter(|p| median(&p.tests.iter().map(|x| x.1).collect::<Vec<_>>()) < threshold)
            .map(|p| p.samples)
            .max()
            .unwrap_or(0);
        let or_none = |m: Option<usize>| m.map_or("none".to_string(), |m| m.to_string());
        let (lo, hi) = (
            l.probes.first().map_or(0, |p| p.samples) as f64,
            l.probes.last().map_or(0, |p| p.samples) as f64,
        );
        let interval = match boot.as_ref().and_then(|b| b.m50[i]) {
            Some([a, _, b]) => format!("[{}–{}]", size_of(a, lo, hi), size_of(b, lo, hi)),
            None => "[–]".to_string(),
        };
        let m50 = match logistic_crossing(l, threshold, &vec![1; seeds]) {
            Some(c) => format!("{} {interval}", size_of(c.clipped(), lo, hi)),
            None => "–".to_string(),
        };
        let counts: Vec<String> = l
            .probes
            .iter()
            .map(|p| {
                let (k, n) = successes(p, threshold);
                format!("{}:{k}/{n}", p.samples)
            })
            .collect();
        println!(
            "{t:>6} {:>8} {failed:>12} {:>8} {m50:>22} {:>14.1}   {}",
            or_none(found),
            share_rule(l, threshold, SHARE).map_or_else(
                || format!(">{}", l.probes.last().map_or(0, |p| p.samples)),
                |m| m.to_string()
            ),
            log2_choose(t, sparsity),
            counts.join(" ")
        );
    }
    println!(
        "m*: the fewest samples whose median test accuracy reached {threshold}; m({:.0}%): the \
         fewest at which {:.0}% of the seeds did (>M: at no size tried, up to M); m50: where a \
         logistic fit of success against log2 m crosses one half (<M, >M: below or above the \
         sizes tried; –: success does not grow with m), with its 5th–95th percentiles over \
         resamples of the seeds.",
        100.0 * SHARE,
        100.0 * SHARE
    );
    let fits: Vec<_> = Law::ALL
        .into_iter()
        .filter_map(|law| fit_law(law, &points))
        .collect();
    if fits.is_empty() {
        return;
    }
    println!("\nThe laws fitted to every length, judged on m* itself (R^2; residuals m* - law):");
    for f in &fits {
        let residuals: Vec<String> = f.residuals.iter().map(|r| format!("{r:+.1}")).collect();
        println!(
            "  {:<12} {:<28} R^2 {:.3}   residuals {}",
            f.law.name(),
            f.law.formula(&f.line),
            f.r2,
            residuals.join(" ")
        );
    }
    let best = fits
        .iter()
        .max_by(|a, b| a.r2.total_cmp(&b.r2))
        .expect("a fit");
    println!("  closest on these lengths: {}", best.law.name());
    // Why there may be no held-out check: nothing tried beyond fit_upto, nothing learned
    // there, or too few lengths learned up to it.
    let tried_beyond = trials.lengths.iter().any(|l| l.length > fit_upto);
    let learned_upto = points.iter().filter(|p| p.0 <= fit_upto as f64).count();
    let held = held_out(&points, fit_upto as f64);
    // The root mean square of a law's relative errors on the held-out lengths.
    let rms = |p: &Predictions| {
        (p.iter().map(|(_, m, q)| ((q - m) / m).powi(2)).sum::<f64>() / p.len() as f64).sqrt()
    };
    if !held.is_empty() {
        println!(
            "\nFitted to T <= {fit_upto}, each law's m* at the longer lengths (measured in brackets; \
             RMS relative error):"
        );
        for (law, predictions) in &held {
            let said: Vec<String> = predictions
                .iter()
                .map(|(t, m, p)| format!("T {t}: {p:.0} ({m})"))
                .collect();
            println!(
                "  {:<12} {}   RMS {:.2}",
                law.name(),
                said.join(", "),
                rms(predictions)
            );
        }
        println!("  best predicted: {}", held[0].0.name());
    }
    match &boot {
        None => println!("\nBootstrap: not run with fewer than {BOOTSTRAP_SEEDS} seeds."),
        Some(boot) => print_bootstrap(boot, seeds, points.len(), threshold, fit_upto, tried_beyond),
    }
    // The verdict in words.
    let mut words = String::from("\nIn words: ");
    match held.as_slice() {
        [] if !tried_beyond => {
            words += &format!("no held-out check (no length beyond T = {fit_upto} was tried)")
        }
        [] if learned_upto < 2 => {
            words +=
                &format!("no held-out check (fewer than two lengths up to T = {fit_upto} learned)")
        }
        [] => words += &format!("no held-out check (no length beyond T = {fit_upto} learned)"),
        [(first, p), rest @ ..] => {
            words += &format!(
                "fitted to T <= {fit_upto}, {} predicted the longer lengths best (RMS relative error {:.2}",
                first.name(),
                rms(p)
            );
            for (law, p) in rest {
                words += &format!(", {} {:.2}", law.name(), rms(p));
            }
            words += ")";
            if let Some(boot) = &boot {
                let k =
                    boot.held_out_wins[Law::ALL.iter().position(|l| l == first).expect("a law")];
                words += &format!(
                    "; over resamples of the seeds the check picks {} in {} of them",
                    first.name(),
                    share(k, RESAMPLES)
                );
                if boot.lost > 0 {
                    words += &format!(" ({} not fitted)", share(boot.lost, RESAMPLES));
                }
            }
            if rms(p) > 0.5 {
                words += "; but no law predicted them within 50%: here m* follows none of them";
            }
        }
    }
    println!("{words}.");
}

/// `scaling merge FILE... [--threshold X] [--fit-upto T]`: the shards' rows as one run's
/// table and fits.
fn merge(argv: &[String]) -> Result<(), String> {
    let (mut files, mut threshold, mut fit_upto) = (Vec::new(), 0.95f32, 256usize);
    let mut it = argv.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--threshold" => threshold = num(value(&mut it, a)?, a)?,
            "--fit-upto" => fit_upto = num(value(&mut it, a)?, a)?,
            "--help" | "-h" => return Err(HELP.into()),
            _ => files.push(a.clone()),
        }
    }
    if files.is_empty() {
        return Err("merge: give the shards' CSV files".into());
    }
    // (function, sparsity, positions, weight decay, its scope) of every row; the file each
    // length came from; every run's outcome.
    let mut kind: Option<(String, usize, String, String, String)> = None;
    let mut from: std::collections::BTreeMap<usize, String> = Default::default();
    let mut outcomes: Vec<Outcome> = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).map_err(|e| format!("cannot read {file}: {e}"))?;
        let mut lines = text.lines();
        let columns = match lines.next() {
            Some(HEADER) => 14,
            Some(HEADER_13) => 13,
            Some(HEADER_11) => 11,
            _ => {
                return Err(format!(
                    "{file}: not a CSV of scaling (its first line must be {HEADER})"
                ))
            }
        };
        for (k, line) in lines.enumerate().filter(|(_, l)| !l.is_empty()) {
            let f: Vec<&str> = line.split(',').collect();
            let bad = || format!("{file}, line {}: not a row of scaling: {line:?}", k + 2);
            if f.len() != columns {
                return Err(bad());
            }
            let (positions, decay) = if columns >= 13 {
                (f[11], f[12])
            } else {
                ("learned", "0")
            };
            let scope = if columns == 14 { f[13] } else { "matrices" };
            // The decay as an f32 writes it (the page writes 1e-7 where Rust writes 0.0000001).
            let decay: f32 = decay.parse().map_err(|_| bad())?;
            if !Positions::CHOICES.iter().any(|c| c.name == positions)
                || !DecayScope::CHOICES.iter().any(|c| c.name == scope)
            {
                return Err(bad());
            }
            // Without decay, its scope does not matter.
            let scope = if decay == 0.0 { "matrices" } else { scope };
            let this = (
                f[0].to_string(),
                f[1].parse().map_err(|_| bad())?,
                positions.to_string(),
                decay.to_string(),
                scope.to_string(),
            );
            if *kind.get_or_insert_with(|| this.clone()) != this {
                return Err(format!(
                    "{file}: rows of {} of {} bits{} beside rows of another function, sparsity \
                     or protocol",
                    this.0,
                    this.1,
                    protocol(&this.2, &this.3, &this.4)
                ));
            }
            let t: usize = f[2].parse().map_err(|_| bad())?;
            let (m, seed, test) = (
                f[3].parse().map_err(|_| bad())?,
                f[4].parse().map_err(|_| bad())?,
                f[6].parse().map_err(|_| bad())?,
            );
            let first = from.entry(t).or_insert_with(|| file.clone());
            if first != file {
                return Err(format!("merge: length {t} is in both {first} and {file}"));
            }
            outcomes.push((t, m, seed, test));
        }
    }
    let (function, sparsity, positions, decay, scope) =
        kind.ok_or("merge: the files hold no rows")?;
    let seeds: std::collections::BTreeSet<u64> = outcomes.iter().map(|r| r.2).collect();
    let title = format!(
        "{function} of {sparsity} bits{}, {} seeds, merged from {} files, median test accuracy >= {threshold}",
        protocol(&positions, &decay, &scope),
        seeds.len(),
        files.len()
    );
    report(&title, sparsity, &outcomes, threshold, fit_upto);
    Ok(())
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

/// `scaling trace`: each seed's run at one length and size, its evaluations and the norm of
/// each tensor every `--eval-every` steps.
fn trace(argv: &[String]) -> Result<(), String> {
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

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    if argv.first().map(String::as_str) == Some("trace") {
        if let Err(e) = trace(&argv[1..]) {
            eprintln!("{e}");
            std::process::exit(if e == HELP { 0 } else { 2 });
        }
        return;
    }
    if argv.first().map(String::as_str) == Some("merge") {
        if let Err(e) = merge(&argv[1..]) {
            eprintln!("{e}");
            std::process::exit(if e == HELP { 0 } else { 2 });
        }
        return;
    }
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
    let (positions, decay, scope) = (
        c.positions.name(),
        c.weight_decay.to_string(),
        c.decay_scope.name(),
    );
    let started = Instant::now();
    let mut outcomes: Vec<Outcome> = Vec::new();
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
                    "{function},{},{t},{m},{},{},{},{},{},{},{},{positions},{decay},{scope}",
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
            outcomes.extend(runs.iter().map(|r| (t, m, r.seed, r.test)));
            let tests: Vec<f32> = runs.iter().map(|r| r.test).collect();
            let med = median(&tests);
            search.record(m, med >= a.threshold);
            eprintln!(
                "T {t:>4}  m {m:>5}: median test accuracy {med:.3} ({:.0} s)",
                started.elapsed().as_secs_f64()
            );
        }
    }
    out.flush().unwrap();
    let title = format!(
        "{function} of {} bits{}, {} seeds, {} steps, median test accuracy >= {}",
        c.sparsity,
        protocol(positions, &decay, scope),
        a.seeds.len(),
        a.steps,
        a.threshold
    );
    report(&title, c.sparsity, &outcomes, a.threshold, a.fit_upto);
    eprintln!("done in {:.0} s", started.elapsed().as_secs_f64());
}
