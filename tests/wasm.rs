//! WebAssembly tests, run by wasm-bindgen-test-runner in Node and in headless Chromium, once
//! per kernel build (scalar, simd128, relaxed-SIMD): the build's gemm equals the scalar
//! reference on sizes that are not multiples of the vector width, so does its dot-product
//! kernel (the simd128 builds: equal to its portable twin, bit for bit without relaxed-SIMD),
//! and a run through the wasm facade matches the committed native reference run.
#![cfg(target_arch = "wasm32")]

mod common;

use attention_playground::copying::train::Evaluation;
use attention_playground::kernels::{dot, scalar};
use attention_playground::rng::Rng;
use attention_playground::wasm::{kernel_variant, WasmTrainer};
use common::{
    check_dot, check_gemm, reference_config, GemmFn, ALL_GEMM_CASES, DOT_SHAPES, LOSS_RTOL,
    REFERENCE_RUN,
};
use wasm_bindgen_test::*;

#[wasm_bindgen_test]
fn gemm_matches_the_scalar_reference_on_odd_sizes() {
    let shapes = [
        (1, 1, 1),
        (3, 7, 5),
        (5, 9, 13),
        (17, 33, 3),
        (61, 27, 259),
        (4, 8, 8),
        (9, 1030, 261), // beyond one packed block of B's columns and of the depth
        (6, 10, 29),    // the dot-product kernel's edge tiles, with depths left over
        (3, 9, 29),     // at each of their unrollings
        (41, 41, 256),  // one sequence's attention scores at the paper size
        (41, 256, 41),  // its α·h
    ];
    let scalar: (&str, GemmFn) = ("scalar", scalar::gemm);
    let build = kernel_variant();
    let mut rng = Rng::new(5, 0);
    check_gemm(&mut rng, &shapes, &ALL_GEMM_CASES, &[scalar], &build);
    let twin: (&str, GemmFn) = ("gemm_dot (portable lanes)", dot::gemm_dot::<dot::Portable>);
    check_dot(&mut rng, &DOT_SHAPES, twin, scalar, 1e-6, &build);
    #[cfg(target_feature = "simd128")]
    {
        use attention_playground::kernels::simd128::Simd128;
        let simd: (&str, GemmFn) = ("gemm_dot (simd128 lanes)", dot::gemm_dot::<Simd128>);
        check_dot(&mut rng, &DOT_SHAPES, simd, scalar, 1e-6, &build);
        // Unfused, the vector lanes and their twin add the same products in the same order.
        let exact = if cfg!(target_feature = "relaxed-simd") {
            1e-6
        } else {
            0.0
        };
        check_dot(&mut rng, &DOT_SHAPES, simd, twin, exact, &build);
    }
}

#[wasm_bindgen_test]
fn facade_run_matches_the_native_reference() {
    let want: Vec<f32> = REFERENCE_RUN.lines().map(|l| l.parse().unwrap()).collect();
    let config = serde_wasm_bindgen::to_value(&reference_config()).unwrap();
    let mut t =
        WasmTrainer::new("copying", config, None).unwrap_or_else(|_| panic!("config refused"));
    let mut got: Vec<f32> = (0..20).map(|_| t.steps(1).expect("step failed")).collect();
    // The history as the page gets it: one typed array per metric.
    let history = t.history().unwrap_or_else(|_| panic!("history"));
    let column = |key: &str| -> Vec<f32> {
        let v = js_sys::Reflect::get(&history, &key.into()).unwrap();
        js_sys::Float32Array::from(v).to_vec()
    };
    let columns: Vec<Vec<f32>> = Evaluation::METRICS[..5].iter().map(|k| column(k)).collect();
    for i in 0..columns[0].len() {
        got.extend(columns.iter().map(|c| c[i]));
    }
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!(
            (g - w).abs() <= LOSS_RTOL * w.abs().max(1.0),
            "{}: value {i}: wasm {g} vs native reference {w}",
            kernel_variant()
        );
    }
}

#[wasm_bindgen_test]
fn facade_refuses_a_bad_setting_with_its_name() {
    let bad = serde_wasm_bindgen::to_value(&attention_playground::copying::config::Config {
        heads: 0,
        ..reference_config()
    })
    .unwrap();
    let err = WasmTrainer::new("copying", bad, None)
        .err()
        .expect("refused");
    let kind = js_sys::Reflect::get(&err, &"kind".into()).unwrap();
    assert_eq!(kind.as_string().as_deref(), Some("setting"));
    let msg = js_sys::Error::from(err).message();
    assert!(String::from(msg).starts_with("Heads K (heads): must be"));
}

#[wasm_bindgen_test]
fn validate_config_reads_text_and_names_the_refused_field() {
    use attention_playground::wasm::validate_config;
    let settings = |pairs: &[(&str, wasm_bindgen::JsValue)]| {
        let o = js_sys::Object::new();
        for (k, v) in pairs {
            js_sys::Reflect::set(&o, &(*k).into(), v).unwrap();
        }
        wasm_bindgen::JsValue::from(o)
    };
    let ok = validate_config(
        "copying",
        settings(&[
            ("hidden", "48".into()),
            ("seed", 7.0.into()),
            ("distinct", "0".into()),
        ]),
    )
    .expect("accepted");
    let get = |k: &str| js_sys::Reflect::get(&ok, &k.into()).unwrap();
    assert_eq!(get("hidden").as_f64(), Some(48.0));
    assert_eq!(get("seed").as_f64(), Some(7.0));
    assert_eq!(get("distinct").as_bool(), Some(false));
    for (key, value, want) in [
        (
            "hidden",
            wasm_bindgen::JsValue::from("-1"),
            "Width H (hidden): must be a whole number from 1 to 1024, got “-1”",
        ),
        (
            "vocab",
            wasm_bindgen::JsValue::NULL,
            "Vocabulary V (vocab): must be a whole number from 2 to 500, got null",
        ),
        (
            "seed",
            wasm_bindgen::JsValue::from(-1.0),
            "Seed (seed): must be a whole number from 0 to 9007199254740991, got -1",
        ),
    ] {
        let err = validate_config("copying", settings(&[(key, value)])).expect_err(key);
        let field = js_sys::Reflect::get(&err, &"field".into()).unwrap();
        assert_eq!(field.as_string().as_deref(), Some(key));
        assert_eq!(String::from(js_sys::Error::from(err).message()), want);
    }
}

/// The facade's errors carry the run's kind: weights that do not fit are `weights`, a live
/// setting out of range or one that is not live is `setting` (naming the field), a step that
/// diverges is `diverged`; each leaves the run as it was.
#[wasm_bindgen_test]
fn facade_errors_carry_their_kind() {
    use attention_playground::optim::OptimizerKind;
    let kind = |e: &wasm_bindgen::JsValue| {
        js_sys::Reflect::get(e, &"kind".into())
            .unwrap()
            .as_string()
            .unwrap_or_default()
    };
    let config = serde_wasm_bindgen::to_value(&reference_config()).unwrap();
    let mut t = WasmTrainer::new("copying", config, None).unwrap_or_else(|_| panic!("refused"));
    let params = t.params().to_vec();
    let err = t.load_params(&params[1..], 0.0).expect_err("refused");
    assert_eq!(kind(&err), "weights");
    let err = t
        .set_live("learning_rate", (-1.0).into())
        .expect_err("refused");
    assert_eq!(kind(&err), "setting");
    let field = js_sys::Reflect::get(&err, &"field".into()).unwrap();
    assert_eq!(field.as_string().as_deref(), Some("learning_rate"));
    let err = t.set_live("hidden", 8.0.into()).expect_err("not live");
    assert_eq!(kind(&err), "setting");
    assert_eq!(t.step(), 0.0, "nothing trained");
    t.set_live("learning_rate", 0.5.into())
        .unwrap_or_else(|_| panic!("a live setting in range"));
    let steep = attention_playground::copying::config::Config {
        optimizer: OptimizerKind::Sgd,
        learning_rate: 100.0,
        ..reference_config()
    };
    let config = serde_wasm_bindgen::to_value(&steep).unwrap();
    let mut t = WasmTrainer::new("copying", config, None).unwrap_or_else(|_| panic!("refused"));
    let err = t.steps(500).expect_err("lr 100 with SGD diverges");
    assert_eq!(kind(&err), "diverged");
}
