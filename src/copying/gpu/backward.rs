//! The backward pass (Seq2Seq::backward) recorded as dispatches, in the forward pass's stages
//! undone in reverse: the output layer, the fused bias, each head's context and attention,
//! the decoder, then the encoder's directions, into `grads`. The forward pass is
//! `forward.rs`'s.

use super::buffers::{Sizes, REV, SRC, TIN};
use super::kernels::{grid, Kernel, Mat, Recording, View};
use super::plan::{vector, Plan};

impl Plan<'_> {
    /// Backward pass (Seq2Seq::backward) into `grads` (cleared before the step); `learned`
    /// attention also takes the gradient through `α` into the queries.
    pub fn backward(&self, list: &mut Recording, learned: bool) {
        self.output_backward(list);
        self.fused_bias_backward(list);
        self.heads_backward(list, learned);
        self.decoder_backward(list);
        self.encoder_backward(list);
    }

    /// output_backward: the output layer's weights and bias, then through the tanh into
    /// W_comb, b_comb and the decoder outputs' gradient `dd`.
    fn output_backward(&self, list: &mut Recording) {
        let (r, buf, ranges) = (self.recorder, self.buf, &self.layout.ranges);
        let Sizes { h, n, nt, .. } = self.sizes;
        let dpre = Mat::rows(&buf.dact, 0, h);
        r.gemm(
            list,
            (nt, h, n, 1),
            Mat::rows(&buf.dlogits, 0, nt).t(),
            Mat::rows(&buf.act, 0, h),
            Mat::rows(&buf.grads, ranges.w_out.start, h),
            1.0,
            1.0,
        );
        r.rows(
            list,
            Kernel::ColSums,
            (n, nt, nt),
            (&buf.grads, ranges.b_out.start),
            (&buf.dlogits, 0),
            None,
            1.0,
        );
        r.gemm(
            list,
            (n, h, nt, 1),
            Mat::rows(&buf.dlogits, 0, nt),
            Mat::rows(&buf.params, ranges.w_out.start, h),
            Mat::rows(&buf.dact, 0, h),
            1.0,
            0.0,
        );
        r.rows(
            list,
            Kernel::TanhBack,
            (n, h, h),
            (&buf.dact, 0),
            (&buf.act, 0),
            None,
            0.0,
        );
        r.gemm(
            list,
            (h, h, n, 1),
            dpre.t(),
            self.decoder_out(),
            Mat::rows(&buf.grads, ranges.w_comb.start, 2 * h),
            1.0,
            1.0,
        );
        r.rows(
            list,
            Kernel::ColSums,
            (n, h, h),
            (&buf.dbias, 0),
            (&buf.dact, 0),
            None,
            0.0,
        );
        r.copy(
            list,
            [1, 1, h],
            vector(&buf.dbias, 0),
            vector(&buf.grads, ranges.b_comb.start),
            1.0,
            1.0,
        );
        r.gemm(
            list,
            (n, h, h, 1),
            dpre,
            Mat::rows(&buf.params, ranges.w_comb.start, 2 * h),
            Mat::rows(&buf.dd, 0, h),
            1.0,
            0.0,
        );
    }

    /// fused_bias_backward: the fused bias's gradient into each head's b_c and W_c'.
    fn fused_bias_backward(&self, list: &mut Recording) {
        let buf = self.buf;
        let out = self.output_params();
        self.recorder.push(
            list,
            Kernel::BiasBack,
            &out,
            &[&buf.params, &buf.dbias, &buf.grads],
            grid(self.sizes.h * self.sizes.h),
        );
    }

    /// Each head's context_backward then attention_backward, the encoder outputs' gradient
    /// `dh_enc` summed over the heads.
    fn heads_backward(&self, list: &mut Recording, learned: bool) {
        let Sizes { b, t, hs, k, .. } = self.sizes;
        let dh_enc = vector(&self.buf.dh_enc, 0);
        self.recorder.fill(list, [1, 1, b * t * hs], dh_enc, 0.0);
        for head in 0..k {
            self.context_backward(list, head);
            self.attention_backward(list, head, learned);
        }
    }

    /// context_backward of head `head`: its fused map's gradient into W_c' and W_c^k, and its
    /// context's gradient `dctx`.
    fn context_backward(&self, list: &mut Recording, head: usize) {
        let (r, buf, ranges) = (self.recorder, self.buf, &self.layout.ranges);
        let Sizes { h, hs, n, k, .. } = self.sizes;
        let dpre = Mat::rows(&buf.dact, 0, h);
        let qn = n * hs; // one head's part of ctx
        let inv_k = 1.0 / k as f32;
        r.gemm(
            list,
            (h, hs, n, 1),
            dpre.t(),
            Mat::rows(&buf.ctx, head * qn, hs),
            Mat::rows(&buf.g_m, 0, hs),
            inv_k,
            0.0,
        );
        r.gemm(
            list,
            (h, h, hs, 1),
            Mat::rows(&buf.g_m, 0, hs),
            Mat::rows(&buf.params, ranges.w_c.start + head * h * hs, hs).t(),
            Mat::rows(&buf.grads, ranges.w_comb.start + h, 2 * h),
            1.0,
            1.0,
        );
        r.gemm(
            list,
            (h, hs, h, 1),
            Mat::rows(&buf.params, ranges.w_comb.start + h, 2 * h).t(),
            Mat::rows(&buf.g_m, 0, hs),
            Mat::rows(&buf.grads, ranges.w_c.start + head * h * hs, hs),
            1.0,
            1.0,
        );
        r.gemm(
            list,
            (n, hs, h, 1),
            dpre,
            Mat::rows(&buf.m_ctx, head * h * hs, hs),
            Mat::rows(&buf.dctx, 0, hs),
            1.0,
            0.0,
        );
    }

    /// attention_backward of head `head`: `dctx` into `dh_enc` through `α`, and for
    /// `learned` attention through the softmax into the queries, W_q, b_q and `dd`.
    fn attention_backward(&self, list: &mut Recording, head: usize, learned: bool) {
        let (r, buf, ranges) = (self.recorder, self.buf, &self.layout.ranges);
        let Sizes { b, t, h, hs, n, .. } = self.sizes;
        let qn = n * hs; // one head's part of q
        let an = b * t * t; // one head's part of alpha
        let dctx_b = Mat::rows(&buf.dctx, 0, b * hs).batch(hs);
        let dh_enc_b = Mat::rows(&buf.dh_enc, 0, hs).batch(t * hs);
        r.gemm(
            list,
            (t, hs, t, b),
            Mat::rows(&buf.alpha, head * an, t).t().batch(t * t),
            dctx_b,
            dh_enc_b,
            1.0,
            1.0,
        );
        if !learned {
            return;
        }
        r.gemm(
            list,
            (t, t, hs, b),
            dctx_b,
            Mat::rows(&buf.h_enc, 0, hs).t().batch(t * hs),
            Mat::rows(&buf.dalpha, 0, t).batch(t * t),
            1.0,
            0.0,
        );
        r.rows(
            list,
            Kernel::SoftmaxBack,
            (b * t, t, t),
            (&buf.dalpha, 0),
            (&buf.alpha, head * an),
            None,
            0.0,
        );
        r.gemm(
            list,
            (t, hs, t, b),
            Mat::rows(&buf.dalpha, 0, t).batch(t * t),
            Mat::rows(&buf.h_enc, 0, hs).batch(t * hs),
            Mat::rows(&buf.dq, 0, b * hs).batch(hs),
            1.0,
            0.0,
        );
        r.gemm(
            list,
            (t, hs, t, b),
            Mat::rows(&buf.dalpha, 0, t).t().batch(t * t),
            Mat::rows(&buf.q, head * qn, b * hs).batch(hs),
            dh_enc_b,
            1.0,
            1.0,
        );
        let w_q = ranges.w_q.start + head * hs * h;
        r.gemm(
            list,
            (hs, h, n, 1),
            Mat::rows(&buf.dq, 0, hs).t(),
            self.decoder_out(),
            Mat::rows(&buf.grads, w_q, h),
            1.0,
            1.0,
        );
        r.rows(
            list,
            Kernel::ColSums,
            (n, hs, hs),
            (&buf.grads, ranges.b_q.start + head * hs),
            (&buf.dq, 0),
            None,
            1.0,
        );
        r.gemm(
            list,
            (n, h, hs, 1),
            Mat::rows(&buf.dq, 0, hs),
            Mat::rows(&buf.params, w_q, h),
            Mat::rows(&buf.dd, 0, h),
            1.0,
            1.0,
        );
    }

    /// The decoder from `dd`, then its initial state's gradient over D into `dstate0` (h,
    /// then c), for each direction to start from.
    fn decoder_backward(&self, list: &mut Recording) {
        let (r, buf) = (self.recorder, self.buf);
        let Sizes { b, h, g, d, .. } = self.sizes;
        let bh = b * h;
        r.fill(list, [1, 1, 2 * bh], vector(&buf.carry, 0), 0.0);
        self.lstm_backward(list, d, &buf.dd, self.tok_off(TIN));
        let inv_d = 1.0 / d as f32;
        r.gemm(
            list,
            (b, h, g, 1),
            Mat::rows(&buf.dgates, 0, g),
            Mat::rows(&buf.params, self.lstm_at(d).w_hh, h),
            Mat::rows(&buf.dstate0, 0, h),
            inv_d,
            0.0,
        );
        r.copy(
            list,
            [1, 1, bh],
            vector(&buf.carry, bh),
            vector(&buf.dstate0, bh),
            inv_d,
            0.0,
        );
    }

    /// Each encoder direction from its share of `dh_enc` and the decoder's initial state's
    /// gradient.
    fn encoder_backward(&self, list: &mut Recording) {
        let (r, buf) = (self.recorder, self.buf);
        let Sizes { b, t, h, hs, d, .. } = self.sizes;
        let bh = b * h;
        for l in 0..d {
            // dh_dir[step, b, j] = dh_enc[b, s, l·H + j], step = s, or T − 1 − s backwards
            let (off, step_stride) = if l == 0 {
                (0, bh as i64)
            } else {
                ((t - 1) * bh, -(bh as i64))
            };
            r.copy(
                list,
                [t, b, h],
                View {
                    buf: &buf.dh_enc,
                    off: (l * h) as i64,
                    strides: [hs as i64, (t * hs) as i64, 1],
                },
                View {
                    buf: &buf.dh_dir,
                    off: off as i64,
                    strides: [step_stride, h as i64, 1],
                },
                1.0,
                0.0,
            );
            r.copy(
                list,
                [1, 1, 2 * bh],
                vector(&buf.dstate0, 0),
                vector(&buf.carry, 0),
                1.0,
                0.0,
            );
            let tok = self.tok_off(if l == 0 { SRC } else { REV });
            self.lstm_backward(list, l, &buf.dh_dir, tok);
        }
    }

    /// lstm_backward of LSTM `l` from the gradient `dout` (T, B, H) of its outputs and the
    /// final-state gradient in `carry`: its steps, then its weights' gradients.
    fn lstm_backward(&self, list: &mut Recording, l: usize, dout: &wgpu::Buffer, tok: usize) {
        let (r, buf, ranges) = (self.recorder, self.buf, &self.layout.ranges);
        let Sizes { b, t, h, g, nt, .. } = self.sizes;
        let at = self.lstm_at(l);
        for step in (0..t).rev() {
            let lstm = self.lstm_params(l, step, at.w_hh, tok);
            r.push(
                list,
                Kernel::LstmBackward,
                &lstm,
                &[
                    &buf.params,
                    &buf.gates,
                    &buf.c_states,
                    &buf.tc,
                    dout,
                    &buf.dgates,
                    &buf.carry,
                ],
                grid(b * h),
            );
        }
        // dW_hh += Σ_t dgates[t]ᵀ h[t]
        r.gemm(
            list,
            (g, h, t * b, 1),
            Mat::rows(&buf.dgates, 0, g).t(),
            Mat::rows(&buf.h_states, self.states(l), h),
            Mat::rows(&buf.grads, at.w_hh, h),
            1.0,
            1.0,
        );
        // dtable[tok] += dgates[t, b]; then the biases, W_ih and the embedding
        let mut dtable = self.output_params();
        dtable[5] = (t * b) as u32;
        dtable[7] = tok as u32;
        r.push(
            list,
            Kernel::DTable,
            &dtable,
            &[&buf.tok, &buf.dgates, &buf.dtable],
            grid(nt * g),
        );
        for bias in [at.b_ih, at.b_hh] {
            r.rows(
                list,
                Kernel::ColSums,
                (nt, g, g),
                (&buf.grads, bias),
                (&buf.dtable, 0),
                None,
                1.0,
            );
        }
        r.gemm(
            list,
            (g, h, nt, 1),
            Mat::rows(&buf.dtable, 0, g).t(),
            Mat::rows(&buf.params, ranges.embedding.start, h),
            Mat::rows(&buf.grads, at.w_ih, h),
            1.0,
            1.0,
        );
        r.gemm(
            list,
            (nt, h, g, 1),
            Mat::rows(&buf.dtable, 0, g),
            Mat::rows(&buf.params, at.w_ih, h),
            Mat::rows(&buf.grads, ranges.embedding.start, h),
            1.0,
            1.0,
        );
    }
}
