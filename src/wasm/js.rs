//! Small translations between Rust and JS values for the facade: serde to JS, errors,
//! object properties, typed arrays' buffers, the wasm memory's size, seeds.

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

pub fn to_js<T: serde::Serialize + ?Sized>(value: &T) -> Result<JsValue, JsError> {
    serde_wasm_bindgen::to_value(value).map_err(|e| JsError::new(&e.to_string()))
}

pub fn error(e: impl std::fmt::Display) -> JsError {
    JsError::new(&e.to_string())
}

/// A refused setting as a JS `Error` whose `field` is the setting's key.
pub fn refusal(e: &crate::config::ConfigError) -> JsValue {
    let err = js_sys::Error::new(&e.to_string());
    // Setting a property of a fresh Error cannot fail.
    let _ = Reflect::set(
        &err,
        &JsValue::from_str("field"),
        &JsValue::from_str(&e.field),
    );
    err.into()
}

/// `obj[key] = value`.
pub fn set(obj: &Object, key: &str, value: &JsValue) -> Result<(), JsError> {
    Reflect::set(obj, &JsValue::from_str(key), value)
        .map(|_| ())
        .map_err(|_| JsError::new(&format!("could not set {key}")))
}

/// `obj[key]`, undefined if absent.
pub fn get(obj: &JsValue, key: &str) -> JsValue {
    Reflect::get(obj, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

/// The wasm memory's size in bytes (it only grows).
pub fn memory_bytes() -> f64 {
    let memory: js_sys::WebAssembly::Memory = wasm_bindgen::memory().unchecked_into();
    memory
        .buffer()
        .unchecked_into::<js_sys::ArrayBuffer>()
        .byte_length() as f64
}

/// A whole number from JS, from 0 to 2^53 − 1 (a seed, a step); the error names `field`.
pub fn whole_of(field: &str, x: f64) -> Result<u64, JsError> {
    if x >= 0.0 && x.fract() == 0.0 && x <= 9_007_199_254_740_991.0 {
        Ok(x as u64)
    } else {
        Err(JsError::new(&format!(
            "{field}: must be a whole number from 0 to 2^53 − 1, got {x}"
        )))
    }
}

/// A seed from JS, if given ([`whole_of`]).
pub fn seed_of(seed: Option<f64>) -> Result<Option<u64>, JsError> {
    seed.map(|s| whole_of("seed", s)).transpose()
}

/// The buffers of typed arrays, for a post to transfer.
pub fn transfer_list(values: &[&JsValue]) -> Array {
    values.iter().map(|v| get(v, "buffer")).collect::<Array>()
}
