//! A run's record over time in bounded memory: every entry of the recent past, and an
//! evenly thinned record of the whole run (every `stride`-th entry, the stride doubling
//! whenever the record fills). What is recorded, and when, is the trainer's business.

use std::collections::VecDeque;

/// Entries of a run in order of their steps, in at most `thinned + recent` slots made once.
#[derive(Clone, Debug)]
pub struct Series<T: Copy> {
    thinned: Vec<(u64, T)>, // (≤ thinned_cap) entries 0, stride, 2·stride, … of the run
    recent: VecDeque<(u64, T)>, // (≤ recent_cap) the latest entries, every one
    thinned_cap: usize,
    recent_cap: usize,
    /// `thinned` keeps the entries whose index is a multiple of this (a power of two).
    stride: u64,
    /// Entries appended since the start.
    count: u64,
    /// Changes with every append, replacement and clear: a reader that kept the version
    /// it last read knows whether there is news.
    version: u64,
}

/// What a series holds of the run: every entry from step `recent_from` on, and before
/// that every `stride`-th entry (1: every entry of the run).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Resolution {
    pub stride: u64,
    pub recent_from: u64,
}

impl<T: Copy> Series<T> {
    /// An empty series; `thinned` (even, ≥ 2) and `recent` (≥ 1) are its two capacities.
    pub fn new(thinned: usize, recent: usize) -> Series<T> {
        assert!(thinned >= 2 && thinned.is_multiple_of(2) && recent >= 1);
        Series {
            thinned: Vec::with_capacity(thinned),
            recent: VecDeque::with_capacity(recent),
            thinned_cap: thinned,
            recent_cap: recent,
            stride: 1,
            count: 0,
            version: 0,
        }
    }

    /// Appends the entry of `step` (steps rise from one entry to the next). Allocates
    /// nothing: when the thinned record is full, every other entry of it is dropped and
    /// the stride doubles.
    pub fn push(&mut self, step: u64, value: T) {
        if self.count.is_multiple_of(self.stride) {
            if self.thinned.len() == self.thinned_cap {
                let mut i = 0;
                self.thinned.retain(|_| {
                    i += 1;
                    i % 2 == 1
                });
                self.stride *= 2;
            }
            if self.count.is_multiple_of(self.stride) {
                self.thinned.push((step, value));
            }
        }
        if self.recent.len() == self.recent_cap {
            self.recent.pop_front();
        }
        self.recent.push_back((step, value));
        self.count += 1;
        self.version += 1;
    }

    /// Replaces the last entry if it is of `step` (a second measurement of the same step),
    /// else appends.
    pub fn record(&mut self, step: u64, value: T) {
        if self.last().map(|(s, _)| s) != Some(step) {
            return self.push(step, value);
        }
        if let Some(last) = self.recent.back_mut() {
            last.1 = value;
        }
        if let Some(last) = self.thinned.last_mut().filter(|(s, _)| *s == step) {
            last.1 = value;
        }
        self.version += 1;
    }

    /// Becomes a copy of `other` (of the same capacities), in the slots it has: allocates
    /// nothing. Its version moves past both.
    pub fn copy_from(&mut self, other: &Series<T>) {
        assert_eq!(
            (self.thinned_cap, self.recent_cap),
            (other.thinned_cap, other.recent_cap),
            "series of the same capacities"
        );
        self.thinned.clear();
        self.thinned.extend_from_slice(&other.thinned);
        self.recent.clear();
        self.recent.extend(other.recent.iter().copied());
        self.stride = other.stride;
        self.count = other.count;
        self.version = self.version.max(other.version) + 1;
    }

    /// Forgets the entries after `step` (a run that goes on from an earlier step): it keeps
    /// what it holds up to `step` (entries the later ones pushed out of the recent ones stay
    /// out), and where every recent entry is later, the thinned record's last entry up to
    /// `step` becomes the latest. A series that kept every entry is then as if the later
    /// ones never came.
    pub fn truncate(&mut self, step: u64) {
        let mut dropped = 0;
        while self.recent.back().is_some_and(|(s, _)| *s > step) {
            self.recent.pop_back();
            dropped += 1;
        }
        while self.thinned.last().is_some_and(|(s, _)| *s > step) {
            self.thinned.pop();
        }
        if !self.recent.is_empty() {
            self.count -= dropped;
        } else if let Some(&last) = self.thinned.last() {
            // Entry k of the thinned record is the run's entry k·stride.
            self.recent.push_back(last);
            self.count = (self.thinned.len() as u64 - 1) * self.stride + 1;
        } else {
            self.count = 0;
        }
        self.version += 1;
    }

    /// Forgets every entry (a new run); the capacities stay.
    pub fn clear(&mut self) {
        self.thinned.clear();
        self.recent.clear();
        self.stride = 1;
        self.count = 0;
        self.version += 1;
    }

    pub fn last(&self) -> Option<(u64, T)> {
        self.recent.back().copied()
    }

    /// The latest entry's value.
    pub fn last_value(&self) -> Option<&T> {
        self.recent.back().map(|(_, v)| v)
    }

    /// Entries appended since the start (not all of them are kept).
    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn version(&self) -> u64 {
        self.version
    }

    pub fn resolution(&self) -> Resolution {
        Resolution {
            stride: self.stride,
            recent_from: self.recent.front().map_or(0, |(s, _)| *s),
        }
    }

    /// The kept entries, oldest first: the thinned record up to the recent entries, then
    /// those.
    pub fn iter(&self) -> impl Iterator<Item = (u64, T)> + '_ {
        let from = self.resolution().recent_from;
        let older = self.thinned.iter().take_while(move |(s, _)| *s < from);
        older.chain(self.recent.iter()).copied()
    }

    /// How many entries [`Series::iter`] yields.
    pub fn len(&self) -> usize {
        let from = self.resolution().recent_from;
        self.thinned.iter().take_while(|(s, _)| *s < from).count() + self.recent.len()
    }

    pub fn is_empty(&self) -> bool {
        self.recent.is_empty()
    }

    /// The most entries it ever holds.
    pub fn capacity(&self) -> usize {
        self.thinned_cap + self.recent_cap
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_truncated_series_goes_on_as_if_the_later_entries_never_came() {
        let (mut a, mut b) = (Series::new(32, 32), Series::new(32, 32));
        for i in 1..=20 {
            a.push(i, i as f32);
        }
        for i in 1..=23 {
            b.push(i, i as f32);
        }
        let v = b.version();
        b.truncate(20);
        assert_ne!(b.version(), v, "a reader sees the change");
        let entries = |s: &Series<f32>| s.iter().collect::<Vec<_>>();
        assert_eq!(entries(&b), entries(&a));
        assert_eq!((b.count(), b.resolution()), (a.count(), a.resolution()));
        for i in 21..=40 {
            a.push(i, i as f32);
            b.push(i, -(i as f32));
        }
        let steps = |s: &Series<f32>| s.iter().map(|(st, _)| st).collect::<Vec<_>>();
        assert_eq!(steps(&b), steps(&a));
        // Back past every recent entry: the thinned record up to the step, then on.
        let mut c = Series::new(4, 4);
        for i in 1..=40 {
            c.push(i, i as f32);
        }
        assert_eq!(steps(&c), [1, 17, 33, 37, 38, 39, 40]);
        c.truncate(30);
        assert_eq!(steps(&c), [1, 17]);
        for i in 31..=34 {
            c.push(i, i as f32);
        }
        let got = steps(&c);
        assert!(got.windows(2).all(|w| w[0] < w[1]), "{got:?}");
        assert_eq!(got[got.len() - 4..], [31, 32, 33, 34]);
        c.truncate(0);
        assert!(c.is_empty());
        assert_eq!(c.count(), 0);
    }

    #[test]
    fn a_short_series_keeps_every_entry() {
        let mut s = Series::new(8, 4);
        for i in 1..=6 {
            s.push(i, i as f32);
        }
        let got: Vec<u64> = s.iter().map(|(st, _)| st).collect();
        assert_eq!(got, [1, 2, 3, 4, 5, 6]);
        assert_eq!(
            s.resolution(),
            Resolution {
                stride: 1,
                recent_from: 3
            }
        );
    }

    #[test]
    fn a_long_series_is_thinned_evenly_and_ends_with_every_recent_entry() {
        let mut s = Series::new(8, 3);
        for i in 0..40u64 {
            s.push(i, i);
        }
        // 40 entries through 8 slots: stride 8 (0, 8, …, 32), then 37, 38, 39.
        let got: Vec<u64> = s.iter().map(|(st, _)| st).collect();
        assert_eq!(got, [0, 8, 16, 24, 32, 37, 38, 39]);
        assert_eq!(s.resolution().stride, 8);
        assert_eq!(s.len(), got.len());
        assert_eq!(s.count(), 40);
    }

    #[test]
    fn record_replaces_a_second_measurement_of_the_same_step() {
        let mut s = Series::new(4, 2);
        s.push(0, 1.0);
        s.record(0, 2.0);
        s.record(10, 3.0);
        let got: Vec<(u64, f32)> = s.iter().collect();
        assert_eq!(got, [(0, 2.0), (10, 3.0)]);
        let v = s.version();
        s.clear();
        assert!(s.is_empty() && s.version() > v);
    }
}
