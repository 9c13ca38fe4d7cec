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

/// The facade's `GpuTrainer`, as the page's worker drives it: its steps resolve with the
/// CPU run's losses, a call while another is pending is refused (kind `internal`) and leaves
/// the run as it was, its snapshot has the CPU Trainer's shape, a reset starts again, and a
/// lab without a GPU backend or bad settings are refused with their kind.
#[wasm_bindgen_test]
async fn the_facades_gpu_trainer_steps_as_the_cpu_trainer() {
    use attention_playground::wasm::gpu::gpu_trainer;
    use attention_playground::wasm::WasmTrainer;
    use wasm_bindgen::JsValue;
    use wasm_bindgen_futures::JsFuture;
    let kind = |e: &JsValue| js_sys::Reflect::get(e, &"kind".into()).unwrap().as_string();
    let config = serde_wasm_bindgen::to_value(&common::reference_config()).unwrap();
    let gpu = gpu_trainer("copying".into(), config.clone())
        .await
        .unwrap_or_else(|_| panic!("the browser gave no GPU"));
    assert!(!gpu.device().is_empty());
    let mut cpu = WasmTrainer::new("copying", config.clone(), None).unwrap_or_else(|_| panic!());
    let a = cpu.steps(3).unwrap_or_else(|_| panic!());
    let first = gpu.steps(3);
    let second = gpu.steps(1);
    let refused = JsFuture::from(second).await.unwrap_err();
    assert_eq!(kind(&refused).as_deref(), Some("internal"));
    let b = JsFuture::from(first).await.unwrap().as_f64().unwrap() as f32;
    assert!(
        (a - b).abs() <= 1e-4 * a,
        "loss {b} on the GPU, {a} on the CPU"
    );
    assert_eq!(gpu.step(), 3.0);
    let snap = gpu.snapshot(js_sys::Object::new().into()).unwrap();
    let get = |k: &str| js_sys::Reflect::get(&snap, &k.into()).unwrap();
    assert_eq!(get("backend").as_string().as_deref(), Some("gpu"));
    assert_eq!(get("step").as_f64(), Some(3.0));
    let alpha: js_sys::Float32Array = get("alpha").into();
    let l = common::reference_config().length as u32 + 1;
    assert_eq!(alpha.length(), l * l);
    JsFuture::from(gpu.reset(None).unwrap()).await.unwrap();
    assert_eq!(gpu.step(), 0.0);
    let params: js_sys::Float32Array = JsFuture::from(gpu.params()).await.unwrap().into();
    assert_eq!(params.length() as usize, cpu.params().length() as usize);
    let no = gpu_trainer("sparse".into(), JsValue::from(js_sys::Object::new())).await;
    assert_eq!(kind(&no.err().unwrap()).as_deref(), Some("backend"));
    let bad = serde_wasm_bindgen::to_value(&attention_playground::copying::config::Config {
        hidden: 0,
        ..common::reference_config()
    })
    .unwrap();
    let refused = gpu_trainer("copying".into(), bad).await;
    assert_eq!(kind(&refused.err().unwrap()).as_deref(), Some("setting"));
}
