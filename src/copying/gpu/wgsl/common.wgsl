// Shared by every kernel (prepended to each): activations that stay finite for any input.
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
