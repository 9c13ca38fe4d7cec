//! Helpers shared by the integration tests: tiny models, batches and loss closures.
#![allow(dead_code)]

use attention_playground::copying::config::{AttentionMode, Config, TaskKind};
use attention_playground::copying::model::params::Dims;
use attention_playground::copying::model::{Seq2Seq, Workspace};
use attention_playground::copying::tasks::{Batch, Task};
use attention_playground::kernels::{gemm, gemm_packed, Mat, MatMut, PackedB};
use attention_playground::params::ParamLayout;
use attention_playground::rng::Rng;
use ndarray::{linalg::general_mat_mul, ArrayView2, ArrayViewMut2, ShapeBuilder};

/// A tiny model with a fresh initialisation, a batch and its workspace.
pub struct Tiny {
    pub model: Seq2Seq,
    pub params: Vec<f32>,
    pub batch: Batch,
    pub ws: Workspace,
}

pub fn tiny(bidirectional: bool, heads: usize, uniform: bool, seed: u64) -> Tiny {
    let config = Config {
        task: TaskKind::Copy,
        distinct: false,
        vocab: 5,
        length: 4,
        hidden: 6,
        batch: 8,
        heads,
        bidirectional,
        attention: if uniform {
            AttentionMode::Uniform
        } else {
            AttentionMode::Learned
        },
        ..Config::default()
    };
    let dims = Dims {
        n_tok: config.vocab + 2,
        hidden: config.hidden,
        dirs: if bidirectional { 2 } else { 1 },
        heads,
    };
    let model = Seq2Seq::new(dims, uniform);
    let mut rng = Rng::new(seed, 0);
    let mut params = vec![0.0; model.layout.len];
    model.layout.initialise(&mut params, &mut rng);
    // Larger weights than the default init make every term of the backward pass matter.
    params.iter_mut().for_each(|x| *x *= 1.5);
    let mut task = Task::new(&config, &mut rng);
    let mut batch = Batch::new(config.batch, config.length);
    task.fill(&mut rng, &mut batch);
    let ws = model.workspace(config.batch, batch.src_len, batch.tgt_len);
    Tiny {
        model,
        params,
        batch,
        ws,
    }
}

impl Tiny {
    pub fn loss_at(&mut self, params: &[f32]) -> f32 {
        let p = self.model.layout.split(params);
        self.model.forward(&p, &mut self.ws, &self.batch)
    }

    pub fn gradient(&mut self) -> (f32, Vec<f32>) {
        let params = self.params.clone();
        let p = self.model.layout.split(&params);
        let loss = self.model.forward(&p, &mut self.ws, &self.batch);
        let mut grads = vec![0.0; self.model.layout.len];
        self.model
            .backward(&p, &mut grads, &mut self.ws, &self.batch);
        (loss, grads)
    }
}

/// The reference run: small enough for a debug wasm build, every part of the model used.
pub fn reference_config() -> Config {
    Config {
        vocab: 9,
        length: 6,
        hidden: 16,
        batch: 8,
        eval_batch: 4,
        eval_every: 5,
        heads: 2,
        bidirectional: true,
        seed: 11,
        ..Config::default()
    }
}

/// Tolerance of the reference comparisons: relative for values above 1, absolute below.
/// Accuracies move in steps of 1/(Be·Lt) = 1/28, so any disagreement there is a real one.
pub const LOSS_RTOL: f32 = 1e-4;

/// The committed reference run: 20 training losses, then (loss, token acc, attention acc,
/// KTIW acc, KTIW score) of each evaluation.
pub const REFERENCE_RUN: &str = include_str!("../fixtures/reference-run.txt");

/// A gemm with the kernel API's signature (`kernels::scalar::gemm`, [`ndarray_gemm`],
/// `kernels::dot::gemm_dot`).
pub type GemmFn = fn(usize, usize, usize, Mat, Mat, f32, MatMut);

/// ndarray's `general_mat_mul` on the same strided operands: a second, independent oracle.
pub fn ndarray_gemm(m: usize, n: usize, k: usize, a: Mat, b: Mat, beta: f32, c: MatMut) {
    let extent = |r: usize, q: usize, rs: usize, cs: usize| {
        if r == 0 || q == 0 {
            0
        } else {
            (r - 1) * rs + (q - 1) * cs + 1
        }
    };
    let av = ArrayView2::from_shape(
        (m, k).strides((a.rs, a.cs)),
        &a.data[..extent(m, k, a.rs, a.cs)],
    )
    .unwrap();
    let bv = ArrayView2::from_shape(
        (k, n).strides((b.rs, b.cs)),
        &b.data[..extent(k, n, b.rs, b.cs)],
    )
    .unwrap();
    let len = extent(m, n, c.rs, c.cs);
    let mut cv =
        ArrayViewMut2::from_shape((m, n).strides((c.rs, c.cs)), &mut c.data[..len]).unwrap();
    general_mat_mul(1.0, &av, &bv, beta, &mut cv);
}

/// The largest |got − want|: NaN if one holds a NaN where the other does not (the untouched
/// padding of a C that started as NaN agrees).
fn maxdiff(got: &[f32], want: &[f32]) -> f32 {
    got.iter()
        .zip(want)
        .map(|(x, y)| {
            if x.is_nan() && y.is_nan() {
                0.0
            } else {
                (x - y).abs()
            }
        })
        .fold(0.0f32, |m, d| if d.is_nan() || d > m { d } else { m })
}

/// A C to start from: random, or all NaN for `beta == 0` (which must ignore the old C).
fn start_c(random: &mut impl FnMut(usize) -> Vec<f32>, len: usize, beta: f32) -> Vec<f32> {
    if beta == 0.0 {
        vec![f32::NAN; len]
    } else {
        random(len)
    }
}

/// Holds this build's `kernels::gemm` and `kernels::gemm_packed` to each oracle on every
/// shape (m, n, k) × case (A transposed, B transposed, beta), on random operands in [−1, 1]
/// stored densely and with their rows twice their length apart (as a sequence's rows of an
/// (L, B, H) buffer are), and a C with row stride 2n (all NaN for beta 0). Tolerance:
/// 1e-6·k + 1e-6, the rounding of k f32 products summed in another order (fused and unfused
/// multiply-adds round differently).
pub fn check_gemm(
    rng: &mut Rng,
    shapes: &[(usize, usize, usize)],
    cases: &[(bool, bool, f32)],
    oracles: &[(&str, GemmFn)],
    build: &str,
) {
    let mut random = |n: usize| rng.uniform_vec(n, -1.0, 1.0);
    for &(m, n, k) in shapes {
        for (&(ta, tb, beta), apart) in cases.iter().flat_map(|c| [(c, 1), (c, 2)]) {
            let (a, b) = (random(m * k * apart), random(k * n * apart));
            let c0 = start_c(&mut random, m * n * 2, beta);
            let am = Mat::spaced(&a, m, k, ta, apart);
            let bm = Mat::spaced(&b, k, n, tb, apart);
            let mut fast = c0.clone();
            gemm(m, n, k, am, bm, beta, MatMut::rows(&mut fast, 2 * n));
            // The same product with B packed beforehand, as the LSTM recurrences run it.
            let mut packed_b = PackedB::new(k, n);
            packed_b.pack(bm);
            let mut prepacked = c0.clone();
            gemm_packed(m, am, &packed_b, beta, MatMut::rows(&mut prepacked, 2 * n));
            for (name, oracle) in oracles {
                let mut want = c0.clone();
                oracle(m, n, k, am, bm, beta, MatMut::rows(&mut want, 2 * n));
                for (kind, got) in [("gemm", &fast), ("gemm_packed", &prepacked)] {
                    let maxdiff = maxdiff(got, &want);
                    assert!(
                        maxdiff <= 1e-6 * k as f32 + 1e-6,
                        "{build} {kind} vs {name}: m{m} n{n} k{k} ta{ta} tb{tb} beta{beta} apart{apart}: maxdiff {maxdiff}"
                    );
                }
            }
        }
    }
}

/// Shapes (m, n, k) for the dot-product kernel (`kernels::dot::gemm_dot`): every edge tile
/// (rows 2 and 1; columns 4, 3, 2, 1), depths with 0–3 steps past a multiple of 4 and past
/// a multiple of each unrolling (4·U floats, U = 1, 2, 4, 8), no depth at all, and one
/// sequence's attention scores at the paper size.
pub const DOT_SHAPES: [(usize, usize, usize); 14] = [
    (1, 1, 1),
    (1, 2, 3),
    (2, 3, 2),
    (3, 5, 0),
    (3, 7, 5),
    (5, 9, 13),
    (6, 10, 29),
    (3, 9, 29),
    (2, 6, 33),
    (7, 11, 35),
    (4, 8, 64),
    (9, 14, 71),
    (41, 41, 256),
    (40, 39, 255),
];

/// Holds a dot-product gemm `dot` to `oracle` on every shape (m, n, k) and beta 0, 1, 0.5:
/// A (m×k) row-major and B = Wᵀ of a row-major W (n×k) — the operands it takes, both along
/// the depth — their rows dense and three times their length apart, random in [−1, 1]; C
/// with row stride 2n (all NaN for beta 0). Tolerance `tol`·k + `tol` (0: bit for bit).
pub fn check_dot(
    rng: &mut Rng,
    shapes: &[(usize, usize, usize)],
    (dot_name, dot): (&str, GemmFn),
    (name, oracle): (&str, GemmFn),
    tol: f32,
    build: &str,
) {
    let mut random = |n: usize| rng.uniform_vec(n, -1.0, 1.0);
    for &(m, n, k) in shapes {
        for (beta, apart) in [0.0, 1.0, 0.5].into_iter().flat_map(|b| [(b, 1), (b, 3)]) {
            let (a, b) = (random(m * k * apart), random(k * n * apart));
            let c0 = start_c(&mut random, m * n * 2, beta);
            let am = Mat::spaced(&a, m, k, false, apart);
            let bm = Mat::spaced(&b, k, n, true, apart);
            let mut got = c0.clone();
            dot(m, n, k, am, bm, beta, MatMut::rows(&mut got, 2 * n));
            let mut want = c0.clone();
            oracle(m, n, k, am, bm, beta, MatMut::rows(&mut want, 2 * n));
            let maxdiff = maxdiff(&got, &want);
            assert!(
                maxdiff <= tol * k as f32 + tol,
                "{build} {dot_name} vs {name}: m{m} n{n} k{k} beta{beta} apart{apart}: maxdiff {maxdiff}"
            );
        }
    }
}

/// Every combination of transposes and betas 0, 1, 0.5.
pub const ALL_GEMM_CASES: [(bool, bool, f32); 12] = [
    (false, false, 0.0),
    (false, true, 0.0),
    (true, false, 0.0),
    (true, true, 0.0),
    (false, false, 1.0),
    (false, true, 1.0),
    (true, false, 1.0),
    (true, true, 1.0),
    (false, false, 0.5),
    (false, true, 0.5),
    (true, false, 0.5),
    (true, true, 0.5),
];
