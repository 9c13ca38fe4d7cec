//! Benchmark-only kernel code, compiled with the `bench` feature alone: the FLOP counter that
//! `gemm` feeds and the timing harness of a micro-kernel alone. The product carries none of it.

use super::tile::MAX_TILE;
use std::cell::Cell;

thread_local! {
    /// Floating-point operations (two per multiply-add) of the products this thread has
    /// asked of `kernels::gemm` and `kernels::gemm_packed`: what a training step needs of
    /// the kernels.
    static FLOPS: Cell<u64> = const { Cell::new(0) };
}

/// The floating-point operations of every product this thread has run so far: the
/// difference across a training step is the arithmetic its products need, which at a
/// build's multiply-add peak sets the least time the step can take.
pub fn flops() -> u64 {
    FLOPS.with(Cell::get)
}

/// Counts the `2·m·n·k` operations of one product into [`flops`].
#[inline(always)]
pub fn count_flops(m: usize, n: usize, k: usize) {
    FLOPS.with(|f| f.set(f.get() + 2 * (m * n * k) as u64));
}

/// The flops of one call of `tile`, a micro-kernel of shape `(mr, nr)`, at depth `kc`, and a
/// closure making that call on fixed packed panels (its result kept, so that the call is not
/// dropped).
pub fn tile_bench(
    kc: usize,
    (mr, nr): (usize, usize),
    mut tile: impl FnMut(usize, &[f32], &[f32], &mut [f32; MAX_TILE]),
) -> (f64, impl FnMut()) {
    let a: Vec<f32> = (0..kc * mr).map(|i| (i % 7) as f32 * 0.01).collect();
    let b: Vec<f32> = (0..kc * nr).map(|i| (i % 5) as f32 * 0.01).collect();
    let mut out = [0.0f32; MAX_TILE];
    let run = move || {
        tile(kc, &a, &b, &mut out);
        std::hint::black_box(&out);
    };
    (2.0 * (mr * nr * kc) as f64, run)
}
