//! The sparse lab's model (docs/science.md 2, the paper's `f_tf-scalar`): each of `T` positions
//! is a bit embedding plus a position code (width `d`: learned, or fixed by
//! [`position_codes`]); `K` heads each attend
//! from a learned `[CLS]` query over the positions (`softmax_t(q·W_K x_t / √d)`) and return
//! `Σ_t α_t W_V x_t`; the heads' outputs, concatenated, go through a ReLU layer to one
//! logit; the loss is the logistic loss. The query is a parameter, so a position's score and
//! value depend only on its bit and its place: both are computed once per step for the two
//! bits at every position (tables of `2T` rows), and a sample only looks them up.
//! `Workspace` owns every activation of a batch size, so a step allocates nothing.

use super::config::Positions;
use crate::kernels::{math, matmul_nn, matmul_nt, matmul_tn, softmax_rows};
use crate::params::{tensor_set, Init, ParamLayout};

tensor_set!(
    bit_embedding,      // (2, d)
    position_embedding, // (T, d)
    query,              // (K, d)     the [CLS] query of each head
    w_key,              // (K, d, d)  k_t = W_K x_t
    w_value,            // (K, d, d)  v_t = W_V x_t
    w_hidden,           // (M, K·d)
    b_hidden,           // (M,)
    w_out,              // (M,)
    b_out,              // (1,)
);

/// The model's sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dims {
    /// `T`, the bits of an input.
    pub length: usize,
    /// `d`.
    pub width: usize,
    /// `K`.
    pub heads: usize,
    /// `M`, the ReLU layer's width.
    pub mlp: usize,
}

/// The model: its sizes and where each tensor lives in the flat parameter buffer.
#[derive(Clone, Debug)]
pub struct SparseModel {
    pub dims: Dims,
    pub ranges: Tensors<std::ops::Range<usize>>,
    pub len: usize,
}

/// Activations of a forward pass over up to `batch` inputs, and the backward pass's scratch.
#[derive(Clone, Debug)]
pub struct Workspace {
    pub batch: usize,
    x_tab: Vec<f32>,       // (2, T, d) bit embedding + position embedding
    u: Vec<f32>,           // (K, d) W_Kᵀ q / √d: a score is u · x
    score_tab: Vec<f32>,   // (K, 2, T)
    value_tab: Vec<f32>,   // (K, 2, T, d)
    pub alpha: Vec<f32>,   // (B, K, T) attention over the positions
    heads: Vec<f32>,       // (B, K·d) the heads' outputs, concatenated
    pub pre: Vec<f32>,     // (B, M) ReLU layer before the ReLU
    act: Vec<f32>,         // (B, M)
    pub logit: Vec<f32>,   // (B,)
    d_act: Vec<f32>,       // (B, M)
    d_heads: Vec<f32>,     // (B, K·d)
    d_score_tab: Vec<f32>, // (K, 2, T)
    d_value_tab: Vec<f32>, // (K, 2, T, d)
    d_x_tab: Vec<f32>,     // (2, T, d)
    du: Vec<f32>,          // (K, d)
    da: Vec<f32>,          // (T,) one head's gradient w.r.t. its attention
}

/// Writes the fixed codes of `positions` into `codes` (T, d): sinusoidal (`sin` at even
/// columns, `cos` at odd ones, of `t / 10000^(2i/d)`) or one-hot (`t < d`); learned and
/// random codes are the drawn embedding, left as they are.
pub fn position_codes(positions: Positions, d: usize, codes: &mut [f32]) {
    for (t, row) in codes.chunks_exact_mut(d).enumerate() {
        match positions {
            Positions::Sinusoidal => {
                for (j, x) in row.iter_mut().enumerate() {
                    let angle = t as f64 / 10_000f64.powf((j / 2 * 2) as f64 / d as f64);
                    *x = if j % 2 == 0 { angle.sin() } else { angle.cos() } as f32;
                }
            }
            Positions::OneHot => {
                row.fill(0.0);
                row[t] = 1.0;
            }
            Positions::Learned | Positions::Random => return,
        }
    }
}

/// `log(1 + e^z) − y z`, the logistic loss of logit `z` for label `y` ∈ {0, 1}, computed
/// without overflow.
pub fn logistic_loss(z: f32, y: f32) -> f32 {
    z.max(0.0) - y * z + (-z.abs()).exp().ln_1p()
}

impl ParamLayout for SparseModel {
    type Ranges = Tensors<std::ops::Range<usize>>;

    fn ranges(&self) -> &Self::Ranges {
        &self.ranges
    }

    fn param_count(&self) -> usize {
        self.len
    }

    /// How each tensor is initialised: embeddings as `nn.Embedding`, the rest as
    /// `nn.Linear` (the query as a linear layer's row of `d` inputs).
    fn init_of(&self, name: &str) -> Init {
        let Dims {
            width: d,
            heads: k,
            mlp: m,
            ..
        } = self.dims;
        match name {
            "bit_embedding" | "position_embedding" => Init::Normal,
            "w_hidden" | "b_hidden" => Init::Uniform { fan: k * d },
            "w_out" | "b_out" => Init::Uniform { fan: m },
            _ => Init::Uniform { fan: d },
        }
    }
}

impl SparseModel {
    pub fn new(dims: Dims) -> SparseModel {
        let Dims {
            length: t,
            width: d,
            heads: k,
            mlp: m,
        } = dims;
        let sizes = Tensors {
            bit_embedding: 2 * d,
            position_embedding: t * d,
            query: k * d,
            w_key: k * d * d,
            w_value: k * d * d,
            w_hidden: m * k * d,
            b_hidden: m,
            w_out: m,
            b_out: 1,
        };
        let (ranges, len) = sizes.ranges();
        SparseModel { dims, ranges, len }
    }

    pub fn workspace(&self, batch: usize) -> Workspace {
        let Dims {
            length: t,
            width: d,
            heads: k,
            mlp: m,
        } = self.dims;
        let b = batch;
        Workspace {
            batch,
            x_tab: vec![0.0; 2 * t * d],
            u: vec![0.0; k * d],
            score_tab: vec![0.0; k * 2 * t],
            value_tab: vec![0.0; k * 2 * t * d],
            alpha: vec![0.0; b * k * t],
            heads: vec![0.0; b * k * d],
            pre: vec![0.0; b * m],
            act: vec![0.0; b * m],
            logit: vec![0.0; b],
            d_act: vec![0.0; b * m],
            d_heads: vec![0.0; b * k * d],
            d_score_tab: vec![0.0; k * 2 * t],
            d_value_tab: vec![0.0; k * 2 * t * d],
            d_x_tab: vec![0.0; 2 * t * d],
            du: vec![0.0; k * d],
            da: vec![0.0; t],
        }
    }

    /// The score and value tables of `params`: what every input's forward pass looks up.
    pub fn tables(&self, p: &Tensors<&[f32]>, ws: &mut Workspace) {
        let Dims {
            length: t,
            width: d,
            heads: k,
            ..
        } = self.dims;
        for (bit, rows) in ws.x_tab.chunks_exact_mut(t * d).enumerate() {
            let e = &p.bit_embedding[bit * d..(bit + 1) * d];
            for (row, pos) in rows
                .chunks_exact_mut(d)
                .zip(p.position_embedding.chunks_exact(d))
            {
                for ((x, a), b) in row.iter_mut().zip(e).zip(pos) {
                    *x = a + b;
                }
            }
        }
        let scale = 1.0 / (d as f32).sqrt();
        for h in 0..k {
            // u = W_Kᵀ q / √d (1×d = q (1×d) · W_K (d×d)).
            let u = &mut ws.u[h * d..(h + 1) * d];
            let q = &p.query[h * d..(h + 1) * d];
            matmul_nn(1, d, d, q, d, &p.w_key[h * d * d..], d, 0.0, u, d);
            u.iter_mut().for_each(|x| *x *= scale);
            // Scores (2T,) = x_tab (2T×d) · u.
            matmul_nt(
                2 * t,
                1,
                d,
                &ws.x_tab,
                d,
                u,
                d,
                0.0,
                &mut ws.score_tab[h * 2 * t..],
                1,
            );
            // Values (2T×d) = x_tab · W_Vᵀ.
            let v = &mut ws.value_tab[h * 2 * t * d..(h + 1) * 2 * t * d];
            matmul_nt(
                2 * t,
                d,
                d,
                &ws.x_tab,
                d,
                &p.w_value[h * d * d..],
                d,
                0.0,
                v,
                d,
            );
        }
    }

    /// The forward pass of `n ≤ batch` inputs `bits` (n, T) after [`SparseModel::tables`]:
    /// fills the attention and the logits of `ws`.
    pub fn forward(&self, p: &Tensors<&[f32]>, ws: &mut Workspace, bits: &[u8], n: usize) {
        let Dims {
            length: t,
            width: d,
            heads: k,
            mlp: m,
        } = self.dims;
        assert!(n <= ws.batch && bits.len() == n * t);
        for (i, x) in bits.chunks_exact(t).enumerate() {
            for h in 0..k {
                let scores = &ws.score_tab[h * 2 * t..(h + 1) * 2 * t];
                let alpha = &mut ws.alpha[(i * k + h) * t..(i * k + h + 1) * t];
                for (pos, (a, &bit)) in alpha.iter_mut().zip(x).enumerate() {
                    *a = scores[bit as usize * t + pos];
                }
                softmax_rows(alpha, t);
                let values = &ws.value_tab[h * 2 * t * d..(h + 1) * 2 * t * d];
                let out = &mut ws.heads[(i * k + h) * d..(i * k + h + 1) * d];
                out.fill(0.0);
                for (pos, (&a, &bit)) in alpha.iter().zip(x).enumerate() {
                    let row = (bit as usize * t + pos) * d;
                    for (o, v) in out.iter_mut().zip(&values[row..row + d]) {
                        *o += a * v;
                    }
                }
            }
        }
        let kd = k * d;
        matmul_nt(n, m, kd, &ws.heads, kd, p.w_hidden, kd, 0.0, &mut ws.pre, m);
        for (i, (pre, act)) in ws
            .pre
            .chunks_exact_mut(m)
            .zip(ws.act.chunks_exact_mut(m))
            .take(n)
            .enumerate()
        {
            let mut z = p.b_out[0];
            for (((x, a), b), w) in pre
                .iter_mut()
                .zip(act.iter_mut())
                .zip(p.b_hidden)
                .zip(p.w_out)
            {
                *x += b;
                *a = x.max(0.0);
                z += *a * w;
            }
            ws.logit[i] = z;
        }
    }

    /// The mean logistic loss of the last forward pass's `n` inputs against `labels` (n,).
    pub fn loss(&self, ws: &Workspace, labels: &[f32]) -> f32 {
        let n = labels.len();
        let sum: f64 = ws.logit[..n]
            .iter()
            .zip(labels)
            .map(|(&z, &y)| f64::from(logistic_loss(z, y)))
            .sum();
        (sum / n as f64) as f32
    }

    /// Tables, forward and backward of the mean loss over `n` inputs: writes its gradient
    /// into `grads` (len) and returns the loss.
    pub fn gradient(
        &self,
        params: &[f32],
        grads: &mut [f32],
        ws: &mut Workspace,
        bits: &[u8],
        labels: &[f32],
    ) -> f32 {
        let p = self.split(params);
        let n = labels.len();
        self.tables(&p, ws);
        self.forward(&p, ws, bits, n);
        let loss = self.loss(ws, labels);
        grads.fill(0.0);
        let g = self.split_mut(grads);
        self.backward(&p, g, ws, bits, labels);
        loss
    }

    /// The backward pass of the last forward pass (of `labels.len()` inputs `bits`).
    fn backward(
        &self,
        p: &Tensors<&[f32]>,
        g: Tensors<&mut [f32]>,
        ws: &mut Workspace,
        bits: &[u8],
        labels: &[f32],
    ) {
        let Dims {
            length: t,
            width: d,
            heads: k,
            mlp: m,
        } = self.dims;
        let n = labels.len();
        let kd = k * d;
        let inv_n = 1.0 / n as f32;
        // The logit and the ReLU layer.
        for (i, (&z, &y)) in ws.logit.iter().zip(labels).enumerate() {
            let dz = (math::sigmoid(z) - y) * inv_n;
            g.b_out[0] += dz;
            let act = &ws.act[i * m..(i + 1) * m];
            let pre = &ws.pre[i * m..(i + 1) * m];
            let d_act = &mut ws.d_act[i * m..(i + 1) * m];
            for j in 0..m {
                g.w_out[j] += dz * act[j];
                d_act[j] = if pre[j] > 0.0 { dz * p.w_out[j] } else { 0.0 };
                g.b_hidden[j] += d_act[j];
            }
        }
        matmul_tn(m, kd, n, &ws.d_act, m, &ws.heads, kd, 0.0, g.w_hidden, kd);
        matmul_nn(
            n,
            kd,
            m,
            &ws.d_act,
            m,
            p.w_hidden,
            kd,
            0.0,
            &mut ws.d_heads,
            kd,
        );
        // Each head: into its value and score tables.
        ws.d_score_tab.fill(0.0);
        ws.d_value_tab.fill(0.0);
        for (i, x) in bits.chunks_exact(t).enumerate().take(n) {
            for h in 0..k {
                let alpha = &ws.alpha[(i * k + h) * t..(i * k + h + 1) * t];
                let d_out = &ws.d_heads[(i * k + h) * d..(i * k + h + 1) * d];
                let values = &ws.value_tab[h * 2 * t * d..(h + 1) * 2 * t * d];
                let d_values = &mut ws.d_value_tab[h * 2 * t * d..(h + 1) * 2 * t * d];
                let mut weighted = 0.0;
                for (pos, (&a, &bit)) in alpha.iter().zip(x).enumerate() {
                    let row = (bit as usize * t + pos) * d;
                    let mut da = 0.0;
                    for ((dv, v), go) in d_values[row..row + d]
                        .iter_mut()
                        .zip(&values[row..row + d])
                        .zip(d_out)
                    {
                        *dv += a * go;
                        da += v * go;
                    }
                    ws.da[pos] = da;
                    weighted += a * da;
                }
                let d_scores = &mut ws.d_score_tab[h * 2 * t..(h + 1) * 2 * t];
                for (pos, (&a, &bit)) in alpha.iter().zip(x).enumerate() {
                    d_scores[bit as usize * t + pos] += a * (ws.da[pos] - weighted);
                }
            }
        }
        // The tables: into the query, the key and value maps and the embeddings.
        let scale = 1.0 / (d as f32).sqrt();
        ws.d_x_tab.fill(0.0);
        for h in 0..k {
            let d_scores = &ws.d_score_tab[h * 2 * t..(h + 1) * 2 * t];
            let u = &ws.u[h * d..(h + 1) * d];
            // du (1×d) = d_scores (1×2T) · x_tab (2T×d); d_x_tab += d_scores ⊗ u.
            let du = &mut ws.du[h * d..(h + 1) * d];
            matmul_nn(1, d, 2 * t, d_scores, 2 * t, &ws.x_tab, d, 0.0, du, d);
            matmul_nn(2 * t, d, 1, d_scores, 1, u, d, 1.0, &mut ws.d_x_tab, d);
            // u = W_Kᵀ q · scale: dq = W_K du · scale, dW_K = q ⊗ du · scale.
            let q = &p.query[h * d..(h + 1) * d];
            let w_key = &p.w_key[h * d * d..(h + 1) * d * d];
            let g_q = &mut g.query[h * d..(h + 1) * d];
            matmul_nt(1, d, d, du, d, w_key, d, 0.0, g_q, d);
            g_q.iter_mut().for_each(|x| *x *= scale);
            let g_key = &mut g.w_key[h * d * d..(h + 1) * d * d];
            for (row, &qi) in g_key.chunks_exact_mut(d).zip(q) {
                for (x, &dj) in row.iter_mut().zip(du.iter()) {
                    *x = qi * dj * scale;
                }
            }
            // Values = x_tab · W_Vᵀ: dW_V = d_valuesᵀ · x_tab, d_x_tab += d_values · W_V.
            let d_values = &ws.d_value_tab[h * 2 * t * d..(h + 1) * 2 * t * d];
            let g_value = &mut g.w_value[h * d * d..(h + 1) * d * d];
            matmul_tn(d, d, 2 * t, d_values, d, &ws.x_tab, d, 0.0, g_value, d);
            let w_value = &p.w_value[h * d * d..(h + 1) * d * d];
            matmul_nn(
                2 * t,
                d,
                d,
                d_values,
                d,
                w_value,
                d,
                1.0,
                &mut ws.d_x_tab,
                d,
            );
        }
        // x_tab[bit][pos] = E[bit] + P[pos].
        for (bit, rows) in ws.d_x_tab.chunks_exact(t * d).enumerate() {
            let g_e = &mut g.bit_embedding[bit * d..(bit + 1) * d];
            for (row, g_p) in rows
                .chunks_exact(d)
                .zip(g.position_embedding.chunks_exact_mut(d))
            {
                for ((a, b), x) in g_e.iter_mut().zip(g_p.iter_mut()).zip(row) {
                    *a += x;
                    *b += x;
                }
            }
        }
    }
}
