//! `bench`: prints a table of the native training step's speed (single-threaded) at the
//! small preset and the paper size, and of the matrix kernel at the shapes the paper-size
//! step uses, for this build's gemm, ndarray's `general_mat_mul` and the scalar reference.
//! Needs the `bench` feature. Usage: `cargo run --release --features bench --bin bench
//! [-- --quick] [-- --json]` (`--json`: one line for `scripts/bench.js`, the whole
//! benchmark), or `… --bin bench -- --steps PRESET N`: the median ms of N training steps of
//! PRESET alone, as the number on one line (for the rounds of
//! `scripts/bench-interleaved.js`, which alternate it with the wasm step). `… --bin bench --
//! --gpu [--quick]`: the GPU backend's step against the native CPU step, at both sizes, with
//! the share of the GPU's measured multiply-add peak it reaches, as one markdown table.

use attention_playground::copying::config::Config;
use attention_playground::copying::gpu::{Gpu, GpuSweep, GpuTrainer};
use attention_playground::copying::train::Trainer;
use attention_playground::kernels::{flops, gemm, scalar, tile_bench, Mat, MatMut};
use attention_playground::rng::Rng;
use attention_playground::run::Run;
use ndarray::{linalg::general_mat_mul, ArrayView2, ArrayViewMut2, ShapeBuilder};
use std::time::Instant;

/// A gemm with the kernel API's signature.
type GemmFn = fn(usize, usize, usize, Mat, Mat, f32, MatMut);

/// ndarray's `general_mat_mul` on the same strided operands: the benchmark's reference point.
fn ndarray_gemm(m: usize, n: usize, k: usize, a: Mat, b: Mat, beta: f32, c: MatMut) {
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

/// Median of `reps` timings of `f`, in seconds, after one warm-up call.
fn time(reps: usize, mut f: impl FnMut()) -> f64 {
    f();
    let mut v: Vec<f64> = (0..reps)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .collect();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The products of the paper-size step that take its time: (m, k, n, A read transposed,
/// B read transposed, what it is, how many sequences apart the rows of A, B and C are), as in
/// `bench/shapes.js`.
type Shape = (usize, usize, usize, bool, bool, &'static str, [usize; 3]);
const SHAPES: [Shape; 6] = [
    (128, 256, 1024, false, true, "LSTM step h·W_hhᵀ", [1, 1, 1]),
    (
        128,
        1024,
        256,
        false,
        false,
        "LSTM backward dgates·W_hh",
        [1, 1, 1],
    ),
    (1024, 5248, 256, true, false, "dW_hh = dgatesᵀ·h", [1, 1, 1]),
    (
        5248,
        256,
        256,
        false,
        true,
        "W·[d; c] over all tokens",
        [1, 1, 1],
    ),
    (
        41,
        256,
        41,
        false,
        true,
        "scores of one sequence",
        [128, 1, 1],
    ),
    (
        41,
        41,
        256,
        false,
        false,
        "context α·h of one sequence",
        [1, 1, 128],
    ),
];

/// Median ms per training step of `preset` (evaluation excluded) over `reps` steps, after
/// one; and the GFLOP of the products of one step (every step has the same).
fn step_ms(preset: &str, reps: usize) -> (f64, f64) {
    let c = Config {
        eval_every: 100_000,
        ..Config::preset(preset).unwrap_or_else(|| panic!("no preset {preset}"))
    };
    let mut t = Trainer::new(c).unwrap();
    let (before, mut steps) = (flops(), 0);
    let ms = time(reps, || {
        t.step().unwrap();
        steps += 1;
    }) * 1e3;
    (ms, (flops() - before) as f64 / steps as f64 / 1e9)
}

/// The GPU backend's table: per size, the native CPU step, the GPU step as a run takes it
/// (its loss read back before the next) and back to back (`n` steps submitted at once: the
/// GPU's own time), the step's GFLOP and the share of the device's peak it reaches.
fn gpu_table(quick: bool) {
    let gpu = match Gpu::new() {
        Ok(g) => g,
        Err(e) => {
            println!("{e}");
            return;
        }
    };
    println!("GPU: {}", gpu.describe());
    let mut peak = None;
    println!("\n| size | dispatches | native CPU ms/step | GPU ms/step, read back | GPU ms/step, back to back | GFLOP/step | GPU GFLOP/s | share of peak |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for (name, reps) in [
        ("small-easy", if quick { 5 } else { 20 }),
        ("easy", if quick { 2 } else { 5 }),
    ] {
        let (cpu_ms, gflop) = step_ms(name, reps);
        let c = Config {
            eval_every: 100_000,
            ..Config::preset(name).expect("a preset")
        };
        let mut t = GpuTrainer::on(gpu.clone(), c).unwrap_or_else(|e| panic!("{e}"));
        let read_ms = time(reps, || {
            t.step().unwrap();
        }) * 1e3;
        let m = t.model();
        let back_ms = m.time_steps(reps) / reps as f64 * 1e3;
        let peak = *peak.get_or_insert_with(|| m.peak_gflops());
        let rate = gflop / (back_ms / 1e3);
        println!(
            "| {name} | {} | {cpu_ms:.1} | {read_ms:.1} | {back_ms:.1} | {gflop:.2} | {rate:.1} | {:.1}% |",
            m.dispatches(),
            100.0 * rate / peak
        );
    }
    println!(
        "\npeak: {:.1} GFLOP/s, 16 independent multiply-adds per thread in registers (kernels::peak_gflops)",
        peak.unwrap_or(f64::NAN)
    );
    // The paper's figure: 20 seeds × 200 steps at the paper size, batched, evaluated every
    // 10 steps as the tools do. A software driver would take hours: skipped there.
    if gpu.is_software() {
        println!("\n20-seed × 200-step paper-size sweep: skipped on a software adapter");
        return;
    }
    let c = Config::preset("easy").expect("a preset");
    let seeds: Vec<u64> = (0..20).collect();
    let chunk = GpuSweep::capacity(&gpu, &c);
    let steps = if quick { 20 } else { 200 };
    let start = Instant::now();
    for part in seeds.chunks(chunk) {
        let mut sweep =
            GpuSweep::new(gpu.clone(), c.clone(), part).unwrap_or_else(|e| panic!("{e}"));
        for _ in 0..steps {
            sweep.step().unwrap_or_else(|e| panic!("{e}"));
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "\n20-seed × {steps}-step paper-size sweep, batched ({chunk} seeds at once): {secs:.1} s{}",
        if quick { " (--quick: 20 steps)" } else { "" }
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--steps") {
        let preset = args.get(i + 1).expect("--steps PRESET N");
        let reps = args
            .get(i + 2)
            .and_then(|n| n.parse().ok())
            .expect("--steps PRESET N");
        println!("{}", step_ms(preset, reps).0);
        return;
    }
    let quick = args.iter().any(|a| a == "--quick");
    if args.iter().any(|a| a == "--gpu") {
        gpu_table(quick);
        return;
    }
    let json = args.iter().any(|a| a == "--json");
    let mut steps = Vec::new();
    for (name, reps) in [("small-easy", 40), ("easy", if quick { 3 } else { 7 })] {
        steps.push((name, step_ms(name, reps)));
    }
    let mut rng = Rng::new(1, 0);
    let mut kernels = Vec::new();
    for (m, k, n, ta, tb, what, [a_apart, b_apart, c_apart]) in SHAPES {
        let a = rng.uniform_vec(m * k * a_apart, -1.0, 1.0);
        let b = rng.uniform_vec(k * n * b_apart, -1.0, 1.0);
        let am = Mat::spaced(&a, m, k, ta, a_apart);
        let bm = Mat::spaced(&b, k, n, tb, b_apart);
        let (mut c, ldc) = (vec![0.0f32; m * n * c_apart], n * c_apart);
        let flops = 2.0 * (m * n * k) as f64;
        // Enough repetitions inside each timing for about 0.2 s.
        let inner = ((2e9 / flops).ceil() as usize).max(1);
        let reps = if quick { 3 } else { 7 };
        let mut run = |f: GemmFn| {
            time(reps, || {
                for _ in 0..inner {
                    f(m, n, k, am, bm, 0.0, MatMut::rows(&mut c, ldc));
                }
            }) / inner as f64
        };
        let tb_ = run(gemm);
        let tn = run(ndarray_gemm);
        let ts = if flops < 1e9 {
            Some(time(1, || {
                scalar::gemm(m, n, k, am, bm, 0.0, MatMut::rows(&mut c, ldc))
            }))
        } else {
            None
        };
        kernels.push((
            m,
            k,
            n,
            what,
            flops / tb_ / 1e9,
            flops / tn / 1e9,
            ts.map(|t| flops / t / 1e9),
        ));
    }
    // The micro-kernel alone at the depths of the large products and of the context α·h.
    let tiles: Vec<(usize, f64)> = [256, 41]
        .into_iter()
        .map(|kc| {
            let (flops, mut run) = tile_bench(kc);
            let inner = ((2e9 / flops).ceil() as usize).max(1);
            let t = time(if quick { 3 } else { 7 }, || {
                for _ in 0..inner {
                    run();
                }
            }) / inner as f64;
            (kc, flops / t / 1e9)
        })
        .collect();
    if json {
        // One line for scripts/bench.js.
        let step_ms: Vec<String> = steps
            .iter()
            .map(|(name, (ms, _))| format!("\"{name}\": {ms}"))
            .collect();
        let step_gflop: Vec<String> = steps
            .iter()
            .map(|(name, (_, g))| format!("\"{name}\": {g}"))
            .collect();
        let gemm: Vec<String> = kernels
            .iter()
            .map(|(m, k, n, _, g, _, _)| format!("\"{m}×{k}·{k}×{n}\": {g}"))
            .collect();
        let tile: Vec<String> = tiles
            .iter()
            .map(|(kc, g)| format!("\"{kc}\": {g}"))
            .collect();
        println!(
            "{{\"arch\": \"{}\", \"stepMs\": {{{}}}, \"stepGflop\": {{{}}}, \"gflops\": {{{}}}, \"tile\": {{{}}}}}",
            std::env::consts::ARCH,
            step_ms.join(", "),
            step_gflop.join(", "),
            gemm.join(", "),
            tile.join(", ")
        );
        return;
    }
    println!(
        "# native benchmark (single thread, {})",
        std::env::consts::ARCH
    );
    println!();
    println!("## training step (median of timed steps; evaluation excluded)");
    println!();
    println!(
        "| config | H | L | batch | ms / step | steps / s | GFLOP of its products | GFLOP/s |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for (name, (ms, gflop)) in &steps {
        let c = Config::preset(name).unwrap();
        println!(
            "| {name} | {} | {} | {} | {:.2} | {:.1} | {:.3} | {:.1} |",
            c.hidden,
            c.length,
            c.batch,
            ms,
            1e3 / ms,
            gflop,
            gflop / ms * 1e3
        );
    }
    println!();
    println!("## matrix kernel, GFLOP/s (C = A·B, shapes and transposes of the paper-size step)");
    println!();
    println!("| shape m×k·k×n | where | gemm | ndarray | scalar | gemm / ndarray |");
    println!("|---|---|---:|---:|---:|---:|");
    for (m, k, n, what, g, gn, gs) in kernels {
        let gs = gs.map_or("–".to_string(), |g| format!("{g:.1}"));
        println!(
            "| {m}×{k}·{k}×{n} | {what} | {g:.1} | {gn:.1} | {gs} | {:.2} |",
            g / gn
        );
    }
    println!();
    for (kc, g) in tiles {
        println!("micro-kernel alone (packed panels in L1), depth {kc}: {g:.1} GFLOP/s");
    }
}
