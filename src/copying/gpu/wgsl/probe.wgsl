// The KTIW probe (copying/metrics.rs, KtiwProbe) over a chunk of the evaluation batch:
// for sequence b = b0 + (r / T²), target step t and source position s of row r,
//   LOGITS:   logits (rows, NT) = tanh(u[t, b] + v[b, s]) W_oᵀ + b_o, in 16 × 16 tiles with
//             the tanh formed as each tile of its left operand is loaded
//   LOG_ODDS: β[b, t, s] = log(p / (1 − p)) of the target y_t, p = softmax(logits)[y_t],
//             as logits[y] − logsumexp of the others; one thread per row
// u (T, Be, H) = d W_dᵀ + b, v (Be, T, H) = Σ_k M_k h_s, w the flat parameters,
// tok (T, Be) the targets (at tok_off), β (Be, T, T).
struct P {
  rows: u32, t: u32, bsz: u32, h: u32,
  nt: u32, b0: u32, w_out: u32, b_out: u32,
  tok_off: u32, _0: u32, _1: u32, _2: u32,
  ss0: vec4<u32>, ss1: vec4<u32>,
}
@group(0) @binding(0) var<uniform> p: P;
#ifdef LOGITS
@group(0) @binding(1) var<storage, read> u: array<f32>;
@group(0) @binding(2) var<storage, read> v: array<f32>;
@group(0) @binding(3) var<storage, read> w: array<f32>;
@group(0) @binding(4) var<storage, read_write> logits: array<f32>;

var<workgroup> ta: array<array<f32, 16>, 16>;
var<workgroup> tb: array<array<f32, 16>, 16>;

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
  let row = wg.y * 16u + l.y;
  let col = wg.x * 16u + l.x;
  let tt = p.t * p.t;
  let b = p.b0 + row / tt;
  let t = (row / p.t) % p.t;
  let s = row % p.t;
  let sd = wg.z;
  let uo = (t * p.bsz + b) * p.h + so(1u, sd);
  let vo = (b * p.t + s) * p.h + so(2u, sd);
  let w0 = so(3u, sd);
  var acc = 0.0;
  for (var k0 = 0u; k0 < p.h; k0 += 16u) {
    let ka = k0 + l.x;
    var x = 0.0;
    if (row < p.rows && ka < p.h) { x = tanh_(u[uo + ka] + v[vo + ka]); }
    ta[l.y][l.x] = x;
    let kb = k0 + l.y;
    var y = 0.0;
    if (kb < p.h && col < p.nt) { y = w[w0 + p.w_out + col * p.h + kb]; }
    tb[l.y][l.x] = y;
    workgroupBarrier();
    for (var kk = 0u; kk < 16u; kk++) { acc += ta[l.y][kk] * tb[kk][l.x]; }
    workgroupBarrier();
  }
  if (row < p.rows && col < p.nt) {
    logits[row * p.nt + col + so(4u, sd)] = acc + w[w0 + p.b_out + col];
  }
}
#endif
#ifdef LOG_ODDS
@group(0) @binding(1) var<storage, read> logits: array<f32>;
@group(0) @binding(2) var<storage, read> tok: array<u32>;
@group(0) @binding(3) var<storage, read_write> beta: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let r = g.x + g.y * nw.x * 64u;
  if (r >= p.rows) { return; }
  let tt = p.t * p.t;
  let b = p.b0 + r / tt;
  let t = (r / p.t) % p.t;
  let s = r % p.t;
  let sd = g.z;
  let y = tok[p.tok_off + t * p.bsz + b + so(2u, sd)];
  let o = r * p.nt + so(1u, sd);
  var m = -3.0e38;
  for (var j = 0u; j < p.nt; j++) {
    if (j != y) { m = max(m, logits[o + j]); }
  }
  var sum = 0.0;
  for (var j = 0u; j < p.nt; j++) {
    if (j != y) { sum += exp(logits[o + j] - m); }
  }
  beta[(b * p.t + t) * p.t + s + so(3u, sd)] = logits[o + y] - (m + log(sum));
}
#endif
