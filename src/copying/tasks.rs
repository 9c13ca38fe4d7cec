//! The copying tasks of docs/science.md 1.2 as seeded batch generators, each also saying which
//! source position every target step is aligned with. Token ids: `0..V` ordinary,
//! `EOS = V`, `SOS = V + 1`. The model and the metrics only read the batches made here.

use crate::copying::config::{Config, TaskKind};
use crate::rng::Rng;

/// One batch of sequences, time-major as the LSTMs read it.
#[derive(Clone, Debug)]
pub struct Batch {
    pub batch: usize,
    /// `Ls = L + 1` (the source ends in EOS).
    pub src_len: usize,
    /// `Lt = L + 1` predicted steps (the last predicts EOS).
    pub tgt_len: usize,
    /// (Ls, B): `x_1 … x_L, EOS`.
    pub source: Vec<u32>,
    /// (Lt, B): the decoder's teacher-forced input `SOS, y_1 … y_L`.
    pub target_in: Vec<u32>,
    /// (Lt, B): what it must predict, `y_1 … y_L, EOS`.
    pub target_out: Vec<u32>,
    /// (Lt,): the source position each target step is aligned with (the same for every sequence).
    pub aligned: Vec<u32>,
}

impl Batch {
    pub fn new(batch: usize, length: usize) -> Batch {
        let n = (length + 1) * batch;
        Batch {
            batch,
            src_len: length + 1,
            tgt_len: length + 1,
            source: vec![0; n],
            target_in: vec![0; n],
            target_out: vec![0; n],
            aligned: vec![0; length + 1],
        }
    }

    /// Source token at position `s` of sequence `b`.
    pub fn src(&self, s: usize, b: usize) -> u32 {
        self.source[s * self.batch + b]
    }

    /// Copies sequences `lo..hi` into `out` (a batch of `hi − lo` sequences of this length).
    pub fn copy_rows(&self, lo: usize, hi: usize, out: &mut Batch) {
        assert_eq!((out.batch, out.src_len), (hi - lo, self.src_len));
        for (src, dst) in [
            (&self.source, &mut out.source),
            (&self.target_in, &mut out.target_in),
            (&self.target_out, &mut out.target_out),
        ] {
            for (t, row) in dst.chunks_exact_mut(hi - lo).enumerate() {
                row.copy_from_slice(&src[t * self.batch + lo..t * self.batch + hi]);
            }
        }
        out.aligned.copy_from_slice(&self.aligned);
    }

    /// Correct output at target step `t` of sequence `b`.
    pub fn tgt(&self, t: usize, b: usize) -> u32 {
        self.target_out[t * self.batch + b]
    }
}

/// A task: how sources are drawn and how a target follows from its source.
#[derive(Clone, Debug)]
pub struct Task {
    pub kind: TaskKind,
    pub distinct: bool,
    pub vocab: usize,
    pub length: usize,
    /// (V,): the word-translation table `π` (identity for the other tasks).
    pub table: Vec<u32>,
    /// (V,): the pool distinct tokens are drawn from; its order after a batch is part of
    /// the stream's state (the next batch's draws permute it further).
    pool: Vec<u32>,
}

impl Task {
    /// Takes the state of `other` (the same task) in its stream: allocates nothing.
    pub fn follow(&mut self, other: &Task) {
        self.pool.copy_from_slice(&other.pool);
    }

    /// The task of `config`; `rng` draws the translation table (only for `Translate`).
    pub fn new(config: &Config, rng: &mut Rng) -> Task {
        let v = config.vocab;
        let mut table: Vec<u32> = (0..v as u32).collect();
        if config.task == TaskKind::Translate {
            rng.shuffle(&mut table);
        }
        Task {
            kind: config.task,
            distinct: config.distinct,
            vocab: v,
            length: config.length,
            table,
            pool: (0..v as u32).collect(),
        }
    }

    pub fn eos(&self) -> u32 {
        self.vocab as u32
    }

    pub fn sos(&self) -> u32 {
        self.vocab as u32 + 1
    }

    /// Source position that target step `t` is aligned with.
    pub fn aligned(&self, t: usize) -> usize {
        match self.kind {
            TaskKind::Reverse if t < self.length => self.length - 1 - t,
            _ => t,
        }
    }

    /// Fills `batch` with fresh sequences drawn from `rng`.
    pub fn fill(&mut self, rng: &mut Rng, batch: &mut Batch) {
        let (l, bsz) = (self.length, batch.batch);
        assert_eq!(batch.src_len, l + 1, "batch made for another length");
        for t in 0..=l {
            batch.aligned[t] = self.aligned(t) as u32;
        }
        for b in 0..bsz {
            if self.distinct {
                // Partial Fisher–Yates: the first L entries of the pool become distinct tokens.
                for i in 0..l {
                    let j = i + rng.below(self.vocab - i);
                    self.pool.swap(i, j);
                    batch.source[i * bsz + b] = self.pool[i];
                }
            } else {
                for i in 0..l {
                    batch.source[i * bsz + b] = rng.below(self.vocab) as u32;
                }
            }
            batch.source[l * bsz + b] = self.eos();
            batch.target_in[b] = self.sos();
            for t in 0..l {
                let x = batch.source[self.aligned(t) * bsz + b];
                let y = if self.kind == TaskKind::Translate {
                    self.table[x as usize]
                } else {
                    x
                };
                batch.target_out[t * bsz + b] = y;
                batch.target_in[(t + 1) * bsz + b] = y;
            }
            batch.target_out[l * bsz + b] = self.eos();
        }
    }
}
