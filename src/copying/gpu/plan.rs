//! The recorder of a pass's dispatches over one set of buffers (`Plan`): where each LSTM's
//! weights, states and tokens are, the kernels' shared parameters, and the step's divergence
//! check and update. The passes themselves are `forward.rs`, `backward.rs` and `eval.rs`.

use super::buffers::{Buffers, Sizes};
use super::kernels::{grid, Kernel, Mat, Recorder, Recording, View};
use crate::copying::model::params::Layout;

/// Records dispatches of one pass over `buf` (batches of `s`'s shape).
pub(super) struct Plan<'a> {
    pub recorder: &'a Recorder<'a>,
    pub sizes: Sizes,
    pub buf: &'a Buffers,
    pub layout: &'a Layout,
}

/// Where LSTM `l`'s weights are in the flat parameters.
pub(super) struct LstmAt {
    pub w_ih: usize,
    pub w_hh: usize,
    pub b_ih: usize,
    pub b_hh: usize,
}

impl Plan<'_> {
    /// Where LSTM `l`'s weights are: the encoder's direction `l` (`l < D`) or the decoder.
    pub fn lstm_at(&self, l: usize) -> LstmAt {
        let ranges = &self.layout.ranges;
        let (gh, g) = (self.sizes.g * self.sizes.h, self.sizes.g);
        if l < self.sizes.d {
            LstmAt {
                w_ih: ranges.enc_w_ih.start + l * gh,
                w_hh: ranges.enc_w_hh.start + l * gh,
                b_ih: ranges.enc_b_ih.start + l * g,
                b_hh: ranges.enc_b_hh.start + l * g,
            }
        } else {
            LstmAt {
                w_ih: ranges.dec_w_ih.start,
                w_hh: ranges.dec_w_hh.start,
                b_ih: ranges.dec_b_ih.start,
                b_hh: ranges.dec_b_hh.start,
            }
        }
    }

    /// Offset of LSTM `l`'s part of `h_states`/`c_states` (T+1 states).
    pub fn states(&self, l: usize) -> usize {
        l * (self.sizes.t + 1) * self.sizes.b * self.sizes.h
    }

    /// Offset of LSTM `l`'s part of `gates`/`tc`, per element of width `w`.
    pub fn steps(&self, l: usize, w: usize) -> usize {
        l * self.sizes.t * self.sizes.b * w
    }

    /// The decoder's outputs d (N, H): its states from [1].
    pub fn decoder_out(&self) -> Mat<'_> {
        Mat::rows(&self.buf.h_states, self.d_off(), self.sizes.h)
    }

    /// Offset of the decoder's outputs in `h_states`.
    fn d_off(&self) -> usize {
        self.states(self.sizes.d) + self.sizes.b * self.sizes.h
    }

    /// Offset of the tokens' part `part` (`SRC`, `REV`, `TIN`, `TOUT`) in `tok`.
    pub fn tok_off(&self, part: usize) -> usize {
        part * self.sizes.t * self.sizes.b
    }

    /// Parameters of lstm.wgsl at step `t` of LSTM `l`, its weights at `w_off` (W_hhᵀ in
    /// `wt` forward, W_hh in the parameters backward) and its tokens at `tok`.
    pub fn lstm_params(&self, l: usize, t: usize, w_off: usize, tok: usize) -> [u32; 16] {
        let s = self.sizes;
        [
            t as u32,
            s.t as u32,
            s.b as u32,
            s.h as u32,
            u32::from(l < s.d),
            w_off as u32,
            (l * s.nt * s.g) as u32,
            tok as u32,
            self.steps(l, s.g) as u32,
            self.states(l) as u32,
            self.states(l) as u32,
            self.steps(l, s.h) as u32,
            0,
            0,
            0,
            0,
        ]
    }

    /// Parameters of output.wgsl's kernels.
    pub fn output_params(&self) -> [u32; 12] {
        let s = self.sizes;
        let ranges = &self.layout.ranges;
        [
            s.h as u32,
            s.k as u32,
            ranges.w_comb.start as u32,
            ranges.b_comb.start as u32,
            ranges.b_c.start as u32,
            0,
            s.nt as u32,
            0,
            (1.0 / s.k as f32).to_bits(),
            0,
            0,
            0,
        ]
    }

    /// The divergence check and the update; returns the update's parameter buffer.
    pub fn update(&self, list: &mut Recording) -> wgpu::Buffer {
        let (r, buf) = (self.recorder, self.buf);
        let p = self.layout.len;
        let check = [0, 0, 0, p as u32, 0, 0, 0, 0];
        r.push(
            list,
            Kernel::Check,
            &check,
            &[&buf.grads, &buf.stats],
            grid(p),
        );
        r.push(
            list,
            Kernel::Adam,
            &[0; 12],
            &[
                &buf.params,
                &buf.grads,
                &buf.adam_m,
                &buf.adam_v,
                &buf.stats,
            ],
            grid(p),
        )
    }
}

/// A plain vector at `off`.
pub(super) fn vector(buf: &wgpu::Buffer, off: usize) -> View<'_> {
    View {
        buf,
        off: off as i64,
        strides: [0, 0, 1],
    }
}
