// One optimiser update of the flat parameters (P,) from the gradient (P,), skipped as a
// whole when stats[2] says the seed diverged (at this step or before). Adam as PyTorch (m, v (P,) its moments;
// `step` = lr / (1 − β1ᵗ), `inv_sqrt_bc2` = 1 / √(1 − β2ᵗ)); plain SGD when `sgd` is 1.
struct P {
  count: u32, sgd: u32, _0: u32, _1: u32,
  lr: f32, step: f32, inv_sqrt_bc2: f32, eps: f32,
  beta1: f32, beta2: f32, _2: u32, _3: u32,
  ss0: vec4<u32>, ss1: vec4<u32>,
}
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read_write> params: array<f32>;
@group(0) @binding(2) var<storage, read> grads: array<f32>;
@group(0) @binding(3) var<storage, read_write> m: array<f32>;
@group(0) @binding(4) var<storage, read_write> v: array<f32>;
@group(0) @binding(5) var<storage, read> stats: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let e = g.x + g.y * nw.x * 64u;
  let sd = g.z;
  if (e >= p.count || stats[so(5u, sd) + 2u] != 0u) { return; }
  let i = e + so(1u, sd);
  let gr = grads[e + so(2u, sd)];
  if (p.sgd == 1u) {
    params[i] -= p.lr * gr;
    return;
  }
  let k = e + so(3u, sd);
  let mi = p.beta1 * m[k] + (1.0 - p.beta1) * gr;
  let vi = p.beta2 * v[k] + (1.0 - p.beta2) * gr * gr;
  m[k] = mi;
  v[k] = vi;
  params[i] -= p.step * mi / (sqrt(vi) * p.inv_sqrt_bc2 + p.eps);
}
