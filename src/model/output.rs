//! The output layer and loss: `log_softmax(W_o tanh(W [d; c] + b) + b_o)` and the mean NLL of
//! the targets, with its fused backward. `W = [W_d | W_c']` is applied as two products, so
//! `[d; c]` is never concatenated.

use crate::kernels::math;
use crate::kernels::{
    add_bias_rows, log_softmax_rows, matmul_nn, matmul_nt, matmul_tn, sum_rows_into,
};

/// Forward: `d`, `c` (N, H) → `act` (N, H) = tanh(W [d; c] + b), `logp` (N, NT).
/// `w_comb` (H, 2H), `b_comb` (H,), `w_out` (NT, H), `b_out` (NT,). Returns the mean NLL of
/// `targets` (N,).
#[allow(clippy::too_many_arguments)]
pub fn output_forward(
    n: usize,
    h: usize,
    nt: usize,
    d: &[f32],
    c: &[f32],
    w_comb: &[f32],
    b_comb: &[f32],
    w_out: &[f32],
    b_out: &[f32],
    targets: &[u32],
    act: &mut [f32],
    logp: &mut [f32],
) -> f32 {
    matmul_nt(n, h, h, d, h, w_comb, 2 * h, 0.0, act, h);
    matmul_nt(n, h, h, c, h, &w_comb[h..], 2 * h, 1.0, act, h);
    add_bias_rows(act, b_comb);
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

/// Backward of [`output_forward`] for the mean NLL. Accumulates into the weight gradients;
/// overwrites `dd`, `dc` (N, H) with the gradients w.r.t. `d` and `c`.
/// Scratch: `dlogits` (N, NT), `dact` (N, H).
#[allow(clippy::too_many_arguments)]
pub fn output_backward(
    n: usize,
    h: usize,
    nt: usize,
    d: &[f32],
    c: &[f32],
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
    dd: &mut [f32],
    dc: &mut [f32],
) {
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
    // pre = d W_dᵀ + c W_c'ᵀ + b
    matmul_tn(h, h, n, dpre, h, d, h, 1.0, g_w_comb, 2 * h);
    matmul_tn(h, h, n, dpre, h, c, h, 1.0, &mut g_w_comb[h..], 2 * h);
    sum_rows_into(g_b_comb, dpre);
    matmul_nn(n, h, h, dpre, h, w_comb, 2 * h, 0.0, dd, h);
    matmul_nn(n, h, h, dpre, h, &w_comb[h..], 2 * h, 0.0, dc, h);
}
