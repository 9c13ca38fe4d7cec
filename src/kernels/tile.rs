//! The micro-kernel contract of the blocked gemm ([`MicroKernel`], [`MAX_TILE`]) and the
//! portable kernel that implements it in plain Rust. The loop nest is `blocked.rs`; the
//! wasm `simd128` kernel is `simd128.rs`; which one a build runs is chosen in `mod.rs`.

/// The largest micro-tile, MR·NR.
pub const MAX_TILE: usize = 64;

/// A register-blocked micro-kernel: `out` (MR, NR) = A_panel (kc, MR)ᵀ-packed · B_panel
/// (kc, NR)-packed, i.e. `out[i][j] = Σ_p a[p·MR + i] · b[p·NR + j]`.
pub trait MicroKernel {
    const MR: usize;
    const NR: usize;
    fn tile(kc: usize, a: &[f32], b: &[f32], out: &mut [f32; MAX_TILE]);
    /// The first `rows` (≤ MR) rows of [`MicroKernel::tile`]'s `out`: a kernel may have a
    /// faster one for the last rows of a product. By default the whole tile.
    #[inline(always)]
    fn tile_rows(rows: usize, kc: usize, a: &[f32], b: &[f32], out: &mut [f32; MAX_TILE]) {
        let _ = rows;
        Self::tile(kc, a, b, out)
    }
    /// The packing's interleave, `dst[p·w + q] = src[q·ld + p]` for q < `count` (≤ w), done
    /// the kernel's own way for the depths p below the returned one; the packing does the
    /// rest element by element. The caller has checked that `src` holds
    /// (count−1)·ld + kc floats and `dst` kc·w. By default: none (returns 0).
    #[inline(always)]
    fn interleave_head(
        dst: &mut [f32],
        src: &[f32],
        ld: usize,
        w: usize,
        count: usize,
        kc: usize,
    ) -> usize {
        let _ = (dst, src, ld, w, count, kc);
        0
    }
}

/// Portable micro-kernel of 4 rows and `NR` columns; `FMA` uses `mul_add` (only where the
/// target has a fused multiply-add instruction, else it would call a slow library routine).
pub struct Portable<const NR: usize, const FMA: bool>;

impl<const NR: usize, const FMA: bool> MicroKernel for Portable<NR, FMA> {
    const MR: usize = 4;
    const NR: usize = NR;
    #[inline(always)]
    fn tile(kc: usize, a: &[f32], b: &[f32], out: &mut [f32; MAX_TILE]) {
        let mut acc = [[0.0f32; NR]; 4];
        for (ap, bp) in a.chunks_exact(4).zip(b.chunks_exact(NR)).take(kc) {
            for i in 0..4 {
                let ai = ap[i];
                for j in 0..NR {
                    acc[i][j] = if FMA {
                        ai.mul_add(bp[j], acc[i][j])
                    } else {
                        acc[i][j] + ai * bp[j]
                    };
                }
            }
        }
        for i in 0..4 {
            out[i * NR..(i + 1) * NR].copy_from_slice(&acc[i]);
        }
    }
}
