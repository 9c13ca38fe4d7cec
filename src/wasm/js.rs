//! Small translations between Rust and JS values for the facade: serde to JS, errors with
//! their kind, object properties, settings objects and the fields' list, series as columns,
//! typed arrays' buffers, the wasm memory's size, seeds.

use crate::run::{Metrics, RunError};
use crate::series::Series;
use crate::settings::{Field, Range, Settings, SettingsError, Value};
use js_sys::{Array, Float32Array, Float64Array, Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

pub fn to_js<T: serde::Serialize + ?Sized>(value: &T) -> Result<JsValue, JsError> {
    serde_wasm_bindgen::to_value(value).map_err(|e| JsError::new(&e.to_string()))
}

/// A run's refusal as a JS `Error` whose `kind` is its kind (`diverged`, `weights`,
/// `setting`, `internal`) and, for a refused setting, whose `field` is the setting's key.
pub fn run_error(e: &RunError) -> JsValue {
    let err = js_sys::Error::new(&e.to_string());
    // Setting a property of a fresh Error cannot fail.
    let _ = Reflect::set(&err, &"kind".into(), &e.kind().into());
    if let Some(field) = e.field() {
        let _ = Reflect::set(&err, &"field".into(), &field.into());
    }
    err.into()
}

/// A refused setting as a JS `Error` of kind `setting` whose `field` is the setting's key.
pub fn refusal(e: SettingsError) -> JsValue {
    run_error(&RunError::Setting(e))
}

/// The fields of a lab's settings as JS objects `{ key, words, live, kind, min, max,
/// choices }` (`kind`: `whole`, `positive`, `nonnegative`, `choice` or `switch`; `min` and `max` for a
/// number, `choices` `[{ name, words }]` for a choice).
pub fn fields_js(fields: &[Field]) -> Result<Array, JsError> {
    let out = Array::new();
    for f in fields {
        let o = Object::new();
        set(&o, "key", &f.key.into())?;
        set(&o, "words", &f.words.into())?;
        set(&o, "live", &f.live.into())?;
        let kind = match f.range {
            Range::Whole(lo, hi) => {
                set(&o, "min", &(lo as f64).into())?;
                set(&o, "max", &(hi as f64).into())?;
                "whole"
            }
            Range::Positive(max) => {
                set(&o, "min", &0.0.into())?;
                set(&o, "max", &max.into())?;
                "positive"
            }
            Range::NonNegative(max) => {
                set(&o, "min", &0.0.into())?;
                set(&o, "max", &max.into())?;
                "nonnegative"
            }
            Range::Choice(choices) => {
                let list = Array::new();
                for c in choices {
                    let choice = Object::new();
                    set(&choice, "name", &c.name.into())?;
                    set(&choice, "words", &c.words.into())?;
                    list.push(&choice);
                }
                set(&o, "choices", &list)?;
                "choice"
            }
            Range::Switch => "switch",
        };
        set(&o, "kind", &kind.into())?;
        out.push(&o);
    }
    Ok(out)
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

/// A lab's settings from a JS object, field by field (text, numbers or switches; a missing
/// field takes the default), validated: or the first refusal, naming its field and range.
pub fn settings_of<S: Settings>(value: &JsValue) -> Result<S, SettingsError> {
    let mut settings = S::default();
    each_setting(value, |key, v| settings.set(key, v))?;
    settings.validate()?;
    Ok(settings)
}

/// A lab's presets as an object of settings by name, in the order of `names`.
pub fn presets_of<S: serde::Serialize>(
    names: &[&str],
    preset: fn(&str) -> Option<S>,
) -> Result<JsValue, JsError> {
    let out = Object::new();
    for &name in names {
        let c = preset(name).expect("every listed preset exists");
        set(&out, name, &to_js(&c)?)?;
    }
    Ok(out.into())
}

/// Gives `set` each entry of a settings object from JS (its key, and its value as text, a
/// number, a switch or what else it is); stops at the first refusal. Anything but an
/// object of settings is refused as a whole.
fn each_setting(
    value: &JsValue,
    mut set: impl FnMut(&str, Value<'_>) -> Result<(), SettingsError>,
) -> Result<(), SettingsError> {
    if !value.is_object() || Array::is_array(value) {
        return Err(SettingsError::new(
            "settings",
            format!("must be an object of settings by name, got {}", what(value)),
        ));
    }
    for entry in Object::entries(value.unchecked_ref()).iter() {
        let entry: Array = entry.unchecked_into();
        let key = entry.get(0).as_string().unwrap_or_default();
        let v = entry.get(1);
        let text = v.as_string();
        set(&key, value_of(&v, text.as_deref()))?;
    }
    Ok(())
}

/// A JS value as a field's value (`text`: its text, if it is a string).
pub fn value_of<'a>(v: &JsValue, text: Option<&'a str>) -> Value<'a> {
    match (text, v.as_f64(), v.as_bool()) {
        (Some(t), _, _) => Value::Text(t),
        (_, Some(x), _) => Value::Number(x),
        (_, _, Some(b)) => Value::Switch(b),
        _ => Value::Other(what(v)),
    }
}

/// What a JS value is, as a message says it.
fn what(v: &JsValue) -> &'static str {
    if v.is_null() {
        "null"
    } else if v.is_undefined() {
        "nothing"
    } else if Array::is_array(v) {
        "a list"
    } else if v.is_object() {
        "an object"
    } else if v.as_string().is_some() {
        "text"
    } else if v.as_f64().is_some() {
        "a number"
    } else {
        "a value of another kind"
    }
}

/// The resolution and the step column of a series, into `out`; returns the step column.
pub fn series_head<T: Copy>(s: &Series<T>, out: &Object) -> Result<JsValue, JsError> {
    let r = s.resolution();
    set(out, "version", &(s.version() as f64).into())?;
    set(out, "stride", &(r.stride as f64).into())?;
    set(out, "recentFrom", &(r.recent_from as f64).into())?;
    let steps: Vec<f64> = s.iter().map(|(step, _)| step as f64).collect();
    let steps: JsValue = Float64Array::from(&steps[..]).into();
    set(out, "step", &steps)?;
    Ok(steps)
}

/// A run's evaluations as columns `{ version, stride, recentFrom, step, <metric>… }`, each
/// head's per-head metric too (`NAME_h1`…) with several heads; and the columns (to
/// transfer).
pub fn history<E: Metrics>(h: &Series<E>, heads: usize) -> Result<(Object, Vec<JsValue>), JsError> {
    let out = Object::new();
    let mut columns = vec![series_head(h, &out)?];
    let mut column = |name: &str, f: &dyn Fn(&E) -> f32| -> Result<(), JsError> {
        let values: Vec<f32> = h.iter().map(|(_, e)| f(&e)).collect();
        let values: JsValue = Float32Array::from(&values[..]).into();
        set(&out, name, &values)?;
        columns.push(values);
        Ok(())
    };
    for (i, name) in E::NAMES.iter().enumerate() {
        column(name, &|e| e.metric(i))?;
    }
    if let Some(name) = E::BY_HEAD.filter(|_| heads > 1) {
        for k in 0..heads {
            column(&format!("{name}_h{}", k + 1), &|e| e.by_head(k))?;
        }
    }
    Ok((out, columns))
}

/// A run's training losses as columns `{ version, stride, recentFrom, step, loss }`.
pub fn losses(l: &Series<f32>) -> Result<Object, JsError> {
    let out = Object::new();
    series_head(l, &out)?;
    let values: Vec<f32> = l.iter().map(|(_, v)| v).collect();
    set(&out, "loss", &Float32Array::from(&values[..]).into())?;
    Ok(out)
}
