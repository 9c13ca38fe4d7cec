//! The copying lab's side of the facade: its settings from JS, its presets, its snapshot
//! (`α`, `β` and each head's `α` of one evaluation sequence, with its tokens and alignment)
//! and its evaluation parts, as JS objects of typed arrays.

use super::js::{
    error, get, losses, presets_of, refusal, series_head, set, settings_of, to_js, transfer_list,
    whole_of,
};
use super::lab::{Lab, LabReplica, LabRun};
use crate::config::{Config, ConfigError, PRESETS};
use crate::metrics::{mean_agreement, shuffled_agreement, Evaluation};
use crate::parallel::{check_params, EvaluationPart, Replica};
use crate::rng::Rng;
use crate::train::Trainer;
use js_sys::{Array, Float32Array, Object, Uint32Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The copying lab, as the facade lists it.
pub const LAB: Lab = Lab {
    name: "copying",
    presets,
    validate: |c| match config(c) {
        Ok(c) => to_js(&c).map(Ok),
        Err(e) => Ok(Err(refusal(&e))),
    },
    check_weights: |c, params| {
        check_params(&config(c).map_err(error)?, params).map_err(|e| JsError::new(&e))
    },
    run: |c, workers| {
        Ok(Box::new(
            Trainer::leader(config(c).map_err(error)?, workers).map_err(error)?,
        ))
    },
    replica: |c, index, count| {
        Ok(Box::new(
            Replica::new(config(c).map_err(error)?, index, count).map_err(error)?,
        ))
    },
};

impl LabRun for Trainer {
    fn steps(&mut self, n: u32) -> Result<f32, JsError> {
        if self.shard().count > 1 {
            return Err(JsError::new(
                "a data-parallel run steps with computeGradient, addGradient and apply",
            ));
        }
        let mut loss = self.last_loss();
        for _ in 0..n {
            loss = self.step().map_err(error)?;
        }
        Ok(loss)
    }

    fn step(&self) -> u64 {
        self.step_count()
    }

    fn last_loss(&self) -> f32 {
        Trainer::last_loss(self)
    }

    fn config(&self) -> Result<JsValue, JsError> {
        to_js(Trainer::config(self))
    }

    fn snapshot(&self, request: &JsValue) -> Result<(Object, Array, u64), JsError> {
        snapshot(self, request)
    }

    fn history(&self) -> Result<Object, JsError> {
        history(self).map(|(h, _)| h)
    }

    fn losses(&self) -> Result<Object, JsError> {
        losses(Trainer::losses(self))
    }

    fn reset(&mut self, seed: Option<u64>) {
        Trainer::reset(self, seed);
    }

    fn set_learning_rate(&mut self, lr: f32) -> Result<(), JsError> {
        Trainer::set_learning_rate(self, lr).map_err(error)
    }

    fn params(&self) -> &[f32] {
        Trainer::params(self)
    }

    fn load_params(&mut self, params: &[f32], step: u64) -> Result<(), JsError> {
        Trainer::load_params(self, params, step)
            .map(|_| ())
            .map_err(|e| JsError::new(&e))
    }

    fn compute_gradient(&mut self) -> Result<f32, JsError> {
        Trainer::compute_gradient(self).map_err(error)
    }

    fn add_gradient(&mut self, part: &[f32], loss: f32) {
        Trainer::add_gradient(self, part, loss);
    }

    fn gradient(&self) -> &[f32] {
        Trainer::gradient(self)
    }

    fn apply(&mut self) {
        Trainer::apply(self);
    }

    fn evaluation_pending(&self) -> bool {
        Trainer::evaluation_pending(self)
    }

    fn add_evaluation_part(&mut self, part: &JsValue) -> Result<(), JsError> {
        add_part(self, part)
    }
}

impl LabReplica for Replica {
    fn compute_gradient(&mut self) -> Result<f32, JsError> {
        Replica::compute_gradient(self).map_err(error)
    }

    fn gradient(&self) -> &[f32] {
        Replica::gradient(self)
    }

    fn apply_sum(&mut self, sum: &[f32]) -> Result<JsValue, JsError> {
        match Replica::apply_sum(self, sum) {
            Some(p) => part(&p).map(JsValue::from),
            None => Ok(JsValue::UNDEFINED),
        }
    }

    fn reset(&mut self, seed: Option<u64>) {
        Replica::reset(self, seed);
    }

    fn set_learning_rate(&mut self, lr: f32) -> Result<(), JsError> {
        Replica::set_learning_rate(self, lr).map_err(error)
    }

    fn load_params(&mut self, params: &[f32], step: u64) -> Result<(), JsError> {
        Replica::load_params(self, params, step).map_err(|e| JsError::new(&e))
    }
}

/// Settings from JS ([`settings_of`]).
pub(crate) fn config(value: JsValue) -> Result<Config, ConfigError> {
    settings_of(&value)
}

fn presets() -> Result<JsValue, JsError> {
    presets_of(&PRESETS, Config::preset)
}

/// `request.key` as a whole number, or `default`.
fn number(request: &JsValue, key: &str, default: f64) -> f64 {
    get(request, key).as_f64().unwrap_or(default)
}

/// The snapshot object, its typed arrays to transfer, and the history version it stands for.
fn snapshot(t: &Trainer, request: &JsValue) -> Result<(Object, Array, u64), JsError> {
    let b = t.eval_batch();
    let heads = t.config().heads;
    let seq = number(request, "seq", 0.0).clamp(0.0, (b.batch - 1) as f64) as usize;
    let head = number(request, "head", -1.0);
    let head = if head >= 0.0 && (head as usize) < heads && head.fract() == 0.0 {
        Some(head as usize)
    } else {
        None
    };
    let snap = Object::new();
    set(&snap, "lab", &"copying".into())?;
    set(&snap, "step", &(t.step_count() as f64).into())?;
    set(&snap, "loss", &t.last_loss().into())?;
    set(&snap, "workers", &(t.shard().count as f64).into())?;
    set(&snap, "config", &to_js(t.config())?)?;
    set(&snap, "seq", &(seq as f64).into())?;
    set(&snap, "head", &head.map_or(-1.0, |k| k as f64).into())?;
    let shape = Object::new();
    set(&shape, "tgtLen", &(b.tgt_len as f64).into())?;
    set(&shape, "srcLen", &(b.src_len as f64).into())?;
    set(&shape, "heads", &(heads as f64).into())?;
    set(&shape, "evalSeqs", &(b.batch as f64).into())?;
    set(&snap, "shape", &shape)?;
    let alpha: JsValue = Float32Array::from(t.attention(seq, head)).into();
    let beta: JsValue = Float32Array::from(t.ktiw(seq)).into();
    let per_head: Vec<JsValue> = if heads > 1 {
        (0..heads)
            .map(|k| Float32Array::from(t.attention(seq, Some(k))).into())
            .collect()
    } else {
        Vec::new()
    };
    let source: Vec<u32> = (0..b.src_len).map(|s| b.src(s, seq)).collect();
    let target: Vec<u32> = (0..b.tgt_len).map(|s| b.tgt(s, seq)).collect();
    let tokens: [JsValue; 3] = [
        Uint32Array::from(&source[..]).into(),
        Uint32Array::from(&target[..]).into(),
        Uint32Array::from(&b.aligned[..]).into(),
    ];
    set(&snap, "alpha", &alpha)?;
    set(&snap, "beta", &beta)?;
    set(&snap, "perHead", &per_head.iter().collect::<Array>())?;
    for (name, v) in ["source", "target", "aligned"].iter().zip(&tokens) {
        set(&snap, name, v)?;
    }
    let mut arrays: Vec<&JsValue> = vec![&alpha, &beta];
    arrays.extend(per_head.iter());
    arrays.extend(tokens.iter());
    let mut transfer = transfer_list(&arrays);
    let have = get(request, "history").as_f64();
    let version = t.history().version();
    if have != Some(version as f64) {
        let (history, columns) = history(t)?;
        set(&snap, "history", &history)?;
        transfer = transfer.concat(&transfer_list(&columns.iter().collect::<Vec<_>>()));
        // With a new evaluation, if asked: the whole evaluation batch's maps.
        if get(request, "evaluationMaps").is_truthy() {
            let (alpha, beta) = t.evaluation_maps();
            let maps: [JsValue; 2] = [
                Float32Array::from(alpha).into(),
                Float32Array::from(beta).into(),
            ];
            set(&snap, "evaluationAlpha", &maps[0])?;
            set(&snap, "evaluationBeta", &maps[1])?;
            transfer = transfer.concat(&transfer_list(&maps.iter().collect::<Vec<_>>()));
        }
    }
    Ok((snap, transfer, version))
}

/// The stream of the shuffles of [`copying_agreement`]'s baseline.
const SHUFFLE_STREAM: u64 = 0x5417_ff1e;

/// The top-5% agreement (SCIENCE.md 1.4) of maps `a` with maps `b`, each (B, Lt, Ls),
/// averaged over the B sequences, and the same with every row of `b` shuffled over the
/// source positions (chance), the shuffles drawn from `seed`: `[agreement, shuffled]`.
#[wasm_bindgen(js_name = copyingAgreement)]
pub fn copying_agreement(
    a: &[f32],
    b: &[f32],
    tgt_len: usize,
    src_len: usize,
    seed: f64,
) -> Result<Vec<f32>, JsError> {
    let per = tgt_len * src_len;
    if per == 0 || a.is_empty() || a.len() != b.len() || !a.len().is_multiple_of(per) {
        return Err(JsError::new(&format!(
            "agreement: maps of {} and {} values are not both whole sequences of {tgt_len}×{src_len}",
            a.len(),
            b.len()
        )));
    }
    let mut rng = Rng::new(whole_of("seed", seed)?, SHUFFLE_STREAM);
    Ok(vec![
        mean_agreement(a, b, tgt_len, src_len),
        shuffled_agreement(a, b, tgt_len, src_len, &mut rng),
    ])
}

/// The evaluations as columns, and those columns (to transfer).
fn history(t: &Trainer) -> Result<(Object, Vec<JsValue>), JsError> {
    let h = t.history();
    let out = Object::new();
    let mut columns = vec![series_head(h, &out)?];
    for (i, name) in Evaluation::METRICS.iter().enumerate() {
        let values: Vec<f32> = h.iter().map(|(_, e)| e.metrics()[i]).collect();
        let values: JsValue = Float32Array::from(&values[..]).into();
        set(&out, name, &values)?;
        columns.push(values);
    }
    // With several heads, each head's attention accuracy: `attention_accuracy_h1`, ….
    let heads = t.config().heads;
    if heads > 1 {
        for k in 0..heads {
            let values: Vec<f32> = h.iter().map(|(_, e)| e.head_attention[k]).collect();
            let values: JsValue = Float32Array::from(&values[..]).into();
            set(&out, &format!("attention_accuracy_h{}", k + 1), &values)?;
            columns.push(values);
        }
    }
    Ok((out, columns))
}

/// An evaluation part as `{ evaluation, lo, hi, alpha, beta }`.
fn part(p: &EvaluationPart) -> Result<Object, JsError> {
    let out = Object::new();
    set(&out, "evaluation", &to_js(&p.evaluation)?)?;
    set(&out, "lo", &(p.lo as f64).into())?;
    set(&out, "hi", &(p.hi as f64).into())?;
    set(&out, "alpha", &Float32Array::from(p.alpha).into())?;
    set(&out, "beta", &Float32Array::from(p.beta).into())?;
    Ok(out)
}

/// Adds a part (as [`part`] made it) to the leader's evaluation.
fn add_part(t: &mut Trainer, p: &JsValue) -> Result<(), JsError> {
    let evaluation: Evaluation = serde_wasm_bindgen::from_value(get(p, "evaluation"))
        .map_err(|e| JsError::new(&format!("evaluation part: {e}")))?;
    let index = |key: &str| {
        get(p, key)
            .as_f64()
            .filter(|x| *x >= 0.0)
            .map(|x| x as usize)
    };
    let floats = |key: &str| {
        get(p, key)
            .dyn_into::<Float32Array>()
            .map(|a| a.to_vec())
            .ok()
    };
    let (Some(lo), Some(hi), Some(alpha), Some(beta)) =
        (index("lo"), index("hi"), floats("alpha"), floats("beta"))
    else {
        return Err(JsError::new(
            "evaluation part: lo, hi, alpha or beta missing",
        ));
    };
    t.add_evaluation_part(&EvaluationPart {
        evaluation,
        lo,
        hi,
        alpha: &alpha,
        beta: &beta,
    })
    .map_err(|e| JsError::new(&e))
}
