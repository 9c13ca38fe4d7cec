//! Fast f32 `exp`, `sigmoid` and `tanh` in plain arithmetic, so that the LSTM gates and the
//! softmaxes vectorise and do not call the (slow, in wasm: software) libm routines.
//! Accurate to a few f32 ulps; `tests` hold them against the f64 library functions.

const LOG2_E: f32 = std::f32::consts::LOG2_E;
/// ln 2 split into a part exact in f32 and the rest (Cody–Waite range reduction).
const LN2_HI: f32 = 0.693_145_75;
const LN2_LO: f32 = 1.428_606_8e-6;
/// Adding and subtracting 1.5·2²³ rounds an f32 of magnitude below 2²² to an integer.
const ROUNDER: f32 = 12_582_912.0;

/// eˣ, relative error below 3e-7 for x in [−87.3, 88]; clamped outside (0 ≈ e^−87.3 ≈
/// 1.2e−38, e⁸⁸ ≈ 1.7e38 in place of infinity).
#[inline(always)]
pub fn exp(x: f32) -> f32 {
    let x = x.clamp(-87.336_55, 88.0);
    let n = (x * LOG2_E + ROUNDER) - ROUNDER;
    let r = x - n * LN2_HI - n * LN2_LO; // |r| ≤ ln2 / 2
                                         // e^r by its Taylor series to r⁷ (truncation below 6e−9 relative on |r| ≤ 0.347).
    let p = 1.0
        + r * (1.0
            + r * (0.5
                + r * (1.0 / 6.0
                    + r * (1.0 / 24.0
                        + r * (1.0 / 120.0 + r * (1.0 / 720.0 + r * (1.0 / 5040.0)))))));
    // 2ⁿ built from its exponent bits; n ∈ [−126, 127] after the clamp.
    p * f32::from_bits(((n as i32 + 127) as u32) << 23)
}

/// 1 / (1 + e⁻ˣ).
#[inline(always)]
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + exp(-x))
}

/// tanh x: an odd polynomial near 0 (where `1 − e^−2|x|` would cancel), else
/// `(1 − t) / (1 + t)` with `t = e^−2|x|`.
#[inline(always)]
pub fn tanh(x: f32) -> f32 {
    let a = x.abs();
    let t = exp(-2.0 * a);
    let far = (1.0 - t) / (1.0 + t);
    let x2 = x * x;
    // tanh x = x − x³/3 + 2x⁵/15 − 17x⁷/315 + 62x⁹/2835 − 1382x¹¹/155925 on |x| < 0.3
    let near = x
        * (1.0
            + x2 * (-1.0 / 3.0
                + x2 * (2.0 / 15.0
                    + x2 * (-17.0 / 315.0 + x2 * (62.0 / 2835.0 + x2 * (-1382.0 / 155_925.0))))));
    if a < 0.3 {
        near
    } else {
        far.copysign(x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Worst relative error over a dense sweep (absolute where the true value is tiny).
    fn worst(f: impl Fn(f32) -> f32, g: impl Fn(f64) -> f64, lo: f32, hi: f32, floor: f64) -> f64 {
        let n = 200_001;
        (0..n)
            .map(|i| lo + (hi - lo) * i as f32 / (n - 1) as f32)
            .map(|x| {
                let want = g(x as f64);
                (f(x) as f64 - want).abs() / want.abs().max(floor)
            })
            .fold(0.0, f64::max)
    }

    #[test]
    fn exp_is_accurate() {
        let e = worst(exp, f64::exp, -87.0, 88.0, 0.0);
        assert!(e < 3e-7, "exp: worst relative error {e:e}");
        assert_eq!(exp(0.0), 1.0);
        assert!(exp(-200.0) >= 0.0 && exp(-200.0) < 1e-37);
        assert!(exp(200.0).is_finite() && exp(200.0) > 1e38);
    }

    #[test]
    fn sigmoid_and_tanh_are_accurate() {
        let s = worst(sigmoid, |x| 1.0 / (1.0 + (-x).exp()), -30.0, 30.0, 1e-30);
        assert!(s < 4e-7, "sigmoid: {s:e}");
        let t = worst(tanh, f64::tanh, -12.0, 12.0, 1e-30);
        assert!(t < 4e-7, "tanh: {t:e}");
        let tiny = worst(tanh, f64::tanh, -1e-3, 1e-3, 1e-30);
        assert!(tiny < 2e-7, "tanh near 0: {tiny:e}");
        assert_eq!(tanh(0.0), 0.0);
        assert_eq!(tanh(50.0), 1.0);
        assert_eq!(tanh(-50.0), -1.0);
    }
}
