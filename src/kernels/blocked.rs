//! The portable fast `gemm`: B and A are packed into panels (thread-local buffers allocated
//! once, so a call allocates nothing), and a register-blocked MR×NR micro-kernel runs over
//! them. Natively on x86_64 the same code is compiled a second time with AVX2+FMA and chosen
//! at run time. The loop structure is the classic one (Goto & van de Geijn; BLIS).

use super::{Mat, MatMut};
use std::cell::RefCell;

/// Micro-tile rows (of A and C).
pub const MR: usize = 4;
/// Micro-tile columns (of B and C): two AVX registers, four wasm `v128`.
pub const NR: usize = 16;
/// Depth of one packed block.
const KC: usize = 256;
/// Rows of A packed at once (a multiple of MR).
const MC: usize = 64;
/// Columns of B packed at once (a multiple of NR).
const NC: usize = 1024;

thread_local! {
    /// (packed A: (MC/MR, KC, MR), packed B: (NC/NR, KC, NR)), allocated on first use.
    static PACKS: RefCell<(Vec<f32>, Vec<f32>)> = const { RefCell::new((Vec::new(), Vec::new())) };
}

/// C (m×n) = A (m×k) · B (k×n) + beta·C, with `beta == 0` ignoring the old C.
pub fn gemm(m: usize, n: usize, k: usize, a: Mat, b: Mat, beta: f32, c: MatMut) {
    PACKS.with(|cell| {
        let mut packs = cell.borrow_mut();
        let (ap, bp) = &mut *packs;
        if ap.is_empty() {
            *ap = vec![0.0; MC * KC];
            *bp = vec![0.0; NC * KC];
        }
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
            {
                // SAFETY: the CPU has just been checked for AVX2 and FMA.
                unsafe { gemm_avx2_fma(m, n, k, a, b, beta, c, ap, bp) };
                return;
            }
        }
        gemm_loops::<false>(m, n, k, a, b, beta, c, ap, bp);
    });
}

/// [`gemm_loops`] compiled for AVX2 with fused multiply-add.
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
    gemm_loops::<true>(m, n, k, a, b, beta, c, ap, bp);
}

#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn gemm_loops<const FMA: bool>(
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
    for jc in (0..n).step_by(NC) {
        let nc = NC.min(n - jc);
        for pc in (0..k).step_by(KC) {
            let kc = KC.min(k - pc);
            pack_b(kc, nc, b, pc, jc, bp);
            // The first depth block applies beta; later ones accumulate.
            let beta_here = if pc == 0 { beta } else { 1.0 };
            for ic in (0..m).step_by(MC) {
                let mc = MC.min(m - ic);
                pack_a(mc, kc, a, ic, pc, ap);
                for jr in (0..nc).step_by(NR) {
                    let nr = NR.min(nc - jr);
                    let b_panel = &bp[(jr / NR) * kc * NR..(jr / NR + 1) * kc * NR];
                    for ir in (0..mc).step_by(MR) {
                        let mr = MR.min(mc - ir);
                        let a_panel = &ap[(ir / MR) * kc * MR..(ir / MR + 1) * kc * MR];
                        let acc = micro_kernel::<FMA>(kc, a_panel, b_panel);
                        let (i0, j0) = (ic + ir, jc + jr);
                        for (i, row) in acc.iter().enumerate().take(mr) {
                            for (j, &v) in row.iter().enumerate().take(nr) {
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

/// The MR×NR tile of `A_panel · B_panel` over depth `kc`, held in registers.
#[inline(always)]
fn micro_kernel<const FMA: bool>(kc: usize, a: &[f32], b: &[f32]) -> [[f32; NR]; MR] {
    let mut acc = [[0.0f32; NR]; MR];
    for (ap, bp) in a.chunks_exact(MR).zip(b.chunks_exact(NR)).take(kc) {
        for i in 0..MR {
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
    acc
}

/// Packs B[pc..pc+kc, jc..jc+nc] as panels of NR columns: (nc/NR, kc, NR), zero-padded.
#[inline(always)]
fn pack_b(kc: usize, nc: usize, b: Mat, pc: usize, jc: usize, bp: &mut [f32]) {
    for (panel, jr) in (0..nc).step_by(NR).enumerate() {
        let nr = NR.min(nc - jr);
        let dst = &mut bp[panel * kc * NR..(panel + 1) * kc * NR];
        for p in 0..kc {
            let row = &mut dst[p * NR..(p + 1) * NR];
            let base = (pc + p) * b.rs + (jc + jr) * b.cs;
            if b.cs == 1 && nr == NR {
                row.copy_from_slice(&b.data[base..base + NR]);
            } else {
                for (j, x) in row.iter_mut().enumerate() {
                    *x = if j < nr { b.data[base + j * b.cs] } else { 0.0 };
                }
            }
        }
    }
}

/// Packs A[ic..ic+mc, pc..pc+kc] as panels of MR rows: (mc/MR, kc, MR), zero-padded.
#[inline(always)]
fn pack_a(mc: usize, kc: usize, a: Mat, ic: usize, pc: usize, ap: &mut [f32]) {
    for (panel, ir) in (0..mc).step_by(MR).enumerate() {
        let mr = MR.min(mc - ir);
        let dst = &mut ap[panel * kc * MR..(panel + 1) * kc * MR];
        for p in 0..kc {
            let col = &mut dst[p * MR..(p + 1) * MR];
            for (i, x) in col.iter_mut().enumerate() {
                *x = if i < mr {
                    a.data[(ic + ir + i) * a.rs + (pc + p) * a.cs]
                } else {
                    0.0
                };
            }
        }
    }
}
