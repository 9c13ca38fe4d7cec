//! `scaling`'s report of a run: the table of `m*` against `T` with each size's success
//! counts, the share rule and the logistic `m50`; the laws fitted to `m*` and their
//! held-out predictions; the bootstrap over the seeds; and the verdict in words. The
//! numbers are the library's (`sparse::scaling`, `sparse::uncertainty`); this file only
//! writes them.

use attention_playground::sparse::scaling::{
    fit_laws, fits_by_r2, held_out, log2_choose, median, relative_rms, Law, Predictions,
};
use attention_playground::sparse::uncertainty::{
    bootstrap, logistic_crossing, m_star, share_rule, successes, Bootstrap, Trials,
};

/// The share of the seeds that the share rule asks for.
const SHARE: f64 = 0.75;
/// Resamples of the seeds in the bootstrap, and the draw's seed.
const RESAMPLES: usize = 1000;
const BOOTSTRAP_SEED: u64 = 0;

/// A run's rows as the report reads them: `(length, samples, seed, test accuracy)`.
pub type Outcome = (usize, usize, u64, f32);

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
pub fn report(title: &str, sparsity: usize, outcomes: &[Outcome], threshold: f32, fit_upto: usize) {
    let trials = Trials::from_rows(outcomes);
    let seeds = trials.seeds.len();
    let boot = (seeds >= BOOTSTRAP_SEEDS)
        .then(|| bootstrap(&trials, threshold, fit_upto, RESAMPLES, BOOTSTRAP_SEED));
    let points = print_table(title, sparsity, &trials, boot.as_ref(), threshold);
    let fits = fit_laws(&points);
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
    let best = fits_by_r2(&points)[0].law;
    println!("  closest on these lengths: {}", best.name());
    // Why there may be no held-out check: nothing tried beyond fit_upto, nothing learned
    // there, or too few lengths learned up to it.
    let tried_beyond = trials.lengths.iter().any(|l| l.length > fit_upto);
    let learned_upto = points.iter().filter(|p| p.0 <= fit_upto as f64).count();
    let held = held_out(&points, fit_upto as f64);
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
                relative_rms(predictions)
            );
        }
        println!("  best predicted: {}", held[0].0.name());
    }
    match &boot {
        None => println!("\nBootstrap: not run with fewer than {BOOTSTRAP_SEEDS} seeds."),
        Some(boot) => print_bootstrap(boot, seeds, points.len(), threshold, fit_upto, tried_beyond),
    }
    println!(
        "{}",
        verdict(&held, boot.as_ref(), fit_upto, tried_beyond, learned_upto)
    );
}

/// Prints under `title` the table of `m*` against `T` (see `report`); returns the points
/// `(T, m*)` of the lengths that have one.
fn print_table(
    title: &str,
    sparsity: usize,
    trials: &Trials,
    boot: Option<&Bootstrap>,
    threshold: f32,
) -> Vec<(f64, f64)> {
    let seeds = trials.seeds.len();
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
        let interval = match boot.and_then(|b| b.m50[i]) {
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
    points
}

/// The verdict in words: which law, fitted up to `fit_upto`, predicted the longer lengths
/// best, and how often resamples of the seeds agree; or why there is no held-out check.
fn verdict(
    held: &[(Law, Predictions)],
    boot: Option<&Bootstrap>,
    fit_upto: usize,
    tried_beyond: bool,
    learned_upto: usize,
) -> String {
    let mut words = String::from("\nIn words: ");
    match held {
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
                relative_rms(p)
            );
            for (law, p) in rest {
                words += &format!(", {} {:.2}", law.name(), relative_rms(p));
            }
            words += ")";
            if let Some(boot) = boot {
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
            if relative_rms(p) > 0.5 {
                words += "; but no law predicted them within 50%: here m* follows none of them";
            }
        }
    }
    words + "."
}
