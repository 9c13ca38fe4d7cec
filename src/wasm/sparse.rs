//! The sparse lab's side of the facade: its entry (presets, model size, runs), its part of
//! the snapshot (each head's attention over the positions, averaged over the test set and
//! for one test input with its bits and label, the hidden positions, the picture of
//! attention over training) as typed arrays, and the scaling experiment's search and fits.
//! A sparse run is small: it trains on one worker (data-parallel calls are refused).

use super::js::{get, set};
use super::lab::{LabEntry, LabView};
use crate::run::{Run, RunError};
use crate::sparse::config::{SparseConfig, PRESETS};
use crate::sparse::model::{Dims, SparseModel};
use crate::sparse::scaling::{fits_by_r2, log2_choose, median, Law, SampleSearch};
use crate::sparse::train::SparseTrainer;
use js_sys::{Array, Float32Array, Object, Uint32Array};
use wasm_bindgen::prelude::*;

/// The sparse lab, as the facade lists it.
pub struct Sparse;

impl LabEntry for Sparse {
    type Config = SparseConfig;
    const NAME: &'static str = "sparse";
    const PRESETS: &'static [&'static str] = &PRESETS;

    fn preset(name: &str) -> Option<SparseConfig> {
        SparseConfig::preset(name)
    }

    fn param_count(c: &SparseConfig) -> usize {
        SparseModel::new(Dims {
            length: c.length,
            width: c.width,
            heads: c.heads,
            mlp: c.mlp,
        })
        .len
    }

    fn run(config: SparseConfig, workers: usize) -> Result<Box<dyn super::lab::LabRun>, RunError> {
        if workers != 1 {
            return Err(super::lab::one_worker());
        }
        Ok(Box::new(SparseTrainer::new(config)?))
    }
}

impl LabView for SparseTrainer {
    const LAB: &'static str = "sparse";

    fn view(
        &self,
        request: &JsValue,
        snap: &Object,
        _new_history: bool,
    ) -> Result<Vec<JsValue>, JsError> {
        view(self, request, snap)
    }
}

/// The lab's part of a snapshot: each head's attention over the positions (averaged over the
/// test set, and for the selected test input with its bits and label), the hidden
/// positions and the picture of attention over training.
fn view(t: &SparseTrainer, request: &JsValue, snap: &Object) -> Result<Vec<JsValue>, JsError> {
    let c = t.config();
    let examples = t.examples();
    let seq = get(request, "seq")
        .as_f64()
        .unwrap_or(0.0)
        .clamp(0.0, (examples - 1) as f64) as usize;
    set(snap, "seq", &(seq as f64).into())?;
    set(snap, "head", &(-1.0).into())?;
    let shape = Object::new();
    set(&shape, "length", &(c.length as f64).into())?;
    set(&shape, "heads", &(c.heads as f64).into())?;
    set(&shape, "examples", &(examples as f64).into())?;
    set(&shape, "rejected", &(t.task().rejected as f64).into())?;
    set(&shape, "ambiguous", &t.task().ambiguous.into())?;
    set(snap, "shape", &shape)?;
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
        set(snap, name, v)?;
    }
    Ok(arrays.into())
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

/// The three laws of `m*` against `T` fitted to the points `(ts[i], ms[i])`, best first by
/// their R² in the space of `m*`: `[{ law, name, formula, r2, next }]` (`law`: `log`,
/// `linear` or `power`; `next`: the `m*` it predicts at the length `next`); empty with
/// fewer than two distinct lengths.
#[wasm_bindgen(js_name = sparseLaws)]
pub fn sparse_laws(ts: &[f64], ms: &[f64], next: f64) -> Result<Array, JsError> {
    let points: Vec<(f64, f64)> = ts.iter().copied().zip(ms.iter().copied()).collect();
    let out = Array::new();
    for f in fits_by_r2(&points) {
        let o = Object::new();
        let key = match f.law {
            Law::Log => "log",
            Law::Linear => "linear",
            Law::Power => "power",
        };
        set(&o, "law", &key.into())?;
        set(&o, "name", &f.law.name().into())?;
        set(&o, "formula", &f.law.formula(&f.line).into())?;
        set(&o, "r2", &f.r2.into())?;
        set(&o, "next", &f.law.predict(&f.line, next).into())?;
        out.push(&o);
    }
    Ok(out)
}
