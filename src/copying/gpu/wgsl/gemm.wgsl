// C = alpha · A B + beta · C over a batch of `batch` products, each matrix addressed by an
// offset, a batch stride and row and column strides (a transpose is a swap of the two), so
// one kernel serves every product of the model. A: (m, k), B: (k, n), C: (m, n) with unit
// column stride. 16 × 16 tiles of C per workgroup, k in steps of 16 through shared memory.
struct P {
  m: u32, n: u32, k: u32, batch: u32,
  a_off: u32, a_bs: u32, a_rs: u32, a_cs: u32,
  b_off: u32, b_bs: u32, b_rs: u32, b_cs: u32,
  c_off: u32, c_bs: u32, c_rs: u32, _1: u32,
  alpha: f32, beta: f32, _2: u32, _3: u32,
  ss0: vec4<u32>, ss1: vec4<u32>,
}
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read_write> c: array<f32>;

var<workgroup> ta: array<array<f32, 16>, 16>; // [row of C][k]
var<workgroup> tb: array<array<f32, 16>, 16>; // [k][column of C]

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
  let row = wg.y * 16u + l.y;
  let col = wg.x * 16u + l.x;
  let sd = wg.z / p.batch;
  let zb = wg.z % p.batch;
  let a0 = p.a_off + zb * p.a_bs + so(1u, sd);
  let b0 = p.b_off + zb * p.b_bs + so(2u, sd);
  var acc = 0.0;
  for (var k0 = 0u; k0 < p.k; k0 += 16u) {
    let ka = k0 + l.x;
    var x = 0.0;
    if (row < p.m && ka < p.k) { x = a[a0 + row * p.a_rs + ka * p.a_cs]; }
    ta[l.y][l.x] = x;
    let kb = k0 + l.y;
    var y = 0.0;
    if (kb < p.k && col < p.n) { y = b[b0 + kb * p.b_rs + col * p.b_cs]; }
    tb[l.y][l.x] = y;
    workgroupBarrier();
    for (var kk = 0u; kk < 16u; kk++) {
      acc += ta[l.y][kk] * tb[kk][l.x];
    }
    workgroupBarrier();
  }
  if (row < p.m && col < p.n) {
    let i = p.c_off + zb * p.c_bs + row * p.c_rs + col + so(3u, sd);
    if (p.beta == 0.0) {
      c[i] = p.alpha * acc;
    } else {
      c[i] = p.alpha * acc + p.beta * c[i];
    }
  }
}
