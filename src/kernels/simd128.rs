//! The wasm `simd128` kernels: the blocked gemm's micro-kernel, a 4×8 tile held in eight
//! `v128` accumulators fed by two vector loads of packed B and four broadcasts of packed A
//! per depth step (and a one-row kernel for a last row), its packing interleave by 4×4
//! transposes, and the vector lanes of the dot-product kernel (`dot.rs` tiles them). With the
//! `relaxed-simd` target feature the multiply-add is fused (`f32x4.relaxed_madd`).

use super::dot::DotLanes;
use super::tile::{MicroKernel, MAX_TILE};
use core::arch::wasm32::*;

/// Rows of the tile. 4×8 keeps 8 accumulators + 2 B vectors + 1 broadcast in registers;
/// taller tiles, or the depth loop unrolled by two, spill registers in V8.
const ROWS: usize = 4;

/// The simd128 micro-kernel ([`MicroKernel`]) and dot-product lanes ([`DotLanes`]).
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

    /// Whole panels of a width that is a multiple of 4: [`interleave4`].
    #[inline(always)]
    fn interleave_head(
        dst: &mut [f32],
        src: &[f32],
        ld: usize,
        w: usize,
        count: usize,
        kc: usize,
    ) -> usize {
        if count == w && w.is_multiple_of(4) {
            interleave4(dst, src, ld, w, kc)
        } else {
            0
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

/// The vector part of the packing interleave ([`MicroKernel::interleave_head`]): `dst[p·w + q] =
/// src[q·ld + p]` for q < w (a multiple of 4) and p below the returned multiple of 4 ≤ kc,
/// by 4×4 transposes. The caller has checked that `src` holds (w−1)·ld + kc floats and
/// `dst` kc·w.
#[inline(always)]
fn interleave4(dst: &mut [f32], src: &[f32], ld: usize, w: usize, kc: usize) -> usize {
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

impl DotLanes for Simd128 {
    type V = v128;
    #[inline(always)]
    fn zero() -> v128 {
        f32x4_splat(0.0)
    }
    #[inline(always)]
    fn madd(a: v128, b: v128, acc: v128) -> v128 {
        madd(a, b, acc)
    }
    #[inline(always)]
    fn add(x: v128, y: v128) -> v128 {
        f32x4_add(x, y)
    }
    /// Two rounds of shuffles and adds.
    #[inline(always)]
    fn lane_sums(v: &[v128]) -> v128 {
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
    #[inline(always)]
    fn to_array(v: v128) -> [f32; 4] {
        [
            f32x4_extract_lane::<0>(v),
            f32x4_extract_lane::<1>(v),
            f32x4_extract_lane::<2>(v),
            f32x4_extract_lane::<3>(v),
        ]
    }
    /// `v128.load`: no alignment needed.
    #[inline(always)]
    unsafe fn load(p: *const f32) -> v128 {
        v128_load(p as *const v128)
    }
    #[inline(always)]
    unsafe fn store(p: *mut f32, v: v128) {
        v128_store(p as *mut v128, v)
    }
}
