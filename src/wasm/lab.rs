//! What the facade needs of a lab, in the facade's own terms, written once for every lab:
//! a run (`LabRun`, implemented here for every `Run` whose lab adds its part of the
//! snapshot, `LabView`), a data-parallel run's extra calls (`ParallelRun`) and replicas
//! (`LabReplica`), and the lab's entry (`LabEntry`: its name, settings, presets and how its
//! runs are made; `Lab` is the same behind a pointer). A lab's file implements `LabView`
//! and `LabEntry` for its own types and nothing else.

use super::js::{
    get, history, losses, presets_of, refusal, run_error, set, settings_of, to_js, transfer_list,
};
use crate::run::{check_weights, Metrics, Run, RunError};
use crate::series::Series;
use crate::settings::{Field, Fields, Settings, SettingsError};
use js_sys::{Array, Object};
use wasm_bindgen::prelude::*;

/// The refusal of a data-parallel call to a run that trains on one worker.
pub fn one_worker() -> RunError {
    RunError::Setting(SettingsError::new(
        "workers",
        "a run of this lab trains on one worker".into(),
    ))
}

/// What the facade's `Trainer` class needs of a lab's run (one class for every lab).
pub trait LabRun {
    fn steps(&mut self, n: u32) -> Result<f32, JsValue>;
    fn step(&self) -> u64;
    fn last_loss(&self) -> f32;
    fn config(&self) -> Result<JsValue, JsError>;
    /// The snapshot object, the typed arrays it holds (to transfer), and the version of the
    /// history it stands for.
    fn snapshot(&self, request: &JsValue) -> Result<(Object, Array, u64), JsError>;
    fn history(&self) -> Result<Object, JsError>;
    fn losses(&self) -> Result<Object, JsError>;
    fn reset(&mut self, seed: Option<u64>);
    /// Changes a live setting (a field marked `live`) of the running model.
    fn set_live(&mut self, key: &str, value: &JsValue) -> Result<(), JsValue>;
    fn params(&mut self) -> &[f32];
    fn load_params(&mut self, params: &[f32], step: u64) -> Result<(), JsValue>;
    /// Its data-parallel calls, for a run whose batches several replicas share.
    fn parallel(&mut self) -> Option<&mut dyn ParallelRun>;
    fn parallel_ref(&self) -> Option<&dyn ParallelRun>;
}

/// What a lab adds to its runs for the page: its part of the snapshot (the example and head
/// shown, the shapes, its typed arrays) and, for a lab whose runs split their batches over
/// workers, the data-parallel calls.
pub trait LabView: Run {
    /// Its name in links and in this facade.
    const LAB: &'static str;
    /// Sets the lab's fields of the snapshot (`seq`, `head`, `shape` and its typed arrays,
    /// of what `request` selects); with `new_history` (the snapshot carries the history)
    /// also what goes with a new evaluation. Returns its typed arrays, to transfer.
    fn view(
        &self,
        request: &JsValue,
        snap: &Object,
        new_history: bool,
    ) -> Result<Vec<JsValue>, JsError>;
    /// The replicas that share each batch.
    fn workers(&self) -> usize {
        1
    }
    fn parallel(&mut self) -> Option<&mut dyn ParallelRun> {
        None
    }
    fn parallel_ref(&self) -> Option<&dyn ParallelRun> {
        None
    }
}

/// A data-parallel run's leader, in the facade's terms (the worker carries the gradients and
/// evaluation parts between the replicas).
pub trait ParallelRun {
    fn compute_gradient(&mut self) -> Result<f32, RunError>;
    fn add_gradient(&mut self, part: &[f32], loss: f32);
    fn gradient(&self) -> &[f32];
    fn apply(&mut self);
    fn evaluation_pending(&self) -> bool;
    fn add_evaluation_part(&mut self, part: &JsValue) -> Result<(), JsValue>;
}

/// What the facade needs of a lab's replica (a helper of a data-parallel run).
pub trait LabReplica {
    fn compute_gradient(&mut self) -> Result<f32, JsValue>;
    fn gradient(&self) -> &[f32];
    /// Applies the summed gradient; the replica's evaluation part when one is due.
    fn apply_sum(&mut self, sum: &[f32]) -> Result<JsValue, JsError>;
    fn reset(&mut self, seed: Option<u64>);
    fn set_live(&mut self, key: &str, value: &JsValue) -> Result<(), JsValue>;
    fn load_params(&mut self, params: &[f32], step: u64) -> Result<(), JsValue>;
}

impl<R: LabView> LabRun for R
where
    R::Config: serde::Serialize,
{
    fn steps(&mut self, n: u32) -> Result<f32, JsValue> {
        if LabView::workers(self) > 1 {
            return Err(run_error(&RunError::Internal(
                "a data-parallel run steps with computeGradient, addGradient and apply".into(),
            )));
        }
        let mut loss = self.last_loss();
        for _ in 0..n {
            loss = Run::step(self).map_err(|e| run_error(&e))?;
        }
        Ok(loss)
    }

    fn step(&self) -> u64 {
        self.step_count()
    }

    fn last_loss(&self) -> f32 {
        Run::last_loss(self)
    }

    fn config(&self) -> Result<JsValue, JsError> {
        to_js(Run::config(self))
    }

    fn snapshot(&self, request: &JsValue) -> Result<(Object, Array, u64), JsError> {
        let shown = Shown {
            lab: R::LAB,
            step: self.step_count(),
            loss: Run::last_loss(self),
            workers: LabView::workers(self),
            config: to_js(Run::config(self))?,
            history: Run::history(self),
            heads: self.heads(),
        };
        snapshot_of(&shown, request, |snap, new_history| {
            self.view(request, snap, new_history)
        })
    }

    fn history(&self) -> Result<Object, JsError> {
        history(Run::history(self), self.heads()).map(|(h, _)| h)
    }

    fn losses(&self) -> Result<Object, JsError> {
        losses(Run::losses(self))
    }

    fn reset(&mut self, seed: Option<u64>) {
        Run::reset(self, seed);
    }

    fn set_live(&mut self, key: &str, value: &JsValue) -> Result<(), JsValue> {
        let config = live_config(Run::config(self), key, value).map_err(refusal)?;
        Run::apply_live(self, &config).map_err(|e| run_error(&e))
    }

    fn params(&mut self) -> &[f32] {
        Run::params(self)
    }

    fn load_params(&mut self, params: &[f32], step: u64) -> Result<(), JsValue> {
        Run::load_params(self, params, step).map_err(|e| run_error(&e))
    }

    fn parallel(&mut self) -> Option<&mut dyn ParallelRun> {
        LabView::parallel(self)
    }

    fn parallel_ref(&self) -> Option<&dyn ParallelRun> {
        LabView::parallel_ref(self)
    }
}

/// What every run shows in its snapshot, whatever drives it (a `Run`, or a GPU run that
/// steps asynchronously).
pub struct Shown<'a, E: Metrics> {
    pub lab: &'static str,
    pub step: u64,
    pub loss: f32,
    pub workers: usize,
    pub config: JsValue,
    pub history: &'a Series<E>,
    pub heads: usize,
}

/// The snapshot object (see `LabRun::snapshot`): what `shown` holds, the lab's part from
/// `view` (given the object and whether the history is new to the page), and the history
/// unless `request.history` is its version; with its typed arrays to transfer, and that
/// version.
pub fn snapshot_of<E: Metrics>(
    shown: &Shown<E>,
    request: &JsValue,
    view: impl FnOnce(&Object, bool) -> Result<Vec<JsValue>, JsError>,
) -> Result<(Object, Array, u64), JsError> {
    let snap = Object::new();
    set(&snap, "lab", &shown.lab.into())?;
    set(&snap, "step", &(shown.step as f64).into())?;
    set(&snap, "loss", &shown.loss.into())?;
    set(&snap, "workers", &(shown.workers as f64).into())?;
    set(&snap, "config", &shown.config)?;
    let version = shown.history.version();
    let new_history = get(request, "history").as_f64() != Some(version as f64);
    let mut arrays = view(&snap, new_history)?;
    if new_history {
        let (history, columns) = history(shown.history, shown.heads)?;
        set(&snap, "history", &history)?;
        arrays.extend(columns);
    }
    let transfer = transfer_list(&arrays.iter().collect::<Vec<_>>());
    Ok((snap, transfer, version))
}

/// `config` with its live field `key` set to `value`: a field that is not live, or a value
/// out of its range, is refused (the checks between fields are the run's, in
/// `Run::apply_live`).
pub fn live_config<S: Settings>(
    config: &S,
    key: &str,
    value: &JsValue,
) -> Result<S, SettingsError> {
    let fields = S::fields();
    if !fields.iter().any(|f| f.key == key && f.live) {
        let live: Vec<&str> = fields.iter().filter(|f| f.live).map(|f| f.key).collect();
        return Err(SettingsError::of(
            fields,
            key,
            format!(
                "does not change while a run trains (these do: {}); start a new run",
                live.join(", ")
            ),
        ));
    }
    let mut config = config.clone();
    let text = value.as_string();
    config.set(key, super::js::value_of(value, text.as_deref()))?;
    Ok(config)
}

/// A lab of this build: its name, its settings and presets, and how its runs are made. A
/// lab's file implements it for a unit struct of its own.
pub trait LabEntry: Sync {
    type Config: Settings + serde::Serialize;
    const NAME: &'static str;
    /// Its presets' names, in the order a UI lists them.
    const PRESETS: &'static [&'static str];
    fn preset(name: &str) -> Option<Self::Config>;
    /// The parameters of a model of these settings, without building one.
    fn param_count(config: &Self::Config) -> usize;
    /// A run of these settings whose batches `workers` replicas share.
    fn run(config: Self::Config, workers: usize) -> Result<Box<dyn LabRun>, RunError>;
    /// Replica `index` of `count` of a run (a lab whose runs train on one worker refuses).
    fn replica(
        _config: Self::Config,
        _index: usize,
        _count: usize,
    ) -> Result<Box<dyn LabReplica>, RunError> {
        Err(one_worker())
    }
}

/// A lab of this build behind a pointer: what the facade's exports call, by lab name.
pub trait Lab: Sync {
    fn name(&self) -> &'static str;
    fn fields(&self) -> &'static [Field];
    /// Its presets as an object of settings by name, in the order a UI lists them.
    fn presets(&self) -> Result<JsValue, JsError>;
    /// Settings checked: as the trainer reads them, or the refusal (an `Error` of kind
    /// `setting` whose `field` names the field).
    fn validate(&self, config: JsValue) -> Result<JsValue, JsValue>;
    /// Refuses weights a model of `config` could not load, without building one.
    fn check_weights(&self, config: JsValue, params: &[f32]) -> Result<(), JsValue>;
    fn run(&self, config: JsValue, workers: usize) -> Result<Box<dyn LabRun>, JsValue>;
    fn replica(
        &self,
        config: JsValue,
        index: usize,
        count: usize,
    ) -> Result<Box<dyn LabReplica>, JsValue>;
}

impl<L: LabEntry> Lab for L {
    fn name(&self) -> &'static str {
        L::NAME
    }

    fn fields(&self) -> &'static [Field] {
        L::Config::fields()
    }

    fn presets(&self) -> Result<JsValue, JsError> {
        presets_of(L::PRESETS, L::preset)
    }

    fn validate(&self, config: JsValue) -> Result<JsValue, JsValue> {
        let c: L::Config = settings_of(&config).map_err(refusal)?;
        to_js(&c).map_err(JsValue::from)
    }

    fn check_weights(&self, config: JsValue, params: &[f32]) -> Result<(), JsValue> {
        let c: L::Config = settings_of(&config).map_err(refusal)?;
        check_weights(L::param_count(&c), params).map_err(|e| run_error(&e))
    }

    fn run(&self, config: JsValue, workers: usize) -> Result<Box<dyn LabRun>, JsValue> {
        let c: L::Config = settings_of(&config).map_err(refusal)?;
        L::run(c, workers).map_err(|e| run_error(&e))
    }

    fn replica(
        &self,
        config: JsValue,
        index: usize,
        count: usize,
    ) -> Result<Box<dyn LabReplica>, JsValue> {
        let c: L::Config = settings_of(&config).map_err(refusal)?;
        L::replica(c, index, count).map_err(|e| run_error(&e))
    }
}
