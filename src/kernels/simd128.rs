//! The wasm `simd128` micro-kernel: a 4×8 tile held in eight `v128` accumulators, fed by
//! two vector loads of packed B and four broadcasts of packed A per depth step. With the
//! `relaxed-simd` target feature the multiply-add is fused (`f32x4.relaxed_madd`).

use super::blocked::{MicroKernel, MAX_TILE};
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
