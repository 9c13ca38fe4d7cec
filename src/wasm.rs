//! The `#[wasm_bindgen]` facade over `train::Trainer`: settings in through
//! serde-wasm-bindgen, errors out as `JsError` with the trainer's own messages, matrices out
//! as `Float32Array` copies. It only translates; all the math lives in the native modules.

use crate::config::{Config, PRESETS};
use crate::train::{EvaluationPart, Trainer};
use wasm_bindgen::prelude::*;

/// Installs the panic hook: a panic reaches the console with its message, and the message
/// is left in `globalThis.__apLastPanic` for the worker to show on the page (after a panic
/// the module must not be called again, so it cannot be asked).
#[wasm_bindgen(start)]
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        let _ = js_sys::Reflect::set(
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

fn to_js<T: serde::Serialize + ?Sized>(value: &T) -> Result<JsValue, JsError> {
    serde_wasm_bindgen::to_value(value).map_err(|e| JsError::new(&e.to_string()))
}

fn config_from(value: JsValue) -> Result<Config, JsError> {
    let config: Config = serde_wasm_bindgen::from_value(value)
        .map_err(|e| JsError::new(&format!("settings: {e}")))?;
    config
        .validate()
        .map_err(|e| JsError::new(&e.to_string()))?;
    Ok(config)
}

/// The preset names, in the order a UI lists them.
#[wasm_bindgen]
pub fn presets() -> Vec<String> {
    PRESETS.iter().map(|s| s.to_string()).collect()
}

/// The settings of preset `name`.
#[wasm_bindgen]
pub fn preset(name: &str) -> Result<JsValue, JsError> {
    let c = Config::preset(name).ok_or_else(|| {
        JsError::new(&format!(
            "preset: unknown preset {name:?}; known: {}",
            PRESETS.join(", ")
        ))
    })?;
    to_js(&c)
}

/// Checks settings without building anything; the error names the field and its range.
#[wasm_bindgen(js_name = validateConfig)]
pub fn validate_config(config: JsValue) -> Result<(), JsError> {
    config_from(config).map(|_| ())
}

/// Refuses weights (with the message `Trainer.loadParams` would give) that a model of
/// `config` could not load, without building one.
#[wasm_bindgen(js_name = checkWeights)]
pub fn check_weights(config: JsValue, params: &[f32]) -> Result<(), JsError> {
    crate::train::check_params(&config_from(config)?, params).map_err(|e| JsError::new(&e))
}

#[wasm_bindgen(js_name = Trainer)]
pub struct WasmTrainer {
    inner: Trainer,
    /// (parameter count,) another replica's gradient, written by JS (empty until used).
    inbox: Vec<f32>,
}

#[wasm_bindgen(js_class = Trainer)]
impl WasmTrainer {
    /// A fresh run of `config` (any missing field takes the default).
    #[wasm_bindgen(constructor)]
    pub fn new(config: JsValue) -> Result<WasmTrainer, JsError> {
        let config = config_from(config)?;
        let inner = Trainer::new(config).map_err(|e| JsError::new(&e.to_string()))?;
        Ok(WasmTrainer {
            inner,
            inbox: Vec::new(),
        })
    }

    /// Runs up to `n` steps; stops at a divergence with its message (the steps before it
    /// stand). Returns the training loss of the last step.
    pub fn steps(&mut self, n: u32) -> Result<f32, JsError> {
        let mut loss = self.inner.last_loss();
        for _ in 0..n {
            loss = self
                .inner
                .step()
                .map_err(|e| JsError::new(&e.to_string()))?;
        }
        Ok(loss)
    }

    /// Updates applied so far.
    #[wasm_bindgen(getter)]
    pub fn step(&self) -> f64 {
        self.inner.step_count() as f64
    }

    #[wasm_bindgen(getter, js_name = lastLoss)]
    pub fn last_loss(&self) -> f32 {
        self.inner.last_loss()
    }

    /// The current settings.
    pub fn config(&self) -> Result<JsValue, JsError> {
        to_js(self.inner.config())
    }

    /// The latest evaluation (step, loss, accuracies, KTIW score, agreement).
    pub fn latest(&self) -> Result<JsValue, JsError> {
        to_js(self.inner.latest())
    }

    /// Evaluations from index `from` of the history on.
    #[wasm_bindgen(js_name = historySince)]
    pub fn history_since(&self, from: usize) -> Result<JsValue, JsError> {
        let h = self.inner.history();
        to_js(&h[from.min(h.len())..])
    }

    /// Number of evaluations so far.
    #[wasm_bindgen(getter, js_name = historyLength)]
    pub fn history_length(&self) -> usize {
        self.inner.history().len()
    }

    /// `[Lt, Ls, heads, evaluation sequences]`.
    pub fn shape(&self) -> Vec<u32> {
        let b = self.inner.eval_batch();
        vec![
            b.tgt_len as u32,
            b.src_len as u32,
            self.inner.config().heads as u32,
            b.batch as u32,
        ]
    }

    /// `α` (Lt·Ls, row-major) of evaluation sequence `seq`, of head `head`, or averaged over
    /// heads when `head` is negative.
    pub fn attention(&self, seq: usize, head: i32) -> Result<Vec<f32>, JsError> {
        self.check_seq(seq)?;
        let heads = self.inner.config().heads;
        let head = match head {
            h if h < 0 => None,
            h if (h as usize) < heads => Some(h as usize),
            h => {
                return Err(JsError::new(&format!(
                    "head: must be below {heads}, got {h}"
                )))
            }
        };
        Ok(self.inner.attention(seq, head).to_vec())
    }

    /// KTIW `β` (Lt·Ls, row-major) of evaluation sequence `seq`.
    pub fn ktiw(&self, seq: usize) -> Result<Vec<f32>, JsError> {
        self.check_seq(seq)?;
        Ok(self.inner.ktiw(seq).to_vec())
    }

    /// Source tokens (Ls,) of evaluation sequence `seq`.
    #[wasm_bindgen(js_name = sourceTokens)]
    pub fn source_tokens(&self, seq: usize) -> Result<Vec<u32>, JsError> {
        self.check_seq(seq)?;
        let b = self.inner.eval_batch();
        Ok((0..b.src_len).map(|s| b.src(s, seq)).collect())
    }

    /// Target tokens (Lt,) of evaluation sequence `seq` (what each step must predict).
    #[wasm_bindgen(js_name = targetTokens)]
    pub fn target_tokens(&self, seq: usize) -> Result<Vec<u32>, JsError> {
        self.check_seq(seq)?;
        let b = self.inner.eval_batch();
        Ok((0..b.tgt_len).map(|t| b.tgt(t, seq)).collect())
    }

    /// The aligned source position (Lt,) of each target step.
    pub fn aligned(&self) -> Vec<u32> {
        self.inner.eval_batch().aligned.clone()
    }

    /// Back to step 0 with the same seed, or with `seed`.
    pub fn reset(&mut self, seed: Option<f64>) -> Result<(), JsError> {
        let seed = match seed {
            None => None,
            Some(s) if s >= 0.0 && s.fract() == 0.0 && s <= 9_007_199_254_740_991.0 => {
                Some(s as u64)
            }
            Some(s) => {
                return Err(JsError::new(&format!(
                    "seed: must be a whole number from 0 to 2^53 − 1, got {s}"
                )))
            }
        };
        self.inner.reset(seed);
        Ok(())
    }

    /// Makes this trainer replica `index` of `count` of a data-parallel run (see
    /// `Trainer::set_shard`).
    #[wasm_bindgen(js_name = setShard)]
    pub fn set_shard(&mut self, index: usize, count: usize) -> Result<(), JsError> {
        self.inner
            .set_shard(index, count)
            .map_err(|e| JsError::new(&e.to_string()))
    }

    /// This replica's share of each batch (its gradient's weight).
    #[wasm_bindgen(getter, js_name = shardWeight)]
    pub fn shard_weight(&self) -> f32 {
        self.inner.shard_weight()
    }

    /// Draws the next batch and computes the gradient of this replica's rows; returns
    /// their mean loss. A divergence is an error with its message.
    #[wasm_bindgen(js_name = shardGradient)]
    pub fn shard_gradient(&mut self) -> Result<f32, JsError> {
        self.inner
            .shard_gradient()
            .map_err(|e| JsError::new(&e.to_string()))
    }

    /// A view of the gradient buffer in wasm memory, to read it or write the combined
    /// gradient into it without a copy. Valid only until the next call into the module.
    #[wasm_bindgen(js_name = gradientView)]
    pub fn gradient_view(&mut self) -> js_sys::Float32Array {
        let g = self.inner.gradient_mut();
        // SAFETY: the view aliases `g`, which lives as long as the trainer; the caller uses
        // it before calling into the module again (which could grow memory and detach it).
        unsafe { js_sys::Float32Array::view_mut_raw(g.as_mut_ptr(), g.len()) }
    }

    /// Multiplies the gradient buffer by `w` (this replica's shard weight), the start of
    /// summing the replicas' gradients.
    #[wasm_bindgen(js_name = scaleGradient)]
    pub fn scale_gradient(&mut self, w: f32) {
        self.inner.scale_gradient(w);
    }

    /// A view of a buffer in wasm memory (made once, the gradient's size) into which the
    /// caller writes another replica's gradient for [`WasmTrainer::add_inbox`]. Valid only
    /// until the next call into the module.
    #[wasm_bindgen(js_name = inboxView)]
    pub fn inbox_view(&mut self) -> js_sys::Float32Array {
        let n = self.inner.gradient_mut().len();
        self.inbox.resize(n, 0.0);
        // SAFETY: as for `gradient_view`: the view aliases `inbox`, owned by the trainer.
        unsafe { js_sys::Float32Array::view_mut_raw(self.inbox.as_mut_ptr(), n) }
    }

    /// Adds `w ·` the inbox to the gradient buffer.
    #[wasm_bindgen(js_name = addInbox)]
    pub fn add_inbox(&mut self, w: f32) {
        self.inner.add_to_gradient(&self.inbox, w);
    }

    /// Sharded runs, replicas other than 0: the evaluation part of the last step, if one
    /// was due, as `{ evaluation, lo, hi, alpha, beta }` (Float32Arrays: α (K, rows, Lt,
    /// Ls), β (rows, Lt, Ls)) for replica 0's `addEvaluationPart`; else undefined.
    #[wasm_bindgen(js_name = takeEvaluationPart)]
    pub fn take_evaluation_part(&mut self) -> Result<JsValue, JsError> {
        let Some(part) = self.inner.take_evaluation_part() else {
            return Ok(JsValue::UNDEFINED);
        };
        let out = js_sys::Object::new();
        let set = |k: &str, v: &JsValue| js_sys::Reflect::set(&out, &JsValue::from_str(k), v);
        set("evaluation", &to_js(&part.evaluation)?)
            .and_then(|_| set("lo", &JsValue::from(part.lo as u32)))
            .and_then(|_| set("hi", &JsValue::from(part.hi as u32)))
            .and_then(|_| set("alpha", &js_sys::Float32Array::from(part.alpha).into()))
            .and_then(|_| set("beta", &js_sys::Float32Array::from(part.beta).into()))
            .map_err(|_| JsError::new("could not build the evaluation part"))?;
        Ok(out.into())
    }

    /// Sharded runs, replica 0: whether its part of an evaluation waits for the others'.
    #[wasm_bindgen(getter, js_name = evaluationPending)]
    pub fn evaluation_pending(&self) -> bool {
        self.inner.evaluation_pending()
    }

    /// Replica 0: adds another replica's evaluation part (from its `takeEvaluationPart`).
    #[wasm_bindgen(js_name = addEvaluationPart)]
    pub fn add_evaluation_part(
        &mut self,
        evaluation: JsValue,
        lo: usize,
        hi: usize,
        alpha: &[f32],
        beta: &[f32],
    ) -> Result<(), JsError> {
        let evaluation = serde_wasm_bindgen::from_value(evaluation)?;
        self.inner
            .add_evaluation_part(&EvaluationPart {
                evaluation,
                lo,
                hi,
                alpha,
                beta,
            })
            .map_err(|e| JsError::new(&e))
    }

    /// Replica 0: records the evaluation gathered from its own and the added parts.
    #[wasm_bindgen(js_name = finishEvaluation)]
    pub fn finish_evaluation(&mut self) {
        self.inner.finish_evaluation();
    }

    /// Applies the gradient buffer as one update; `loss` is the batch's training loss.
    #[wasm_bindgen(js_name = applyGradient)]
    pub fn apply_gradient(&mut self, loss: f32) {
        self.inner.apply_gradient(loss);
    }

    /// A copy of the parameters (the model's weights, in the layout of its settings).
    pub fn params(&self) -> Vec<f32> {
        self.inner.params().to_vec()
    }

    /// Loads saved weights as the state after `step` updates and evaluates them; a buffer of
    /// another length or with a non-finite value is refused and changes nothing.
    #[wasm_bindgen(js_name = loadParams)]
    pub fn load_params(&mut self, params: &[f32], step: f64) -> Result<(), JsError> {
        self.inner
            .load_params(params, step.max(0.0) as u64)
            .map(|_| ())
            .map_err(|e| JsError::new(&e))
    }

    /// Changes the learning rate while training; a bad value changes nothing.
    #[wasm_bindgen(js_name = setLearningRate)]
    pub fn set_learning_rate(&mut self, lr: f32) -> Result<(), JsError> {
        self.inner
            .set_learning_rate(lr)
            .map_err(|e| JsError::new(&e.to_string()))
    }
}

impl WasmTrainer {
    fn check_seq(&self, seq: usize) -> Result<(), JsError> {
        let n = self.inner.eval_batch().batch;
        if seq < n {
            Ok(())
        } else {
            Err(JsError::new(&format!(
                "sequence: must be below {n}, got {seq}"
            )))
        }
    }

    /// The native trainer behind the facade (for tests).
    pub fn native(&self) -> &Trainer {
        &self.inner
    }
}
