//! The copying lab's GPU run for the page (the `webgpu` build): `gpuTrainer(lab, config)`
//! resolves with a `GpuTrainer` whose calls that wait for the GPU (steps, a reset, the
//! parameters, loading weights) return promises, and whose snapshot is the CPU `Trainer`'s,
//! so that a worker drives both alike (awaiting what may be a promise). While one of its
//! promises is pending the run is out of its slot: another call is refused (kind
//! `internal`) rather than let two calls meet.

use super::copying::view;
use super::js::{history, whole_of};
use super::js::{losses, memory_bytes, refusal, run_error, seed_of, set, settings_of, to_js};
use super::lab::{live_config, snapshot_of, Shown};
use crate::copying::config::Config;
use crate::copying::gpu::GpuTrainer;
use crate::run::RunError;
use js_sys::{Array, Float32Array, Object, Promise};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

/// The run, or nothing while a promise of it is pending.
type Slot = Rc<RefCell<Option<GpuTrainer>>>;

#[wasm_bindgen(js_name = GpuTrainer)]
pub struct WasmGpuTrainer {
    slot: Slot,
    device: String,
}

/// A fresh run of `config` of lab `lab_name` on the browser's GPU, evaluated at step 0.
/// Rejects with kind `setting` for bad settings, and kind `backend` where the lab has no GPU
/// backend or the browser gives no WebGPU adapter or device.
#[wasm_bindgen(js_name = gpuTrainer)]
pub async fn gpu_trainer(lab_name: String, config: JsValue) -> Result<WasmGpuTrainer, JsValue> {
    if lab_name != "copying" {
        let e = RunError::Backend(format!("the {lab_name} lab has no GPU backend"));
        return Err(run_error(&e));
    }
    let config: Config = settings_of(&config).map_err(refusal)?;
    let run = GpuTrainer::request(config)
        .await
        .map_err(|e| run_error(&e))?;
    Ok(WasmGpuTrainer {
        device: run.device(),
        slot: Rc::new(RefCell::new(Some(run))),
    })
}

/// The refusal of a call while a promise of the run is pending.
fn busy() -> JsValue {
    run_error(&RunError::Internal(
        "the GPU run is busy: await its last call first".into(),
    ))
}

/// Takes the run out of its slot for an async call.
fn take(slot: &Slot) -> Result<GpuTrainer, JsValue> {
    slot.borrow_mut().take().ok_or_else(busy)
}

/// Runs `f` on the run out of its slot (the promise's work), then puts it back.
fn promise<F, Fut>(slot: &Slot, f: F) -> Promise
where
    F: FnOnce(GpuTrainer) -> Fut + 'static,
    Fut: std::future::Future<Output = (GpuTrainer, Result<JsValue, JsValue>)> + 'static,
{
    let slot = slot.clone();
    future_to_promise(async move {
        let run = take(&slot)?;
        let (run, result) = f(run).await;
        *slot.borrow_mut() = Some(run);
        result
    })
}

#[wasm_bindgen(js_class = GpuTrainer)]
impl WasmGpuTrainer {
    /// Runs up to `n` steps; resolves with the training loss of the last, or rejects at a
    /// divergence (kind `diverged`; the steps before it stand) or where the device is lost
    /// (kind `backend`).
    pub fn steps(&self, n: u32) -> Promise {
        promise(&self.slot, move |mut t| async move {
            let mut loss = t.last_loss();
            for _ in 0..n {
                match t.step_async().await {
                    Ok(l) => loss = l,
                    Err(e) => return (t, Err(run_error(&e))),
                }
            }
            (t, Ok(loss.into()))
        })
    }

    /// Back to step 0 with the same seed, or with `seed`; resolves once evaluated.
    pub fn reset(&self, seed: Option<f64>) -> Result<Promise, JsError> {
        let seed = seed_of(seed)?;
        Ok(promise(&self.slot, move |mut t| async move {
            let r = t.reset_async(seed).await;
            (t, r.map(|_| JsValue::UNDEFINED).map_err(|e| run_error(&e)))
        }))
    }

    /// Resolves with a copy of the parameters, read back from the GPU.
    pub fn params(&self) -> Promise {
        promise(&self.slot, |mut t| async move {
            let r = t.params_async().await.map(|p| Float32Array::from(p).into());
            (t, r.map_err(|e| run_error(&e)))
        })
    }

    /// Loads saved weights as the state after `step` updates; resolves once evaluated, or
    /// rejects (kind `weights`) and changes nothing.
    #[wasm_bindgen(js_name = loadParams)]
    pub fn load_params(&self, params: Vec<f32>, step: f64) -> Result<Promise, JsValue> {
        let step = whole_of("step", step)?;
        Ok(promise(&self.slot, move |mut t| async move {
            let r = t.load_params_async(&params, step).await;
            (t, r.map(|_| JsValue::UNDEFINED).map_err(|e| run_error(&e)))
        }))
    }

    /// Changes a live setting (the learning rate) from the next step on.
    #[wasm_bindgen(js_name = setLive)]
    pub fn set_live(&self, key: &str, value: JsValue) -> Result<(), JsValue> {
        let mut slot = self.slot.borrow_mut();
        let t = slot.as_mut().ok_or_else(busy)?;
        let config = live_config(t.config(), key, &value).map_err(refusal)?;
        t.set_learning_rate(config.learning_rate)
            .map_err(|e| run_error(&e))
    }

    /// The GPU it trains on, in words.
    #[wasm_bindgen(getter)]
    pub fn device(&self) -> String {
        self.device.clone()
    }

    /// Updates applied so far (NaN while a promise is pending).
    #[wasm_bindgen(getter)]
    pub fn step(&self) -> f64 {
        self.slot
            .borrow()
            .as_ref()
            .map_or(f64::NAN, |t| t.step_count() as f64)
    }

    /// The training loss of the last update (NaN before the first).
    #[wasm_bindgen(getter, js_name = lastLoss)]
    pub fn last_loss(&self) -> f32 {
        self.slot
            .borrow()
            .as_ref()
            .map_or(f32::NAN, |t| t.last_loss())
    }

    /// The run's settings as the trainer has them.
    pub fn config(&self) -> Result<JsValue, JsValue> {
        let slot = self.slot.borrow();
        to_js(slot.as_ref().ok_or_else(busy)?.config()).map_err(JsValue::from)
    }

    /// As `Trainer.snapshot`.
    pub fn snapshot(&self, request: JsValue) -> Result<Object, JsValue> {
        self.full_snapshot(&request).map(|(snap, _, _)| snap)
    }

    /// As `Trainer.postSnapshot`.
    #[wasm_bindgen(js_name = postSnapshot)]
    pub fn post_snapshot(&self, request: JsValue, fields: &Object) -> Result<f64, JsValue> {
        super::post(self.full_snapshot(&request)?, fields).map_err(JsValue::from)
    }

    /// As `Trainer.history`.
    pub fn history(&self) -> Result<Object, JsValue> {
        let slot = self.slot.borrow();
        let t = slot.as_ref().ok_or_else(busy)?;
        Ok(history(t.history(), t.config().heads)?.0)
    }

    /// As `Trainer.losses`.
    pub fn losses(&self) -> Result<Object, JsValue> {
        let slot = self.slot.borrow();
        Ok(losses(slot.as_ref().ok_or_else(busy)?.losses())?)
    }
}

impl WasmGpuTrainer {
    /// The snapshot of the copying lab's run, as the CPU Trainer's, with the memory's size.
    fn full_snapshot(&self, request: &JsValue) -> Result<(Object, Array, u64), JsValue> {
        let slot = self.slot.borrow();
        let t = slot.as_ref().ok_or_else(busy)?;
        let heads = t.config().heads;
        let shown = Shown {
            lab: "copying",
            step: t.step_count(),
            loss: t.last_loss(),
            workers: 1,
            config: to_js(t.config())?,
            history: t.history(),
            heads,
        };
        let (snap, transfer, version) = snapshot_of(&shown, request, |snap, new_history| {
            view(t, heads, request, snap, new_history)
        })?;
        set(&snap, "memory", &memory_bytes().into())?;
        set(&snap, "backend", &"gpu".into())?;
        Ok((snap, transfer, version))
    }
}
