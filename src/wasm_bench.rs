//! The benchmark pages' entry points (`bench/wasm-bench.html`, `bench/ab.html`): this
//! build's gemm, multiply-add peak, micro-kernel and training step, timed inside wasm. Only
//! in the bench builds (the `bench` feature, `scripts/build --bench`): the product has none.

use crate::copying::config::Config;
use crate::copying::train::Trainer;
use crate::run::Run;
use crate::wasm::js::settings_of;
use wasm_bindgen::prelude::*;

/// GFLOP/s of this build's gemm on an `m×k · k×n` product with A and/or B read transposed
/// (as the model reads them: `Aᵀ` for weight gradients, `Bᵀ` for weights), the rows of A, B
/// and C `a_apart`, `b_apart`, `c_apart` times their length apart (1: dense; the batch for one
/// sequence's rows of the step's (L, B, H) buffers), best of `reps` timings (for the benchmark
/// page; the page itself never calls it).
#[wasm_bindgen(js_name = benchGemm)]
#[allow(clippy::too_many_arguments)]
pub fn bench_gemm(
    m: usize,
    n: usize,
    k: usize,
    a_transposed: bool,
    b_transposed: bool,
    a_apart: usize,
    b_apart: usize,
    c_apart: usize,
    reps: u32,
) -> f64 {
    use crate::kernels::{gemm, Mat, MatMut};
    let mut rng = crate::rng::Rng::new(1, 0);
    let a = rng.uniform_vec(m * k * a_apart, -1.0, 1.0);
    let b = rng.uniform_vec(k * n * b_apart, -1.0, 1.0);
    let mut c = vec![0.0f32; m * n * c_apart];
    let mut run = || {
        gemm(
            m,
            n,
            k,
            Mat::spaced(&a, m, k, a_transposed, a_apart),
            Mat::spaced(&b, k, n, b_transposed, b_apart),
            0.0,
            MatMut::rows(&mut c, n * c_apart),
        )
    };
    gflops(2.0 * (m * n * k) as f64, reps, &mut run)
}

/// GFLOP/s of `run`, a call of `flops` floating-point operations: best of `reps` timings,
/// each of enough calls for about 1.5 GFLOP (tens of milliseconds, so that the timer's
/// resolution, 0.1 ms, is a fraction of a per cent).
fn gflops(flops: f64, reps: u32, run: &mut dyn FnMut()) -> f64 {
    let inner = ((1.5e9 / flops).ceil() as usize).max(1);
    flops / (best_time(reps, inner, run) * 1e-3) / 1e9
}

/// The measured multiply-add peak of this build in GFLOP/s (`kernels::peak`): the bound the
/// gemm's figure is a fraction of. Best of `reps` timings of about 50 ms each.
#[wasm_bindgen(js_name = benchPeak)]
pub fn bench_peak(reps: u32) -> f64 {
    use crate::kernels::peak::{flops, madd_loop};
    let mut sink = 0.0f32;
    // Short calls first, so that the optimised code exists before the long timed ones.
    best_time(1, 1, &mut || {
        sink += madd_loop(10_000, sink.min(1.0), 0.999_999, 1e-7)
    });
    let iters = 20_000_000;
    let ms = best_time(reps, 1, &mut || {
        sink += madd_loop(iters, sink.min(1.0), 0.999_999, 1e-7)
    });
    std::hint::black_box(sink); // the result is used: the loop cannot be dropped
    flops(iters) / (ms * 1e-3) / 1e9
}

#[wasm_bindgen]
extern "C" {
    /// `performance.now()` of the window or worker the module runs in: milliseconds, to 0.1
    /// ms in a page that is not cross-origin isolated. (`Date.now()`'s whole milliseconds
    /// made the gemm's figures, timings of about 35 ms, move in steps of 3%.)
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    fn now() -> f64;
}

/// Best time in ms of `reps` timings of `inner` calls of `f`, after calling `f` for 300 ms
/// untimed: V8 first runs a wasm function in its baseline compiler and switches to the
/// optimised code only for later calls, so the first calls measure the wrong compiler.
fn best_time(reps: u32, inner: usize, f: &mut dyn FnMut()) -> f64 {
    let start = now();
    while now() - start < 300.0 {
        f();
    }
    let mut best = f64::INFINITY;
    for _ in 0..reps.max(1) {
        let t0 = now();
        for _ in 0..inner {
            f();
        }
        best = best.min((now() - t0) / inner as f64);
    }
    best
}

/// Milliseconds per training step of `config` (evaluation excluded): the median of `reps`
/// timings, each of enough steps to last about 100 ms.
#[wasm_bindgen(js_name = benchStep)]
pub fn bench_step(config: JsValue, reps: u32) -> Result<f64, JsError> {
    let config = Config {
        eval_every: 100_000,
        ..settings_of(&config).map_err(|e| JsError::new(&e.to_string()))?
    };
    let mut t = Trainer::new(config).map_err(|e| JsError::new(&e.to_string()))?;
    let mut step = || {
        t.step()
            .map(|_| ())
            .map_err(|e| JsError::new(&e.to_string()))
    };
    let t0 = now();
    step()?; // also the warm-up
    let inner = (100.0 / (now() - t0).max(0.5)).ceil() as usize;
    let mut times = Vec::new();
    for _ in 0..reps.max(1) {
        let t0 = now();
        for _ in 0..inner {
            step()?;
        }
        times.push((now() - t0) / inner as f64);
    }
    times.sort_by(f64::total_cmp);
    Ok(times[times.len() / 2])
}

/// GFLOP/s of this build's micro-kernel alone ([`crate::kernels::micro_tile`]) on
/// one pair of packed panels of depth `kc`, which stay in L1: the inner loop's own bound,
/// without the packing and write-back of a gemm. Best of `reps` timings (for the benchmark
/// page).
#[wasm_bindgen(js_name = benchTile)]
pub fn bench_tile(kc: usize, reps: u32) -> f64 {
    let (flops, mut run) = crate::kernels::tile_bench(kc);
    gflops(flops, reps, &mut run)
}
