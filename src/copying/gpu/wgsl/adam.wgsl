// One optimiser update of the flat parameters (P,) from the gradient (P,), skipped as a
// whole when stats[1] says the step diverged. Adam as PyTorch (m, v (P,) its moments;
// `step` = lr / (1 − β1ᵗ), `inv_sqrt_bc2` = 1 / √(1 − β2ᵗ)); plain SGD when `sgd` is 1.
struct P {
  count: u32, sgd: u32, _0: u32, _1: u32,
  lr: f32, step: f32, inv_sqrt_bc2: f32, eps: f32,
  beta1: f32, beta2: f32, _2: u32, _3: u32,
}
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read_write> params: array<f32>;
@group(0) @binding(2) var<storage, read> grads: array<f32>;
@group(0) @binding(3) var<storage, read_write> m: array<f32>;
@group(0) @binding(4) var<storage, read_write> v: array<f32>;
@group(0) @binding(5) var<storage, read> stats: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let i = g.x + g.y * nw.x * 64u;
  if (i >= p.count || stats[1] != 0u) { return; }
  let gr = grads[i];
  if (p.sgd == 1u) {
    params[i] -= p.lr * gr;
    return;
  }
  let mi = p.beta1 * m[i] + (1.0 - p.beta1) * gr;
  let vi = p.beta2 * v[i] + (1.0 - p.beta2) * gr * gr;
  m[i] = mi;
  v[i] = vi;
  params[i] -= p.step * mi / (sqrt(vi) * p.inv_sqrt_bc2 + p.eps);
}
