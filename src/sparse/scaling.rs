//! The sparse lab's scaling experiment, as pure functions the native tool and the page
//! share: the search for the fewest training samples `m*` that reach a test accuracy (a
//! doubling, then a bisection on a log scale), the information limit `log2 C(T, s)`, and
//! least-squares fits of `m*` against `log2 T` and against `T`.

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
