//! The dot-product gemm for small `A·Bᵀ` ([`gemm_dot`]): its tiling over C, generic over the
//! four-lane arithmetic ([`DotLanes`]), and [`Portable`], that arithmetic on plain floats —
//! the scalar twin of `simd128.rs`'s vector lanes, so that native tests run the same tiling.
//! Whether a build uses this kernel is decided in `mod.rs`.

use super::mat::{Mat, MatMut};

/// Four f32 lanes and the operations the dot-product tiles need of them.
pub trait DotLanes {
    /// Four floats.
    type V: Copy;
    /// All lanes zero.
    fn zero() -> Self::V;
    /// `acc + a·b` lane by lane (fused where the build's multiply-add is).
    fn madd(a: Self::V, b: Self::V, acc: Self::V) -> Self::V;
    /// `x + y` lane by lane.
    fn add(x: Self::V, y: Self::V) -> Self::V;
    /// The lane sums of up to four vectors, `[Σ v₀, Σ v₁, Σ v₂, Σ v₃]` (zero past
    /// `v.len()`), each lane sum taken as `(x₀ + x₂) + (x₁ + x₃)`.
    fn lane_sums(v: &[Self::V]) -> Self::V;
    /// The four lanes as floats.
    fn to_array(v: Self::V) -> [f32; 4];
    /// The four floats at `p`.
    ///
    /// # Safety
    /// `p..p+4` must be readable.
    unsafe fn load(p: *const f32) -> Self::V;
    /// Writes the four lanes to `p..p+4`.
    ///
    /// # Safety
    /// `p..p+4` must be writable.
    unsafe fn store(p: *mut f32, v: Self::V);
}

/// [`DotLanes`] on `[f32; 4]`, with an unfused multiply-add: the same sums in the same
/// order as the wasm `simd128` lanes without relaxed-SIMD, so equal to them bit for bit.
pub struct Portable;

impl DotLanes for Portable {
    type V = [f32; 4];
    #[inline(always)]
    fn zero() -> [f32; 4] {
        [0.0; 4]
    }
    #[inline(always)]
    fn madd(a: [f32; 4], b: [f32; 4], acc: [f32; 4]) -> [f32; 4] {
        std::array::from_fn(|l| acc[l] + a[l] * b[l])
    }
    #[inline(always)]
    fn add(x: [f32; 4], y: [f32; 4]) -> [f32; 4] {
        std::array::from_fn(|l| x[l] + y[l])
    }
    #[inline(always)]
    fn lane_sums(v: &[[f32; 4]]) -> [f32; 4] {
        std::array::from_fn(|q| v.get(q).map_or(0.0, |x| (x[0] + x[2]) + (x[1] + x[3])))
    }
    #[inline(always)]
    fn to_array(v: [f32; 4]) -> [f32; 4] {
        v
    }
    #[inline(always)]
    unsafe fn load(p: *const f32) -> [f32; 4] {
        (p as *const [f32; 4]).read_unaligned()
    }
    #[inline(always)]
    unsafe fn store(p: *mut f32, v: [f32; 4]) {
        (p as *mut [f32; 4]).write_unaligned(v)
    }
}

/// Rows and columns of the dot-product tile of [`gemm_dot`]: 2×4 dot products in eight
/// accumulators, fed by six vector loads per four depth steps.
const DOT_ROWS: usize = 2;
const DOT_COLS: usize = 4;

/// Whether [`gemm_dot`] is the better kernel for an m×n output than a blocked one of
/// `mr`×`nr` tiles: small, and the tiles would pad it by more than a tenth.
pub fn pays(m: usize, n: usize, mr: usize, nr: usize) -> bool {
    m <= 64 && n <= 64 && 10 * m.next_multiple_of(mr) * n.next_multiple_of(nr) > 11 * m * n
}

/// C (m×n) = A (m×k) · B (k×n) + beta·C (`beta == 0` ignoring the old C) for operands that
/// both run along the depth with unit stride (A's rows, B's columns: `B = Wᵀ` of a row-major
/// W) and a C of unit-stride rows, on the lanes `L`. Dot products over the rows themselves:
/// nothing is packed and no tile is padded, which is what small products with a long depth
/// want (the attention scores of one sequence, 41×256·256×41 at the paper size, where 4×8
/// tiles would compute 44×48 entries for 41×41).
pub fn gemm_dot<L: DotLanes>(m: usize, n: usize, k: usize, a: Mat, b: Mat, beta: f32, c: MatMut) {
    assert!(
        a.cs == 1 && b.rs == 1 && c.cs == 1,
        "gemm_dot: operands must run along the depth"
    );
    if m == 0 || n == 0 {
        return;
    }
    let (a, lda, b, ldb, c, ldc) = (a.data, a.rs, b.data, b.cs, c.data, c.rs);
    assert!(
        a.len() >= (m - 1) * lda + k && b.len() >= (n - 1) * ldb + k,
        "gemm_dot: operand shorter than its shape"
    );
    assert!(
        c.len() >= (m - 1) * ldc + n,
        "gemm_dot: C shorter than its shape"
    );
    let mut i = 0;
    while i < m {
        let rows = DOT_ROWS.min(m - i);
        let mut j = 0;
        while j < n {
            let cols = DOT_COLS.min(n - j);
            // SAFETY (every call): rows i..i+rows < m and j..j+cols < n, each read k floats
            // long, and C's rows i..i+rows hold columns j..j+cols: inside the extents
            // asserted above.
            unsafe {
                let (ap, bp) = (a.as_ptr().add(i * lda), b.as_ptr().add(j * ldb));
                let cp = c.as_mut_ptr().add(i * ldc + j);
                match (rows, cols) {
                    (2, 4) => dot_tile::<L, 2, 4, 1>(k, ap, lda, bp, ldb, beta, cp, ldc),
                    (2, 3) => dot_tile::<L, 2, 3, 1>(k, ap, lda, bp, ldb, beta, cp, ldc),
                    (2, 2) => dot_tile::<L, 2, 2, 2>(k, ap, lda, bp, ldb, beta, cp, ldc),
                    (2, _) => dot_tile::<L, 2, 1, 4>(k, ap, lda, bp, ldb, beta, cp, ldc),
                    (_, 4) => dot_tile::<L, 1, 4, 2>(k, ap, lda, bp, ldb, beta, cp, ldc),
                    (_, 3) => dot_tile::<L, 1, 3, 2>(k, ap, lda, bp, ldb, beta, cp, ldc),
                    (_, 2) => dot_tile::<L, 1, 2, 4>(k, ap, lda, bp, ldb, beta, cp, ldc),
                    _ => dot_tile::<L, 1, 1, 8>(k, ap, lda, bp, ldb, beta, cp, ldc),
                }
            }
            j += cols;
        }
        i += rows;
    }
}

/// `c[r·ldc + q] = Σ_p a[r·lda + p] · b[q·ldb + p] + beta·c[r·ldc + q]` for r < R, q < C
/// (`beta == 0` ignoring the old C): R·C dot products of length `k` ([`dot_vectors`]), the
/// last `k mod 4` steps scalar. A whole row of four with `beta == 0` and no scalar steps is
/// stored as the vector of its sums, in one store.
///
/// # Safety
/// `a` must hold R rows and `b` C rows of `k` floats at the given strides, `c` R rows of C.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
unsafe fn dot_tile<L: DotLanes, const R: usize, const C: usize, const U: usize>(
    k: usize,
    a: *const f32,
    lda: usize,
    b: *const f32,
    ldb: usize,
    beta: f32,
    c: *mut f32,
    ldc: usize,
) {
    let k4 = k / 4 * 4;
    for (r, row) in dot_vectors::<L, R, C, U>(k4, a, lda, b, ldb)
        .iter()
        .enumerate()
    {
        let dst = c.add(r * ldc);
        if C == 4 && beta == 0.0 && k4 == k {
            L::store(dst, L::lane_sums(row));
            continue;
        }
        for (q, &sum) in L::to_array(L::lane_sums(row)).iter().enumerate().take(C) {
            let mut s = sum;
            for p in k4..k {
                s += *a.add(r * lda + p) * *b.add(q * ldb + p);
            }
            let x = dst.add(q);
            *x = if beta == 0.0 { s } else { s + beta * *x };
        }
    }
}

/// The R×C dot products of [`dot_tile`] over a depth `k4`, a multiple of 4, as vectors of
/// four partial sums each (their lane sum is the dot product). Narrow tiles split the depth
/// over `U` accumulator sets, so that every tile keeps eight multiply-adds in flight
/// (R·C·U = 8: the fused multiply-add's latency times its throughput).
///
/// # Safety
/// As [`dot_tile`]'s.
#[inline(always)]
unsafe fn dot_vectors<L: DotLanes, const R: usize, const C: usize, const U: usize>(
    k4: usize,
    a: *const f32,
    lda: usize,
    b: *const f32,
    ldb: usize,
) -> [[L::V; C]; R] {
    let mut acc = [[[L::zero(); C]; R]; U];
    let step = |acc: &mut [[L::V; C]; R], p: usize| {
        let mut bv = [L::zero(); C];
        for (q, v) in bv.iter_mut().enumerate() {
            *v = L::load(b.add(q * ldb + p));
        }
        for (r, row) in acc.iter_mut().enumerate() {
            let av = L::load(a.add(r * lda + p));
            for (x, &v) in row.iter_mut().zip(&bv) {
                *x = L::madd(av, v, *x);
            }
        }
    };
    let ku = k4 / (4 * U) * (4 * U);
    let mut p = 0;
    while p < ku {
        for (u, set) in acc.iter_mut().enumerate() {
            step(set, p + 4 * u);
        }
        p += 4 * U;
    }
    while p < k4 {
        step(&mut acc[0], p);
        p += 4;
    }
    let mut rows = acc[0];
    for set in &acc[1..] {
        for (row, other) in rows.iter_mut().zip(set) {
            for (x, y) in row.iter_mut().zip(other) {
                *x = L::add(*x, *y);
            }
        }
    }
    rows
}
