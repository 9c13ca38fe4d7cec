//! The copying model's parameter tensors and their layout in the flat buffer (the views are
//! `crate::params`'s), with PyTorch's initialisation of each. Shapes are row-major;
//! `D` = encoder directions, `K` = heads, `Hs = D·H`, `NT = V + 2`.

use crate::params::{tensor_set, Init, ParamLayout};

/// The model's sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dims {
    /// `NT = V + 2`: ordinary tokens, EOS and SOS.
    pub n_tok: usize,
    /// `H`.
    pub hidden: usize,
    /// `D`: 1 or 2 encoder directions.
    pub dirs: usize,
    /// `K`: attention heads.
    pub heads: usize,
}

impl Dims {
    /// `Hs = D·H`, the width of an encoder output.
    pub fn enc_width(&self) -> usize {
        self.dirs * self.hidden
    }
}

tensor_set!(
    embedding, // (NT, H)
    enc_w_ih,  // (D, 4H, H)  gate order i, f, g, o as PyTorch
    enc_w_hh,  // (D, 4H, H)
    enc_b_ih,  // (D, 4H)
    enc_b_hh,  // (D, 4H)
    dec_w_ih,  // (4H, H)
    dec_w_hh,  // (4H, H)
    dec_b_ih,  // (4H,)
    dec_b_hh,  // (4H,)
    w_q,       // (K, Hs, H)  query: q = W_q d + b_q
    b_q,       // (K, Hs)
    w_c,       // (K, H, Hs)  context projection: c = W_c Σ α h + b_c
    b_c,       // (K, H)
    w_comb,    // (H, 2H)     W [d; c]
    b_comb,    // (H,)
    w_out,     // (NT, H)     W_o
    b_out,     // (NT,)
);

/// Where each tensor lives in the flat buffer.
#[derive(Clone, Debug)]
pub struct Layout {
    pub dims: Dims,
    pub ranges: Tensors<std::ops::Range<usize>>,
    pub len: usize,
}

impl Layout {
    pub fn new(dims: Dims) -> Layout {
        let Dims {
            n_tok,
            hidden: h,
            dirs,
            heads,
        } = dims;
        let hs = dims.enc_width();
        let sizes = Tensors {
            embedding: n_tok * h,
            enc_w_ih: dirs * 4 * h * h,
            enc_w_hh: dirs * 4 * h * h,
            enc_b_ih: dirs * 4 * h,
            enc_b_hh: dirs * 4 * h,
            dec_w_ih: 4 * h * h,
            dec_w_hh: 4 * h * h,
            dec_b_ih: 4 * h,
            dec_b_hh: 4 * h,
            w_q: heads * hs * h,
            b_q: heads * hs,
            w_c: heads * h * hs,
            b_c: heads * h,
            w_comb: h * 2 * h,
            b_comb: h,
            w_out: n_tok * h,
            b_out: n_tok,
        };
        let (ranges, len) = sizes.ranges();
        Layout { dims, ranges, len }
    }
}

impl ParamLayout for Layout {
    type Ranges = Tensors<std::ops::Range<usize>>;

    fn ranges(&self) -> &Self::Ranges {
        &self.ranges
    }

    fn param_count(&self) -> usize {
        self.len
    }

    /// PyTorch's initialisation of each tensor.
    fn init_of(&self, name: &str) -> Init {
        let Dims { hidden: h, .. } = self.dims;
        let hs = self.dims.enc_width();
        match name {
            "embedding" => Init::Normal,
            "w_q" | "b_q" => Init::Uniform { fan: h },
            "w_c" | "b_c" => Init::Uniform { fan: hs },
            "w_comb" | "b_comb" => Init::Uniform { fan: 2 * h },
            // LSTM weights and biases, and the output layer: fan = H.
            _ => Init::Uniform { fan: h },
        }
    }
}
