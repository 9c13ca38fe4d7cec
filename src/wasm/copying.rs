//! The copying lab's side of the facade: its entry (presets, model size, runs and
//! replicas), its part of the snapshot (`α`, `β` and each head's `α` of one evaluation
//! sequence, with its tokens and alignment), its data-parallel calls and evaluation parts
//! as JS objects of typed arrays, and the top-5% agreement of two runs' maps.

use super::js::{get, refusal, run_error, set, to_js, whole_of};
use super::lab::{live_config, LabEntry, LabReplica, LabView, ParallelRun};
use crate::copying::config::{Config, PRESETS};
use crate::copying::metrics::{mean_agreement, shuffled_agreement, Evaluation};
use crate::copying::parallel::{EvaluationPart, Replica};
use crate::copying::streams::param_count;
use crate::copying::train::{EvaluationMaps, Trainer};
use crate::rng::Rng;
use crate::run::{Run, RunError};
use js_sys::{Float32Array, Object, Uint32Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The copying lab, as the facade lists it.
pub struct Copying;

impl LabEntry for Copying {
    type Config = Config;
    const NAME: &'static str = "copying";
    const PRESETS: &'static [&'static str] = &PRESETS;

    fn preset(name: &str) -> Option<Config> {
        Config::preset(name)
    }

    fn param_count(config: &Config) -> usize {
        param_count(config)
    }

    fn run(config: Config, workers: usize) -> Result<Box<dyn super::lab::LabRun>, RunError> {
        Ok(Box::new(Trainer::leader(config, workers)?))
    }

    fn replica(
        config: Config,
        index: usize,
        count: usize,
    ) -> Result<Box<dyn LabReplica>, RunError> {
        Ok(Box::new(Replica::new(config, index, count)?))
    }
}

impl LabView for Trainer {
    const LAB: &'static str = "copying";

    fn view(
        &self,
        request: &JsValue,
        snap: &Object,
        new_history: bool,
    ) -> Result<Vec<JsValue>, JsError> {
        view(self, self.config().heads, request, snap, new_history)
    }

    fn workers(&self) -> usize {
        self.shard().count
    }

    fn parallel(&mut self) -> Option<&mut dyn ParallelRun> {
        Some(self)
    }

    fn parallel_ref(&self) -> Option<&dyn ParallelRun> {
        Some(self)
    }
}

impl ParallelRun for Trainer {
    fn compute_gradient(&mut self) -> Result<f32, RunError> {
        Trainer::compute_gradient(self)
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

    fn add_evaluation_part(&mut self, part: &JsValue) -> Result<(), JsValue> {
        add_part(self, part)
    }
}

impl LabReplica for Replica {
    fn compute_gradient(&mut self) -> Result<f32, JsValue> {
        Replica::compute_gradient(self).map_err(|e| run_error(&e))
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

    fn set_live(&mut self, key: &str, value: &JsValue) -> Result<(), JsValue> {
        let config = live_config(self.config(), key, value).map_err(refusal)?;
        self.apply_live(&config).map_err(refusal)
    }

    fn load_params(&mut self, params: &[f32], step: u64) -> Result<(), JsValue> {
        Replica::load_params(self, params, step).map_err(|e| run_error(&e))
    }
}

/// `request.key` as a whole number, or `default`.
fn number(request: &JsValue, key: &str, default: f64) -> f64 {
    get(request, key).as_f64().unwrap_or(default)
}

/// The lab's part of a snapshot: the selected evaluation sequence's `α` (of the selected
/// head, or averaged), `β`, each head's `α` with several heads, its tokens and alignment;
/// with a new history, if asked, the whole evaluation batch's maps (`evaluationMaps`). Of
/// any backend's run of the lab, of `heads` heads.
pub(super) fn view<T: EvaluationMaps>(
    t: &T,
    heads: usize,
    request: &JsValue,
    snap: &Object,
    new_history: bool,
) -> Result<Vec<JsValue>, JsError> {
    let b = t.eval_batch();
    let seq = number(request, "seq", 0.0).clamp(0.0, (b.batch - 1) as f64) as usize;
    let head = number(request, "head", -1.0);
    let head = if head >= 0.0 && (head as usize) < heads && head.fract() == 0.0 {
        Some(head as usize)
    } else {
        None
    };
    set(snap, "seq", &(seq as f64).into())?;
    set(snap, "head", &head.map_or(-1.0, |k| k as f64).into())?;
    let shape = Object::new();
    set(&shape, "tgtLen", &(b.tgt_len as f64).into())?;
    set(&shape, "srcLen", &(b.src_len as f64).into())?;
    set(&shape, "heads", &(heads as f64).into())?;
    set(&shape, "evalSeqs", &(b.batch as f64).into())?;
    set(snap, "shape", &shape)?;
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
    set(snap, "alpha", &alpha)?;
    set(snap, "beta", &beta)?;
    set(snap, "perHead", &per_head.iter().collect::<js_sys::Array>())?;
    for (name, v) in ["source", "target", "aligned"].iter().zip(&tokens) {
        set(snap, name, v)?;
    }
    let mut arrays: Vec<JsValue> = vec![alpha, beta];
    arrays.extend(per_head);
    arrays.extend(tokens);
    // With a new evaluation, if asked: the whole evaluation batch's maps.
    if new_history && get(request, "evaluationMaps").is_truthy() {
        let (alpha, beta) = t.evaluation_maps();
        let maps = Object::new();
        let alpha: JsValue = Float32Array::from(alpha).into();
        let beta: JsValue = Float32Array::from(beta).into();
        set(&maps, "alpha", &alpha)?;
        set(&maps, "beta", &beta)?;
        set(snap, "evaluationMaps", &maps)?;
        arrays.extend([alpha, beta]);
    }
    Ok(arrays)
}

/// The stream of the shuffles of [`copying_agreement`]'s baseline.
const SHUFFLE_STREAM: u64 = 0x5417_ff1e;

/// The top-5% agreement (docs/science.md 1.4) of maps `a` with maps `b`, each (B, Lt, Ls),
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
fn add_part(t: &mut Trainer, p: &JsValue) -> Result<(), JsValue> {
    let internal = |m: String| run_error(&RunError::Internal(m));
    let evaluation: Evaluation = serde_wasm_bindgen::from_value(get(p, "evaluation"))
        .map_err(|e| internal(format!("evaluation part: {e}")))?;
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
        return Err(internal(
            "evaluation part: lo, hi, alpha or beta missing".into(),
        ));
    };
    t.add_evaluation_part(&EvaluationPart {
        evaluation,
        lo,
        hi,
        alpha: &alpha,
        beta: &beta,
    })
    .map_err(|e| run_error(&e))
}
