// The loss and what the update needs of it.
//   nll:    logits (N, NT) → log-probabilities in place; nll (N,) of each row's target; and
//           dlogits (N, NT) = (softmax − onehot(target)) / N, one thread per row.
//   reduce: loss = Σ nll / N into stats[0] (its bits), and stats[1] = 1 when the loss is not
//           finite or above `limit` (a diverged step), else 0; one workgroup per seed.
//   check:  stats[1] = 1 when a gradient value is not finite, one thread per value.
// A diverged step also sets stats[2], which only the host clears (loading weights, or a lone
// run's next step): a sweep's seed that diverged stays stopped while the others train on.
struct P {
  rows: u32, nt: u32, tok_off: u32, count: u32,
  inv_n: f32, limit: f32, _0: u32, _1: u32,
  ss0: vec4<u32>, ss1: vec4<u32>,
}
@group(0) @binding(0) var<uniform> p: P;
#ifdef NLL
@group(0) @binding(1) var<storage, read_write> logits: array<f32>;
@group(0) @binding(2) var<storage, read> tok: array<u32>;
@group(0) @binding(3) var<storage, read_write> nll: array<f32>;
@group(0) @binding(4) var<storage, read_write> dlogits: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let r = g.x + g.y * nw.x * 64u;
  if (r >= p.rows) { return; }
  let sd = g.z;
  let o = r * p.nt + so(1u, sd);
  let d0 = r * p.nt + so(4u, sd);
  var m = logits[o];
  for (var j = 1u; j < p.nt; j++) { m = max(m, logits[o + j]); }
  var s = 0.0;
  for (var j = 0u; j < p.nt; j++) { s += exp(logits[o + j] - m); }
  let lse = m + log(s);
  let y = tok[p.tok_off + r + so(2u, sd)];
  for (var j = 0u; j < p.nt; j++) {
    let lp = logits[o + j] - lse;
    logits[o + j] = lp;
    var d = exp(lp) * p.inv_n;
    if (j == y) { d -= p.inv_n; nll[r + so(3u, sd)] = -lp; }
    dlogits[d0 + j] = d;
  }
}
#endif
#ifdef REDUCE
@group(0) @binding(1) var<storage, read> nll: array<f32>;
@group(0) @binding(2) var<storage, read_write> stats: array<u32>;
var<workgroup> part: array<f32, 256>;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wg: vec3<u32>) {
  let sd = wg.z;
  let n0 = so(1u, sd);
  var s = 0.0;
  for (var r = l; r < p.rows; r += 256u) { s += nll[n0 + r]; }
  part[l] = s;
  workgroupBarrier();
  for (var w = 128u; w > 0u; w >>= 1u) {
    if (l < w) { part[l] += part[l + w]; }
    workgroupBarrier();
  }
  if (l == 0u) {
    let loss = part[0] * p.inv_n;
    let st = so(2u, sd);
    stats[st] = bitcast<u32>(loss);
    let bad = not_finite(loss) || loss > p.limit;
    stats[st + 1u] = select(0u, 1u, bad);
    if (bad) { stats[st + 2u] = 1u; }
  }
}
#endif
#ifdef CHECK
@group(0) @binding(1) var<storage, read> grads: array<f32>;
@group(0) @binding(2) var<storage, read_write> stats: array<atomic<u32>>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let i = g.x + g.y * nw.x * 64u;
  if (i >= p.count) { return; }
  if (not_finite(grads[i + so(1u, g.z)])) {
    atomicStore(&stats[so(2u, g.z) + 1u], 1u);
    atomicStore(&stats[so(2u, g.z) + 2u], 1u);
  }
}
#endif
