//! The multiply-add peak of this build: `CHAINS` independent accumulators, each updated as
//! `acc = acc·m + c` (fused where the build has relaxed-SIMD), so nothing but the arithmetic
//! units bounds the loop. The benchmark divides the gemm's GFLOP/s by this figure (the
//! `bench` feature only).

/// Floating-point operations per call of [`madd_loop`] with `iters` iterations.
pub fn flops(iters: usize) -> f64 {
    (iters * CHAINS * LANES * 2) as f64
}

/// Independent accumulator chains: enough to cover the latency of a multiply followed by an
/// add (≈ 6 cycles) at two of each per cycle, and few enough to stay in 16 vector registers.
pub const CHAINS: usize = 12;

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
const LANES: usize = 4;
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
const LANES: usize = 1;

/// Runs `iters` rounds of the chains from `x` and returns their sum (so nothing is dead).
/// `m` and `c` come from the caller so that the compiler cannot fold the loop.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(never)]
pub fn madd_loop(iters: usize, x: f32, m: f32, c: f32) -> f32 {
    use core::arch::wasm32::*;
    let (mv, cv) = (f32x4_splat(m), f32x4_splat(c));
    let mut acc = [f32x4_splat(x); CHAINS];
    for (i, a) in acc.iter_mut().enumerate() {
        *a = f32x4_add(*a, f32x4_splat(i as f32));
    }
    for _ in 0..iters {
        for a in acc.iter_mut() {
            #[cfg(target_feature = "relaxed-simd")]
            {
                *a = f32x4_relaxed_madd(*a, mv, cv);
            }
            #[cfg(not(target_feature = "relaxed-simd"))]
            {
                *a = f32x4_add(f32x4_mul(*a, mv), cv);
            }
        }
    }
    let mut s = f32x4_splat(0.0);
    for a in acc {
        s = f32x4_add(s, a);
    }
    f32x4_extract_lane::<0>(s)
        + f32x4_extract_lane::<1>(s)
        + f32x4_extract_lane::<2>(s)
        + f32x4_extract_lane::<3>(s)
}

/// The scalar build's loop: the same chains on single floats.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
#[inline(never)]
pub fn madd_loop(iters: usize, x: f32, m: f32, c: f32) -> f32 {
    let mut acc = [x; CHAINS];
    for (i, a) in acc.iter_mut().enumerate() {
        *a += i as f32;
    }
    for _ in 0..iters {
        for a in acc.iter_mut() {
            *a = *a * m + c;
        }
    }
    acc.iter().sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loop_computes_the_affine_recurrence() {
        // acc_i after n rounds of acc·m + c, with m = 0.5, c = 1: converges towards 2.
        let got = madd_loop(40, 0.0, 0.5, 1.0);
        assert!((got - 2.0 * CHAINS as f32).abs() < 1e-4, "{got}");
        assert_eq!(
            madd_loop(0, 1.0, 0.5, 1.0),
            (0..CHAINS).map(|i| 1.0 + i as f32).sum()
        );
    }
}
