//! The optimisers, one loop each over the flat parameter and gradient buffers: Adam with
//! PyTorch's defaults and plain SGD. They know nothing of what the parameters mean.

use crate::settings::choices;

choices! {
    /// Which optimiser a run updates its parameters with.
    pub enum OptimizerKind {
        /// Adam with PyTorch's defaults β = (0.9, 0.999), ε = 1e-8.
        Adam = "adam" ("Adam"),
        /// Plain stochastic gradient descent.
        Sgd = "sgd" ("SGD"),
    }
}

/// Adam's β1, β2 and ε: PyTorch's defaults.
pub const ADAM: (f32, f32, f32) = (0.9, 0.999, 1e-8);

/// Adam's update `t` (from 1) as PyTorch scales it: `p −= step · m / (√v · inv_sqrt_bc2 + ε)`
/// with `step = lr / (1 − β1ᵗ)` and `inv_sqrt_bc2 = 1 / √(1 − β2ᵗ)`; returns the two.
pub fn adam_scales(lr: f32, beta1: f32, beta2: f32, t: u64) -> (f32, f32) {
    let bc1 = 1.0 - (beta1 as f64).powi(t as i32);
    let bc2 = 1.0 - (beta2 as f64).powi(t as i32);
    ((lr as f64 / bc1) as f32, (1.0 / bc2.sqrt()) as f32)
}

/// Optimiser state; `m` and `v` have the parameter buffer's layout.
#[derive(Clone, Debug)]
pub struct Optimizer {
    pub kind: OptimizerKind,
    pub learning_rate: f32,
    pub beta1: f32,
    pub beta2: f32,
    pub eps: f32,
    /// Updates applied so far (Adam's bias correction).
    pub t: u64,
    /// Decoupled weight decay `λ` (AdamW, PyTorch's order): before each update, the
    /// parameters in `decayed` are multiplied by `1 − lr·λ`. 0: none.
    pub weight_decay: f32,
    decayed: Vec<std::ops::Range<usize>>, // ranges of the parameter buffer
    m: Vec<f32>,                          // (P,) first moments
    v: Vec<f32>,                          // (P,) second moments
}

impl Optimizer {
    pub fn new(kind: OptimizerKind, learning_rate: f32, n_params: usize) -> Optimizer {
        let moments = if kind == OptimizerKind::Adam {
            n_params
        } else {
            0
        };
        Optimizer {
            kind,
            learning_rate,
            beta1: ADAM.0,
            beta2: ADAM.1,
            eps: ADAM.2,
            t: 0,
            weight_decay: 0.0,
            decayed: Vec::new(),
            m: vec![0.0; moments],
            v: vec![0.0; moments],
        }
    }

    /// Decays the parameters in `ranges` by `weight_decay` at each update.
    pub fn with_decay(
        mut self,
        weight_decay: f32,
        ranges: Vec<std::ops::Range<usize>>,
    ) -> Optimizer {
        self.weight_decay = weight_decay;
        self.decayed = ranges;
        self
    }

    /// The first and second moments (P,) each (empty for SGD).
    pub fn moments(&self) -> (&[f32], &[f32]) {
        (&self.m, &self.v)
    }

    /// The moments, to restore them.
    pub fn moments_mut(&mut self) -> (&mut [f32], &mut [f32]) {
        (&mut self.m, &mut self.v)
    }

    /// Forgets all history (a fresh run).
    pub fn reset(&mut self) {
        self.t = 0;
        self.m.fill(0.0);
        self.v.fill(0.0);
    }

    /// One update of `params` from `grads` (same length).
    pub fn update(&mut self, params: &mut [f32], grads: &[f32]) {
        assert_eq!(params.len(), grads.len());
        self.t += 1;
        let lr = self.learning_rate;
        if self.weight_decay != 0.0 {
            let keep = 1.0 - lr * self.weight_decay;
            for r in &self.decayed {
                params[r.clone()].iter_mut().for_each(|p| *p *= keep);
            }
        }
        match self.kind {
            OptimizerKind::Sgd => {
                for (p, g) in params.iter_mut().zip(grads) {
                    *p -= lr * g;
                }
            }
            OptimizerKind::Adam => {
                let (b1, b2) = (self.beta1, self.beta2);
                let (step, inv_sqrt_bc2) = adam_scales(lr, b1, b2, self.t);
                for (((p, g), m), v) in params
                    .iter_mut()
                    .zip(grads)
                    .zip(self.m.iter_mut())
                    .zip(self.v.iter_mut())
                {
                    *m = b1 * *m + (1.0 - b1) * g;
                    *v = b2 * *v + (1.0 - b2) * g * g;
                    *p -= step * *m / (v.sqrt() * inv_sqrt_bc2 + self.eps);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Adam's first step moves every parameter by lr against the sign of its gradient.
    #[test]
    fn adam_first_step_is_lr_times_sign() {
        let mut opt = Optimizer::new(OptimizerKind::Adam, 0.01, 3);
        let mut p = [1.0f32, 1.0, 1.0];
        opt.update(&mut p, &[0.5, -2.0, 1e-3]);
        for (x, want) in p.iter().zip([0.99f32, 1.01, 0.99]) {
            assert!((x - want).abs() < 1e-5, "{p:?}");
        }
    }

    /// Weight decay shrinks only the decayed ranges, by `1 − lr·λ`, before Adam's step;
    /// without a gradient the other parameters stay where they are.
    #[test]
    fn weight_decay_shrinks_the_decayed_ranges_only() {
        let mut opt = Optimizer::new(OptimizerKind::Adam, 0.1, 4).with_decay(2.0, vec![1..2, 3..4]);
        let mut p = [1.0f32, 1.0, -2.0, 1.0];
        opt.update(&mut p, &[0.0; 4]);
        assert_eq!(p, [1.0, 0.8, -2.0, 0.8]);
        // With a gradient: decay first, then the step (AdamW's order).
        let mut opt = Optimizer::new(OptimizerKind::Adam, 0.1, 1)
            .with_decay(1.0, std::iter::once(0..1).collect());
        let mut p = [2.0f32];
        opt.update(&mut p, &[1.0]);
        assert!((p[0] - (2.0 * 0.9 - 0.1)).abs() < 1e-6, "{p:?}");
    }

    /// Adam and SGD both minimise a quadratic.
    #[test]
    fn both_minimise_a_quadratic() {
        for kind in [OptimizerKind::Adam, OptimizerKind::Sgd] {
            let mut opt = Optimizer::new(kind, 0.1, 2);
            let mut p = [3.0f32, -2.0];
            for _ in 0..500 {
                let g = [2.0 * p[0], 2.0 * p[1]];
                opt.update(&mut p, &g);
            }
            assert!(p[0].abs() < 1e-2 && p[1].abs() < 1e-2, "{kind:?}: {p:?}");
        }
    }
}
