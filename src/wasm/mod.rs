//! The `#[wasm_bindgen]` facade: every lab's run behind one `Trainer` class (a run, on one
//! worker or leading a data-parallel one) and one `Replica` class (a helper of a
//! data-parallel run), and each lab's fields, presets and checks by the lab's name.
//! Settings come in as plain objects read field by field (`js::settings_of`), errors go out
//! as JS `Error`s with the run's own message and its kind, and snapshots go out as typed
//! arrays that a worker posts from here (through web-sys) with their buffers transferred.
//! It only translates: the math is in the native modules, what is written once for every
//! lab in `lab.rs`, each lab's own translation in its own file.

mod copying;
#[cfg(feature = "webgpu")]
pub mod gpu;
pub(crate) mod js;
mod lab;
mod sparse;

use js::{fields_js, memory_bytes, run_error, seed_of, set, whole_of};
use js_sys::{Array, Float32Array, Object, Reflect};
use lab::{one_worker, Lab, LabReplica, LabRun, ParallelRun};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Installs the panic hook: a panic reaches the console with its message, and the message
/// is left in `globalThis.__apLastPanic` for the worker to show on the page (after a panic
/// the module must not be called again, so it cannot be asked).
#[wasm_bindgen(start)]
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        let _ = Reflect::set(
            &js_sys::global(),
            &JsValue::from_str("__apLastPanic"),
            &JsValue::from_str(&info.to_string()),
        );
    }));
}

/// Panics on purpose, so that tests can check how a panic reaches the page.
#[wasm_bindgen(js_name = debugPanic)]
pub fn debug_panic() {
    panic!("a panic requested by debugPanic()");
}

/// Which kernel build this module is: `"scalar"`, `"simd128"` or `"relaxed-simd"`.
#[wasm_bindgen(js_name = kernelVariant)]
pub fn kernel_variant() -> String {
    if cfg!(target_feature = "relaxed-simd") {
        "relaxed-simd".into()
    } else if cfg!(target_feature = "simd128") {
        "simd128".into()
    } else {
        "scalar".into()
    }
}

/// The labs of this build.
const LABS: [&dyn Lab; 2] = [&copying::Copying, &sparse::Sparse];

fn lab(name: &str) -> Result<&'static dyn Lab, JsError> {
    LABS.iter()
        .copied()
        .find(|l| l.name() == name)
        .ok_or_else(|| {
            let names: Vec<&str> = LABS.iter().map(|l| l.name()).collect();
            JsError::new(&format!(
                "lab: no lab is called {name:?} (labs: {})",
                names.join(", ")
            ))
        })
}

/// The labs of this build, by the names a page uses.
#[wasm_bindgen]
pub fn labs() -> Vec<String> {
    LABS.iter().map(|l| l.name().to_string()).collect()
}

/// The settings of lab `lab_name`, field by field in the order a form lists them: `{ key,
/// words, live, kind, min, max, choices }` (`kind`: `whole`, `positive`, `choice` or
/// `switch`; `choices`: `[{ name, words }]`). The page's forms, link and messages read it.
#[wasm_bindgen]
pub fn settings(lab_name: &str) -> Result<Array, JsError> {
    fields_js(lab(lab_name)?.fields())
}

/// The presets of lab `lab_name` as an object of settings by name, in the order a UI lists
/// them.
#[wasm_bindgen]
pub fn presets(lab_name: &str) -> Result<JsValue, JsError> {
    lab(lab_name)?.presets()
}

/// Checks settings of a lab without building anything: the settings as the trainer reads
/// them (each field given as text, a number or a switch; a missing field takes its
/// default), or throws an `Error` of kind `setting` that names the field in words with its
/// range and whose `field` property is the field's key.
#[wasm_bindgen(js_name = validateConfig)]
pub fn validate_config(lab_name: &str, config: JsValue) -> Result<JsValue, JsValue> {
    lab(lab_name)?.validate(config)
}

/// Refuses weights (with the message and kind `Trainer.loadParams` would give) that a model
/// of `config` could not load, without building one.
#[wasm_bindgen(js_name = checkWeights)]
pub fn check_weights(lab_name: &str, config: JsValue, params: &[f32]) -> Result<(), JsValue> {
    lab(lab_name)?.check_weights(config, params)
}

/// One training run of a lab: on one worker, or the leader of `workers` replicas that
/// share each batch (the others are [`WasmReplica`]s; the worker carries the gradients and
/// evaluation parts between them).
#[wasm_bindgen(js_name = Trainer)]
pub struct WasmTrainer {
    run: Box<dyn LabRun>,
    /// (P,) another replica's gradient, copied in from JS (made on first use).
    inbox: Vec<f32>,
}

impl WasmTrainer {
    /// The facade's trainer of `run`.
    fn of(run: Box<dyn LabRun>) -> WasmTrainer {
        WasmTrainer {
            run,
            inbox: Vec::new(),
        }
    }
}

#[wasm_bindgen(js_class = Trainer)]
impl WasmTrainer {
    /// A fresh run of `config` of lab `lab_name`, evaluated at step 0; `workers` (default
    /// 1) replicas share each batch.
    #[wasm_bindgen(constructor)]
    pub fn new(
        lab_name: &str,
        config: JsValue,
        workers: Option<usize>,
    ) -> Result<WasmTrainer, JsValue> {
        let run = lab(lab_name)?.run(config, workers.unwrap_or(1))?;
        Ok(WasmTrainer::of(run))
    }

    /// Runs up to `n` steps of a run on one worker; stops at a divergence with its message
    /// (an `Error` of kind `diverged`; the steps before it stand). Returns the training loss
    /// of the last step.
    pub fn steps(&mut self, n: u32) -> Result<f32, JsValue> {
        self.run.steps(n)
    }

    /// Updates applied so far.
    #[wasm_bindgen(getter)]
    pub fn step(&self) -> f64 {
        self.run.step() as f64
    }

    /// The training loss of the last update (NaN before the first).
    #[wasm_bindgen(getter, js_name = lastLoss)]
    pub fn last_loss(&self) -> f32 {
        self.run.last_loss()
    }

    /// The run's settings as the trainer has them.
    pub fn config(&self) -> Result<JsValue, JsError> {
        self.run.config()
    }

    /// The run's state for the page in one object of typed arrays: the step, its settings,
    /// the maps of the selected evaluation sequence (`request`: `{ seq, head }`, clamped to
    /// what the run has) and the wasm memory's size; with the evaluation history (as
    /// [`WasmTrainer::history`]) unless `request.history` is the version the caller has.
    pub fn snapshot(&self, request: JsValue) -> Result<Object, JsError> {
        self.full_snapshot(&request).map(|(snap, _, _)| snap)
    }

    /// Posts [`WasmTrainer::snapshot`] of `request`, with the fields of `fields` added, from
    /// the worker this module runs in to the page, its typed arrays' buffers transferred;
    /// returns the version of the history it carries (or the one it left out).
    #[wasm_bindgen(js_name = postSnapshot)]
    pub fn post_snapshot(&self, request: JsValue, fields: &Object) -> Result<f64, JsError> {
        post(self.full_snapshot(&request)?, fields)
    }

    /// The run's evaluations as columns: `{ version, stride, recentFrom, step: Float64Array,
    /// <metric>: Float32Array … }` (every evaluation from step `recentFrom` on, every
    /// `stride`-th before that).
    pub fn history(&self) -> Result<Object, JsError> {
        self.run.history()
    }

    /// The training loss of each update as columns `{ version, stride, recentFrom, step:
    /// Float64Array, loss: Float32Array }` (resolution as [`WasmTrainer::history`]).
    pub fn losses(&self) -> Result<Object, JsError> {
        self.run.losses()
    }

    /// Back to step 0 with the same seed, or with `seed`.
    pub fn reset(&mut self, seed: Option<f64>) -> Result<(), JsError> {
        self.run.reset(seed_of(seed)?);
        Ok(())
    }

    /// Changes a live setting (one the lab's `settings()` marks `live`: the learning rate)
    /// while training; a bad value, or a setting that is not live, is refused (kind
    /// `setting`) and changes nothing.
    #[wasm_bindgen(js_name = setLive)]
    pub fn set_live(&mut self, key: &str, value: JsValue) -> Result<(), JsValue> {
        self.run.set_live(key, &value)
    }

    /// A copy of the parameters (the model's weights, in the layout of its settings).
    pub fn params(&mut self) -> Float32Array {
        Float32Array::from(self.run.params())
    }

    /// Loads saved weights as the state after `step` updates and evaluates them; a buffer of
    /// another length or with a non-finite value is refused (kind `weights`) and changes
    /// nothing.
    #[wasm_bindgen(js_name = loadParams)]
    pub fn load_params(&mut self, params: &[f32], step: f64) -> Result<(), JsValue> {
        self.run.load_params(params, whole_of("step", step)?)
    }

    /// Data-parallel step, 1 of 3: draws the batch and computes this replica's weighted
    /// gradient; returns its weighted loss. A divergence is an error of kind `diverged`.
    #[wasm_bindgen(js_name = computeGradient)]
    pub fn compute_gradient(&mut self) -> Result<f32, JsValue> {
        self.parallel()?
            .compute_gradient()
            .map_err(|e| run_error(&e))
    }

    /// Data-parallel step, 2 of 3: adds another replica's weighted gradient and loss (what
    /// its `Replica.gradient()` and `computeGradient()` gave).
    #[wasm_bindgen(js_name = addGradient)]
    pub fn add_gradient(&mut self, grad: &Float32Array, loss: f32) -> Result<(), JsValue> {
        let n = self.run.params().len();
        if grad.length() as usize != n {
            return Err(JsError::new(&format!(
                "a gradient of {} values for a model of {n}",
                grad.length()
            ))
            .into());
        }
        self.inbox.resize(n, 0.0);
        grad.copy_to(&mut self.inbox);
        let inbox = std::mem::take(&mut self.inbox);
        self.parallel()?.add_gradient(&inbox, loss);
        self.inbox = inbox;
        Ok(())
    }

    /// The summed gradient, for the other replicas' `applySum` (a copy).
    pub fn gradient(&self) -> Float32Array {
        Float32Array::from(self.run.parallel_ref().map_or(&[][..], |p| p.gradient()))
    }

    /// Data-parallel step, 3 of 3: applies the sum. When an evaluation is due this replica
    /// evaluates its rows and [`WasmTrainer::evaluation_pending`] holds until the others'
    /// parts are added.
    pub fn apply(&mut self) -> Result<(), JsValue> {
        self.parallel()?.apply();
        Ok(())
    }

    /// Whether an evaluation waits for other replicas' parts.
    #[wasm_bindgen(getter, js_name = evaluationPending)]
    pub fn evaluation_pending(&self) -> bool {
        self.run
            .parallel_ref()
            .is_some_and(|p| p.evaluation_pending())
    }

    /// Adds another replica's part of the due evaluation (what its `applySum` returned).
    #[wasm_bindgen(js_name = addEvaluationPart)]
    pub fn add_evaluation_part(&mut self, part: JsValue) -> Result<(), JsValue> {
        self.parallel()?.add_evaluation_part(&part)
    }
}

impl WasmTrainer {
    /// The run's data-parallel calls, or their refusal (a run that trains on one worker).
    fn parallel(&mut self) -> Result<&mut dyn ParallelRun, JsValue> {
        self.run.parallel().ok_or_else(|| run_error(&one_worker()))
    }

    /// The lab's snapshot with the wasm memory's size.
    fn full_snapshot(&self, request: &JsValue) -> Result<(Object, js_sys::Array, u64), JsError> {
        let (snap, transfer, version) = self.run.snapshot(request)?;
        set(&snap, "memory", &memory_bytes().into())?;
        Ok((snap, transfer, version))
    }
}

/// Posts a snapshot (`snap`, its typed arrays' buffers `transfer`, its history's version)
/// with the fields of `fields` added, from the worker this module runs in to the page;
/// returns the version.
fn post((snap, transfer, version): (Object, Array, u64), fields: &Object) -> Result<f64, JsError> {
    Object::assign(&snap, fields);
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().dyn_into().map_err(|_| {
        JsError::new("postSnapshot: this module does not run in a dedicated worker")
    })?;
    scope
        .post_message_with_transfer(&snap, &transfer)
        .map_err(|_| JsError::new("postSnapshot: the snapshot could not be posted"))?;
    Ok(version as f64)
}

/// A helper of a data-parallel run: replica `index` (from 1) of `count`, on its share of
/// each batch.
#[wasm_bindgen(js_name = Replica)]
pub struct WasmReplica {
    replica: Box<dyn LabReplica>,
}

#[wasm_bindgen(js_class = Replica)]
impl WasmReplica {
    #[wasm_bindgen(constructor)]
    pub fn new(
        lab_name: &str,
        config: JsValue,
        index: usize,
        count: usize,
    ) -> Result<WasmReplica, JsValue> {
        let replica = lab(lab_name)?.replica(config, index, count)?;
        Ok(WasmReplica { replica })
    }

    /// Draws the next batch and computes the weighted gradient of this replica's rows;
    /// returns their weighted loss. A divergence is an error of kind `diverged`.
    #[wasm_bindgen(js_name = computeGradient)]
    pub fn compute_gradient(&mut self) -> Result<f32, JsValue> {
        self.replica.compute_gradient()
    }

    /// The weighted gradient, for the leader's `addGradient` (a copy).
    pub fn gradient(&self) -> Float32Array {
        Float32Array::from(self.replica.gradient())
    }

    /// Applies the replicas' summed gradient; returns this replica's part of the evaluation
    /// when one is due (`{ evaluation, lo, hi, … maps }`), else undefined.
    #[wasm_bindgen(js_name = applySum)]
    pub fn apply_sum(&mut self, sum: &[f32]) -> Result<JsValue, JsError> {
        if sum.len() != self.replica.gradient().len() {
            return Err(JsError::new("a summed gradient of another model"));
        }
        self.replica.apply_sum(sum)
    }

    pub fn reset(&mut self, seed: Option<f64>) -> Result<(), JsError> {
        self.replica.reset(seed_of(seed)?);
        Ok(())
    }

    #[wasm_bindgen(js_name = setLive)]
    pub fn set_live(&mut self, key: &str, value: JsValue) -> Result<(), JsValue> {
        self.replica.set_live(key, &value)
    }

    #[wasm_bindgen(js_name = loadParams)]
    pub fn load_params(&mut self, params: &[f32], step: f64) -> Result<(), JsValue> {
        self.replica.load_params(params, whole_of("step", step)?)
    }
}
