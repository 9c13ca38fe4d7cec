//! The copying lab's GPU run for the page (the `webgpu` build): `gpuTrainer(lab, config)`
//! resolves with a `GpuTrainer` whose calls that wait for the GPU (steps, a reset, the
//! parameters, loading weights) return promises, and whose snapshot is the CPU `Trainer`'s,
//! so that a worker drives both alike (awaiting what may be a promise). While one of its
//! promises is pending the run is out of its slot: another call is refused (kind
//! `internal`) rather than let two calls meet. `gpuDevice()` resolves with the browser's GPU,
//! on which a page's sweep trains its seeds batched (`GpuSweep`, chunks of at most
//! `capacity` seeds), with the same promises and slot.

use super::copying::view;
use super::js::{history, whole_of};
use super::js::{losses, memory_bytes, refusal, run_error, seed_of, set, settings_of, to_js};
use super::lab::{live_config, snapshot_of, Shown};
use crate::copying::config::Config;
use crate::copying::gpu::{Gpu, GpuSweep, GpuTrainer};
use crate::run::RunError;
use js_sys::{Array, Float32Array, Object, Promise};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

/// The run, or nothing while a promise of it is pending.
type Slot<T = GpuTrainer> = Rc<RefCell<Option<T>>>;

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
fn take<T>(slot: &Slot<T>) -> Result<T, JsValue> {
    slot.borrow_mut().take().ok_or_else(busy)
}

/// Runs `f` on the run out of its slot (the promise's work), then puts it back.
fn promise<T, F, Fut>(slot: &Slot<T>, f: F) -> Promise
where
    T: 'static,
    F: FnOnce(T) -> Fut + 'static,
    Fut: std::future::Future<Output = (T, Result<JsValue, JsValue>)> + 'static,
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

    /// Changes a live setting (a field the lab's settings mark `live`) from the next step on.
    #[wasm_bindgen(js_name = setLive)]
    pub fn set_live(&self, key: &str, value: JsValue) -> Result<(), JsValue> {
        let mut slot = self.slot.borrow_mut();
        let t = slot.as_mut().ok_or_else(busy)?;
        let config = live_config(t.config(), key, &value).map_err(refusal)?;
        t.apply_live(&config).map_err(|e| run_error(&e))
    }

    /// The GPU it trains on, in words.
    #[wasm_bindgen(getter)]
    pub fn device(&self) -> String {
        self.device.clone()
    }

    /// Destroys its GPU device, as a lost GPU would be (to test how a run goes on).
    #[wasm_bindgen(js_name = debugLoseDevice)]
    pub fn debug_lose_device(&self) -> Result<(), JsValue> {
        let slot = self.slot.borrow();
        slot.as_ref().ok_or_else(busy)?.lose_device();
        Ok(())
    }

    /// The run as a CPU `Trainer` (on one worker) from its last evaluation on, where the GPU
    /// can no longer train it: that step's state, its evaluations and losses up to it.
    #[wasm_bindgen(js_name = toCpu)]
    pub fn to_cpu(&self) -> Result<super::WasmTrainer, JsValue> {
        let slot = self.slot.borrow();
        let t = slot.as_ref().ok_or_else(busy)?;
        let run = t.to_cpu().map_err(|e| run_error(&e))?;
        Ok(super::WasmTrainer::of(Box::new(run)))
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

/// The browser's GPU, on which sweeps train.
#[wasm_bindgen(js_name = GpuDevice)]
pub struct WasmGpuDevice {
    gpu: Gpu,
}

/// Resolves with the browser's GPU, or rejects (kind `backend`) where it gives no WebGPU
/// adapter or device.
#[wasm_bindgen(js_name = gpuDevice)]
pub async fn gpu_device() -> Result<WasmGpuDevice, JsValue> {
    let gpu = Gpu::request()
        .await
        .map_err(|e| run_error(&RunError::Backend(e)))?;
    Ok(WasmGpuDevice { gpu })
}

/// The settings of a sweep of lab `lab_name`: the copying lab's alone have a GPU backend.
fn sweep_config(lab_name: &str, config: &JsValue) -> Result<Config, JsValue> {
    if lab_name != "copying" {
        let e = RunError::Backend(format!("the {lab_name} lab has no GPU backend"));
        return Err(run_error(&e));
    }
    settings_of(config).map_err(refusal)
}

#[wasm_bindgen(js_class = GpuDevice)]
impl WasmGpuDevice {
    /// The GPU, in words.
    #[wasm_bindgen(getter)]
    pub fn name(&self) -> String {
        self.gpu.describe()
    }

    /// The most seeds of `config` that one sweep trains at once on this GPU (its limits; its
    /// memory may hold fewer, and `sweep` then rejects with a message that starts with
    /// "the GPU has too little memory").
    pub fn capacity(&self, lab_name: &str, config: JsValue) -> Result<u32, JsValue> {
        let config = sweep_config(lab_name, &config)?;
        Ok(GpuSweep::capacity(&self.gpu, &config) as u32)
    }

    /// Resolves with the runs of `config` from each of `seeds`, batched, at step 0 and
    /// evaluated; rejects with kind `setting` or `backend` as `gpuTrainer`, and kind
    /// `internal` for no seeds.
    pub fn sweep(&self, lab_name: String, config: JsValue, seeds: Vec<f64>) -> Promise {
        let gpu = self.gpu.clone();
        future_to_promise(async move {
            let config = sweep_config(&lab_name, &config)?;
            let seeds = seeds
                .into_iter()
                .map(|s| whole_of("seed", s).map_err(JsValue::from))
                .collect::<Result<Vec<u64>, JsValue>>()?;
            let sweep = GpuSweep::on_async(gpu, config, &seeds)
                .await
                .map_err(|e| run_error(&e))?;
            Ok(WasmGpuSweep {
                slot: Rc::new(RefCell::new(Some(sweep))),
            }
            .into())
        })
    }
}

/// Seeds of one setting trained as one GPU run (`GpuSweep`); seed `i` is the `i`-th of the
/// seeds it was made with.
#[wasm_bindgen(js_name = GpuSweep)]
pub struct WasmGpuSweep {
    slot: Slot<GpuSweep>,
}

#[wasm_bindgen(js_class = GpuSweep)]
impl WasmGpuSweep {
    /// Runs `n` steps of every seed (a seed that diverges stops: `stopped`); resolves with
    /// the step count, or rejects where the device is lost (kind `backend`).
    pub fn steps(&self, n: u32) -> Promise {
        promise(&self.slot, move |mut w| async move {
            for _ in 0..n {
                if let Err(e) = w.step_async().await {
                    return (w, Err(run_error(&e)));
                }
            }
            let step = w.step_count() as f64;
            (w, Ok(step.into()))
        })
    }

    /// Updates applied so far (NaN while a promise is pending).
    #[wasm_bindgen(getter)]
    pub fn step(&self) -> f64 {
        let slot = self.slot.borrow();
        slot.as_ref().map_or(f64::NAN, |w| w.step_count() as f64)
    }

    /// Seed `i`'s evaluations, as `Trainer.history`.
    pub fn history(&self, i: usize) -> Result<Object, JsValue> {
        let slot = self.slot.borrow();
        let w = slot.as_ref().ok_or_else(busy)?;
        check_seed(w, i)?;
        Ok(history(w.history(i), w.config().heads)?.0)
    }

    /// The version of seed `i`'s evaluations (it changes with each evaluation).
    pub fn version(&self, i: usize) -> Result<f64, JsValue> {
        let slot = self.slot.borrow();
        let w = slot.as_ref().ok_or_else(busy)?;
        check_seed(w, i)?;
        Ok(w.history(i).version() as f64)
    }

    /// Why seed `i` stopped (a divergence), if it did.
    pub fn stopped(&self, i: usize) -> Result<Option<String>, JsValue> {
        let slot = self.slot.borrow();
        let w = slot.as_ref().ok_or_else(busy)?;
        check_seed(w, i)?;
        Ok(w.stopped(i).map(|e| e.to_string()))
    }
}

/// Refuses a seed index the sweep does not have.
fn check_seed(w: &GpuSweep, i: usize) -> Result<(), JsValue> {
    if i < w.seeds().len() {
        return Ok(());
    }
    let n = w.seeds().len();
    let e = RunError::Internal(format!("seed index {i}: the sweep has {n} seeds"));
    Err(run_error(&e))
}
