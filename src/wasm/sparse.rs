//! The sparse lab's side of the facade: its settings from JS, its presets, and its snapshot
//! (each head's attention over the positions, averaged over the test set and for one test
//! input with its bits and label, the hidden positions, the picture of attention over
//! training, and with a new evaluation the evaluations as columns), as JS objects of typed
//! arrays. A sparse run is small: it trains on one worker (`LabRun`'s data-parallel calls
//! are refused).

use super::js::{
    error, get, losses, presets_of, refusal, series_head, set, settings_of, to_js, transfer_list,
};
use super::lab::{Lab, LabRun, ReplicaBox, ONE_WORKER};
use crate::config::ConfigError;
use crate::sparse::config::{SparseConfig, PRESETS};
use crate::sparse::model::{Dims, SparseModel};
use crate::sparse::scaling::{fit, log2_choose, median, SampleSearch};
use crate::sparse::train::{SparseEvaluation, SparseTrainer};
use js_sys::{Array, Float32Array, Object, Uint32Array};
use wasm_bindgen::prelude::*;

/// The sparse lab, as the facade lists it.
pub const LAB: Lab = Lab {
    name: "sparse",
    presets,
    validate: |c| match config(c) {
        Ok(c) => to_js(&c).map(Ok),
        Err(e) => Ok(Err(refusal(&e))),
    },
    check_weights: |c, params| {
        let c = config(c).map_err(error)?;
        let model = SparseModel::new(Dims {
            length: c.length,
            width: c.width,
            heads: c.heads,
            mlp: c.mlp,
        });
        check_length(model.len, params)
    },
    run: |c, workers| {
        if workers != 1 {
            return Err(JsError::new(ONE_WORKER));
        }
        Ok(Box::new(
            SparseTrainer::new(config(c).map_err(error)?).map_err(error)?,
        ))
    },
    replica: |_, _, _| -> Result<ReplicaBox, JsError> { Err(JsError::new(ONE_WORKER)) },
};

/// Weights of `n` finite values, or the refusal that says what is wrong with them.
fn check_length(n: usize, params: &[f32]) -> Result<(), JsError> {
    if params.len() != n {
        return Err(JsError::new(&format!(
            "weights: {} values for a model of {n}",
            params.len()
        )));
    }
    if params.iter().any(|x| !x.is_finite()) {
        return Err(JsError::new("weights: a value is not a finite number"));
    }
    Ok(())
}

fn config(value: JsValue) -> Result<SparseConfig, ConfigError> {
    settings_of(&value)
}

fn presets() -> Result<JsValue, JsError> {
    presets_of(&PRESETS, SparseConfig::preset)
}

impl LabRun for SparseTrainer {
    fn steps(&mut self, n: u32) -> Result<f32, JsError> {
        let mut loss = self.last_loss();
        for _ in 0..n {
            loss = SparseTrainer::step(self).map_err(error)?;
        }
        Ok(loss)
    }

    fn step(&self) -> u64 {
        self.step_count()
    }

    fn last_loss(&self) -> f32 {
        SparseTrainer::last_loss(self)
    }

    fn config(&self) -> Result<JsValue, JsError> {
        to_js(SparseTrainer::config(self))
    }

    fn snapshot(&self, request: &JsValue) -> Result<(Object, Array, u64), JsError> {
        snapshot(self, request)
    }

    fn history(&self) -> Result<Object, JsError> {
        history(self).map(|(h, _)| h)
    }

    fn losses(&self) -> Result<Object, JsError> {
        losses(SparseTrainer::losses(self))
    }

    fn reset(&mut self, seed: Option<u64>) {
        SparseTrainer::reset(self, seed);
    }

    fn set_learning_rate(&mut self, lr: f32) -> Result<(), JsError> {
        SparseTrainer::set_learning_rate(self, lr).map_err(error)
    }

    fn params(&self) -> &[f32] {
        SparseTrainer::params(self)
    }

    fn load_params(&mut self, params: &[f32], step: u64) -> Result<(), JsError> {
        check_length(self.params().len(), params)?;
        SparseTrainer::load_params(self, params, step);
        Ok(())
    }
}

/// The snapshot object, its typed arrays to transfer, and the history version it stands for.
fn snapshot(t: &SparseTrainer, request: &JsValue) -> Result<(Object, Array, u64), JsError> {
    let c = t.config();
    let examples = t.examples();
    let seq = get(request, "seq")
        .as_f64()
        .unwrap_or(0.0)
        .clamp(0.0, (examples - 1) as f64) as usize;
    let snap = Object::new();
    set(&snap, "lab", &"sparse".into())?;
    set(&snap, "step", &(t.step_count() as f64).into())?;
    set(&snap, "loss", &t.last_loss().into())?;
    set(&snap, "workers", &1.0.into())?;
    set(&snap, "config", &to_js(c)?)?;
    set(&snap, "seq", &(seq as f64).into())?;
    set(&snap, "head", &(-1.0).into())?;
    let shape = Object::new();
    set(&shape, "length", &(c.length as f64).into())?;
    set(&shape, "heads", &(c.heads as f64).into())?;
    set(&shape, "examples", &(examples as f64).into())?;
    set(&shape, "rejected", &(t.task().rejected as f64).into())?;
    set(&shape, "ambiguous", &t.task().ambiguous.into())?;
    set(&snap, "shape", &shape)?;
    let hidden: Vec<u32> = t.task().hidden.iter().map(|&p| p as u32).collect();
    let test = &t.task().test;
    let input: Vec<u32> = test.input(seq).iter().map(|&b| u32::from(b)).collect();
    let (picture_steps, picture) = picture(t);
    let arrays: [JsValue; 7] = [
        Float32Array::from(t.attention()).into(),
        Float32Array::from(t.example_attention(seq)).into(),
        Uint32Array::from(&input[..]).into(),
        Uint32Array::from(&hidden[..]).into(),
        Float32Array::from(&[test.labels[seq]][..]).into(),
        Float32Array::from(&picture_steps[..]).into(),
        Float32Array::from(&picture[..]).into(),
    ];
    let names = [
        "attention",
        "inputAttention",
        "input",
        "hidden",
        "label",
        "pictureSteps",
        "picture",
    ];
    for (name, v) in names.iter().zip(&arrays) {
        set(&snap, name, v)?;
    }
    let mut transfer = transfer_list(&arrays.iter().collect::<Vec<_>>());
    let have = get(request, "history").as_f64();
    let version = t.history().version();
    if have != Some(version as f64) {
        let (history, columns) = history(t)?;
        set(&snap, "history", &history)?;
        transfer = transfer.concat(&transfer_list(&columns.iter().collect::<Vec<_>>()));
    }
    Ok((snap, transfer, version))
}

/// The evaluations as columns (each head's mass too, `mass_h1`…, with several heads), and
/// those columns (to transfer).
fn history(t: &SparseTrainer) -> Result<(Object, Vec<JsValue>), JsError> {
    let h = t.history();
    let out = Object::new();
    let mut columns = vec![series_head(h, &out)?];
    let mut column = |name: &str, f: &dyn Fn(&SparseEvaluation) -> f32| -> Result<(), JsError> {
        let values: Vec<f32> = h.iter().map(|(_, e)| f(&e)).collect();
        let values: JsValue = Float32Array::from(&values[..]).into();
        set(&out, name, &values)?;
        columns.push(values);
        Ok(())
    };
    for (i, name) in SparseEvaluation::METRICS.iter().enumerate() {
        column(name, &|e| e.metrics()[i])?;
    }
    let heads = t.config().heads;
    if heads > 1 {
        for k in 0..heads {
            column(&format!("mass_h{}", k + 1), &|e| e.head_mass[k])?;
        }
    }
    Ok((out, columns))
}

/// The picture of attention over training: the steps of its rows (n,) and the rows (n, T).
fn picture(t: &SparseTrainer) -> (Vec<f32>, Vec<f32>) {
    let p = t.picture();
    let len = t.config().length;
    let steps = p.iter().map(|(step, _)| step as f32).collect();
    let mut rows = Vec::with_capacity(p.len() * len);
    for (_, row) in p.iter() {
        rows.extend_from_slice(&row[..len]);
    }
    (steps, rows)
}

/// The search for the fewest training samples that reach a test accuracy
/// (`crate::sparse::scaling::SampleSearch`), for the page's scaling experiment.
#[wasm_bindgen(js_name = SampleSearch)]
pub struct WasmSampleSearch(SampleSearch);

#[wasm_bindgen(js_class = SampleSearch)]
impl WasmSampleSearch {
    /// A search from `start` samples, giving up above `max`, to within `ratio` (> 1).
    #[wasm_bindgen(constructor)]
    pub fn new(start: u32, max: u32, ratio: f64) -> Result<WasmSampleSearch, JsError> {
        if !(start >= 1 && max >= start && ratio > 1.0) {
            return Err(JsError::new(&format!(
                "search: start must be at least 1, max at least start and ratio above 1, got {start}, {max}, {ratio}"
            )));
        }
        Ok(WasmSampleSearch(SampleSearch::new(
            start as usize,
            max as usize,
            ratio,
        )))
    }

    /// The size to try next; undefined when the search is over.
    pub fn next(&self) -> Option<u32> {
        self.0.next().map(|m| m as u32)
    }

    /// Records the outcome of `m` samples.
    pub fn record(&mut self, m: u32, success: bool) {
        self.0.record(m as usize, success);
    }

    /// The fewest samples that succeeded so far (undefined: none yet).
    #[wasm_bindgen(getter)]
    pub fn succeeded(&self) -> Option<u32> {
        self.0.succeeded.map(|m| m as u32)
    }

    /// The most samples that failed so far (0: none).
    #[wasm_bindgen(getter)]
    pub fn failed(&self) -> u32 {
        self.0.failed as u32
    }
}

/// `log2 C(t, s)`: the bits that name a hidden set of `s` of `t` positions.
#[wasm_bindgen(js_name = sparseLog2Choose)]
pub fn sparse_log2_choose(t: u32, s: u32) -> f64 {
    log2_choose(t as usize, s as usize)
}

/// The median of `xs` (NaN if empty).
#[wasm_bindgen(js_name = sparseMedian)]
pub fn sparse_median(xs: &[f32]) -> f32 {
    median(xs)
}

/// The least-squares line through the points `(xs[i], ys[i])`: `[intercept, slope, R²]`,
/// or empty with fewer than two distinct x.
#[wasm_bindgen(js_name = sparseFit)]
pub fn sparse_fit(xs: &[f64], ys: &[f64]) -> Vec<f64> {
    let points: Vec<(f64, f64)> = xs.iter().copied().zip(ys.iter().copied()).collect();
    fit(&points).map_or(Vec::new(), |f| vec![f.intercept, f.slope, f.r2])
}
