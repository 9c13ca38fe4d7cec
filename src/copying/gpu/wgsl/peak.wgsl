// The device's multiply-add rate: each thread runs `iters` rounds of 16 independent
// multiply-adds in registers, and writes one value so that none is optimised away.
struct P { iters: u32, _0: u32, _1: u32, _2: u32, ss0: vec4<u32>, ss1: vec4<u32> }
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
  let x = f32(g.x) * 1e-9;
  var a = array<f32, 16>(x, x + 1.0, x + 2.0, x + 3.0, x + 4.0, x + 5.0, x + 6.0, x + 7.0,
    x + 8.0, x + 9.0, x + 10.0, x + 11.0, x + 12.0, x + 13.0, x + 14.0, x + 15.0);
  for (var i = 0u; i < p.iters; i++) {
    for (var k = 0u; k < 16u; k++) {
      a[k] = fma(a[k], 0.999999, 1e-7);
    }
  }
  var s = 0.0;
  for (var k = 0u; k < 16u; k++) { s += a[k]; }
  out[g.x] = s;
}
