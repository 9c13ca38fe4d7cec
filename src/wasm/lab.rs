//! What the facade needs of a lab, in the facade's own terms: a run (`LabRun`), a replica
//! of a data-parallel run (`LabReplica`), and the lab's entry (`Lab`: its name, presets,
//! settings check and constructors). Each lab implements them in its own file.

use js_sys::{Array, Object};
use wasm_bindgen::prelude::*;

/// What the facade needs of a lab's run, in the facade's own terms (each lab implements it
/// in its own file).
pub trait LabRun {
    fn steps(&mut self, n: u32) -> Result<f32, JsError>;
    fn step(&self) -> u64;
    fn last_loss(&self) -> f32;
    fn config(&self) -> Result<JsValue, JsError>;
    /// The snapshot object, the typed arrays it holds (to transfer), and the version of the
    /// history it stands for.
    fn snapshot(&self, request: &JsValue) -> Result<(Object, Array, u64), JsError>;
    fn history(&self) -> Result<Object, JsError>;
    fn losses(&self) -> Result<Object, JsError>;
    fn reset(&mut self, seed: Option<u64>);
    fn set_learning_rate(&mut self, lr: f32) -> Result<(), JsError>;
    fn params(&self) -> &[f32];
    fn load_params(&mut self, params: &[f32], step: u64) -> Result<(), JsError>;

    // A data-parallel step, for a lab whose runs split their batches over workers (the
    // others train on one worker: the first call is refused, the rest do nothing).
    fn compute_gradient(&mut self) -> Result<f32, JsError> {
        Err(JsError::new(ONE_WORKER))
    }
    fn add_gradient(&mut self, _part: &[f32], _loss: f32) {}
    fn gradient(&self) -> &[f32] {
        &[]
    }
    fn apply(&mut self) {}
    fn evaluation_pending(&self) -> bool {
        false
    }
    fn add_evaluation_part(&mut self, _part: &JsValue) -> Result<(), JsError> {
        Err(JsError::new(ONE_WORKER))
    }
}

/// The refusal of a data-parallel call to a lab whose runs train on one worker.
pub const ONE_WORKER: &str = "workers: a run of this lab trains on one worker";

/// What the facade needs of a lab's replica (a helper of a data-parallel run).
pub trait LabReplica {
    fn compute_gradient(&mut self) -> Result<f32, JsError>;
    fn gradient(&self) -> &[f32];
    /// Applies the summed gradient; the replica's evaluation part when one is due.
    fn apply_sum(&mut self, sum: &[f32]) -> Result<JsValue, JsError>;
    fn reset(&mut self, seed: Option<u64>);
    fn set_learning_rate(&mut self, lr: f32) -> Result<(), JsError>;
    fn load_params(&mut self, params: &[f32], step: u64) -> Result<(), JsError>;
}

/// A lab of this build: its name and what the facade builds of it from JS settings.
pub struct Lab {
    pub name: &'static str,
    /// Its presets as an object of settings by name, in the order a UI lists them.
    pub presets: fn() -> Result<JsValue, JsError>,
    /// Settings checked: as the trainer reads them, or the refusal (an `Error` whose
    /// `field` names the field) to throw.
    pub validate: fn(JsValue) -> Result<Result<JsValue, JsValue>, JsError>,
    pub check_weights: fn(JsValue, &[f32]) -> Result<(), JsError>,
    /// A run of settings whose batches `workers` replicas share.
    pub run: fn(JsValue, usize) -> Result<Box<dyn LabRun>, JsError>,
    /// Replica `index` of `count` of a run of settings (a lab whose runs train on one worker
    /// refuses with [`ONE_WORKER`]).
    pub replica: fn(JsValue, usize, usize) -> Result<ReplicaBox, JsError>,
}

pub type ReplicaBox = Box<dyn LabReplica>;
