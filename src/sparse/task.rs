//! The sparse lab's data (docs/science.md 2): a hidden set `S` of `s` positions drawn from the
//! seed, a fixed training set of `m` inputs labelled by `f(x_S)` (redrawn while another
//! hidden set of size `s` explains it as well as `S` does), and a fresh test set.

use super::config::{BoolFunction, SparseConfig};
use crate::rng::Rng;

/// Random streams of a seed (the model's initialisation is stream 0, its batches stream 3).
const STREAM_HIDDEN: u64 = 10;
const STREAM_TRAIN: u64 = 11;
const STREAM_TEST: u64 = 12;

/// How many times a training set is drawn before one that `S` alone explains is given up
/// on (with too few samples, every draw is explained by other sets too).
pub const MAX_DRAWS: usize = 50;

/// Inputs and their labels.
#[derive(Clone, Debug, PartialEq)]
pub struct Samples {
    pub len: usize,
    pub bits: Vec<u8>,    // (n, T) 0 or 1
    pub labels: Vec<f32>, // (n,) 0 or 1
}

impl Samples {
    /// `n` inputs of `T` bits, each 1 with probability `p`, labelled by `f` of `hidden`.
    fn draw(n: usize, c: &SparseConfig, hidden: &[usize], rng: &mut Rng) -> Samples {
        let t = c.length;
        let p = c.function.p_one(c.sparsity);
        let mut bits = vec![0u8; n * t];
        for b in bits.iter_mut() {
            *b = u8::from((rng.uniform() as f64) < p);
        }
        let labels = (0..n)
            .map(|i| {
                let ones = hidden.iter().filter(|&&h| bits[i * t + h] == 1).count();
                if c.function.of(ones, c.sparsity) {
                    1.0
                } else {
                    0.0
                }
            })
            .collect();
        Samples {
            len: n,
            bits,
            labels,
        }
    }

    /// Input `i`'s bits (T,).
    pub fn input(&self, i: usize) -> &[u8] {
        let t = self.bits.len() / self.len;
        &self.bits[i * t..(i + 1) * t]
    }

    /// The fraction of labels that are 1.
    pub fn positive_rate(&self) -> f64 {
        self.labels.iter().map(|&y| y as f64).sum::<f64>() / self.len as f64
    }
}

/// The task of one run.
#[derive(Clone, Debug, PartialEq)]
pub struct SparseTask {
    pub hidden: Vec<usize>, // (s,) the hidden positions S, ascending
    pub train: Samples,     // (m) drawn once
    pub test: Samples,      // (test_samples) drawn once, from another stream
    /// Training sets drawn and rejected because another hidden set explained them too.
    pub rejected: usize,
    /// Whether the training set kept is still explained by another hidden set (every one of
    /// [`MAX_DRAWS`] draws was).
    pub ambiguous: bool,
}

impl SparseTask {
    pub fn new(c: &SparseConfig) -> SparseTask {
        let mut rng = Rng::new(c.seed, STREAM_HIDDEN);
        let mut positions: Vec<usize> = (0..c.length).collect();
        rng.shuffle(&mut positions);
        let mut hidden = positions[..c.sparsity].to_vec();
        hidden.sort_unstable();
        let mut rng = Rng::new(c.seed, STREAM_TRAIN);
        let mut rejected = 0;
        let mut train = Samples::draw(c.samples, c, &hidden, &mut rng);
        let mut ambiguous = explainers(&train, c.function, c.sparsity, 2) > 1;
        while ambiguous && rejected + 1 < MAX_DRAWS {
            rejected += 1;
            train = Samples::draw(c.samples, c, &hidden, &mut rng);
            ambiguous = explainers(&train, c.function, c.sparsity, 2) > 1;
        }
        let test = Samples::draw(
            c.test_samples,
            c,
            &hidden,
            &mut Rng::new(c.seed, STREAM_TEST),
        );
        SparseTask {
            hidden,
            train,
            test,
            rejected,
            ambiguous,
        }
    }
}

/// How many sets of `s` positions label every sample of `set` as `f` does, counted up to
/// `limit` (the search stops there). It never enumerates every set of `s` of `T`: only the
/// sets that can explain the labels are tried.
/// - `s = 1`: the positions whose bits are the labels.
/// - AND (OR): a position of such a set is 1 on every positive (0 on every negative)
///   sample; the sets of those candidates are enumerated (few beyond the hidden set once
///   `m` is more than a handful).
/// - Parity: the sets whose columns sum to the labels over GF(2), found by meeting in the
///   middle: each set's first half looks its second half up among the sums of all halves,
///   sorted (`T^⌈s/2⌉` sums, not `T^s`).
/// - Majority of 3: a set explains the labels exactly when each pair of it is never both 1
///   on a negative sample nor both 0 on a positive one; the triangles of that graph of pairs
///   are counted.
pub fn explainers(set: &Samples, f: BoolFunction, s: usize, limit: usize) -> usize {
    assert!(s >= 1, "a hidden set has at least one position");
    let b = Bits::of(set);
    let of_candidates = |keep: &dyn Fn(&[u64]) -> bool| {
        let kept: Vec<usize> = (0..b.t).filter(|&p| keep(b.column(p))).collect();
        b.search(&kept, f, s, limit)
    };
    match (f, s) {
        (_, 1) => (0..b.t)
            .filter(|&p| b.column(p) == b.labels.as_slice())
            .take(limit)
            .count(),
        // 1 wherever the label is 1.
        (BoolFunction::And, _) => {
            of_candidates(&|c| c.iter().zip(&b.labels).all(|(&x, &y)| x & y == y))
        }
        // 0 wherever the label is 0.
        (BoolFunction::Or, _) => {
            of_candidates(&|c| c.iter().zip(&b.labels).all(|(&x, &y)| x & !y == 0))
        }
        (BoolFunction::Parity, _) => b.parity(s, limit),
        (BoolFunction::Majority, 3) => b.majority_of_3(limit),
        _ => b.search(&(0..b.t).collect::<Vec<_>>(), f, s, limit),
    }
}

/// A set of samples as bit columns: each position's bits over the samples, 64 samples a
/// word, the bits past the last sample 0.
struct Bits {
    t: usize,
    words: usize,
    columns: Vec<u64>, // (T, words)
    labels: Vec<u64>,  // (words,)
    /// The words' bits that are samples (all but the last word's tail). (words,)
    valid: Vec<u64>,
}

impl Bits {
    fn of(set: &Samples) -> Bits {
        let t = set.bits.len() / set.len.max(1);
        let words = set.len.div_ceil(64);
        let mut columns = vec![0u64; t * words];
        for i in 0..set.len {
            for (p, &bit) in set.input(i).iter().enumerate() {
                columns[p * words + i / 64] |= u64::from(bit) << (i % 64);
            }
        }
        let mut labels = vec![0u64; words];
        for (i, &y) in set.labels.iter().enumerate() {
            labels[i / 64] |= u64::from(y == 1.0) << (i % 64);
        }
        let valid = (0..words)
            .map(|w| match set.len - 64 * w {
                n if n >= 64 => u64::MAX,
                n => (1u64 << n) - 1,
            })
            .collect();
        Bits {
            t,
            words,
            columns,
            labels,
            valid,
        }
    }

    /// Position `p`'s bits (words,).
    fn column(&self, p: usize) -> &[u64] {
        &self.columns[p * self.words..(p + 1) * self.words]
    }

    /// The sets of `s` of the positions `kept` that explain the labels, by enumeration.
    fn search(&self, kept: &[usize], f: BoolFunction, s: usize, limit: usize) -> usize {
        if kept.len() < s {
            return 0;
        }
        let words = self.words;
        let columns: Vec<u64> = kept.iter().flat_map(|&p| self.column(p)).copied().collect();
        let mut search = Search {
            columns: &columns,
            labels: &self.labels,
            words,
            t: kept.len(),
            s,
            last_mask: self.valid[words - 1],
            f,
            limit,
            found: 0,
            counters: vec![[0; 3]; words * (s + 1)],
        };
        search.from(0, 0);
        search.found
    }

    /// Parity: the sets of `s` (at most 4) positions whose columns sum to the labels. A set
    /// `p_1 < … < p_s` is split into its first `⌊s/2⌋` positions and the rest; the sums of
    /// every possible rest, keyed by their first word and sorted, are looked up from each
    /// first part, and a match counts where the rest starts after the first part ends and
    /// every word agrees.
    fn parity(&self, s: usize, limit: usize) -> usize {
        assert!(
            s <= 4,
            "parity's check splits a set into halves of at most 2"
        );
        let (left, right) = (s / 2, s - s / 2);
        let sum = |parts: &[u32], out: &mut [u64]| {
            out.fill(0);
            for &p in parts {
                for (o, &c) in out.iter_mut().zip(self.column(p as usize)) {
                    *o ^= c;
                }
            }
        };
        let words = self.words;
        let mut rights: Vec<(u64, [u32; 2])> = subsets(self.t, right)
            .map(|r| {
                let first = r[..right]
                    .iter()
                    .fold(0, |x, &p| x ^ self.column(p as usize)[0]);
                (first, r)
            })
            .collect();
        rights.sort_unstable();
        let (mut target, mut whole) = (vec![0u64; words], vec![0u64; words]);
        let mut found = 0;
        for l in subsets(self.t, left) {
            let l = &l[..left];
            sum(l, &mut target);
            for (x, &y) in target.iter_mut().zip(&self.labels) {
                *x ^= y;
            }
            let after = l.last().map_or(0, |&p| p + 1);
            let from = rights.partition_point(|&(k, _)| k < target[0]);
            for (_, r) in rights[from..].iter().take_while(|&&(k, _)| k == target[0]) {
                if r[0] < after {
                    continue;
                }
                sum(&r[..right], &mut whole);
                if whole == target {
                    found += 1;
                    if found >= limit {
                        return found;
                    }
                }
            }
        }
        found
    }

    /// Majority of 3: the triangles of the pairs that are never both 1 on a negative sample
    /// and never both 0 on a positive one (each such triple labels every sample right).
    fn majority_of_3(&self, limit: usize) -> usize {
        let fits = |a: usize, b: usize| {
            let (ca, cb) = (self.column(a), self.column(b));
            (0..self.words).all(|w| {
                let y = self.labels[w];
                let negative = !y & self.valid[w];
                ca[w] & cb[w] & negative == 0 && !ca[w] & !cb[w] & y == 0
            })
        };
        // Each position's later partners, ascending.
        let partners: Vec<Vec<usize>> = (0..self.t)
            .map(|a| (a + 1..self.t).filter(|&b| fits(a, b)).collect())
            .collect();
        let mut found = 0;
        for later in &partners {
            for (i, &b) in later.iter().enumerate() {
                for &c in &later[i + 1..] {
                    if partners[b].binary_search(&c).is_ok() {
                        found += 1;
                        if found >= limit {
                            return found;
                        }
                    }
                }
            }
        }
        found
    }
}

/// The subsets of `k` (at most 2) of `t` positions, ascending, as their first `k` entries.
fn subsets(t: usize, k: usize) -> Box<dyn Iterator<Item = [u32; 2]>> {
    let t = t as u32;
    match k {
        0 => Box::new(std::iter::once([0, 0])),
        1 => Box::new((0..t).map(|p| [p, 0])),
        2 => Box::new((0..t).flat_map(move |p| (p + 1..t).map(move |q| [p, q]))),
        _ => panic!("subsets of at most 2"),
    }
}

/// Adds a column's bits (one per sample) to counts of ones in three bit planes: a ripple of
/// carries.
fn add([c0, c1, c2]: [u64; 3], x: u64) -> [u64; 3] {
    [c0 ^ x, c1 ^ (c0 & x), c2 | (c1 & c0 & x)]
}

/// The enumeration of [`explainers`]: the sets of `s` positions in increasing order, each
/// level adding one position's column to the per-sample counts of ones.
struct Search<'a> {
    columns: &'a [u64], // (T, words) each position's bits, 64 samples a word
    labels: &'a [u64],  // (words,)
    words: usize,
    t: usize,
    s: usize,
    /// The samples of the last word.
    last_mask: u64,
    f: BoolFunction,
    limit: usize,
    found: usize,
    /// Per level (sets of that many positions so far) and word, the count of ones of each
    /// sample in three bit planes (s ≤ 4 < 8). (s + 1, words)
    counters: Vec<[u64; 3]>,
}

impl Search<'_> {
    /// Goes on from a set of `level` positions, adding positions from `first` on.
    fn from(&mut self, level: usize, first: usize) {
        if self.found >= self.limit {
            return;
        }
        let words = self.words;
        if level + 1 == self.s {
            // The last position: each set is checked word by word, up to its first mismatch
            // (most sets fail on their first 64 samples).
            for p in first..self.t {
                let explains = (0..words).all(|w| {
                    let counts = add(
                        self.counters[level * words + w],
                        self.columns[p * words + w],
                    );
                    let mask = if w + 1 == words {
                        self.last_mask
                    } else {
                        u64::MAX
                    };
                    (self.label_of(counts) ^ self.labels[w]) & mask == 0
                });
                self.found += usize::from(explains);
                if self.found >= self.limit {
                    return;
                }
            }
            return;
        }
        for p in first..=self.t - (self.s - level) {
            let (done, next) = self.counters.split_at_mut((level + 1) * words);
            for w in 0..words {
                next[w] = add(done[level * words + w], self.columns[p * words + w]);
            }
            self.from(level + 1, p + 1);
        }
    }

    /// The labels of 64 samples from their counts of ones (three bit planes).
    fn label_of(&self, [c0, c1, c2]: [u64; 3]) -> u64 {
        // The samples whose count is k.
        let count_is = |k: usize| {
            let plane = |bit: usize, c: u64| if k >> bit & 1 == 1 { c } else { !c };
            plane(0, c0) & plane(1, c1) & plane(2, c2)
        };
        (0..=self.s)
            .filter(|&k| self.f.of(k, self.s))
            .fold(0, |acc, k| acc | count_is(k))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(f: BoolFunction, t: usize, s: usize, m: usize, seed: u64) -> SparseConfig {
        SparseConfig {
            function: f,
            length: t,
            sparsity: s,
            samples: m,
            seed,
            ..SparseConfig::default()
        }
    }

    /// The labels are `f(x_S)`, `S` has `s` distinct positions, and the same seed gives the
    /// same task.
    #[test]
    fn labels_follow_the_hidden_set() {
        for f in [BoolFunction::And, BoolFunction::Or, BoolFunction::Parity] {
            let c = config(f, 12, 2, 100, 5);
            let task = SparseTask::new(&c);
            assert_eq!(task.hidden.len(), 2);
            assert!(task.hidden.windows(2).all(|w| w[0] < w[1]) && task.hidden[1] < 12);
            for set in [&task.train, &task.test] {
                for i in 0..set.len {
                    let ones = task
                        .hidden
                        .iter()
                        .filter(|&&h| set.input(i)[h] == 1)
                        .count();
                    assert_eq!(set.labels[i] == 1.0, f.of(ones, 2));
                }
            }
            assert_eq!(task, SparseTask::new(&c));
            assert_ne!(
                task.train,
                SparseTask::new(&SparseConfig { seed: 6, ..c }).train
            );
        }
    }

    /// Balanced labels where promised: about half the test labels are 1 for each function.
    #[test]
    fn labels_are_balanced() {
        for (f, s) in [
            (BoolFunction::And, 3),
            (BoolFunction::Or, 4),
            (BoolFunction::Majority, 3),
            (BoolFunction::Parity, 2),
        ] {
            let c = SparseConfig {
                test_samples: 20_000,
                ..config(f, 32, s, 50, 1)
            };
            let rate = SparseTask::new(&c).test.positive_rate();
            // 20,000 fair draws: a standard deviation of 0.0035.
            assert!((rate - 0.5).abs() < 0.015, "{f:?}: {rate}");
        }
    }

    /// Function `i` of the four, with its `j`-th allowed sparsity (cycling).
    fn function_of(i: usize, j: usize) -> (BoolFunction, usize) {
        let f = [
            BoolFunction::And,
            BoolFunction::Or,
            BoolFunction::Majority,
            BoolFunction::Parity,
        ][i];
        let s = if f == BoolFunction::Majority {
            1 + 2 * (j % 2)
        } else {
            1 + j % 4
        };
        (f, s)
    }

    /// The search counts exactly the sets a brute-force check counts.
    #[test]
    fn explainers_match_brute_force() {
        let mut rng = Rng::new(9, 0);
        for trial in 0..60 {
            let (f, s) = function_of(trial % 4, trial);
            let t = s + rng.below(6);
            let n = 1 + rng.below(150);
            let c = config(f, t, s, n, trial as u64);
            let set = Samples::draw(n, &c, &(0..s).collect::<Vec<_>>(), &mut rng);
            let mut brute = 0;
            let mut idx: Vec<usize> = (0..s).collect();
            loop {
                let ok = (0..n).all(|i| {
                    let ones = idx.iter().filter(|&&p| set.input(i)[p] == 1).count();
                    f.of(ones, s) == (set.labels[i] == 1.0)
                });
                brute += usize::from(ok);
                // Next combination of s of t.
                let Some(k) = (0..s).rev().find(|&k| idx[k] < t - s + k) else {
                    break;
                };
                idx[k] += 1;
                for j in k + 1..s {
                    idx[j] = idx[j - 1] + 1;
                }
            }
            assert!(brute >= 1, "the true set explains its own labels");
            assert_eq!(
                explainers(&set, f, s, usize::MAX),
                brute,
                "trial {trial} {f:?} s {s} t {t} n {n}"
            );
            assert_eq!(explainers(&set, f, s, 1), 1);
        }
    }

    /// The pruned checks count what the enumeration of every set counts, at lengths where
    /// the pruning matters (many candidates with few samples, few with many) and for every
    /// function and sparsity; a sample that another set explains too is told apart from one
    /// only the hidden set explains.
    #[test]
    fn explainers_match_the_enumeration_of_every_set() {
        let mut rng = Rng::new(17, 0);
        let (mut ambiguous, mut unique) = (0, 0);
        for trial in 0..80 {
            let (f, s) = function_of(trial % 4, trial / 4);
            let t = 20 + rng.below(30);
            let n = [3, 8, 20, 40, 90, 200][trial / 16 % 5 + rng.below(2)];
            let c = config(f, t, s, n, trial as u64);
            let hidden: Vec<usize> = (0..s).map(|i| i * t / s).collect();
            let set = Samples::draw(n, &c, &hidden, &mut rng);
            let b = Bits::of(&set);
            let every = b.search(&(0..t).collect::<Vec<_>>(), f, s, usize::MAX);
            let got = explainers(&set, f, s, usize::MAX);
            assert_eq!(got, every, "trial {trial} {f:?} s {s} t {t} n {n}");
            assert_eq!(explainers(&set, f, s, 2), every.min(2));
            if every > 1 {
                ambiguous += 1;
            } else {
                unique += 1;
            }
        }
        assert!(
            ambiguous >= 10 && unique >= 10,
            "{ambiguous} ambiguous, {unique} unique"
        );
    }

    /// At the longest inputs a training set is checked in a moment: AND-3 and majority-3 at
    /// T = 1,024, parity-4 at T = 512, each explained by its hidden set alone.
    #[test]
    fn long_inputs_are_checked() {
        for (f, s, t, m) in [
            (BoolFunction::And, 3, 1024, 200),
            (BoolFunction::Majority, 3, 1024, 200),
            (BoolFunction::Or, 4, 1024, 200),
            (BoolFunction::Parity, 4, 512, 200),
        ] {
            let c = config(f, t, s, m, 3);
            let task = SparseTask::new(&c);
            assert!(!task.ambiguous, "{f:?}-{s} at T = {t}");
            assert_eq!(explainers(&task.train, f, s, usize::MAX), 1, "{f:?}");
        }
    }

    /// Training sets that another hidden set explains are redrawn: with enough samples the
    /// kept set names `S` alone; with too few, every draw is rejected and the run says so.
    #[test]
    fn ambiguous_training_sets_are_redrawn() {
        let c = config(BoolFunction::And, 16, 3, 60, 2);
        let task = SparseTask::new(&c);
        assert!(!task.ambiguous);
        assert_eq!(explainers(&task.train, c.function, 3, 3), 1);
        let few = config(BoolFunction::And, 16, 3, 3, 2);
        let task = SparseTask::new(&few);
        assert!(task.ambiguous);
        assert_eq!(task.rejected, MAX_DRAWS - 1);
        // Some seeds at a middle size need a redraw or two, and end unambiguous.
        let redrawn = (0..40)
            .map(|seed| SparseTask::new(&config(BoolFunction::And, 16, 3, 24, seed)))
            .filter(|t| t.rejected > 0 && !t.ambiguous)
            .count();
        assert!(redrawn > 0, "no seed needed a redraw at m = 24");
    }
}
