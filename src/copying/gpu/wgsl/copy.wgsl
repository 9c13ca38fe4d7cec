// dst[o] = alpha · SRC[i] + beta · dst[o] over a 3-d index (i0, i1, i2) < (n0, n1, n2), each
// side addressed by an offset and three signed strides: transposes, gathers of one
// direction's rows, scaled copies and sums (beta = 1). A constant instead of SRC (fill) when
// `fill` is 1. SRC is `src`, or `dst` itself in the variant that copies within one buffer.
struct P {
  n0: u32, n1: u32, n2: u32, fill: u32,
  i_off: i32, i_s0: i32, i_s1: i32, i_s2: i32,
  o_off: i32, o_s0: i32, o_s1: i32, o_s2: i32,
  alpha: f32, beta: f32, value: f32, _0: u32,
  ss0: vec4<u32>, ss1: vec4<u32>,
}
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> src: array<f32>;
@group(0) @binding(2) var<storage, read_write> dst: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let idx = g.x + g.y * nw.x * 64u;
  let n12 = p.n1 * p.n2;
  if (idx >= p.n0 * n12) { return; }
  let i0 = i32(idx / n12);
  let i1 = i32((idx % n12) / p.n2);
  let i2 = i32(idx % p.n2);
  let sd = g.z;
  let o = u32(p.o_off + i0 * p.o_s0 + i1 * p.o_s1 + i2 * p.o_s2) + so(DST_BINDING, sd);
  var x = p.value;
  if (p.fill == 0u) {
    x = p.alpha * SRC[u32(p.i_off + i0 * p.i_s0 + i1 * p.i_s1 + i2 * p.i_s2) + so(1u, sd)];
  }
  if (p.beta == 0.0) {
    dst[o] = x;
  } else {
    dst[o] = x + p.beta * dst[o];
  }
}
