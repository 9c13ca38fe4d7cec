//! The paper's measurements (docs/science.md 1.4): token accuracy, attention accuracy, the KTIW
//! probe `β` with its accuracy and score, and the top-5% agreement of two matrices. They
//! read a forward pass's workspace; they never change the model.

use crate::copying::config::MAX_HEADS;
use crate::copying::model::params::Tensors;
use crate::copying::model::{Seq2Seq, Workspace};
use crate::copying::tasks::Batch;
use crate::kernels::{add_bias_rows, math, matmul_nt, max_of};
use crate::rng::Rng;
use crate::run::Metrics;
use serde::{Deserialize, Serialize};

/// The measurements of one evaluation on the fixed evaluation batch (teacher forced).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    /// Updates applied before this evaluation.
    pub step: u64,
    pub loss: f32,
    pub token_accuracy: f32,
    /// Argmax of `α` (averaged over heads) on the aligned position.
    pub attention_accuracy: f32,
    /// Argmax of `β` on the aligned position.
    pub ktiw_accuracy: f32,
    /// Mean probability of the correct token under one-hot attention on the aligned position.
    pub ktiw_score: f32,
    /// Top-5% agreement of `β` with `α`.
    pub agreement: f32,
    /// Argmax of each head's own `α` on the aligned position, by head (0 beyond the
    /// model's heads): which head found the diagonal.
    pub head_attention: [f32; MAX_HEADS],
}

impl Evaluation {
    /// The metrics' names, in the order of [`Evaluation::metrics`].
    pub const METRICS: [&'static str; 6] = [
        "loss",
        "token_accuracy",
        "attention_accuracy",
        "ktiw_accuracy",
        "ktiw_score",
        "agreement",
    ];

    /// Every metric, in the order of [`Evaluation::METRICS`].
    pub fn metrics(&self) -> [f32; 6] {
        [
            self.loss,
            self.token_accuracy,
            self.attention_accuracy,
            self.ktiw_accuracy,
            self.ktiw_score,
            self.agreement,
        ]
    }

    /// `self += w · other` for every metric (the step is kept): the mean over the
    /// evaluation batch of parts that each measured some of its rows, weighted by rows.
    pub fn add_scaled(&mut self, other: &Evaluation, w: f32) {
        self.loss += w * other.loss;
        self.token_accuracy += w * other.token_accuracy;
        self.attention_accuracy += w * other.attention_accuracy;
        self.ktiw_accuracy += w * other.ktiw_accuracy;
        self.ktiw_score += w * other.ktiw_score;
        self.agreement += w * other.agreement;
        for (a, b) in self.head_attention.iter_mut().zip(&other.head_attention) {
            *a += w * b;
        }
    }
}

impl Metrics for Evaluation {
    const NAMES: &'static [&'static str] = &Evaluation::METRICS;
    const BY_HEAD: Option<&'static str> = Some("attention_accuracy");

    fn metric(&self, i: usize) -> f32 {
        self.metrics()[i]
    }

    fn by_head(&self, k: usize) -> f32 {
        self.head_attention[k]
    }
}

/// Index of the largest value (the first one on ties).
pub fn argmax(xs: &[f32]) -> usize {
    let mut best = 0;
    for (i, &x) in xs.iter().enumerate() {
        if x > xs[best] {
            best = i;
        }
    }
    best
}

/// Fraction of target tokens whose most likely output is the target. `logp` (Lt, B, NT).
pub fn token_accuracy(logp: &[f32], targets: &[u32], n_tok: usize) -> f32 {
    let hits = logp
        .chunks_exact(n_tok)
        .zip(targets)
        .filter(|(row, &y)| argmax(row) == y as usize)
        .count();
    hits as f32 / targets.len() as f32
}

/// Fraction of (sequence, target step) rows of `m` (B, Lt, Ls) whose argmax over source
/// positions is the aligned one (`aligned` (Lt,)). With `m = α`: attention accuracy; with
/// `m = β`: KTIW accuracy.
pub fn aligned_accuracy(m: &[f32], aligned: &[u32], src_len: usize) -> f32 {
    let lt = aligned.len();
    let mut hits = 0;
    let rows = m.chunks_exact(src_len);
    let n = rows.len();
    for (r, row) in rows.enumerate() {
        if argmax(row) == aligned[r % lt] as usize {
            hits += 1;
        }
    }
    hits as f32 / n as f32
}

/// `out` (B, Lt, Ls) = the mean over heads of `alpha` (K, B, Lt, Ls).
pub fn mean_over_heads(alpha: &[f32], heads: usize, out: &mut [f32]) {
    let n = out.len();
    out.copy_from_slice(&alpha[..n]);
    for k in 1..heads {
        for (o, a) in out.iter_mut().zip(&alpha[k * n..(k + 1) * n]) {
            *o += a;
        }
    }
    let inv = 1.0 / heads as f32;
    out.iter_mut().for_each(|x| *x *= inv);
}

/// The top-5% agreement of `b` with `a` (both (Lt, Ls), one sequence): the fraction of target
/// steps at which fewer than `ceil(0.05 · Ls)` source positions have `b` larger than `b` at
/// `argmax_s a`.
pub fn agreement(a: &[f32], b: &[f32], src_len: usize) -> f32 {
    let allowed = (0.05 * src_len as f64).ceil() as usize;
    let mut hits = 0;
    let mut rows = 0;
    for (ra, rb) in a.chunks_exact(src_len).zip(b.chunks_exact(src_len)) {
        let pick = rb[argmax(ra)];
        let larger = rb.iter().filter(|&&x| x > pick).count();
        if larger < allowed {
            hits += 1;
        }
        rows += 1;
    }
    hits as f32 / rows as f32
}

/// [`agreement`] averaged over the sequences of `a`, `b` (B, Lt, Ls).
pub fn mean_agreement(a: &[f32], b: &[f32], tgt_len: usize, src_len: usize) -> f32 {
    let per = tgt_len * src_len;
    let n = a.len() / per;
    let sum: f32 = (0..n)
        .map(|i| {
            agreement(
                &a[i * per..(i + 1) * per],
                &b[i * per..(i + 1) * per],
                src_len,
            )
        })
        .sum();
    sum / n as f32
}

/// [`mean_agreement`] of `a` with `b` after every row of `b` (a target step's `Ls` scores)
/// is shuffled over the source positions by `rng`: the agreement that chance gives, the
/// paper's baseline for it. For the `reproduce` tool (it allocates).
pub fn shuffled_agreement(
    a: &[f32],
    b: &[f32],
    tgt_len: usize,
    src_len: usize,
    rng: &mut Rng,
) -> f32 {
    let mut shuffled = b.to_vec();
    for row in shuffled.chunks_exact_mut(src_len) {
        rng.shuffle(row);
    }
    mean_agreement(a, &shuffled, tgt_len, src_len)
}

/// The KTIW probe (the paper's `get_state_scores2`) and its scratch. For target step `t` and
/// source position `s`, attention is replaced by a one-hot vector on `s`:
/// `p_{t,s} = softmax(W_o tanh(W_d d_t + W_c' c_s + b) + b_o)[y_t]` with
/// `c_s = mean_k (W_c^k h_s + b_c^k)`, and `β_{t,s} = log(p / (1 − p))`.
/// The pre-activation splits into a part per target step and one per source position,
/// `u_t + v_s` with `v_s = Σ_k M_k h_s` through the forward pass's fused context maps
/// `M_k = W_c' W_c^k / K` (its bias is in `u_t`), so the grid costs one product per sequence.
#[derive(Clone, Debug)]
pub struct KtiwProbe {
    u: Vec<f32>,      // (Lt, B, H)   W_d d_t + b_comb + W_c' mean_k b_c^k
    v: Vec<f32>,      // (B, Ls, H)   Σ_k M_k h_s
    grid: Vec<f32>,   // (Lt·Ls, H)   tanh(u_t + v_s) of one sequence
    logits: Vec<f32>, // (Lt·Ls, NT)
}

impl KtiwProbe {
    pub fn new(model: &Seq2Seq, batch: usize, src_len: usize, tgt_len: usize) -> KtiwProbe {
        let (h, nt) = (model.dims.hidden, model.dims.n_tok);
        KtiwProbe {
            u: vec![0.0; tgt_len * batch * h],
            v: vec![0.0; src_len * batch * h],
            grid: vec![0.0; tgt_len * src_len * h],
            logits: vec![0.0; tgt_len * src_len * nt],
        }
    }

    /// Fills `beta` (B, Lt, Ls) from the forward pass in `ws` on `batch`; returns the KTIW
    /// score, the mean of `p_{t, aligned(t)}` over sequences and target steps.
    pub fn run(
        &mut self,
        model: &Seq2Seq,
        p: &Tensors<&[f32]>,
        ws: &Workspace,
        batch: &Batch,
        beta: &mut [f32],
    ) -> f32 {
        let (h, nt) = (model.dims.hidden, model.dims.n_tok);
        let (bsz, ls, lt) = (ws.batch, ws.src_len, ws.tgt_len);
        let d = &ws.dec.h[bsz * h..]; // (Lt, B, H)
        matmul_nt(lt * bsz, h, h, d, h, p.w_comb, 2 * h, 0.0, &mut self.u, h);
        add_bias_rows(&mut self.u, &ws.b_ctx);
        let hs = model.dims.enc_width();
        for head in 0..model.dims.heads {
            let m_k = &ws.m_ctx[head * h * hs..(head + 1) * h * hs];
            let beta = if head == 0 { 0.0 } else { 1.0 };
            matmul_nt(
                ls * bsz,
                h,
                hs,
                &ws.h_enc,
                hs,
                m_k,
                hs,
                beta,
                &mut self.v,
                h,
            );
        }
        let mut score = 0.0f64;
        for b in 0..bsz {
            for t in 0..lt {
                let u = &self.u[(t * bsz + b) * h..(t * bsz + b + 1) * h];
                for s in 0..ls {
                    let v = &self.v[(b * ls + s) * h..(b * ls + s + 1) * h];
                    let g = &mut self.grid[(t * ls + s) * h..(t * ls + s + 1) * h];
                    for ((x, a), c) in g.iter_mut().zip(u).zip(v) {
                        *x = math::tanh(a + c);
                    }
                }
            }
            matmul_nt(
                lt * ls,
                nt,
                h,
                &self.grid,
                h,
                p.w_out,
                h,
                0.0,
                &mut self.logits,
                nt,
            );
            add_bias_rows(&mut self.logits, p.b_out);
            for t in 0..lt {
                let y = batch.tgt(t, b) as usize;
                for s in 0..ls {
                    let row = &self.logits[(t * ls + s) * nt..(t * ls + s + 1) * nt];
                    let lo = log_odds(row, y);
                    beta[(b * lt + t) * ls + s] = lo;
                    if s == batch.aligned[t] as usize {
                        score += sigmoid(lo as f64);
                    }
                }
            }
        }
        (score / (bsz * lt) as f64) as f32
    }
}

/// The KTIW score of `beta` (B, Lt, Ls) on `batch`: the mean of `p = σ(β)` at the aligned
/// position over sequences and target steps, summed in [`KtiwProbe::run`]'s order.
pub fn ktiw_score(beta: &[f32], batch: &Batch) -> f32 {
    let (bsz, lt, ls) = (batch.batch, batch.tgt_len, batch.src_len);
    let mut score = 0.0f64;
    for b in 0..bsz {
        for t in 0..lt {
            let s = batch.aligned[t] as usize;
            score += sigmoid(beta[(b * lt + t) * ls + s] as f64);
        }
    }
    (score / (bsz * lt) as f64) as f32
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// `log(p / (1 − p))` for `p = softmax(logits)[y]`, computed stably as
/// `logits[y] − logsumexp_{j ≠ y} logits[j]`.
pub fn log_odds(logits: &[f32], y: usize) -> f32 {
    // The classes other than y are the two runs on either side of it: plain slices, so
    // the loops below have no per-element test (this runs for every (t, s) of the probe).
    let (lo, hi) = (&logits[..y], &logits[y + 1..]);
    let max = max_of(lo).max(max_of(hi));
    let sum = sum_exp(lo, max) + sum_exp(hi, max);
    logits[y] - (max + sum.ln())
}

/// `Σ exp(x − max)` over `xs`, in eight interleaved partial sums so that it vectorises
/// (one sum would be a chain the compiler may not reorder).
fn sum_exp(xs: &[f32], max: f32) -> f32 {
    let mut acc = [0.0f32; 8];
    let chunks = xs.chunks_exact(8);
    let rest: f32 = chunks.remainder().iter().map(|&x| math::exp(x - max)).sum();
    for c in chunks {
        for (a, &x) in acc.iter_mut().zip(c) {
            *a += math::exp(x - max);
        }
    }
    acc.iter().sum::<f32>() + rest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_odds_matches_definition() {
        let logits = [0.3f32, -1.2, 2.0, 0.0];
        let z: f32 = logits.iter().map(|x| x.exp()).sum();
        let p = logits[2].exp() / z;
        assert!((log_odds(&logits, 2) - (p / (1.0 - p)).ln()).abs() < 1e-5);
        // Longer rows (the eight-way sums and their remainders), y at either end and inside.
        let mut rng = crate::rng::Rng::new(3, 0);
        for n in [2, 9, 17, 62] {
            let logits: Vec<f32> = (0..n).map(|_| rng.uniform_range(-6.0, 6.0)).collect();
            for y in [0, n / 2, n - 1] {
                let z: f64 = logits.iter().map(|&x| (x as f64).exp()).sum();
                let p = (logits[y] as f64).exp() / z;
                let want = (p / (1.0 - p)).ln();
                let got = log_odds(&logits, y) as f64;
                assert!((got - want).abs() < 1e-5, "n {n} y {y}: {got} vs {want}");
            }
        }
    }

    #[test]
    fn agreement_counts_rows_within_top_five_percent() {
        // Ls = 3 ⇒ ceil(0.15) = 1 ⇒ b at argmax a must be b's maximum.
        let a = [1.0, 0.0, 0.0, /* row 2 */ 0.0, 0.0, 1.0];
        let b = [5.0, 1.0, 2.0, /* row 2 */ 9.0, 0.0, 1.0];
        assert_eq!(agreement(&a, &b, 3), 0.5);
    }

    #[test]
    fn shuffled_agreement_is_chance_where_the_matrices_agree() {
        // B = 4, Lt = 21, Ls = 20: b agrees with a on every row (both peak on the diagonal).
        let (b, lt, ls) = (4, 21, 20);
        let mut a = vec![0.0f32; b * lt * ls];
        for (r, row) in a.chunks_exact_mut(ls).enumerate() {
            row[r % ls] = 1.0;
        }
        let beta: Vec<f32> = a.iter().map(|x| 3.0 * x - 1.0).collect();
        assert_eq!(mean_agreement(&a, &beta, lt, ls), 1.0);
        // Shuffled rows keep their peak at the argmax of a 1 time in Ls.
        let mut rng = crate::rng::Rng::new(5, 0);
        let chance = shuffled_agreement(&a, &beta, lt, ls, &mut rng);
        assert!(chance < 0.2, "{chance}");
        // Determined by the generator's state.
        let again = shuffled_agreement(&a, &beta, lt, ls, &mut crate::rng::Rng::new(5, 0));
        assert_eq!(chance, again);
    }

    #[test]
    fn aligned_accuracy_reads_argmax_per_row() {
        // B = 1, Lt = 2, Ls = 2, aligned = [0, 1]: row 0 hits, row 1 misses.
        let m = [0.9, 0.1, 0.8, 0.2];
        assert_eq!(aligned_accuracy(&m, &[0, 1], 2), 0.5);
    }
}
