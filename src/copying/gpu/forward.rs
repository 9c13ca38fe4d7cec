//! The forward pass (Seq2Seq::forward_with) recorded as dispatches, in stages: the LSTMs'
//! input tables, the encoder, the decoder, attention, the fused context, the output layer
//! and the loss. Its gradient is `backward.rs`'s; the buffers are `buffers.rs`'s.

use super::buffers::{Sizes, REV, SRC, TIN, TOUT};
use super::kernels::{grid, Kernel, Mat, Recording, View};
use super::plan::{vector, Plan};
use crate::run::DIVERGED_FACTOR;

impl Plan<'_> {
    /// Forward pass (Seq2Seq::forward_with), ending with the loss in stats and dlogits;
    /// `uniform` forces `α` uniform.
    pub fn forward(&self, list: &mut Recording, uniform: bool) {
        self.lstm_tables(list);
        self.encoder(list);
        self.decoder_start(list);
        self.lstm_forward(list, self.sizes.d, self.tok_off(TIN));
        self.attention(list, uniform);
        self.fuse_context(list);
        self.output(list);
        self.loss(list);
    }

    /// lstm_forward's table and W_hhᵀ, for each LSTM.
    fn lstm_tables(&self, list: &mut Recording) {
        let (r, buf, ranges) = (self.recorder, self.buf, &self.layout.ranges);
        let Sizes { h, g, nt, nl, .. } = self.sizes;
        for l in 0..nl {
            let at = self.lstm_at(l);
            r.gemm(
                list,
                (nt, g, h, 1),
                Mat::rows(&buf.params, ranges.embedding.start, h),
                Mat::rows(&buf.params, at.w_ih, h).t(),
                Mat::rows(&buf.table, l * nt * g, g),
                1.0,
                0.0,
            );
            r.rows(
                list,
                Kernel::AddBias,
                (nt, g, g),
                (&buf.table, l * nt * g),
                (&buf.params, at.b_ih),
                Some(at.b_hh),
                0.0,
            );
            r.copy(
                list,
                [1, h, g],
                View {
                    buf: &buf.params,
                    off: at.w_hh as i64,
                    strides: [0, 1, h as i64],
                },
                View {
                    buf: &buf.wt,
                    off: (l * h * g) as i64,
                    strides: [0, g as i64, 1],
                },
                1.0,
                0.0,
            );
        }
    }

    /// The encoder's directions, each from a zero state, and their outputs into `h_enc`.
    fn encoder(&self, list: &mut Recording) {
        let (r, buf) = (self.recorder, self.buf);
        let Sizes { b, t, h, hs, d, .. } = self.sizes;
        let bh = b * h;
        for l in 0..d {
            self.lstm_forward(list, l, self.tok_off(if l == 0 { SRC } else { REV }));
            // h_enc[b, s, l·H + j] = h[step + 1][b, j], step = s, or T − 1 − s backwards
            let (off, step_stride) = if l == 0 {
                (self.states(l) + bh, bh as i64)
            } else {
                (self.states(l) + t * bh, -(bh as i64))
            };
            r.copy(
                list,
                [t, b, h],
                View {
                    buf: &buf.h_states,
                    off: off as i64,
                    strides: [step_stride, h as i64, 1],
                },
                View {
                    buf: &buf.h_enc,
                    off: (l * h) as i64,
                    strides: [hs as i64, (t * hs) as i64, 1],
                },
                1.0,
                0.0,
            );
        }
    }

    /// The decoder's initial state: the encoder's final state, averaged over directions.
    fn decoder_start(&self, list: &mut Recording) {
        let (r, buf) = (self.recorder, self.buf);
        let Sizes { b, t, h, d, .. } = self.sizes;
        let bh = b * h;
        let inv_d = 1.0 / d as f32;
        for state in [&buf.h_states, &buf.c_states] {
            for l in 0..d {
                r.copy(
                    list,
                    [1, 1, bh],
                    vector(state, self.states(l) + t * bh),
                    vector(state, self.states(d)),
                    inv_d,
                    if l == 0 { 0.0 } else { 1.0 },
                );
            }
        }
    }

    /// lstm_forward's steps of LSTM `l` over the tokens at `tok`, one dispatch each.
    fn lstm_forward(&self, list: &mut Recording, l: usize, tok: usize) {
        let (s, buf) = (self.sizes, self.buf);
        for step in 0..s.t {
            let lstm = self.lstm_params(l, step, l * s.h * s.g, tok);
            self.recorder.push(
                list,
                Kernel::LstmForward,
                &lstm,
                &[
                    &buf.wt,
                    &buf.table,
                    &buf.tok,
                    &buf.gates,
                    &buf.h_states,
                    &buf.c_states,
                    &buf.tc,
                ],
                grid(s.b * s.h),
            );
        }
    }

    /// attention_forward, each head: its queries, `α` (or `α` uniform) and its context.
    fn attention(&self, list: &mut Recording, uniform: bool) {
        let (r, buf, ranges) = (self.recorder, self.buf, &self.layout.ranges);
        let Sizes {
            b, t, h, hs, n, k, ..
        } = self.sizes;
        let qn = n * hs; // one head's part of q and ctx
        let an = b * t * t; // one head's part of alpha
        if uniform {
            r.fill(list, [1, 1, k * an], vector(&buf.alpha, 0), 1.0 / t as f32);
        }
        for head in 0..k {
            if !uniform {
                r.gemm(
                    list,
                    (n, hs, h, 1),
                    self.decoder_out(),
                    Mat::rows(&buf.params, ranges.w_q.start + head * hs * h, h).t(),
                    Mat::rows(&buf.q, head * qn, hs),
                    1.0,
                    0.0,
                );
                r.rows(
                    list,
                    Kernel::AddBias,
                    (n, hs, hs),
                    (&buf.q, head * qn),
                    (&buf.params, ranges.b_q.start + head * hs),
                    None,
                    0.0,
                );
                // e_b (T, T) = q_b h_enc_bᵀ for each sequence b
                r.gemm(
                    list,
                    (t, t, hs, b),
                    Mat::rows(&buf.q, head * qn, b * hs).batch(hs),
                    Mat::rows(&buf.h_enc, 0, hs).t().batch(t * hs),
                    Mat::rows(&buf.alpha, head * an, t).batch(t * t),
                    1.0,
                    0.0,
                );
                r.rows(
                    list,
                    Kernel::Softmax,
                    (b * t, t, t),
                    (&buf.alpha, head * an),
                    (&buf.alpha, 0),
                    None,
                    0.0,
                );
            }
            // ctx_b (T, Hs) = α_b h_enc_b
            r.gemm(
                list,
                (t, hs, t, b),
                Mat::rows(&buf.alpha, head * an, t).batch(t * t),
                Mat::rows(&buf.h_enc, 0, hs).batch(t * hs),
                Mat::rows(&buf.ctx, head * qn, b * hs).batch(hs),
                1.0,
                0.0,
            );
        }
    }

    /// fuse_context: each head's map W_c' W_c^k / K into `m_ctx`, and the fused bias.
    fn fuse_context(&self, list: &mut Recording) {
        let (r, buf, ranges) = (self.recorder, self.buf, &self.layout.ranges);
        let Sizes { h, hs, k, .. } = self.sizes;
        let inv_k = 1.0 / k as f32;
        for head in 0..k {
            r.gemm(
                list,
                (h, hs, h, 1),
                Mat::rows(&buf.params, ranges.w_comb.start + h, 2 * h),
                Mat::rows(&buf.params, ranges.w_c.start + head * h * hs, hs),
                Mat::rows(&buf.m_ctx, head * h * hs, hs),
                inv_k,
                0.0,
            );
        }
        let out = self.output_params();
        r.push(
            list,
            Kernel::FuseBias,
            &out,
            &[&buf.params, &buf.b_ctx],
            [(h as u32).div_ceil(64), 1, 1],
        );
    }

    /// output_forward: `act` = tanh(W_d d + Σ_k M_k ctx_k + b), then the logits.
    fn output(&self, list: &mut Recording) {
        let (r, buf, ranges) = (self.recorder, self.buf, &self.layout.ranges);
        let Sizes {
            h, hs, n, nt, k, ..
        } = self.sizes;
        let qn = n * hs; // one head's part of ctx
        r.gemm(
            list,
            (n, h, h, 1),
            self.decoder_out(),
            Mat::rows(&buf.params, ranges.w_comb.start, 2 * h).t(),
            Mat::rows(&buf.act, 0, h),
            1.0,
            0.0,
        );
        for head in 0..k {
            r.gemm(
                list,
                (n, h, hs, 1),
                Mat::rows(&buf.ctx, head * qn, hs),
                Mat::rows(&buf.m_ctx, head * h * hs, hs).t(),
                Mat::rows(&buf.act, 0, h),
                1.0,
                1.0,
            );
        }
        r.rows(
            list,
            Kernel::BiasTanh,
            (n, h, h),
            (&buf.act, 0),
            (&buf.b_ctx, 0),
            None,
            0.0,
        );
        r.gemm(
            list,
            (n, nt, h, 1),
            Mat::rows(&buf.act, 0, h),
            Mat::rows(&buf.params, ranges.w_out.start, h).t(),
            Mat::rows(&buf.logits, 0, nt),
            1.0,
            0.0,
        );
        r.rows(
            list,
            Kernel::AddBias,
            (n, nt, nt),
            (&buf.logits, 0),
            (&buf.params, ranges.b_out.start),
            None,
            0.0,
        );
    }

    /// The loss: log-probabilities in `logits`, each row's loss and its gradient `dlogits`,
    /// then their mean (and whether it diverged) in `stats`.
    fn loss(&self, list: &mut Recording) {
        let (r, buf) = (self.recorder, self.buf);
        let Sizes { n, nt, .. } = self.sizes;
        let chance = (nt as f32).ln();
        let loss = [
            n as u32,
            nt as u32,
            self.tok_off(TOUT) as u32,
            0,
            (1.0 / n as f32).to_bits(),
            (DIVERGED_FACTOR * chance).to_bits(),
            0,
            0,
        ];
        r.push(
            list,
            Kernel::Nll,
            &loss,
            &[&buf.logits, &buf.tok, &buf.nll, &buf.dlogits],
            grid(n),
        );
        r.push(
            list,
            Kernel::Reduce,
            &loss,
            &[&buf.nll, &buf.stats],
            [1, 1, 1],
        );
    }
}
