//! The GPU backend in a browser, through its WebGPU (in the README's test command: headless
//! Chromium with `--enable-unsafe-webgpu`, whose adapter is SwiftShader's): the kernels that
//! `tests/gpu.rs` holds to the CPU model natively, compiled by the browser's own WGSL
//! compiler, train the reference run as the CPU does. Built with the `webgpu` feature.
#![cfg(all(target_arch = "wasm32", feature = "webgpu"))]

mod common;

use attention_playground::copying::config::Config;
use attention_playground::copying::gpu::GpuTrainer;
use attention_playground::copying::metrics::Evaluation;
use attention_playground::copying::train::Trainer;
use attention_playground::run::{Metrics, Run};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Ten steps of the reference run (two heads, both directions) evaluated every 5, GPU
/// against CPU: each loss within 1e-4 (relative), each evaluation's metrics within 1e-3.
#[wasm_bindgen_test]
async fn ten_steps_follow_the_cpu_run_in_the_browser() {
    let config = Config {
        eval_every: 5,
        ..common::reference_config()
    };
    let mut gpu = GpuTrainer::request(config.clone())
        .await
        .unwrap_or_else(|e| panic!("the browser gave no GPU: {e}"));
    let mut cpu = Trainer::new(config).unwrap();
    for step in 0..10 {
        let (a, b) = (cpu.step().unwrap(), gpu.step_async().await.unwrap());
        assert!(
            (a - b).abs() <= 1e-4 * a,
            "step {step}: loss {b} on the GPU, {a} on the CPU"
        );
    }
    let (ha, hb) = (cpu.history(), gpu.history());
    assert_eq!(hb.len(), 3);
    for ((sa, ea), (sb, eb)) in ha.iter().zip(hb.iter()) {
        assert_eq!(sa, sb);
        for (i, name) in Evaluation::METRICS.iter().enumerate() {
            let (x, y) = (ea.metric(i), eb.metric(i));
            assert!(
                (x - y).abs() <= 1e-3,
                "step {sa}: {name} {y} on the GPU, {x} on the CPU"
            );
        }
    }
}
