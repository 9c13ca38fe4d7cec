//! The wasm `simd128` micro-kernel: a 4×8 tile held in eight `v128` accumulators, fed by two
//! vector loads of packed B and four broadcasts of packed A per depth step. With the
//! `relaxed-simd` target feature the multiply-add is fused (`f32x4.relaxed_madd`).

use super::blocked::{MicroKernel, MAX_TILE};
use core::arch::wasm32::*;

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
    const MR: usize = 4;
    const NR: usize = 8;

    #[inline(always)]
    fn tile(kc: usize, a: &[f32], b: &[f32], out: &mut [f32; MAX_TILE]) {
        assert!(a.len() >= kc * 4 && b.len() >= kc * 8);
        let z = f32x4_splat(0.0);
        let (mut c00, mut c01, mut c10, mut c11) = (z, z, z, z);
        let (mut c20, mut c21, mut c30, mut c31) = (z, z, z, z);
        let (ap, bp) = (a.as_ptr(), b.as_ptr());
        for p in 0..kc {
            // SAFETY: p < kc and the lengths were checked above, so every read is in bounds;
            // v128 loads have no alignment requirement.
            unsafe {
                let b0 = v128_load(bp.add(p * 8) as *const v128);
                let b1 = v128_load(bp.add(p * 8 + 4) as *const v128);
                let a0 = f32x4_splat(*ap.add(p * 4));
                let a1 = f32x4_splat(*ap.add(p * 4 + 1));
                let a2 = f32x4_splat(*ap.add(p * 4 + 2));
                let a3 = f32x4_splat(*ap.add(p * 4 + 3));
                c00 = madd(a0, b0, c00);
                c01 = madd(a0, b1, c01);
                c10 = madd(a1, b0, c10);
                c11 = madd(a1, b1, c11);
                c20 = madd(a2, b0, c20);
                c21 = madd(a2, b1, c21);
                c30 = madd(a3, b0, c30);
                c31 = madd(a3, b1, c31);
            }
        }
        let o = out.as_mut_ptr();
        // SAFETY: the tile is 4×8 = 32 ≤ MAX_TILE floats.
        unsafe {
            for (i, v) in [c00, c01, c10, c11, c20, c21, c30, c31]
                .into_iter()
                .enumerate()
            {
                v128_store(o.add(i * 4) as *mut v128, v);
            }
        }
    }
}
