//! The sparse lab's scaling experiment, as pure functions the native tool and the page
//! share: the search for the fewest training samples `m*` that reach a test accuracy (a
//! doubling, then a bisection on a log scale), the information limit `log2 C(T, s)`, and
//! least-squares fits of `m*` against `log2 T` and against `T`, and of the three laws
//! (`m*` linear in `log T`, linear in `T`, a power of `T`) judged in the same space: `m*`.

/// The search for the smallest `m` that succeeds at one length, assuming success is
/// monotone in `m`: doubles from `start` until one succeeds (or halves until one fails),
/// then bisects geometrically until the succeeding and failing sizes are within `ratio`.
#[derive(Clone, Debug, PartialEq)]
pub struct SampleSearch {
    start: usize,
    max: usize,
    ratio: f64,
    /// The largest size that failed (0: none yet).
    pub failed: usize,
    /// The smallest size that succeeded.
    pub succeeded: Option<usize>,
}

impl SampleSearch {
    /// A search from `start` samples, giving up above `max`, to within `ratio` (> 1).
    pub fn new(start: usize, max: usize, ratio: f64) -> SampleSearch {
        assert!(start >= 1 && max >= start && ratio > 1.0);
        SampleSearch {
            start,
            max,
            ratio,
            failed: 0,
            succeeded: None,
        }
    }

    /// The size to try next, or None when the search is over.
    pub fn next(&self) -> Option<usize> {
        match (self.failed, self.succeeded) {
            (0, None) => Some(self.start),
            (lo, None) => (lo < self.max).then(|| (2 * lo).min(self.max)),
            (0, Some(hi)) => (hi > 1).then_some(hi / 2),
            (lo, Some(hi)) => {
                if hi as f64 / lo as f64 <= self.ratio || hi - lo <= 1 {
                    return None;
                }
                let mid = ((lo as f64) * (hi as f64)).sqrt().round() as usize;
                Some(mid.clamp(lo + 1, hi - 1))
            }
        }
    }

    /// Records the outcome of `m` samples.
    pub fn record(&mut self, m: usize, success: bool) {
        if success {
            self.succeeded = Some(self.succeeded.map_or(m, |hi| hi.min(m)));
        } else {
            self.failed = self.failed.max(m);
        }
    }

    /// The result once the search is over: the fewest samples that succeeded (None if even
    /// `max` failed).
    pub fn result(&self) -> Option<usize> {
        self.succeeded
    }
}

/// `log2 C(t, s)`: the bits needed to name a hidden set of `s` of `t` positions.
pub fn log2_choose(t: usize, s: usize) -> f64 {
    (0..s.min(t))
        .map(|i| ((t - i) as f64 / (i + 1) as f64).log2())
        .sum()
}

/// The median of `xs` (the mean of the middle two for an even count); NaN if empty.
pub fn median(xs: &[f32]) -> f32 {
    if xs.is_empty() {
        return f32::NAN;
    }
    let mut v = xs.to_vec();
    v.sort_by(f32::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// A least-squares line `y = a + b x` and its coefficient of determination.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fit {
    pub intercept: f64,
    pub slope: f64,
    pub r2: f64,
}

/// The least-squares line through `(x, y)` (at least two distinct x).
pub fn fit(points: &[(f64, f64)]) -> Option<Fit> {
    let n = points.len() as f64;
    let mx = points.iter().map(|p| p.0).sum::<f64>() / n;
    let my = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let syy: f64 = points.iter().map(|p| (p.1 - my).powi(2)).sum();
    if points.len() < 2 || sxx == 0.0 {
        return None;
    }
    let slope = sxy / sxx;
    let intercept = my - slope * mx;
    let residual: f64 = points
        .iter()
        .map(|p| (p.1 - intercept - slope * p.0).powi(2))
        .sum();
    let r2 = if syy > 0.0 { 1.0 - residual / syy } else { 1.0 };
    Some(Fit {
        intercept,
        slope,
        r2,
    })
}

/// A law of how `m*` grows with `T`, a line in a space of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Law {
    /// `m* = a + b log2 T`.
    Log,
    /// `m* = a + b T`.
    Linear,
    /// `m* = 2^a T^b` (a line on log–log axes).
    Power,
}

impl Law {
    pub const ALL: [Law; 3] = [Law::Log, Law::Linear, Law::Power];

    /// Its name in words.
    pub fn name(self) -> &'static str {
        match self {
            Law::Log => "log T",
            Law::Linear => "linear in T",
            Law::Power => "power of T",
        }
    }

    /// The point `(T, m)` in the space where the law is a line.
    fn linear(self, t: f64, m: f64) -> (f64, f64) {
        match self {
            Law::Log => (t.log2(), m),
            Law::Linear => (t, m),
            Law::Power => (t.log2(), m.log2()),
        }
    }

    /// The `m*` the line `line` (of this law's space) predicts at `t`.
    pub fn predict(self, line: &Fit, t: f64) -> f64 {
        match self {
            Law::Log => line.intercept + line.slope * t.log2(),
            Law::Linear => line.intercept + line.slope * t,
            Law::Power => (line.intercept + line.slope * t.log2()).exp2(),
        }
    }

    /// The fitted law as a formula.
    pub fn formula(self, line: &Fit) -> String {
        let (a, b) = (line.intercept, line.slope);
        match self {
            Law::Log => format!("m* = {a:.1} + {b:.1} log2 T"),
            Law::Linear => format!("m* = {a:.1} + {b:.3} T"),
            Law::Power => format!("m* = {:.2} T^{b:.3}", a.exp2()),
        }
    }
}

/// A law fitted to points `(T, m*)`: its line (least squares in the law's own space), and
/// judged where the laws can be compared, in `m*` itself: the coefficient of determination
/// and each point's residual `m* − predicted`.
#[derive(Clone, Debug, PartialEq)]
pub struct LawFit {
    pub law: Law,
    pub line: Fit,
    pub r2: f64,
    pub residuals: Vec<f64>, // one per point
}

/// `law` fitted to `points` `(T, m*)` (at least two distinct lengths, every `m*` positive).
pub fn fit_law(law: Law, points: &[(f64, f64)]) -> Option<LawFit> {
    let line = fit(&points
        .iter()
        .map(|&(t, m)| law.linear(t, m))
        .collect::<Vec<_>>())?;
    let residuals: Vec<f64> = points
        .iter()
        .map(|&(t, m)| m - law.predict(&line, t))
        .collect();
    let n = points.len() as f64;
    let mean = points.iter().map(|p| p.1).sum::<f64>() / n;
    let total: f64 = points.iter().map(|p| (p.1 - mean).powi(2)).sum();
    let left: f64 = residuals.iter().map(|r| r * r).sum();
    let r2 = if total > 0.0 { 1.0 - left / total } else { 1.0 };
    Some(LawFit {
        law,
        line,
        r2,
        residuals,
    })
}

/// Every law fitted to `points` `(T, m*)`, in [`Law::ALL`]'s order; none where fewer than
/// two distinct lengths.
pub fn fit_laws(points: &[(f64, f64)]) -> Vec<LawFit> {
    Law::ALL
        .into_iter()
        .filter_map(|law| fit_law(law, points))
        .collect()
}

/// Every law fitted to `points` `(T, m*)`, best first by its R² in the space of `m*` (laws
/// of equal R² in [`Law::ALL`]'s order); none where fewer than two distinct lengths.
pub fn fits_by_r2(points: &[(f64, f64)]) -> Vec<LawFit> {
    let mut fits = fit_laws(points);
    fits.sort_by(|a, b| b.r2.total_cmp(&a.r2));
    fits
}

/// A law's predictions of lengths it was not fitted to: `(T, measured, predicted)` each.
pub type Predictions = Vec<(f64, f64, f64)>;

/// The root mean square of `predictions`' relative errors `(predicted − measured) / measured`:
/// how the held-out check ranks the laws.
pub fn relative_rms(predictions: &Predictions) -> f64 {
    let n = predictions.len() as f64;
    (predictions
        .iter()
        .map(|(_, m, p)| ((p - m) / m).powi(2))
        .sum::<f64>()
        / n)
        .sqrt()
}

/// Each law fitted to the points up to length `upto`, and its predictions of the points
/// beyond: `(law, [(T, measured, predicted)])`, best first (by the root mean square of the
/// predictions' relative errors). Empty where fewer than two points lie up to `upto` or
/// none beyond.
pub fn held_out(points: &[(f64, f64)], upto: f64) -> Vec<(Law, Predictions)> {
    let (fitted, beyond): (Vec<_>, Vec<_>) = points.iter().partition(|p| p.0 <= upto);
    if beyond.is_empty() {
        return Vec::new();
    }
    let mut out: Vec<(Law, Predictions, f64)> = fit_laws(&fitted)
        .into_iter()
        .map(|f| {
            let predictions: Predictions = beyond
                .iter()
                .map(|&(t, m)| (t, m, f.law.predict(&f.line, t)))
                .collect();
            let rms = relative_rms(&predictions);
            (f.law, predictions, rms)
        })
        .collect();
    out.sort_by(|a, b| a.2.total_cmp(&b.2));
    out.into_iter().map(|(law, p, _)| (law, p)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against every threshold, the search ends at the smallest succeeding size it could
    /// tell apart, within its ratio, having tried few sizes.
    #[test]
    fn search_brackets_the_threshold() {
        for threshold in 1..=700usize {
            let mut s = SampleSearch::new(16, 512, 1.2);
            let mut tries = 0;
            while let Some(m) = s.next() {
                s.record(m, m >= threshold);
                tries += 1;
                assert!(tries < 30);
            }
            match s.result() {
                None => assert!(threshold > 512),
                Some(hi) => {
                    assert!(hi >= threshold, "{threshold}: {hi}");
                    assert!(
                        hi as f64 <= (threshold as f64 * 1.2).max(threshold as f64 + 1.0)
                            || hi == 1
                    );
                    assert!(s.failed < threshold);
                }
            }
            assert!(tries <= 12, "{threshold}: {tries} tries");
        }
    }

    #[test]
    fn each_law_fits_its_own_data_and_predicts_beyond_it() {
        let lengths = [8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0, 1024.0];
        let made = |f: fn(f64) -> f64| lengths.map(|t| (t, f(t))).to_vec();
        let data = [
            (Law::Log, made(|t| 5.0 + 12.0 * t.log2())),
            (Law::Linear, made(|t| 20.0 + 0.5 * t)),
            (Law::Power, made(|t| 3.0 * t.powf(0.6))),
        ];
        for (law, points) in &data {
            let own = fit_law(*law, points).unwrap();
            assert!((own.r2 - 1.0).abs() < 1e-9, "{law:?}: {own:?}");
            assert!(own.residuals.iter().all(|r| r.abs() < 1e-9));
            for other in Law::ALL.into_iter().filter(|o| o != law) {
                let f = fit_law(other, points).unwrap();
                assert!(f.r2 < own.r2 - 1e-4, "{other:?} on {law:?} data: {}", f.r2);
            }
            let all = fit_laws(points);
            assert_eq!(all.iter().map(|f| f.law).collect::<Vec<_>>(), Law::ALL);
            let ranked = fits_by_r2(points);
            assert_eq!(ranked[0], own);
            assert!(ranked.windows(2).all(|w| w[0].r2 >= w[1].r2), "{ranked:?}");
            // Fitted up to 256, the law the data follow predicts 512 and 1024 best.
            let held = held_out(points, 256.0);
            assert_eq!(held[0].0, *law, "{held:?}");
            for &(_, m, p) in &held[0].1 {
                assert!((m - p).abs() < 1e-6 * m);
            }
            assert_eq!(
                held[0].1.iter().map(|x| x.0).collect::<Vec<_>>(),
                [512.0, 1024.0]
            );
        }
        assert!(held_out(&data[0].1, 2048.0).is_empty(), "nothing held out");
        assert!(fits_by_r2(&data[0].1[..1]).is_empty(), "one length: no law");
        // Every law fits equal m* exactly: the ties keep Law::ALL's order.
        let flat = [(8.0, 50.0), (16.0, 50.0), (32.0, 50.0)];
        let tied: Vec<_> = fits_by_r2(&flat).iter().map(|f| f.law).collect();
        assert_eq!(tied, Law::ALL);
        assert_eq!(
            Law::Power.formula(&fit_law(Law::Power, &data[2].1).unwrap().line),
            "m* = 3.00 T^0.600"
        );
    }

    #[test]
    fn information_limit_and_fits() {
        assert!((log2_choose(8, 3) - 56f64.log2()).abs() < 1e-12);
        assert!((log2_choose(128, 3) - 341_376f64.log2()).abs() < 1e-9);
        assert_eq!(log2_choose(5, 0), 0.0);
        let f = fit(&[(1.0, 3.0), (2.0, 5.0), (3.0, 7.0)]).unwrap();
        assert!((f.slope - 2.0).abs() < 1e-12 && (f.intercept - 1.0).abs() < 1e-12);
        assert!((f.r2 - 1.0).abs() < 1e-12);
        assert!(fit(&[(1.0, 2.0)]).is_none());
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
    }
}
