//! The output layer and loss: `log_softmax(W_o tanh(W_d d + W_c' c + b) + b_o)` and the mean
//! NLL of the targets, with its fused backward. The context `c = mean_k (W_c^k ctx_k + b_c^k)`
//! only ever enters through `W_c'`, so the two linear maps are multiplied once per pass
//! (`M_k = W_c' W_c^k / K`, [`fuse_context`]) and `c` is never formed: per token that is one
//! `H × Hs` product per head instead of one per head plus an `H × H` one.

use crate::kernels::math;
use crate::kernels::{
    add_bias_rows, log_softmax_rows, matmul_nn, matmul_nt, matmul_tn, sum_rows_into,
};

/// Sizes of the output layer: `n` tokens, `h` hidden, `hs` encoder width, `k` heads, `nt`
/// vocabulary.
#[derive(Clone, Copy, Debug)]
pub struct OutShape {
    pub n: usize,
    pub h: usize,
    pub hs: usize,
    pub k: usize,
    pub nt: usize,
}

/// `m` (K, H, Hs) = `W_c' W_c^k / K` and `b` (H,) = `b_comb + W_c' mean_k b_c^k`: the context
/// projection and the output layer's context half as one affine map per head.
/// `w_comb` (H, 2H) = `[W_d | W_c']`, `b_comb` (H,), `w_c` (K, H, Hs), `b_c` (K, H).
pub fn fuse_context(
    s: OutShape,
    w_comb: &[f32],
    b_comb: &[f32],
    w_c: &[f32],
    b_c: &[f32],
    m: &mut [f32],
    b: &mut [f32],
) {
    let OutShape { h, hs, k, .. } = s;
    let inv_k = 1.0 / k as f32;
    for head in 0..k {
        let m_k = &mut m[head * h * hs..(head + 1) * h * hs];
        let w_c_k = &w_c[head * h * hs..(head + 1) * h * hs];
        matmul_nn(h, hs, h, &w_comb[h..], 2 * h, w_c_k, hs, 0.0, m_k, hs);
        m_k.iter_mut().for_each(|x| *x *= inv_k);
    }
    for (j, bj) in b.iter_mut().enumerate().take(h) {
        let row = &w_comb[j * 2 * h + h..(j + 1) * 2 * h];
        let mut acc = 0.0;
        for (i, w) in row.iter().enumerate() {
            acc += w * head_sum(b_c, h, k, i);
        }
        *bj = b_comb[j] + acc * inv_k;
    }
}

/// `Σ_k b_c^k[i]`: the heads' context biases at `i` summed (`b_c` (K, H)).
fn head_sum(b_c: &[f32], h: usize, k: usize, i: usize) -> f32 {
    (0..k).map(|head| b_c[head * h + i]).sum()
}

/// Forward: `d` (N, H) and the heads' raw contexts `ctx` (K, N, Hs) → `act` (N, H) =
/// tanh(d W_dᵀ + Σ_k ctx_k M_kᵀ + b), `logp` (N, NT). `m`, `b` from [`fuse_context`],
/// `w_comb` (H, 2H) (its `W_d` half is read), `w_out` (NT, H), `b_out` (NT,). Returns the
/// mean NLL of `targets` (N,).
#[allow(clippy::too_many_arguments)]
pub fn output_forward(
    s: OutShape,
    d: &[f32],
    ctx: &[f32],
    m: &[f32],
    b: &[f32],
    w_comb: &[f32],
    w_out: &[f32],
    b_out: &[f32],
    targets: &[u32],
    act: &mut [f32],
    logp: &mut [f32],
) -> f32 {
    let OutShape { n, h, hs, k, nt } = s;
    matmul_nt(n, h, h, d, h, w_comb, 2 * h, 0.0, act, h);
    for head in 0..k {
        let ctx_k = &ctx[head * n * hs..(head + 1) * n * hs];
        let m_k = &m[head * h * hs..(head + 1) * h * hs];
        matmul_nt(n, h, hs, ctx_k, hs, m_k, hs, 1.0, act, h);
    }
    add_bias_rows(act, b);
    act.iter_mut().for_each(|x| *x = math::tanh(*x));
    matmul_nt(n, nt, h, act, h, w_out, h, 0.0, logp, nt);
    add_bias_rows(logp, b_out);
    log_softmax_rows(logp, nt);
    let mut nll = 0.0f64;
    for (r, &y) in targets.iter().enumerate().take(n) {
        nll -= logp[r * nt + y as usize] as f64;
    }
    (nll / n as f64) as f32
}

/// Backward of [`output_forward`] for the mean NLL, up to the pre-activation: accumulates
/// into the gradients of `W_o`, `b_o`, `W_d` and `b_comb`; overwrites `dact` (N, H) with
/// `dpre`, `dbias` (H,) with its column sums (the gradient of the fused bias) and `dd`
/// (N, H) with the gradient w.r.t. `d`. The context half is [`context_backward`].
/// Scratch: `dlogits` (N, NT).
#[allow(clippy::too_many_arguments)]
pub fn output_backward(
    s: OutShape,
    d: &[f32],
    act: &[f32],
    logp: &[f32],
    targets: &[u32],
    w_comb: &[f32],
    w_out: &[f32],
    g_w_comb: &mut [f32],
    g_b_comb: &mut [f32],
    g_w_out: &mut [f32],
    g_b_out: &mut [f32],
    dlogits: &mut [f32],
    dact: &mut [f32],
    dbias: &mut [f32],
    dd: &mut [f32],
) {
    let OutShape { n, h, nt, .. } = s;
    // loss = −(1/N) Σ logp[y]  ⇒  dlogits = (softmax − onehot(y)) / N
    let inv_n = 1.0 / n as f32;
    for r in 0..n {
        let (lp, dl) = (
            &logp[r * nt..(r + 1) * nt],
            &mut dlogits[r * nt..(r + 1) * nt],
        );
        for (x, l) in dl.iter_mut().zip(lp) {
            *x = math::exp(*l) * inv_n;
        }
        dl[targets[r] as usize] -= inv_n;
    }
    // logits = act W_oᵀ + b_o
    matmul_tn(nt, h, n, dlogits, nt, act, h, 1.0, g_w_out, h);
    sum_rows_into(g_b_out, dlogits);
    matmul_nn(n, h, nt, dlogits, nt, w_out, h, 0.0, dact, h);
    // act = tanh(pre)  ⇒  dpre = dact (1 − act²), in place
    for (x, a) in dact.iter_mut().zip(act) {
        *x *= 1.0 - a * a;
    }
    let dpre = &*dact;
    // pre = d W_dᵀ + (context terms) + b_comb + W_c' mean_k b_c^k
    matmul_tn(h, h, n, dpre, h, d, h, 1.0, g_w_comb, 2 * h);
    dbias.fill(0.0);
    sum_rows_into(dbias, dpre);
    for (g, x) in g_b_comb.iter_mut().zip(dbias.iter()) {
        *g += x;
    }
    matmul_nn(n, h, h, dpre, h, w_comb, 2 * h, 0.0, dd, h);
}

/// Backward of the fused bias `b = b_comb + W_c' mean_k b_c^k` beyond `b_comb`: from `dbias`
/// (H,) accumulates `dbias · mean_k b_c^kᵀ` into `W_c'` (the right half of `g_w_comb`
/// (H, 2H)) and `W_c'ᵀ dbias / K` into every head's `g_b_c` (K, H).
pub fn fused_bias_backward(
    s: OutShape,
    dbias: &[f32],
    w_comb: &[f32],
    b_c: &[f32],
    g_w_comb: &mut [f32],
    g_b_c: &mut [f32],
) {
    let OutShape { h, k, .. } = s;
    let inv_k = 1.0 / k as f32;
    for j in 0..h {
        let g_row = &mut g_w_comb[j * 2 * h + h..(j + 1) * 2 * h];
        for (i, g) in g_row.iter_mut().enumerate() {
            *g += dbias[j] * head_sum(b_c, h, k, i) * inv_k;
        }
    }
    for i in 0..h {
        let mut acc = 0.0;
        for j in 0..h {
            acc += w_comb[j * 2 * h + h + i] * dbias[j];
        }
        for head in 0..k {
            g_b_c[head * h + i] += acc * inv_k;
        }
    }
}

/// Backward of one head's term `ctx_k M_kᵀ` of the pre-activation, with `M_k = W_c' W_c^k / K`:
/// from `dpre` (N, H) and the head's raw context `ctx_k` (N, Hs), accumulates into `W_c'` (the
/// right half of `g_w_comb` (H, 2H)) and `g_w_c_k` (H, Hs), and overwrites `dctx` (N, Hs).
/// `m_k`, `w_c_k` (H, Hs). Scratch: `g_m` (H, Hs).
#[allow(clippy::too_many_arguments)]
pub fn context_backward(
    s: OutShape,
    dpre: &[f32],
    ctx_k: &[f32],
    m_k: &[f32],
    w_comb: &[f32],
    w_c_k: &[f32],
    g_w_comb: &mut [f32],
    g_w_c_k: &mut [f32],
    g_m: &mut [f32],
    dctx: &mut [f32],
) {
    let OutShape { n, h, hs, k, .. } = s;
    // ∂L/∂M_k = dpreᵀ ctx_k, taken with the 1/K of M_k already applied.
    matmul_tn(h, hs, n, dpre, h, ctx_k, hs, 0.0, g_m, hs);
    let inv_k = 1.0 / k as f32;
    g_m.iter_mut().for_each(|x| *x *= inv_k);
    matmul_nt(h, h, hs, g_m, hs, w_c_k, hs, 1.0, &mut g_w_comb[h..], 2 * h);
    matmul_tn(h, hs, h, &w_comb[h..], 2 * h, g_m, hs, 1.0, g_w_c_k, hs);
    matmul_nn(n, hs, h, dpre, h, m_k, hs, 0.0, dctx, hs);
}
