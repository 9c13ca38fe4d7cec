//! The fast `gemm`: B and A are packed into panels (thread-local buffers made once, so a
//! call allocates nothing) and a register-blocked MR×NR micro-kernel runs over them; the
//! loop nest is the classic one (Goto & van de Geijn; BLIS). The micro-kernels are chosen by
//! target: portable Rust (auto-vectorised natively, with an AVX2+FMA build picked at run
//! time on x86_64), or the explicit wasm `simd128` / relaxed-SIMD ones of `simd128.rs`.

use super::{Mat, MatMut};
use std::cell::RefCell;

/// Depth of one packed block.
const KC: usize = 256;
/// Rows of A packed at once (a multiple of every MR).
const MC: usize = 64;
/// Columns of B packed at once (a multiple of every NR).
const NC: usize = 1024;
/// The largest micro-tile, MR·NR.
pub const MAX_TILE: usize = 64;

/// A register-blocked micro-kernel: `out` (MR, NR) = A_panel (kc, MR)ᵀ-packed · B_panel
/// (kc, NR)-packed, i.e. `out[i][j] = Σ_p a[p·MR + i] · b[p·NR + j]`.
pub trait MicroKernel {
    const MR: usize;
    const NR: usize;
    fn tile(kc: usize, a: &[f32], b: &[f32], out: &mut [f32; MAX_TILE]);
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

thread_local! {
    /// (packed A: (MC/MR, KC, MR), packed B: (NC/NR, KC, NR)), allocated on first use.
    static PACKS: RefCell<(Vec<f32>, Vec<f32>)> = const { RefCell::new((Vec::new(), Vec::new())) };
}

/// C (m×n) = A (m×k) · B (k×n) + beta·C, with `beta == 0` ignoring the old C, on the best
/// micro-kernel of this build.
pub fn gemm(m: usize, n: usize, k: usize, a: Mat, b: Mat, beta: f32, c: MatMut) {
    with_packs(|ap, bp| {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
            {
                // SAFETY: the CPU has just been checked for AVX2 and FMA.
                unsafe { gemm_avx2_fma(m, n, k, a, b, beta, c, ap, bp) };
                return;
            }
            gemm_with::<Portable<16, false>>(m, n, k, a, b, beta, c, ap, bp);
        }
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        gemm_with::<super::simd128::Simd128>(m, n, k, a, b, beta, c, ap, bp);
        #[cfg(all(target_arch = "wasm32", not(target_feature = "simd128")))]
        gemm_with::<Portable<4, false>>(m, n, k, a, b, beta, c, ap, bp);
        #[cfg(not(any(target_arch = "x86_64", target_arch = "wasm32")))]
        gemm_with::<Portable<16, false>>(m, n, k, a, b, beta, c, ap, bp);
    });
}

/// Runs `f` with this thread's packing buffers.
pub fn with_packs<R>(f: impl FnOnce(&mut [f32], &mut [f32]) -> R) -> R {
    PACKS.with(|cell| {
        let mut packs = cell.borrow_mut();
        let (ap, bp) = &mut *packs;
        if ap.is_empty() {
            *ap = vec![0.0; MC * KC];
            *bp = vec![0.0; NC * KC];
        }
        f(ap, bp)
    })
}

/// [`gemm_with`] on the portable 4×16 kernel, compiled for AVX2 with fused multiply-add.
///
/// # Safety
/// The CPU must support AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
#[allow(clippy::too_many_arguments)]
unsafe fn gemm_avx2_fma(
    m: usize,
    n: usize,
    k: usize,
    a: Mat,
    b: Mat,
    beta: f32,
    c: MatMut,
    ap: &mut [f32],
    bp: &mut [f32],
) {
    gemm_with::<Portable<16, true>>(m, n, k, a, b, beta, c, ap, bp);
}

/// The blocked loop nest around micro-kernel `K`; `ap` (MC·KC) and `bp` (NC·KC) are the
/// packing buffers.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn gemm_with<K: MicroKernel>(
    m: usize,
    n: usize,
    k: usize,
    a: Mat,
    b: Mat,
    beta: f32,
    c: MatMut,
    ap: &mut [f32],
    bp: &mut [f32],
) {
    let (mr, nr) = (K::MR, K::NR);
    let MatMut {
        data: cd,
        rs: crs,
        cs: ccs,
    } = c;
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        for i in 0..m {
            for j in 0..n {
                let x = &mut cd[i * crs + j * ccs];
                *x = if beta == 0.0 { 0.0 } else { *x * beta };
            }
        }
        return;
    }
    let mut tile = [0.0f32; MAX_TILE];
    for jc in (0..n).step_by(NC) {
        let nc = NC.min(n - jc);
        for pc in (0..k).step_by(KC) {
            let kc = KC.min(k - pc);
            pack_b(kc, nc, nr, b, pc, jc, bp);
            // The first depth block applies beta; later ones accumulate.
            let beta_here = if pc == 0 { beta } else { 1.0 };
            for ic in (0..m).step_by(MC) {
                let mc = MC.min(m - ic);
                pack_a(mc, kc, mr, a, ic, pc, ap);
                for jr in (0..nc).step_by(nr) {
                    let nr_here = nr.min(nc - jr);
                    let b_panel = &bp[(jr / nr) * kc * nr..(jr / nr + 1) * kc * nr];
                    for ir in (0..mc).step_by(mr) {
                        let mr_here = mr.min(mc - ir);
                        let a_panel = &ap[(ir / mr) * kc * mr..(ir / mr + 1) * kc * mr];
                        K::tile(kc, a_panel, b_panel, &mut tile);
                        let (i0, j0) = (ic + ir, jc + jr);
                        for i in 0..mr_here {
                            let row = &tile[i * nr..i * nr + nr_here];
                            for (j, &v) in row.iter().enumerate() {
                                let x = &mut cd[(i0 + i) * crs + (j0 + j) * ccs];
                                *x = if beta_here == 0.0 {
                                    v
                                } else {
                                    v + beta_here * *x
                                };
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Packs B[pc..pc+kc, jc..jc+nc] as panels of `nr` columns: (nc/nr, kc, nr), zero-padded.
/// Reads follow B's unit stride: along rows for a row-major B, along columns for a
/// transposed one (a weight matrix read as `Wᵀ`).
#[inline(always)]
fn pack_b(kc: usize, nc: usize, nr: usize, b: Mat, pc: usize, jc: usize, bp: &mut [f32]) {
    for (panel, jr) in (0..nc).step_by(nr).enumerate() {
        let width = nr.min(nc - jr);
        let dst = &mut bp[panel * kc * nr..(panel + 1) * kc * nr];
        if width < nr {
            dst.fill(0.0);
        }
        if b.rs == 1 && b.cs != 1 {
            for j in 0..width {
                let col = &b.data[pc + (jc + jr + j) * b.cs..][..kc];
                for (p, &v) in col.iter().enumerate() {
                    dst[p * nr + j] = v;
                }
            }
        } else {
            for p in 0..kc {
                let base = (pc + p) * b.rs + (jc + jr) * b.cs;
                let row = &mut dst[p * nr..p * nr + width];
                if b.cs == 1 {
                    row.copy_from_slice(&b.data[base..base + width]);
                } else {
                    for (j, x) in row.iter_mut().enumerate() {
                        *x = b.data[base + j * b.cs];
                    }
                }
            }
        }
    }
}

/// Packs A[ic..ic+mc, pc..pc+kc] as panels of `mr` rows: (mc/mr, kc, mr), zero-padded.
/// Reads follow A's unit stride, as in [`pack_b`].
#[inline(always)]
fn pack_a(mc: usize, kc: usize, mr: usize, a: Mat, ic: usize, pc: usize, ap: &mut [f32]) {
    for (panel, ir) in (0..mc).step_by(mr).enumerate() {
        let height = mr.min(mc - ir);
        let dst = &mut ap[panel * kc * mr..(panel + 1) * kc * mr];
        if height < mr {
            dst.fill(0.0);
        }
        if a.cs == 1 {
            for i in 0..height {
                let row = &a.data[(ic + ir + i) * a.rs + pc..][..kc];
                for (p, &v) in row.iter().enumerate() {
                    dst[p * mr + i] = v;
                }
            }
        } else {
            for p in 0..kc {
                let base = (ic + ir) * a.rs + (pc + p) * a.cs;
                for (i, x) in dst[p * mr..p * mr + height].iter_mut().enumerate() {
                    *x = a.data[base + i * a.rs];
                }
            }
        }
    }
}
