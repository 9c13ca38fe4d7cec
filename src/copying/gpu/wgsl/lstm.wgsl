// One time step of an LSTM layer, one thread per (sequence b, unit j) of a (B, H) state, in
// PyTorch's gate order i, f, g, o. Buffers hold every LSTM of the model at offsets:
//   wt     (H, 4H)    W_hhᵀ of this LSTM
//   w      (4H, H)    W_hh in the parameters (backward)
//   table  (NT, 4H)   E W_ihᵀ + b_ih + b_hh
//   tok    (T, B)     the input tokens
//   gates  (T, B, 4H) activated gates
//   hs, cs (T+1, B, H) states; [0] the initial one
//   tc     (T, B, H)  tanh(c[t+1])
//   dout   (T, B, H)  loss gradient w.r.t. each output h[t+1]
//   dgates (T, B, 4H) gradient w.r.t. the gate pre-activations
//   carry  (2, B, H)  [dh into the last step from the final state, dc carried back]
struct P {
  t: u32, steps: u32, bsz: u32, h: u32,
  zero_start: u32, w_off: u32, table_off: u32, tok_off: u32,
  gates_off: u32, h_off: u32, c_off: u32, tc_off: u32,
  dout_off: u32, dg_off: u32, carry_off: u32, _0: u32,
  ss0: vec4<u32>, ss1: vec4<u32>,
}
@group(0) @binding(0) var<uniform> p: P;

// Where step t's values lie in both kernels' buffers (before the offset and the seed's part):
// unit e = b·H + j of a (T, B, H) buffer at state_at(t, e); gate i of sequence b's unit j of
// a (T, B, 4H) one at gate_at(t, b, j), its gates f, g and o H, 2H and 3H further on.
fn state_at(t: u32, e: u32) -> u32 {
  return t * (p.bsz * p.h) + e;
}

fn gate_at(t: u32, b: u32, j: u32) -> u32 {
  return (t * p.bsz + b) * (4u * p.h) + j;
}
#ifdef FORWARD
@group(0) @binding(1) var<storage, read> wt: array<f32>;
@group(0) @binding(2) var<storage, read> table: array<f32>;
@group(0) @binding(3) var<storage, read> tok: array<u32>;
@group(0) @binding(4) var<storage, read_write> gates: array<f32>;
@group(0) @binding(5) var<storage, read_write> hs: array<f32>;
@group(0) @binding(6) var<storage, read_write> cs: array<f32>;
@group(0) @binding(7) var<storage, read_write> tc: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let e = gid.x + gid.y * nw.x * 64u;
  let h = p.h;
  if (e >= p.bsz * h) { return; }
  let sd = gid.z;
  let b = e / h;
  let j = e % h;
  let g4 = 4u * h;
  let tk = tok[p.tok_off + p.t * p.bsz + b + so(3u, sd)];
  let row = p.table_off + tk * g4 + j + so(2u, sd);
  var pi = table[row];
  var pf = table[row + h];
  var pg = table[row + 2u * h];
  var po = table[row + 3u * h];
  let h0 = p.h_off + so(5u, sd);
  let c0 = p.c_off + so(6u, sd);
  let hp = h0 + state_at(p.t, b * h); // h[t][b, ..]
  if (!(p.t == 0u && p.zero_start == 1u)) {
    let w0 = p.w_off + so(1u, sd);
    for (var k = 0u; k < h; k++) {
      let x = hs[hp + k];
      let w = w0 + k * g4 + j;
      pi += x * wt[w];
      pf += x * wt[w + h];
      pg += x * wt[w + 2u * h];
      po += x * wt[w + 3u * h];
    }
  }
  let i = sigmoid(pi);
  let f = sigmoid(pf);
  let g = tanh_(pg);
  let o = sigmoid(po);
  let go = p.gates_off + gate_at(p.t, b, j) + so(4u, sd);
  gates[go] = i;
  gates[go + h] = f;
  gates[go + 2u * h] = g;
  gates[go + 3u * h] = o;
  let c = f * cs[c0 + state_at(p.t, e)] + i * g;
  let t = tanh_(c);
  cs[c0 + state_at(p.t + 1u, e)] = c;
  tc[p.tc_off + state_at(p.t, e) + so(7u, sd)] = t;
  hs[h0 + state_at(p.t + 1u, e)] = o * t;
}
#endif
#ifdef BACKWARD
@group(0) @binding(1) var<storage, read> w: array<f32>;
@group(0) @binding(2) var<storage, read> gates: array<f32>;
@group(0) @binding(3) var<storage, read> cs: array<f32>;
@group(0) @binding(4) var<storage, read> tc: array<f32>;
@group(0) @binding(5) var<storage, read> dout: array<f32>;
@group(0) @binding(6) var<storage, read_write> dgates: array<f32>;
@group(0) @binding(7) var<storage, read_write> carry: array<f32>;

// A gradient d w.r.t. a non-linearity's output y, carried back to its input:
// σ' = y (1 − y), tanh' = 1 − y².
fn d_sigmoid(d: f32, y: f32) -> f32 {
  return d * y * (1.0 - y);
}

fn d_tanh(d: f32, y: f32) -> f32 {
  return d * (1.0 - y * y);
}

// Step t of backpropagation through time (t from T−1 down to 0). The gradient reaching h[t+1]
// from the later steps is dgates[t+1] W_hh, formed here from the previous dispatch's output.
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let e = gid.x + gid.y * nw.x * 64u;
  let h = p.h;
  if (e >= p.bsz * h) { return; }
  let sd = gid.z;
  let b = e / h;
  let j = e % h;
  let g4 = 4u * h;
  let bh = p.bsz * h;
  let dg0 = p.dg_off + so(6u, sd);
  let cr = p.carry_off + so(7u, sd);
  var dh = dout[p.dout_off + state_at(p.t, e) + so(5u, sd)];
  if (p.t + 1u < p.steps) {
    let dn = dg0 + gate_at(p.t + 1u, b, 0u);
    let w0 = p.w_off + so(1u, sd);
    for (var r = 0u; r < g4; r++) {
      dh += dgates[dn + r] * w[w0 + r * h + j];
    }
  } else {
    dh += carry[cr + e];
  }
  let go = p.gates_off + gate_at(p.t, b, j) + so(2u, sd);
  let i = gates[go];
  let f = gates[go + h];
  let g = gates[go + 2u * h];
  let o = gates[go + 3u * h];
  let t = tc[p.tc_off + state_at(p.t, e) + so(4u, sd)];
  let d_o = dh * t;
  let dc = carry[cr + bh + e] + d_tanh(dh * o, t);
  let di = dc * g;
  let dg = dc * i;
  let df = dc * cs[p.c_off + state_at(p.t, e) + so(3u, sd)];
  carry[cr + bh + e] = dc * f;
  let d = dg0 + gate_at(p.t, b, j);
  dgates[d] = d_sigmoid(di, i);
  dgates[d + h] = d_sigmoid(df, f);
  dgates[d + 2u * h] = d_tanh(dg, g);
  dgates[d + 3u * h] = d_sigmoid(d_o, o);
}
#endif
