//! The kernel API every matrix product of the model goes through: one strided `gemm` plus
//! the three shapes the model uses (`A·B`, `A·Bᵀ`, `Aᵀ·B`), and the row-wise loops (bias,
//! softmax). `blocked.rs` is the fast gemm; `scalar.rs` the reference, the test oracle.
//! Only the kernels live here: what to multiply is the model's business.

pub mod blocked;
pub mod math;
pub mod peak;
pub mod scalar;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub mod simd128;

pub use blocked::PackedB;
use ndarray::{linalg::general_mat_mul, ArrayView2, ArrayViewMut2, ShapeBuilder};
use std::cell::Cell;

thread_local! {
    /// Floating-point operations (two per multiply-add) of the products this thread has
    /// asked of [`gemm`] and [`gemm_packed`]: what a training step needs of the kernels.
    static FLOPS: Cell<u64> = const { Cell::new(0) };
}

/// The floating-point operations of every product this thread has run so far: the
/// difference across a training step is the arithmetic its products need, which at a
/// build's multiply-add peak sets the least time the step can take.
pub fn flops() -> u64 {
    FLOPS.with(Cell::get)
}

/// Counts the `2·m·n·k` operations of one product into [`flops`].
fn count_flops(m: usize, n: usize, k: usize) {
    FLOPS.with(|f| f.set(f.get() + 2 * (m * n * k) as u64));
}

/// A read-only strided matrix: element (i, j) is `data[i * rs + j * cs]`.
#[derive(Clone, Copy)]
pub struct Mat<'a> {
    pub data: &'a [f32],
    pub rs: usize,
    pub cs: usize,
}

/// A writable strided matrix, laid out as [`Mat`].
pub struct MatMut<'a> {
    pub data: &'a mut [f32],
    pub rs: usize,
    pub cs: usize,
}

impl<'a> Mat<'a> {
    /// Row-major with leading dimension `ld` (row stride).
    pub fn rows(data: &'a [f32], ld: usize) -> Mat<'a> {
        Mat {
            data,
            rs: ld,
            cs: 1,
        }
    }
    /// The transpose of a row-major matrix with leading dimension `ld`.
    pub fn rows_t(data: &'a [f32], ld: usize) -> Mat<'a> {
        Mat {
            data,
            rs: 1,
            cs: ld,
        }
    }
    /// A `rows × cols` operand stored densely: row-major, or when `transposed` the
    /// transpose of a row-major `cols × rows` matrix.
    pub fn dense(data: &'a [f32], rows: usize, cols: usize, transposed: bool) -> Mat<'a> {
        Mat::spaced(data, rows, cols, transposed, 1)
    }
    /// [`Mat::dense`] with the stored rows `apart` times their length apart: one sequence's
    /// rows of an (L, B, H) buffer are `B·H` apart (`apart = B`). `data` holds
    /// `rows·cols·apart` floats.
    pub fn spaced(
        data: &'a [f32],
        rows: usize,
        cols: usize,
        transposed: bool,
        apart: usize,
    ) -> Mat<'a> {
        if transposed {
            Mat::rows_t(data, rows * apart)
        } else {
            Mat::rows(data, cols * apart)
        }
    }
}

impl<'a> MatMut<'a> {
    pub fn rows(data: &'a mut [f32], ld: usize) -> MatMut<'a> {
        MatMut {
            data,
            rs: ld,
            cs: 1,
        }
    }
}

/// C (m×n) = A (m×k) · B (k×n) + beta · C. With `beta == 0` the old C is ignored (NaN-safe).
/// Allocates nothing (its packing buffers are per thread, made on first use).
pub fn gemm(m: usize, n: usize, k: usize, a: Mat, b: Mat, beta: f32, c: MatMut) {
    count_flops(m, n, k);
    // Small `A·Bᵀ` products whose operands both run along the depth: dot products, unpacked.
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    if a.cs == 1 && b.rs == 1 && c.cs == 1 && simd128::dot_pays(m, n) {
        simd128::gemm_dot(m, n, k, a, b, beta, c);
        return;
    }
    blocked::gemm(m, n, k, a, b, beta, c);
}

/// [`gemm`] with B already packed: C (m×n) = A (m×k) · B + beta·C.
pub fn gemm_packed(m: usize, a: Mat, b: &PackedB, beta: f32, c: MatMut) {
    count_flops(m, b.n, b.k);
    blocked::gemm_packed(m, a, b, beta, c);
}

/// ndarray's `general_mat_mul` on the same strided operands: a second, independent oracle
/// for the tests and the benchmark's reference point. (It allocates: not for the model.)
pub fn ndarray_gemm(m: usize, n: usize, k: usize, a: Mat, b: Mat, beta: f32, c: MatMut) {
    let extent = |r: usize, q: usize, rs: usize, cs: usize| (r - 1) * rs + (q - 1) * cs + 1;
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

/// C (m×n) = A (m×k, row-major, ld `lda`) · Bᵀ where B is (n×k, row-major, ld `ldb`) + beta·C.
/// The shape of a linear layer's forward pass: `Y = X Wᵀ`.
#[allow(clippy::too_many_arguments)]
pub fn matmul_nt(
    m: usize,
    n: usize,
    k: usize,
    a: &[f32],
    lda: usize,
    b: &[f32],
    ldb: usize,
    beta: f32,
    c: &mut [f32],
    ldc: usize,
) {
    gemm(
        m,
        n,
        k,
        Mat::rows(a, lda),
        Mat::rows_t(b, ldb),
        beta,
        MatMut::rows(c, ldc),
    );
}

/// C (m×n) = A (m×k) · B (k×n), all row-major, + beta·C. The shape of `dX = dY W`.
#[allow(clippy::too_many_arguments)]
pub fn matmul_nn(
    m: usize,
    n: usize,
    k: usize,
    a: &[f32],
    lda: usize,
    b: &[f32],
    ldb: usize,
    beta: f32,
    c: &mut [f32],
    ldc: usize,
) {
    gemm(
        m,
        n,
        k,
        Mat::rows(a, lda),
        Mat::rows(b, ldb),
        beta,
        MatMut::rows(c, ldc),
    );
}

/// C (m×n) = Aᵀ · B where A is (k×m) and B is (k×n), row-major, + beta·C.
/// The shape of a weight gradient: `dW += dYᵀ X`.
#[allow(clippy::too_many_arguments)]
pub fn matmul_tn(
    m: usize,
    n: usize,
    k: usize,
    a: &[f32],
    lda: usize,
    b: &[f32],
    ldb: usize,
    beta: f32,
    c: &mut [f32],
    ldc: usize,
) {
    gemm(
        m,
        n,
        k,
        Mat::rows_t(a, lda),
        Mat::rows(b, ldb),
        beta,
        MatMut::rows(c, ldc),
    );
}

/// Adds `bias` (n,) to every row of `x` (rows, n).
pub fn add_bias_rows(x: &mut [f32], bias: &[f32]) {
    for row in x.chunks_exact_mut(bias.len()) {
        for (v, b) in row.iter_mut().zip(bias) {
            *v += b;
        }
    }
}

/// `acc` (n,) += the sum of the rows of `x` (rows, n): the gradient of a bias.
pub fn sum_rows_into(acc: &mut [f32], x: &[f32]) {
    for row in x.chunks_exact(acc.len()) {
        for (a, v) in acc.iter_mut().zip(row) {
            *a += v;
        }
    }
}

/// The largest element of `xs` (−∞ if empty; NaNs are skipped). A compare-and-select, not
/// `f32::max`, which in wasm is a call (its NaN rule differs from the instruction's).
pub fn max_of(xs: &[f32]) -> f32 {
    xs.iter()
        .fold(f32::NEG_INFINITY, |m, &x| if x > m { x } else { m })
}

/// Softmax of every row of `x` (rows, n), in place.
pub fn softmax_rows(x: &mut [f32], n: usize) {
    for row in x.chunks_exact_mut(n) {
        let max = max_of(row);
        let mut sum = 0.0;
        for v in row.iter_mut() {
            *v = math::exp(*v - max);
            sum += *v;
        }
        let inv = 1.0 / sum;
        row.iter_mut().for_each(|v| *v *= inv);
    }
}

/// Log-softmax of every row of `x` (rows, n), in place.
pub fn log_softmax_rows(x: &mut [f32], n: usize) {
    for row in x.chunks_exact_mut(n) {
        let max = max_of(row);
        let sum: f32 = row.iter().map(|v| math::exp(v - max)).sum();
        let lse = max + sum.ln();
        row.iter_mut().for_each(|v| *v -= lse);
    }
}

#[cfg(test)]
mod tests {
    // The gemm-against-references test is `tests/kernels.rs` (shared with the wasm tests).
    use super::*;

    #[test]
    fn beta_zero_ignores_nan_in_c() {
        let a = [1.0f32, 2.0];
        let b = [3.0f32, 4.0];
        let mut c = [f32::NAN];
        matmul_nt(1, 1, 2, &a, 2, &b, 2, 0.0, &mut c, 1);
        assert_eq!(c[0], 11.0);
    }
}
