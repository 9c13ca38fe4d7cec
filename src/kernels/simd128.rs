//! The wasm `simd128` kernels: the blocked gemm's micro-kernel, a 4×8 tile held in eight
//! `v128` accumulators fed by two vector loads of packed B and four broadcasts of packed A
//! per depth step (and a one-row kernel for a last row); and `gemm_dot`, the unpacked
//! dot-product kernel for small `A·Bᵀ`. With the `relaxed-simd` target feature the
//! multiply-add is fused (`f32x4.relaxed_madd`).

use super::blocked::{MicroKernel, MAX_TILE};
use super::{Mat, MatMut};
use core::arch::wasm32::*;

/// Rows of the tile. 4×8 keeps 8 accumulators + 2 B vectors + 1 broadcast in registers; a
/// 5×8 tile (10 accumulators, to cover the fused multiply-add's latency) measured half as
/// fast in V8 on x86-64, and 6×8 slower too; so did unrolling the depth loop by two (LLVM
/// hoists both steps' loads to the top). Spilled registers, most likely.
const ROWS: usize = 4;

pub struct Simd128;

/// `acc + a·b`, fused where relaxed-SIMD is enabled.
#[inline(always)]
fn madd(a: v128, b: v128, acc: v128) -> v128 {
    #[cfg(target_feature = "relaxed-simd")]
    {
        f32x4_relaxed_madd(a, b, acc)
    }
    #[cfg(not(target_feature = "relaxed-simd"))]
    {
        f32x4_add(acc, f32x4_mul(a, b))
    }
}

impl MicroKernel for Simd128 {
    const MR: usize = ROWS;
    const NR: usize = 8;

    #[inline(never)]
    fn tile(kc: usize, a: &[f32], b: &[f32], out: &mut [f32; MAX_TILE]) {
        assert!(a.len() >= kc * ROWS && b.len() >= kc * 8);
        let mut acc = [[f32x4_splat(0.0); 2]; ROWS];
        let (ap, bp) = (a.as_ptr(), b.as_ptr());
        for p in 0..kc {
            // SAFETY: p < kc and the lengths were checked above, so every read is in bounds;
            // v128 loads have no alignment requirement.
            unsafe {
                let b0 = v128_load(bp.add(p * 8) as *const v128);
                let b1 = v128_load(bp.add(p * 8 + 4) as *const v128);
                for (i, row) in acc.iter_mut().enumerate() {
                    let ai = v128_load32_splat(ap.add(p * ROWS + i) as *const u32);
                    row[0] = madd(ai, b0, row[0]);
                    row[1] = madd(ai, b1, row[1]);
                }
            }
        }
        let o = out.as_mut_ptr();
        // SAFETY: the tile is ROWS×8 ≤ MAX_TILE floats.
        unsafe {
            for (i, row) in acc.iter().enumerate() {
                v128_store(o.add(i * 8) as *mut v128, row[0]);
                v128_store(o.add(i * 8 + 4) as *mut v128, row[1]);
            }
        }
    }

    /// One row alone (the 41st of a sequence's products at the paper size) has its own kernel;
    /// more rows, the whole tile.
    #[inline(always)]
    fn tile_rows(rows: usize, kc: usize, a: &[f32], b: &[f32], out: &mut [f32; MAX_TILE]) {
        if rows == 1 {
            tile_row(kc, a, b, out);
        } else {
            Self::tile(kc, a, b, out);
        }
    }
}

/// Row 0 of [`Simd128::tile`]: its eight columns in two pairs of accumulators that take the
/// depth steps in turn, so that four multiply-adds are in flight, as many as one row has
/// without more registers than V8 keeps. A quarter of the whole tile's multiply-adds with
/// half as many in flight: by that count half its time, for the one row of four that is not
/// padding.
#[inline(never)]
fn tile_row(kc: usize, a: &[f32], b: &[f32], out: &mut [f32; MAX_TILE]) {
    assert!(a.len() >= kc * ROWS && b.len() >= kc * 8);
    let mut acc = [[f32x4_splat(0.0); 2]; 2];
    let (ap, bp) = (a.as_ptr(), b.as_ptr());
    // SAFETY (each step): p < kc and the lengths were checked above.
    let step = |acc: &mut [v128; 2], p: usize| unsafe {
        let ai = v128_load32_splat(ap.add(p * ROWS) as *const u32);
        acc[0] = madd(ai, v128_load(bp.add(p * 8) as *const v128), acc[0]);
        acc[1] = madd(ai, v128_load(bp.add(p * 8 + 4) as *const v128), acc[1]);
    };
    let even = kc / 2 * 2;
    for p in (0..even).step_by(2) {
        step(&mut acc[0], p);
        step(&mut acc[1], p + 1);
    }
    if even < kc {
        step(&mut acc[0], even);
    }
    let o = out.as_mut_ptr();
    // SAFETY: 8 ≤ MAX_TILE floats.
    unsafe {
        v128_store(o as *mut v128, f32x4_add(acc[0][0], acc[1][0]));
        v128_store(o.add(4) as *mut v128, f32x4_add(acc[0][1], acc[1][1]));
    }
}

/// The vector part of the packing interleave (`blocked::interleave`): `dst[p·w + q] =
/// src[q·ld + p]` for q < w (a multiple of 4) and p below the returned multiple of 4 ≤ kc,
/// by 4×4 transposes. The caller has checked that `src` holds (w−1)·ld + kc floats and
/// `dst` kc·w.
#[inline(always)]
pub fn interleave4(dst: &mut [f32], src: &[f32], ld: usize, w: usize, kc: usize) -> usize {
    assert!(dst.len() >= kc * w && (kc == 0 || src.len() >= (w - 1) * ld + kc));
    let (s, d) = (src.as_ptr(), dst.as_mut_ptr());
    let full = kc / 4 * 4;
    for p in (0..full).step_by(4) {
        for q in (0..w).step_by(4) {
            // SAFETY: rows q..q+4 < w, columns p..p+4 ≤ kc: inside the checked extents.
            unsafe {
                let r0 = v128_load(s.add(q * ld + p) as *const v128);
                let r1 = v128_load(s.add((q + 1) * ld + p) as *const v128);
                let r2 = v128_load(s.add((q + 2) * ld + p) as *const v128);
                let r3 = v128_load(s.add((q + 3) * ld + p) as *const v128);
                let t0 = i32x4_shuffle::<0, 4, 1, 5>(r0, r1); // r0[0] r1[0] r0[1] r1[1]
                let t1 = i32x4_shuffle::<0, 4, 1, 5>(r2, r3);
                let t2 = i32x4_shuffle::<2, 6, 3, 7>(r0, r1); // r0[2] r1[2] r0[3] r1[3]
                let t3 = i32x4_shuffle::<2, 6, 3, 7>(r2, r3);
                let out = d.add(p * w + q);
                v128_store(out as *mut v128, i32x4_shuffle::<0, 1, 4, 5>(t0, t1));
                v128_store(out.add(w) as *mut v128, i32x4_shuffle::<2, 3, 6, 7>(t0, t1));
                v128_store(
                    out.add(2 * w) as *mut v128,
                    i32x4_shuffle::<0, 1, 4, 5>(t2, t3),
                );
                v128_store(
                    out.add(3 * w) as *mut v128,
                    i32x4_shuffle::<2, 3, 6, 7>(t2, t3),
                );
            }
        }
    }
    full
}

/// Rows and columns of the dot-product tile of [`gemm_dot`]: 2×4 dot products in eight
/// accumulators, fed by six vector loads per four depth steps.
const DOT_ROWS: usize = 2;
const DOT_COLS: usize = 4;

/// Whether [`gemm_dot`] beats the blocked kernel on an m×n output (measured at the paper's
/// 41×41 and 40×40 scores): small, and the blocked kernel's 4×8 tiles would pad it by more
/// than a tenth.
pub fn dot_pays(m: usize, n: usize) -> bool {
    m <= 64 && n <= 64 && 10 * m.next_multiple_of(ROWS) * n.next_multiple_of(8) > 11 * m * n
}

/// C (m×n) = A (m×k) · B (k×n) + beta·C for operands that both run along the depth with
/// unit stride (A's rows, B's columns: `B = Wᵀ` of a row-major W) and a C of unit-stride
/// rows. Dot products over the rows themselves: nothing is packed and no tile is padded,
/// which is what small products with a long depth want (the attention scores of one
/// sequence, 41×256·256×41 at the paper size, where 4×8 tiles would compute 44×48 entries
/// for 41×41).
pub fn gemm_dot(m: usize, n: usize, k: usize, a: Mat, b: Mat, beta: f32, c: MatMut) {
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
                    (2, 4) => dot_tile::<2, 4, 1>(k, ap, lda, bp, ldb, beta, cp, ldc),
                    (2, 3) => dot_tile::<2, 3, 1>(k, ap, lda, bp, ldb, beta, cp, ldc),
                    (2, 2) => dot_tile::<2, 2, 2>(k, ap, lda, bp, ldb, beta, cp, ldc),
                    (2, _) => dot_tile::<2, 1, 4>(k, ap, lda, bp, ldb, beta, cp, ldc),
                    (_, 4) => dot_tile::<1, 4, 2>(k, ap, lda, bp, ldb, beta, cp, ldc),
                    (_, 3) => dot_tile::<1, 3, 2>(k, ap, lda, bp, ldb, beta, cp, ldc),
                    (_, 2) => dot_tile::<1, 2, 4>(k, ap, lda, bp, ldb, beta, cp, ldc),
                    _ => dot_tile::<1, 1, 8>(k, ap, lda, bp, ldb, beta, cp, ldc),
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
/// stored as the vector of its sums: extracting the four lanes and storing them one by one
/// cost the scores of one sequence (41×256·256×41) a tenth of their time.
///
/// # Safety
/// `a` must hold R rows and `b` C rows of `k` floats at the given strides, `c` R rows of C.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
unsafe fn dot_tile<const R: usize, const C: usize, const U: usize>(
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
    for (r, row) in dot_vectors::<R, C, U>(k4, a, lda, b, ldb)
        .iter()
        .enumerate()
    {
        let dst = c.add(r * ldc);
        if C == 4 && beta == 0.0 && k4 == k {
            v128_store(dst as *mut v128, horizontal_sums_v(row));
            continue;
        }
        for (q, &sum) in horizontal_sums(row).iter().enumerate().take(C) {
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
unsafe fn dot_vectors<const R: usize, const C: usize, const U: usize>(
    k4: usize,
    a: *const f32,
    lda: usize,
    b: *const f32,
    ldb: usize,
) -> [[v128; C]; R] {
    let mut acc = [[[f32x4_splat(0.0); C]; R]; U];
    let step = |acc: &mut [[v128; C]; R], p: usize| {
        let mut bv = [f32x4_splat(0.0); C];
        for (q, v) in bv.iter_mut().enumerate() {
            *v = v128_load(b.add(q * ldb + p) as *const v128);
        }
        for (r, row) in acc.iter_mut().enumerate() {
            let av = v128_load(a.add(r * lda + p) as *const v128);
            for (x, &v) in row.iter_mut().zip(&bv) {
                *x = madd(av, v, *x);
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
                *x = f32x4_add(*x, *y);
            }
        }
    }
    rows
}

/// The lane sums of up to four vectors, `[Σ v₀, Σ v₁, Σ v₂, Σ v₃]` (zero past `v.len()`), by
/// two rounds of shuffles and adds.
#[inline(always)]
fn horizontal_sums_v(v: &[v128]) -> v128 {
    let z = f32x4_splat(0.0);
    let at = |q: usize| if q < v.len() { v[q] } else { z };
    let (v0, v1, v2, v3) = (at(0), at(1), at(2), at(3));
    // [v0₀+v0₂, v1₀+v1₂, v0₁+v0₃, v1₁+v1₃] and the same for v2, v3.
    let t0 = f32x4_add(
        i32x4_shuffle::<0, 4, 1, 5>(v0, v1),
        i32x4_shuffle::<2, 6, 3, 7>(v0, v1),
    );
    let t1 = f32x4_add(
        i32x4_shuffle::<0, 4, 1, 5>(v2, v3),
        i32x4_shuffle::<2, 6, 3, 7>(v2, v3),
    );
    f32x4_add(
        i32x4_shuffle::<0, 1, 4, 5>(t0, t1),
        i32x4_shuffle::<2, 3, 6, 7>(t0, t1),
    )
}

/// [`horizontal_sums_v`] as four floats.
#[inline(always)]
fn horizontal_sums(v: &[v128]) -> [f32; 4] {
    let s = horizontal_sums_v(v);
    [
        f32x4_extract_lane::<0>(s),
        f32x4_extract_lane::<1>(s),
        f32x4_extract_lane::<2>(s),
        f32x4_extract_lane::<3>(s),
    ]
}
