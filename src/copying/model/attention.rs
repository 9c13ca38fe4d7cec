//! One attention head, forward and backward: scores `e_{t,s} = (W_q d_t + b_q) · h_s`,
//! weights `α = softmax_s(e)` (or uniform), raw context `Σ_s α_{t,s} h_s`. The projection
//! `W_c` and the averaging over heads belong to the output layer (`model/output.rs`).

use crate::kernels::{add_bias_rows, matmul_nn, matmul_nt, matmul_tn, softmax_rows, sum_rows_into};

/// Sizes shared by the attention functions.
#[derive(Clone, Copy, Debug)]
pub struct AttnShape {
    pub batch: usize,
    pub src_len: usize,
    pub tgt_len: usize,
    /// `H`, the decoder width.
    pub hidden: usize,
    /// `Hs`, the encoder output width.
    pub enc_width: usize,
}

/// How `α` is obtained.
#[derive(Clone, Copy, Debug)]
pub enum Weights<'a> {
    /// Softmax of the learned scores.
    Learned,
    /// Uniform `1 / Ls`: scores forced to zero.
    Uniform,
    /// Given (B, Lt, Ls): the one-hot probe and tests use it; gets no gradient.
    Given(&'a [f32]),
}

/// Forward pass of one head.
/// `d` (Lt, B, H), `h_enc` (B, Ls, Hs), `w_q` (Hs, H), `b_q` (Hs,);
/// writes `q` (Lt, B, Hs), `alpha` (B, Lt, Ls), `ctx` (Lt, B, Hs).
#[allow(clippy::too_many_arguments)]
pub fn attention_forward(
    sh: AttnShape,
    weights: Weights,
    d: &[f32],
    h_enc: &[f32],
    w_q: &[f32],
    b_q: &[f32],
    q: &mut [f32],
    alpha: &mut [f32],
    ctx: &mut [f32],
) {
    let AttnShape {
        batch: bsz,
        src_len: ls,
        tgt_len: lt,
        hidden: h,
        enc_width: hs,
    } = sh;
    let ld = bsz * hs; // row stride of one sequence's rows of q and ctx, (Lt, B, Hs)
    let enc = ls * hs; // one sequence's encoder outputs, (Ls, Hs) dense
    match weights {
        Weights::Learned => {
            // q = d W_qᵀ + b_q
            matmul_nt(lt * bsz, hs, h, d, h, w_q, h, 0.0, q, hs);
            add_bias_rows(q, b_q);
            for b in 0..bsz {
                let a_b = &mut alpha[b * lt * ls..(b + 1) * lt * ls];
                // e_b (Lt, Ls) = q_b h_enc_bᵀ
                matmul_nt(
                    lt,
                    ls,
                    hs,
                    &q[b * hs..],
                    ld,
                    &h_enc[b * enc..],
                    hs,
                    0.0,
                    a_b,
                    ls,
                );
                softmax_rows(a_b, ls);
            }
        }
        Weights::Uniform => alpha.fill(1.0 / ls as f32),
        Weights::Given(a) => alpha.copy_from_slice(a),
    }
    for b in 0..bsz {
        let a_b = &alpha[b * lt * ls..(b + 1) * lt * ls];
        // ctx_b (Lt, Hs) = α_b (Lt, Ls) · h_enc_b (Ls, Hs)
        matmul_nn(
            lt,
            hs,
            ls,
            a_b,
            ls,
            &h_enc[b * enc..],
            hs,
            0.0,
            &mut ctx[b * hs..],
            ld,
        );
    }
}

/// Backward pass of one head, given `dctx` (Lt, B, Hs), the gradient w.r.t. its raw context.
/// Accumulates into `g_w_q` (Hs, H), `g_b_q` (Hs,), `dd` (Lt, B, H) and `dh_enc` (B, Ls, Hs).
/// Scratch: `dalpha` (Lt, Ls), `dq` (Lt, B, Hs).
#[allow(clippy::too_many_arguments)]
pub fn attention_backward(
    sh: AttnShape,
    learned: bool,
    d: &[f32],
    h_enc: &[f32],
    w_q: &[f32],
    q: &[f32],
    alpha: &[f32],
    dctx: &[f32],
    g_w_q: &mut [f32],
    g_b_q: &mut [f32],
    dd: &mut [f32],
    dh_enc: &mut [f32],
    dalpha: &mut [f32],
    dq: &mut [f32],
) {
    let AttnShape {
        batch: bsz,
        src_len: ls,
        tgt_len: lt,
        hidden: h,
        enc_width: hs,
    } = sh;
    let ld = bsz * hs; // q, dq, dctx: (Lt, B, Hs)
    let enc = ls * hs; // h_enc, dh_enc: (B, Ls, Hs)
    for b in 0..bsz {
        let a_b = &alpha[b * lt * ls..(b + 1) * lt * ls];
        // ctx_b = α_b h_enc_b  ⇒  dh_enc_b += α_bᵀ dctx_b
        matmul_tn(
            ls,
            hs,
            lt,
            a_b,
            ls,
            &dctx[b * hs..],
            ld,
            1.0,
            &mut dh_enc[b * enc..],
            hs,
        );
        if !learned {
            continue;
        }
        // ⇒ dα_b = dctx_b h_enc_bᵀ
        matmul_nt(
            lt,
            ls,
            hs,
            &dctx[b * hs..],
            ld,
            &h_enc[b * enc..],
            hs,
            0.0,
            dalpha,
            ls,
        );
        // α = softmax(e)  ⇒  de = α ⊙ (dα − Σ_s α dα)
        for (da, a) in dalpha.chunks_exact_mut(ls).zip(a_b.chunks_exact(ls)) {
            let dot: f32 = da.iter().zip(a).map(|(x, y)| x * y).sum();
            for (x, y) in da.iter_mut().zip(a) {
                *x = y * (*x - dot);
            }
        }
        // e_b = q_b h_enc_bᵀ  ⇒  dq_b = de h_enc_b,  dh_enc_b += deᵀ q_b
        matmul_nn(
            lt,
            hs,
            ls,
            dalpha,
            ls,
            &h_enc[b * enc..],
            hs,
            0.0,
            &mut dq[b * hs..],
            ld,
        );
        matmul_tn(
            ls,
            hs,
            lt,
            dalpha,
            ls,
            &q[b * hs..],
            ld,
            1.0,
            &mut dh_enc[b * enc..],
            hs,
        );
    }
    if learned {
        let n = lt * bsz;
        // q = d W_qᵀ + b_q  ⇒  dW_q += dqᵀ d,  db_q += Σ dq,  dd += dq W_q
        matmul_tn(hs, h, n, dq, hs, d, h, 1.0, g_w_q, h);
        sum_rows_into(g_b_q, dq);
        matmul_nn(n, h, hs, dq, hs, w_q, h, 1.0, dd, h);
    }
}
