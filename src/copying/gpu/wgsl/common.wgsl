// Shared by every kernel (prepended to each). Every kernel trains S seeds at once, seed `sd`
// along the dispatch's z: each bound buffer holds S equal parts, one per seed, and the
// parameters end with the part's length for each binding (`ss`, binding 1 first).
fn so(binding: u32, sd: u32) -> u32 {
  let i = binding - 1u;
  var v = p.ss0;
  if (i >= 4u) { v = p.ss1; }
  return sd * v[i % 4u];
}

// Activations that stay finite for any input.
fn tanh_(x: f32) -> f32 {
  let e = exp(-2.0 * abs(x));
  let t = (1.0 - e) / (1.0 + e);
  return select(-t, t, x >= 0.0);
}

fn sigmoid(x: f32) -> f32 {
  return 1.0 / (1.0 + exp(-x));
}

// Whether x is NaN or infinite.
fn not_finite(x: f32) -> bool {
  return (bitcast<u32>(x) & 0x7f800000u) == 0x7f800000u;
}
