//! `bench`: prints a table of the native training step's speed (single-threaded) at the
//! small preset and the paper size, and of the matrix kernel at the shapes the paper-size
//! step uses, for the blocked kernel, ndarray's `general_mat_mul` and the scalar reference.
//! Usage: `cargo run --release --bin bench [-- --quick]`.

use attention_playground::config::Config;
use attention_playground::kernels::{blocked, ndarray_gemm, scalar, Mat, MatMut};
use attention_playground::rng::Rng;
use attention_playground::train::Trainer;
use std::time::Instant;

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

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    println!(
        "# native benchmark (single thread, {})",
        std::env::consts::ARCH
    );
    println!();
    println!("## training step (median of timed steps; evaluation excluded)");
    println!();
    println!("| config | H | L | batch | ms / step | steps / s |");
    println!("|---|---:|---:|---:|---:|---:|");
    for (name, reps) in [("small-easy", 40), ("easy", if quick { 3 } else { 7 })] {
        let c = Config {
            eval_every: 100_000,
            ..Config::preset(name).unwrap()
        };
        let mut t = Trainer::new(c.clone()).unwrap();
        let s = time(reps, || {
            t.step().unwrap();
        });
        println!(
            "| {name} | {} | {} | {} | {:.2} | {:.1} |",
            c.hidden,
            c.length,
            c.batch,
            s * 1e3,
            1.0 / s
        );
    }
    println!();
    println!("## matrix kernel, GFLOP/s (C = A·B, shapes of the paper-size step)");
    println!();
    println!("| shape m×k·k×n | where | blocked | ndarray | scalar | blocked / ndarray |");
    println!("|---|---|---:|---:|---:|---:|");
    let shapes = [
        (128, 256, 1024, "LSTM step h·W_hhᵀ"),
        (1024, 5248, 256, "dW_hh = dgatesᵀ·h"),
        (5248, 256, 256, "W [d; c] over all tokens"),
        (41, 256, 41, "scores of one sequence"),
        (5248, 256, 62, "output logits"),
    ];
    let mut rng = Rng::new(1, 0);
    for (m, k, n, what) in shapes {
        let a: Vec<f32> = (0..m * k).map(|_| rng.uniform_range(-1.0, 1.0)).collect();
        let b: Vec<f32> = (0..k * n).map(|_| rng.uniform_range(-1.0, 1.0)).collect();
        let mut c = vec![0.0f32; m * n];
        let flops = 2.0 * (m * n * k) as f64;
        let reps = if quick { 3 } else { 9 };
        let tb = time(reps, || {
            blocked::gemm(
                m,
                n,
                k,
                Mat::rows(&a, k),
                Mat::rows(&b, n),
                0.0,
                MatMut::rows(&mut c, n),
            )
        });
        let tn = time(reps, || {
            ndarray_gemm(
                m,
                n,
                k,
                Mat::rows(&a, k),
                Mat::rows(&b, n),
                0.0,
                MatMut::rows(&mut c, n),
            )
        });
        let ts = if flops < 1e9 {
            let t = time(1, || {
                scalar::gemm(
                    m,
                    n,
                    k,
                    Mat::rows(&a, k),
                    Mat::rows(&b, n),
                    0.0,
                    MatMut::rows(&mut c, n),
                )
            });
            format!("{:.1}", flops / t / 1e9)
        } else {
            "–".to_string()
        };
        println!(
            "| {m}×{k}·{k}×{n} | {what} | {:.1} | {:.1} | {ts} | {:.2} |",
            flops / tb / 1e9,
            flops / tn / 1e9,
            tn / tb
        );
    }
}
