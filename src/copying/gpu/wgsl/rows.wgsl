// Row-wise kernels over `rows` rows of `cols` values at `off` with row stride `ld`, one
// thread per row (rows are short here: Ls source positions or NT tokens) or per element:
//   softmax      x = softmax(x) in place
//   softmax_back x = a ⊙ (x − Σ a x) in place, a = softmax output (the gradient through it)
//   bias_tanh    x = tanh(x + v1) in place, one thread per element
//   add_bias     x += v1 (+ v2 when `two` is 1), one thread per element
//   tanh_back    x *= 1 − a², one thread per element (a = tanh output)
//   col_sums     out[j] = beta · out[j] + Σ_r x[r, j], one thread per column
struct P {
  rows: u32, cols: u32, ld: u32, off: u32,
  a_off: u32, v1_off: u32, v2_off: u32, two: u32,
  beta: f32, _0: u32, _1: u32, _2: u32,
  ss0: vec4<u32>, ss1: vec4<u32>,
}
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read_write> x: array<f32>;
@group(0) @binding(2) var<storage, read> v: array<f32>;

fn index(g: vec3<u32>, nw: vec3<u32>) -> u32 {
  return g.x + g.y * nw.x * 64u;
}

@compute @workgroup_size(64)
fn softmax(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let r = index(g, nw);
  if (r >= p.rows) { return; }
  let o = p.off + r * p.ld + so(1u, g.z);
  var m = x[o];
  for (var j = 1u; j < p.cols; j++) { m = max(m, x[o + j]); }
  var s = 0.0;
  for (var j = 0u; j < p.cols; j++) {
    let e = exp(x[o + j] - m);
    x[o + j] = e;
    s += e;
  }
  let inv = 1.0 / s;
  for (var j = 0u; j < p.cols; j++) { x[o + j] *= inv; }
}

@compute @workgroup_size(64)
fn softmax_back(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let r = index(g, nw);
  if (r >= p.rows) { return; }
  let o = p.off + r * p.ld + so(1u, g.z);
  let ao = p.a_off + r * p.ld + so(2u, g.z);
  var dot = 0.0;
  for (var j = 0u; j < p.cols; j++) { dot += x[o + j] * v[ao + j]; }
  for (var j = 0u; j < p.cols; j++) { x[o + j] = v[ao + j] * (x[o + j] - dot); }
}

@compute @workgroup_size(64)
fn bias_tanh(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let e = index(g, nw);
  if (e >= p.rows * p.cols) { return; }
  let r = e / p.cols;
  let j = e % p.cols;
  let o = p.off + r * p.ld + j + so(1u, g.z);
  x[o] = tanh_(x[o] + v[p.v1_off + j + so(2u, g.z)]);
}

@compute @workgroup_size(64)
fn add_bias(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let e = index(g, nw);
  if (e >= p.rows * p.cols) { return; }
  let r = e / p.cols;
  let j = e % p.cols;
  let o = p.off + r * p.ld + j + so(1u, g.z);
  let vs = so(2u, g.z);
  var s = v[p.v1_off + j + vs];
  if (p.two == 1u) { s += v[p.v2_off + j + vs]; }
  x[o] += s;
}

@compute @workgroup_size(64)
fn tanh_back(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let e = index(g, nw);
  if (e >= p.rows * p.cols) { return; }
  let r = e / p.cols;
  let j = e % p.cols;
  let a = v[p.a_off + r * p.ld + j + so(2u, g.z)];
  x[p.off + r * p.ld + j + so(1u, g.z)] *= 1.0 - a * a;
}

// Here x is the output (`cols` values at `off`) and v the matrix (rows at a_off, stride ld).
@compute @workgroup_size(64)
fn col_sums(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let j = index(g, nw);
  if (j >= p.cols) { return; }
  var s = 0.0;
  let vs = p.a_off + so(2u, g.z);
  for (var r = 0u; r < p.rows; r++) { s += v[vs + r * p.ld + j]; }
  let o = p.off + j + so(1u, g.z);
  if (p.beta == 0.0) { x[o] = s; } else { x[o] = s + p.beta * x[o]; }
}
