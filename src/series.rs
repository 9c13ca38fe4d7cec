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
