// The output layer's small pieces around its products (model/output.rs):
//   fuse_bias:  b (H,) = b_comb + W_c' Σ_k b_c^k / K, one thread per j
//   bias_back:  from dbias (H,): g W_c'[j, i] += dbias[j] Σ_k b_c^k[i] / K (one thread per
//               (j, i)) and g b_c^k[i] += Σ_j W_c'[j, i] dbias[j] / K (threads j = 0 do it)
//   dtable:     dtable (NT, 4H) = Σ over rows r with token v of dgates[r], one thread per
//               (v, column): the embedding table's gradient without atomics
// Parameter offsets are into the flat parameters `w` and gradients `g`.
struct P {
  h: u32, k: u32, w_comb: u32, b_comb: u32,
  b_c: u32, rows: u32, nt: u32, tok_off: u32,
  inv_k: f32, _0: u32, _1: u32, _2: u32,
  ss0: vec4<u32>, ss1: vec4<u32>,
}
@group(0) @binding(0) var<uniform> p: P;
#ifdef FUSE
@group(0) @binding(1) var<storage, read> w: array<f32>;
@group(0) @binding(2) var<storage, read_write> bias: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
  let j = g.x;
  let h = p.h;
  if (j >= h) { return; }
  let w0 = so(1u, g.z);
  var acc = 0.0;
  for (var i = 0u; i < h; i++) {
    var s = 0.0;
    for (var k = 0u; k < p.k; k++) { s += w[w0 + p.b_c + k * h + i]; }
    acc += w[w0 + p.w_comb + j * 2u * h + h + i] * s;
  }
  bias[j + so(2u, g.z)] = w[w0 + p.b_comb + j] + acc * p.inv_k;
}
#endif
#ifdef BIAS_BACK
@group(0) @binding(1) var<storage, read> w: array<f32>;
@group(0) @binding(2) var<storage, read> dbias: array<f32>;
@group(0) @binding(3) var<storage, read_write> gr: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let e = g.x + g.y * nw.x * 64u;
  let h = p.h;
  if (e >= h * h) { return; }
  let j = e / h;
  let i = e % h;
  let w0 = so(1u, g.z);
  let d0 = so(2u, g.z);
  let g0 = so(3u, g.z);
  var s = 0.0;
  for (var k = 0u; k < p.k; k++) { s += w[w0 + p.b_c + k * h + i]; }
  gr[g0 + p.w_comb + j * 2u * h + h + i] += dbias[d0 + j] * s * p.inv_k;
  if (j == 0u) {
    var acc = 0.0;
    for (var jj = 0u; jj < h; jj++) { acc += w[w0 + p.w_comb + jj * 2u * h + h + i] * dbias[d0 + jj]; }
    for (var k = 0u; k < p.k; k++) { gr[g0 + p.b_c + k * h + i] += acc * p.inv_k; }
  }
}
#endif
#ifdef DTABLE
@group(0) @binding(1) var<storage, read> tok: array<u32>;
@group(0) @binding(2) var<storage, read> dgates: array<f32>;
@group(0) @binding(3) var<storage, read_write> dtable: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let e = g.x + g.y * nw.x * 64u;
  let g4 = 4u * p.h;
  if (e >= p.nt * g4) { return; }
  let v = e / g4;
  let c = e % g4;
  let t0 = p.tok_off + so(1u, g.z);
  let d0 = so(2u, g.z);
  var s = 0.0;
  for (var r = 0u; r < p.rows; r++) {
    if (tok[t0 + r] == v) { s += dgates[d0 + r * g4 + c]; }
  }
  dtable[e + so(3u, g.z)] = s;
}
#endif
