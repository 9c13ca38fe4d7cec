//! What a scaling run's seeds say beyond the median: at each size tried, how many seeds
//! reached the threshold; two rules for the samples needed besides the median one (the
//! smallest size at which a share of the seeds succeeds, and the size at which a logistic
//! fit of success against `log2 m` crosses one half); and a bootstrap over the seeds of the
//! laws' slopes and of the law that the held-out check picks. Pure functions over the runs'
//! test accuracies; the table and the words are `src/bin/scaling.rs`'s.

use super::scaling::{fit_law, held_out, Law};
use crate::rng::Rng;

/// One size tried at one length: the test accuracy of each seed that ran it.
#[derive(Clone, Debug, PartialEq)]
pub struct Probe {
    pub samples: usize,
    pub tests: Vec<(usize, f32)>, // (seed's index in `Trials::seeds`, test accuracy)
}

/// Every size tried at one length, by size.
#[derive(Clone, Debug, PartialEq)]
pub struct LengthTrials {
    pub length: usize,
    pub probes: Vec<Probe>, // sorted by samples, one per size
}

/// A scaling run's outcomes: the seeds and, for each length, every size tried.
#[derive(Clone, Debug, PartialEq)]
pub struct Trials {
    pub seeds: Vec<u64>,
    pub lengths: Vec<LengthTrials>, // sorted by length
}

impl Trials {
    /// Gathers `(length, samples, seed, test accuracy)` rows.
    pub fn from_rows(rows: &[(usize, usize, u64, f32)]) -> Trials {
        let mut seeds: Vec<u64> = rows.iter().map(|r| r.2).collect();
        seeds.sort_unstable();
        seeds.dedup();
        let mut lengths: Vec<LengthTrials> = Vec::new();
        let mut sorted = rows.to_vec();
        sorted.sort_by_key(|r| (r.0, r.1, r.2));
        for (t, m, seed, test) in sorted {
            let index = seeds.binary_search(&seed).expect("a seed of the rows");
            if lengths.last().is_none_or(|l| l.length != t) {
                lengths.push(LengthTrials {
                    length: t,
                    probes: Vec::new(),
                });
            }
            let probes = &mut lengths.last_mut().expect("pushed").probes;
            if probes.last().is_none_or(|p| p.samples != m) {
                probes.push(Probe {
                    samples: m,
                    tests: Vec::new(),
                });
            }
            probes.last_mut().expect("pushed").tests.push((index, test));
        }
        Trials { seeds, lengths }
    }
}

/// The median of the test accuracies of a probe's seeds, each counted `weights[seed]`
/// times (the mean of the middle two for an even count); None if no seed counts.
fn weighted_median(probe: &Probe, weights: &[u32], scratch: &mut Vec<f32>) -> Option<f32> {
    scratch.clear();
    for &(s, x) in &probe.tests {
        scratch.extend(std::iter::repeat_n(x, weights[s] as usize));
    }
    if scratch.is_empty() {
        return None;
    }
    scratch.sort_by(f32::total_cmp);
    let n = scratch.len();
    Some(if n % 2 == 1 {
        scratch[n / 2]
    } else {
        (scratch[n / 2 - 1] + scratch[n / 2]) / 2.0
    })
}

/// The median rule, with seeds weighted: the smallest size whose median test accuracy
/// reaches `threshold` (None: none did).
fn median_rule(
    l: &LengthTrials,
    threshold: f32,
    weights: &[u32],
    scratch: &mut Vec<f32>,
) -> Option<usize> {
    l.probes
        .iter()
        .find(|p| weighted_median(p, weights, scratch).is_some_and(|m| m >= threshold))
        .map(|p| p.samples)
}

/// The median rule over every seed: `m*` at this length as the tool reports it.
pub fn m_star(l: &LengthTrials, threshold: f32, seeds: usize) -> Option<usize> {
    median_rule(l, threshold, &vec![1; seeds], &mut Vec::new())
}

/// How many of a probe's seeds reached `threshold`, and how many ran.
pub fn successes(p: &Probe, threshold: f32) -> (usize, usize) {
    let k = p.tests.iter().filter(|t| t.1 >= threshold).count();
    (k, p.tests.len())
}

/// The share rule: the smallest size tried at which at least `share` of the seeds reached
/// `threshold` (None: at no size tried). Unlike the median it does not flip when the seeds
/// split near one half, but it is only as fine as the sizes the search tried.
pub fn share_rule(l: &LengthTrials, threshold: f32, share: f64) -> Option<usize> {
    l.probes
        .iter()
        .find(|p| {
            let (k, n) = successes(p, threshold);
            n > 0 && k as f64 >= share * n as f64
        })
        .map(|p| p.samples)
}

/// Where a logistic fit of success crosses one half, against the sizes tried.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Crossing {
    /// Below the smallest size tried (given): every run succeeded, or the fit crosses there.
    Below(f64),
    /// At this size, within the sizes tried.
    At(f64),
    /// Above the largest size tried (given): every run failed, or the fit crosses there.
    Above(f64),
}

impl Crossing {
    /// The crossing as a number, clipped to the sizes tried.
    pub fn clipped(self) -> f64 {
        match self {
            Crossing::Below(x) | Crossing::At(x) | Crossing::Above(x) => x,
        }
    }
}

/// Where a logistic fit of success (test accuracy ≥ `threshold`) against `log2 m`, over
/// every run at the sizes tried, crosses one half: `2^(−a/b)` for `P = σ(a + b log2 m)`.
/// The fit is Newton's method on the log-likelihood with a small ridge on both
/// coefficients (0.01 each), so that it stays finite when the sizes separate success from
/// failure exactly. None where the fitted slope is not positive (success does not grow
/// with `m`); below or above the sizes tried where every run succeeded, every run failed,
/// or the crossing lies there (a fit that says only that).
pub fn logistic_crossing(l: &LengthTrials, threshold: f32, weights: &[u32]) -> Option<Crossing> {
    let (lo, hi) = (
        l.probes.first()?.samples as f64,
        l.probes.last()?.samples as f64,
    );
    // (x = log2 m, success, weight) of each run.
    let runs = l.probes.iter().flat_map(|p| {
        let x = (p.samples as f64).log2();
        p.tests
            .iter()
            .map(move |&(s, t)| (x, t >= threshold, weights[s] as f64))
    });
    let (mut wins, mut all) = (0.0, 0.0);
    for (_, y, w) in runs.clone() {
        all += w;
        if y {
            wins += w;
        }
    }
    if all == 0.0 {
        return None;
    }
    if wins == all {
        return Some(Crossing::Below(lo));
    }
    if wins == 0.0 {
        return Some(Crossing::Above(hi));
    }
    // Centre x for a well-conditioned Newton step.
    let mean = runs.clone().map(|r| r.0 * r.2).sum::<f64>() / all;
    let ridge = 0.01;
    let (mut a, mut b) = (0.0f64, 0.0f64);
    for _ in 0..100 {
        let (mut ga, mut gb) = (-ridge * a, -ridge * b);
        let (mut haa, mut hab, mut hbb) = (ridge, 0.0, ridge);
        for (x, y, w) in runs.clone() {
            let x = x - mean;
            let p = 1.0 / (1.0 + (-(a + b * x)).exp());
            let r = f64::from(u8::from(y)) - p;
            ga += w * r;
            gb += w * r * x;
            let v = w * p * (1.0 - p);
            haa += v;
            hab += v * x;
            hbb += v * x * x;
        }
        let det = haa * hbb - hab * hab;
        if det <= 0.0 {
            return None;
        }
        let da = (hbb * ga - hab * gb) / det;
        let db = (haa * gb - hab * ga) / det;
        a += da;
        b += db;
        if da.abs() < 1e-10 && db.abs() < 1e-10 {
            break;
        }
    }
    if !(b > 0.0 && a.is_finite()) {
        return None;
    }
    let m50 = (mean - a / b).exp2();
    Some(if m50 < lo {
        Crossing::Below(lo)
    } else if m50 > hi {
        Crossing::Above(hi)
    } else {
        Crossing::At(m50)
    })
}

/// The 5th, 50th and 95th percentiles of `xs` (sorted in place; nearest rank); None if
/// empty.
pub fn percentiles(xs: &mut [f64]) -> Option<[f64; 3]> {
    if xs.is_empty() {
        return None;
    }
    xs.sort_by(f64::total_cmp);
    let at = |q: f64| xs[((q * (xs.len() - 1) as f64).round() as usize).min(xs.len() - 1)];
    Some([at(0.05), at(0.5), at(0.95)])
}

/// The bootstrap's findings: over resamples of the seeds (drawn with replacement, as many
/// as there are), the laws' fits to the resampled `m*` (the median rule) at the lengths
/// that have an `m*` over all the seeds, and the law that predicts the lengths beyond
/// `fit_upto` best.
#[derive(Clone, Debug, PartialEq)]
pub struct Bootstrap {
    pub resamples: usize,
    /// The power law's exponent `b` of `m* = a T^b`: 5th, 50th, 95th percentiles.
    pub power_exponent: Option<[f64; 3]>,
    /// The log law's slope `b` of `m* = a + b log2 T`: the same percentiles.
    pub log_slope: Option<[f64; 3]>,
    /// How many resamples each law predicted the held-out lengths best in (the laws in
    /// `Law::ALL`'s order).
    pub held_out_wins: [usize; 3],
    /// Resamples in which a length that has an `m*` over all the seeds had none at the
    /// sizes tried (its median reached the threshold at no size the search tried): not
    /// fitted, so that every fit is of the same lengths.
    pub lost: usize,
    /// Resamples in which no law could be judged on held-out lengths (too few lengths).
    pub undecided: usize,
    /// Each length's logistic crossing over the resamples, clipped to the sizes tried
    /// (`Crossing::clipped`): 5th, 50th, 95th percentiles (None where fewer than half the
    /// resamples had one).
    pub m50: Vec<Option<[f64; 3]>>, // one per length
}

/// Resamples the seeds `resamples` times (the draw is seeded by `seed`: the same call gives
/// the same result) and refits.
pub fn bootstrap(
    trials: &Trials,
    threshold: f32,
    fit_upto: usize,
    resamples: usize,
    seed: u64,
) -> Bootstrap {
    let n = trials.seeds.len();
    let mut rng = Rng::new(seed, 0xb007);
    let mut weights = vec![0u32; n];
    let mut scratch = Vec::new();
    // The lengths with an m* over every seed: each resample fits these, or none.
    let fitted: Vec<&LengthTrials> = trials
        .lengths
        .iter()
        .filter(|l| m_star(l, threshold, n).is_some())
        .collect();
    let (mut exponents, mut slopes) = (Vec::new(), Vec::new());
    let mut m50s: Vec<Vec<f64>> = vec![Vec::new(); trials.lengths.len()];
    let mut wins = [0usize; 3];
    let (mut lost, mut undecided) = (0, 0);
    for _ in 0..resamples {
        weights.fill(0);
        for _ in 0..n {
            weights[rng.below(n)] += 1;
        }
        for (i, l) in trials.lengths.iter().enumerate() {
            if let Some(c) = logistic_crossing(l, threshold, &weights) {
                m50s[i].push(c.clipped());
            }
        }
        let points: Vec<(f64, f64)> = fitted
            .iter()
            .filter_map(|l| {
                median_rule(l, threshold, &weights, &mut scratch)
                    .map(|m| (l.length as f64, m as f64))
            })
            .collect();
        if points.len() < fitted.len() {
            lost += 1;
            continue;
        }
        if let Some(f) = fit_law(Law::Power, &points) {
            exponents.push(f.line.slope);
        }
        if let Some(f) = fit_law(Law::Log, &points) {
            slopes.push(f.line.slope);
        }
        match held_out(&points, fit_upto as f64).first() {
            Some((law, _)) => wins[Law::ALL.iter().position(|l| l == law).expect("a law")] += 1,
            None => undecided += 1,
        }
    }
    Bootstrap {
        resamples,
        power_exponent: percentiles(&mut exponents),
        log_slope: percentiles(&mut slopes),
        held_out_wins: wins,
        lost,
        undecided,
        m50: m50s
            .iter_mut()
            .map(|xs| {
                if 2 * xs.len() < resamples {
                    None
                } else {
                    percentiles(xs)
                }
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows of `seeds` seeds at one length: a seed succeeds at `m` iff `m ≥ need(seed)`.
    fn rows_of(
        t: usize,
        sizes: &[usize],
        need: impl Fn(u64) -> usize,
        seeds: u64,
    ) -> Vec<(usize, usize, u64, f32)> {
        sizes
            .iter()
            .flat_map(|&m| (0..seeds).map(move |s| (m, s)))
            .map(|(m, s)| (t, m, s, if m >= need(s) { 1.0 } else { 0.5 }))
            .collect()
    }

    #[test]
    fn counts_and_the_three_rules() {
        // Seed s needs 10 + 5 s samples: at 40, seeds 0..=6 succeed (7 of 20).
        let rows = rows_of(8, &[16, 32, 40, 64, 128], |s| 10 + 5 * s as usize, 20);
        let trials = Trials::from_rows(&rows);
        let l = &trials.lengths[0];
        assert_eq!(l.probes.len(), 5);
        let counts: Vec<_> = l.probes.iter().map(|p| successes(p, 0.95)).collect();
        assert_eq!(counts, [(2, 20), (5, 20), (7, 20), (11, 20), (20, 20)]);
        // The median needs 11 of 20 (a mean of the 10th and 11th); the share rule 15.
        assert_eq!(m_star(l, 0.95, 20), Some(64));
        assert_eq!(share_rule(l, 0.95, 0.75), Some(128));
        assert_eq!(share_rule(l, 0.95, 1.01), None);
        // Half the seeds need at most 57 (10 + 5·9.5 = 57.5): the logistic crossing lies
        // between the sizes where 7 and 11 of 20 succeed.
        let Some(Crossing::At(m50)) = logistic_crossing(l, 0.95, &[1; 20]) else {
            panic!("a crossing within the sizes tried")
        };
        assert!(m50 > 40.0 && m50 < 64.0, "{m50}");
        // All or nothing: no crossing within the sizes tried, but above (or below) them.
        let none = Trials::from_rows(&rows_of(8, &[16, 32], |_| 1000, 5));
        assert_eq!(
            logistic_crossing(&none.lengths[0], 0.95, &[1; 5]),
            Some(Crossing::Above(32.0))
        );
        let all = Trials::from_rows(&rows_of(8, &[16, 32], |_| 1, 5));
        assert_eq!(
            logistic_crossing(&all.lengths[0], 0.95, &[1; 5]),
            Some(Crossing::Below(16.0))
        );
        // Separated exactly (every seed fails at 16 and succeeds at 32): the crossing lies
        // between, and the fit stays finite.
        let sharp = Trials::from_rows(&rows_of(8, &[8, 16, 32, 64], |_| 20, 10));
        let Some(Crossing::At(m)) = logistic_crossing(&sharp.lengths[0], 0.95, &[1; 10]) else {
            panic!("a crossing within the sizes tried")
        };
        assert!(m > 16.0 && m < 32.0, "{m}");
        // Success that falls with m has no crossing.
        let falling = Trials::from_rows(
            &[16, 32, 64]
                .iter()
                .flat_map(|&m| {
                    (0..10u64).map(move |s| (8, m, s, if m < 32 || s < 2 { 1.0 } else { 0.5 }))
                })
                .collect::<Vec<_>>(),
        );
        assert_eq!(logistic_crossing(&falling.lengths[0], 0.95, &[1; 10]), None);
        // One success in forty runs at the largest size: the crossing lies far beyond the
        // sizes tried, and is not reported.
        let beyond = Trials::from_rows(
            &[16, 32]
                .iter()
                .flat_map(|&m| {
                    (0..20u64).map(move |s| (8, m, s, if m == 32 && s == 0 { 1.0 } else { 0.5 }))
                })
                .collect::<Vec<_>>(),
        );
        assert_eq!(
            logistic_crossing(&beyond.lengths[0], 0.95, &[1; 20]),
            Some(Crossing::Above(32.0))
        );
    }

    #[test]
    fn weighted_median_counts_each_seed_its_weight() {
        let p = Probe {
            samples: 8,
            tests: vec![(0, 0.1), (1, 0.5), (2, 0.9)],
        };
        let mut s = Vec::new();
        assert_eq!(weighted_median(&p, &[1, 1, 1], &mut s), Some(0.5));
        assert_eq!(weighted_median(&p, &[0, 0, 3], &mut s), Some(0.9));
        assert_eq!(weighted_median(&p, &[1, 0, 1], &mut s), Some(0.5));
        assert_eq!(weighted_median(&p, &[0, 0, 0], &mut s), None);
    }

    /// Seeds that all need `c·T^0.5` samples: every resample finds the same m*, so the
    /// exponent's interval is one point near 0.5 and the power law wins every time; seeds
    /// that split give an interval and a share of wins that add up.
    #[test]
    fn the_bootstrap_finds_what_the_seeds_agree_on() {
        let lengths = [16usize, 64, 256, 1024];
        let sizes: Vec<usize> = (0..40)
            .map(|i| (8.0 * 1.19f64.powi(i)).round() as usize)
            .collect();
        let make = |spread: f64| {
            let rows: Vec<_> = lengths
                .iter()
                .flat_map(|&t| {
                    rows_of(
                        t,
                        &sizes,
                        |s| (4.0 * (t as f64).sqrt() * (1.0 + spread * s as f64)) as usize,
                        20,
                    )
                })
                .collect();
            Trials::from_rows(&rows)
        };
        let b = bootstrap(&make(0.0), 0.95, 256, 200, 1);
        let [lo, mid, hi] = b.power_exponent.unwrap();
        assert_eq!(lo, hi);
        assert!((mid - 0.5).abs() < 0.05, "{mid}");
        assert_eq!(b.held_out_wins, [0, 0, 200]);
        assert_eq!((b.undecided, b.lost), (0, 0));
        assert_eq!(b.m50.len(), 4);
        let spread = bootstrap(&make(0.1), 0.95, 256, 200, 1);
        let [lo, _, hi] = spread.power_exponent.unwrap();
        assert!(lo <= hi);
        assert_eq!(
            spread.held_out_wins.iter().sum::<usize>() + spread.undecided + spread.lost,
            200
        );
        // The same draw gives the same result.
        assert_eq!(bootstrap(&make(0.1), 0.95, 256, 200, 1), spread);
        // A length whose m* rests on one size, where barely half the seeds succeed, loses it
        // in many resamples: those are counted as lost, not fitted on fewer lengths.
        let mut rows: Vec<_> = lengths
            .iter()
            .flat_map(|&t| rows_of(t, &sizes, |_| (4.0 * (t as f64).sqrt()) as usize, 20))
            .collect();
        rows.extend(rows_of(
            2048,
            &[64, 128],
            |s| if s < 11 { 128 } else { 100_000 },
            20,
        ));
        let edge = bootstrap(&Trials::from_rows(&rows), 0.95, 256, 200, 1);
        assert!(edge.lost > 20 && edge.lost < 180, "{}", edge.lost);
        assert_eq!(
            edge.held_out_wins.iter().sum::<usize>() + edge.undecided + edge.lost,
            200
        );
        // Each length's m50 interval holds its seeds' median need.
        for (l, m) in lengths.iter().zip(&spread.m50) {
            let [lo, _, hi] = m.unwrap();
            let median_need = 4.0 * (*l as f64).sqrt() * (1.0 + 0.1 * 9.5);
            assert!(
                lo <= median_need * 1.2 && hi >= median_need / 1.2,
                "T {l}: {lo}–{hi} vs {median_need}"
            );
        }
    }

    #[test]
    fn percentiles_by_nearest_rank() {
        let mut xs: Vec<f64> = (0..=100).rev().map(f64::from).collect();
        assert_eq!(percentiles(&mut xs), Some([5.0, 50.0, 95.0]));
        assert_eq!(percentiles(&mut []), None);
    }
}
