//! One LSTM layer over a whole token sequence, forward and backward (backpropagation through
//! time), in PyTorch's convention: gates `i, f, g, o` from `W_ih x + b_ih + W_hh h + b_hh`.
//! The input is always an embedding lookup, so `W_ih E[tok] + b` is a row of the small table
//! `E W_ihᵀ + b` (NT, 4H), computed once per pass instead of once per token.

use crate::kernels::math;
use crate::kernels::{gemm_packed, matmul_nn, matmul_nt, matmul_tn, Mat, MatMut, PackedB};

/// One direction's weights. `H` = hidden width.
pub struct LstmWeights<'a> {
    pub w_ih: &'a [f32], // (4H, H)
    pub w_hh: &'a [f32], // (4H, H)
    pub b_ih: &'a [f32], // (4H,)
    pub b_hh: &'a [f32], // (4H,)
}

/// Gradients of one direction's weights, accumulated into (not overwritten).
pub struct LstmGrads<'a> {
    pub w_ih: &'a mut [f32], // (4H, H)
    pub w_hh: &'a mut [f32], // (4H, H)
    pub b_ih: &'a mut [f32], // (4H,)
    pub b_hh: &'a mut [f32], // (4H,)
}

/// The state a pass starts from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// `h = c = 0`, a constant (an encoder direction): the first step has no `h W_hhᵀ` to
    /// compute, and the backward pass no gradient to send to the initial state, nor terms
    /// `dgates[0]ᵀ h[0]` to add to dW_hh.
    Zero,
    /// The state in `cache.h[0]`, `cache.c[0]` (the decoder's, from the encoder), whose
    /// gradient the backward pass leaves in `LstmScratch::dh`, `dc`.
    Given,
}

/// What a forward pass keeps for its backward pass. `T` steps, batch `B`, width `H`.
#[derive(Clone, Debug)]
pub struct LstmCache {
    /// The state the last forward pass started from.
    pub start: Start,
    pub steps: usize,
    pub batch: usize,
    pub hidden: usize,
    pub n_tok: usize,
    pub table: Vec<f32>,  // (NT, 4H)   E W_ihᵀ + b_ih + b_hh
    pub gates: Vec<f32>,  // (T, B, 4H) activated gates i, f, g, o
    pub h: Vec<f32>,      // (T+1, B, H) h[0] is the initial state, h[t+1] the output at t
    pub c: Vec<f32>,      // (T+1, B, H)
    pub tanh_c: Vec<f32>, // (T, B, H)  tanh(c[t+1])
    /// W_hhᵀ (H, 4H) packed once per pass for the T products `h[t] W_hhᵀ`.
    pub w_hh_t: PackedB,
}

impl LstmCache {
    pub fn new(steps: usize, batch: usize, hidden: usize, n_tok: usize) -> LstmCache {
        let bh = batch * hidden;
        LstmCache {
            start: Start::Given,
            steps,
            batch,
            hidden,
            n_tok,
            table: vec![0.0; n_tok * 4 * hidden],
            gates: vec![0.0; steps * 4 * bh],
            h: vec![0.0; (steps + 1) * bh],
            c: vec![0.0; (steps + 1) * bh],
            tanh_c: vec![0.0; steps * bh],
            w_hh_t: PackedB::new(hidden, 4 * hidden),
        }
    }

    /// Outputs `h[1..]`: (T, B, H).
    pub fn outputs(&self) -> &[f32] {
        &self.h[self.batch * self.hidden..]
    }

    /// Final hidden state (B, H).
    pub fn final_h(&self) -> &[f32] {
        &self.h[self.steps * self.batch * self.hidden..]
    }

    /// Final cell state (B, H).
    pub fn final_c(&self) -> &[f32] {
        &self.c[self.steps * self.batch * self.hidden..]
    }
}

/// Scratch of the backward pass, sized for the longest sequence it serves.
#[derive(Clone, Debug)]
pub struct LstmScratch {
    pub dgates: Vec<f32>, // (T, B, 4H) gradient w.r.t. the gate pre-activations
    pub dtable: Vec<f32>, // (NT, 4H)
    /// (B, H): on return from [`lstm_backward`] of a pass from [`Start::Given`], the
    /// gradient w.r.t. the initial `h` (after [`Start::Zero`], not meaningful).
    pub dh: Vec<f32>,
    /// (B, H): on return, the gradient w.r.t. the initial `c` (likewise).
    pub dc: Vec<f32>,
    /// W_hh (4H, H) packed once per pass for the T products `dgates[t] W_hh`.
    pub w_hh: PackedB,
}

impl LstmScratch {
    pub fn new(max_steps: usize, batch: usize, hidden: usize, n_tok: usize) -> LstmScratch {
        LstmScratch {
            dgates: vec![0.0; max_steps * batch * 4 * hidden],
            dtable: vec![0.0; n_tok * 4 * hidden],
            dh: vec![0.0; batch * hidden],
            dc: vec![0.0; batch * hidden],
            w_hh: PackedB::new(4 * hidden, hidden),
        }
    }
}

/// Runs the LSTM over `tokens` (T, B) from `start` (for [`Start::Given`], the state already
/// in `cache.h[0]`, `cache.c[0]`), reading embeddings from `emb` (NT, H).
pub fn lstm_forward(
    w: &LstmWeights,
    emb: &[f32],
    tokens: &[u32],
    start: Start,
    cache: &mut LstmCache,
) {
    let (t_len, b_sz, h, nt) = (cache.steps, cache.batch, cache.hidden, cache.n_tok);
    let g4 = 4 * h;
    let bh = b_sz * h;
    debug_assert_eq!(tokens.len(), t_len * b_sz);
    cache.start = start;
    if start == Start::Zero {
        cache.h[..bh].fill(0.0);
        cache.c[..bh].fill(0.0);
    }
    // table = E W_ihᵀ + b_ih + b_hh
    matmul_nt(nt, g4, h, emb, h, w.w_ih, h, 0.0, &mut cache.table, g4);
    for row in cache.table.chunks_exact_mut(g4) {
        for ((x, bi), bh_) in row.iter_mut().zip(w.b_ih).zip(w.b_hh) {
            *x += bi + bh_;
        }
    }
    cache.w_hh_t.pack(Mat::rows_t(w.w_hh, h));
    for t in 0..t_len {
        let gates = &mut cache.gates[t * b_sz * g4..(t + 1) * b_sz * g4];
        // gates = h[t] W_hhᵀ, then + table[tok] as they are activated below
        let (h_prev, h_next) = cache.h.split_at_mut((t + 1) * bh);
        let h_prev = &h_prev[t * bh..];
        if t == 0 && start == Start::Zero {
            gates.fill(0.0);
        } else {
            gemm_packed(
                b_sz,
                Mat::rows(h_prev, h),
                &cache.w_hh_t,
                0.0,
                MatMut::rows(gates, g4),
            );
        }
        let (c_prev, c_next) = cache.c.split_at_mut((t + 1) * bh);
        let c_prev = &c_prev[t * bh..];
        let tanh_c = &mut cache.tanh_c[t * bh..(t + 1) * bh];
        for b in 0..b_sz {
            let tok = tokens[t * b_sz + b] as usize;
            let row = &cache.table[tok * g4..(tok + 1) * g4];
            let (ti, tf, tg, to) = (&row[..h], &row[h..2 * h], &row[2 * h..3 * h], &row[3 * h..]);
            let gb = &mut gates[b * g4..(b + 1) * g4];
            let (gi, rest) = gb.split_at_mut(h);
            let (gf, rest) = rest.split_at_mut(h);
            let (gg, go) = rest.split_at_mut(h);
            for j in 0..h {
                let i = math::sigmoid(gi[j] + ti[j]);
                let f = math::sigmoid(gf[j] + tf[j]);
                let g = math::tanh(gg[j] + tg[j]);
                let o = math::sigmoid(go[j] + to[j]);
                gi[j] = i;
                gf[j] = f;
                gg[j] = g;
                go[j] = o;
                let c = f * c_prev[b * h + j] + i * g;
                let tc = math::tanh(c);
                c_next[b * h + j] = c;
                tanh_c[b * h + j] = tc;
                h_next[b * h + j] = o * tc;
            }
        }
    }
}

/// Backpropagation through time. `dh_out` (T, B, H) is the loss gradient w.r.t. each output
/// `h[t+1]`; `final_grad` the gradient w.r.t. the final `(h, c)` (B, H each), if it is used.
/// Accumulates into `g` and `d_emb` (NT, H); after a pass from [`Start::Given`], leaves the
/// initial-state gradients in `s.dh`, `s.dc`.
#[allow(clippy::too_many_arguments)]
pub fn lstm_backward(
    w: &LstmWeights,
    emb: &[f32],
    tokens: &[u32],
    cache: &LstmCache,
    dh_out: &[f32],
    final_grad: Option<(&[f32], &[f32])>,
    g: &mut LstmGrads,
    d_emb: &mut [f32],
    s: &mut LstmScratch,
) {
    let (t_len, b_sz, h, nt) = (cache.steps, cache.batch, cache.hidden, cache.n_tok);
    let g4 = 4 * h;
    let bh = b_sz * h;
    match final_grad {
        Some((dh, dc)) => {
            s.dh.copy_from_slice(dh);
            s.dc.copy_from_slice(dc);
        }
        None => {
            s.dh.fill(0.0);
            s.dc.fill(0.0);
        }
    }
    s.w_hh.pack(Mat::rows(w.w_hh, h));
    for t in (0..t_len).rev() {
        let gates = &cache.gates[t * b_sz * g4..(t + 1) * b_sz * g4];
        let dgates = &mut s.dgates[t * b_sz * g4..(t + 1) * b_sz * g4];
        let c_prev = &cache.c[t * bh..(t + 1) * bh];
        let tanh_c = &cache.tanh_c[t * bh..(t + 1) * bh];
        let dh_t = &dh_out[t * bh..(t + 1) * bh];
        for b in 0..b_sz {
            let gb = &gates[b * g4..(b + 1) * g4];
            let db = &mut dgates[b * g4..(b + 1) * g4];
            for j in 0..h {
                let (i, f, gg, o) = (gb[j], gb[h + j], gb[2 * h + j], gb[3 * h + j]);
                let k = b * h + j;
                let tc = tanh_c[k];
                // h = o · tanh(c)
                let dh = dh_t[k] + s.dh[k];
                let d_o = dh * tc;
                let dc = s.dc[k] + dh * o * (1.0 - tc * tc);
                // c = f · c_prev + i · g
                let di = dc * gg;
                let dg = dc * i;
                let df = dc * c_prev[k];
                s.dc[k] = dc * f;
                // back through σ and tanh to the pre-activations
                db[j] = di * i * (1.0 - i);
                db[h + j] = df * f * (1.0 - f);
                db[2 * h + j] = dg * (1.0 - gg * gg);
                db[3 * h + j] = d_o * o * (1.0 - o);
            }
        }
        // gates_pre += h[t] W_hhᵀ  ⇒  dh[t] = dgates W_hh; a zero start is a constant
        if t == 0 && cache.start == Start::Zero {
            break;
        }
        gemm_packed(
            b_sz,
            Mat::rows(dgates, g4),
            &s.w_hh,
            0.0,
            MatMut::rows(&mut s.dh, h),
        );
    }
    let rows = t_len * b_sz;
    // dW_hh += Σ_t dgates[t]ᵀ h[t], from t = 1 when h[0] is zero
    let first = if cache.start == Start::Zero { b_sz } else { 0 };
    matmul_tn(
        g4,
        h,
        rows - first,
        &s.dgates[first * g4..rows * g4],
        g4,
        &cache.h[first * h..rows * h],
        h,
        1.0,
        g.w_hh,
        h,
    );
    // gates_pre[t, b] = table[tok] + …  ⇒  dtable[tok] += dgates[t, b]
    s.dtable.fill(0.0);
    for (r, &tok) in tokens.iter().enumerate().take(rows) {
        let src = &s.dgates[r * g4..(r + 1) * g4];
        let dst = &mut s.dtable[tok as usize * g4..(tok as usize + 1) * g4];
        for (d, x) in dst.iter_mut().zip(src) {
            *d += x;
        }
    }
    // table = E W_ihᵀ + b_ih + b_hh
    for row in s.dtable.chunks_exact(g4) {
        for ((bi, bh_), x) in g.b_ih.iter_mut().zip(g.b_hh.iter_mut()).zip(row) {
            *bi += x;
            *bh_ += x;
        }
    }
    matmul_tn(g4, h, nt, &s.dtable, g4, emb, h, 1.0, g.w_ih, h);
    matmul_nn(nt, h, g4, &s.dtable, g4, w.w_ih, h, 1.0, d_emb, h);
}
