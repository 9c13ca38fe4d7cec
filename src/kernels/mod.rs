//! The kernel API every matrix product of the model goes through: one strided `gemm` plus
//! the three shapes the model uses (`A·B`, `A·Bᵀ`, `Aᵀ·B`), and the row-wise loops (bias,
//! softmax); and the one place that picks, by target, the kernels a build runs. The kernels
//! themselves live in the leaf modules below; `scalar.rs` is the reference, the test oracle.
//! What to multiply is the model's business.
//!
//! Modules (each imports only those listed before it, never this file):
//! `mat` (the strided views), `tile` (the micro-kernel contract and the portable kernel),
//! `dot` (the dot-product kernel's tiling and its portable lanes), `blocked` (the loop nest
//! and packing), `simd128` (the wasm vector kernels), `scalar`, `math`; with the `bench`
//! feature, `bench` (FLOP counter, micro-kernel timing) and `peak` (the multiply-add peak).

#[cfg(feature = "bench")]
pub mod bench;
pub mod blocked;
pub mod dot;
pub mod mat;
pub mod math;
#[cfg(feature = "bench")]
pub mod peak;
pub mod scalar;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub mod simd128;
pub mod tile;

#[cfg(feature = "bench")]
pub use bench::flops;
use blocked::BSource;
pub use blocked::PackedB;
pub use mat::{Mat, MatMut};
use tile::MicroKernel;
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
use tile::Portable;
#[cfg(feature = "bench")]
use tile::MAX_TILE;

// The dispatch point: everything below up to `gemm` is the one place where the target
// decides which kernels run.

/// The micro-kernel of this build's blocked gemm. On x86_64 [`with_kernel`] runs the same
/// portable kernel compiled for AVX2 with fused multiply-add instead, where the CPU has them.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
type Kernel = simd128::Simd128;
#[cfg(all(target_arch = "wasm32", not(target_feature = "simd128")))]
type Kernel = Portable<4, false>;
#[cfg(not(target_arch = "wasm32"))]
type Kernel = Portable<16, false>;

/// Whether [`gemm`] runs small `A·Bᵀ` products on the dot-product kernel ([`dot::gemm_dot`])
/// with the lanes [`Dot`]: in the simd128 builds. Elsewhere the blocked kernel is the
/// faster one, and the portable lanes are only the test's twin of the vector ones.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
const DOT: bool = true;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
type Dot = simd128::Simd128;
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
const DOT: bool = false;
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
type Dot = dot::Portable;

/// The AVX2 kernel packs B as [`Kernel`] does, so that one [`PackedB`] serves both.
#[cfg(target_arch = "x86_64")]
const _: () = assert!(
    <Portable<16, true> as MicroKernel>::NR == <Kernel as MicroKernel>::NR
        && <Portable<16, true> as MicroKernel>::MR == <Kernel as MicroKernel>::MR
);

/// Work generic over the micro-kernel, which [`with_kernel`] runs on this build's: static
/// dispatch, each kernel's code monomorphised (and `#[inline(always)]` into its caller).
trait KernelJob {
    type Out;
    fn run<K: MicroKernel>(self) -> Self::Out;
}

/// Runs `job` on this build's micro-kernel: [`Kernel`], or on x86_64 with AVX2 and FMA (a
/// run-time check, cached by the standard library) the portable kernel built for them.
#[inline(always)]
fn with_kernel<J: KernelJob>(job: J) -> J::Out {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has just been checked for AVX2 and FMA.
        return unsafe { run_avx2_fma(job) };
    }
    job.run::<Kernel>()
}

/// `job` on the portable 4×16 kernel with fused multiply-adds, compiled for AVX2 and FMA.
///
/// # Safety
/// The CPU must support AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn run_avx2_fma<J: KernelJob>(job: J) -> J::Out {
    job.run::<Portable<16, true>>()
}

/// One blocked gemm ([`blocked::gemm_with`]) as a [`KernelJob`].
struct GemmJob<'a, 'p> {
    m: usize,
    n: usize,
    k: usize,
    a: Mat<'a>,
    b: BSource<'a>,
    beta: f32,
    c: MatMut<'a>,
    ap: &'p mut [f32],
    bp: &'p mut [f32],
}

impl KernelJob for GemmJob<'_, '_> {
    type Out = ();
    #[inline(always)]
    fn run<K: MicroKernel>(self) {
        let GemmJob {
            m,
            n,
            k,
            a,
            b,
            beta,
            c,
            ap,
            bp,
        } = self;
        blocked::gemm_with::<K>(m, n, k, a, b, beta, c, ap, bp);
    }
}

/// The blocked gemm on this build's micro-kernel, with this thread's packing buffers.
fn gemm_from(m: usize, n: usize, k: usize, a: Mat, b: BSource, beta: f32, c: MatMut) {
    blocked::with_packs(|ap, bp| {
        with_kernel(GemmJob {
            m,
            n,
            k,
            a,
            b,
            beta,
            c,
            ap,
            bp,
        })
    });
}

/// C (m×n) = A (m×k) · B (k×n) + beta · C. With `beta == 0` the old C is ignored (NaN-safe).
/// Allocates nothing (its packing buffers are per thread, made on first use).
pub fn gemm(m: usize, n: usize, k: usize, a: Mat, b: Mat, beta: f32, c: MatMut) {
    #[cfg(feature = "bench")]
    bench::count_flops(m, n, k);
    // Small `A·Bᵀ` products whose operands both run along the depth: dot products, unpacked.
    if DOT && a.cs == 1 && b.rs == 1 && c.cs == 1 && dot::pays(m, n, Kernel::MR, Kernel::NR) {
        dot::gemm_dot::<Dot>(m, n, k, a, b, beta, c);
        return;
    }
    gemm_from(m, n, k, a, BSource::Strided(b), beta, c);
}

/// [`gemm`] with B already packed: C (m×n) = A (m×k) · B + beta·C.
pub fn gemm_packed(m: usize, a: Mat, b: &PackedB, beta: f32, c: MatMut) {
    #[cfg(feature = "bench")]
    bench::count_flops(m, b.n, b.k);
    gemm_from(m, b.n, b.k, a, b.source(), beta, c);
}

impl PackedB {
    /// Room for a (k, n) operand in the layout of this build's micro-kernel; fill it with
    /// [`PackedB::pack`].
    pub fn new(k: usize, n: usize) -> PackedB {
        PackedB::new_for::<Kernel>(k, n)
    }

    /// Packs `b` (k, n), reusing the buffer.
    pub fn pack(&mut self, b: Mat) {
        self.pack_for::<Kernel>(b);
    }
}

/// One call of the micro-kernel [`gemm`] uses on this machine ([`MicroKernel::tile`]) as a
/// [`KernelJob`].
#[cfg(feature = "bench")]
struct TileJob<'a> {
    kc: usize,
    a: &'a [f32],
    b: &'a [f32],
    out: &'a mut [f32; MAX_TILE],
}

#[cfg(feature = "bench")]
impl KernelJob for TileJob<'_> {
    type Out = ();
    #[inline(always)]
    fn run<K: MicroKernel>(self) {
        let TileJob { kc, a, b, out } = self;
        K::tile(kc, a, b, out);
    }
}

/// The (MR, NR) of the micro-kernel [`gemm`] uses on this machine (for the benchmarks).
#[cfg(feature = "bench")]
pub fn kernel_shape() -> (usize, usize) {
    (Kernel::MR, Kernel::NR)
}

/// One call of the micro-kernel [`gemm`] uses on this machine, on packed panels `a` (kc,
/// MR) and `b` (kc, NR) of [`kernel_shape`] (for the benchmarks).
#[cfg(feature = "bench")]
pub fn micro_tile(kc: usize, a: &[f32], b: &[f32], out: &mut [f32; MAX_TILE]) {
    with_kernel(TileJob { kc, a, b, out });
}

/// For the benchmarks: the flops of one [`micro_tile`] call of depth `kc` and a closure
/// making it on fixed packed panels ([`bench::tile_bench`]).
#[cfg(feature = "bench")]
pub fn tile_bench(kc: usize) -> (f64, impl FnMut()) {
    bench::tile_bench(kc, kernel_shape(), micro_tile)
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
