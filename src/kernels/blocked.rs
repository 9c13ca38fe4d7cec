//! The blocked `gemm` loop nest, generic over the micro-kernel: B and A are packed into
//! panels (thread-local buffers made once, so a call allocates nothing) and a
//! register-blocked MR×NR micro-kernel runs over them; the loop nest is the classic one
//! (Goto & van de Geijn; BLIS). Also [`PackedB`], a B packed once for many products. The
//! kernels are `tile.rs` and `simd128.rs`; which one runs is chosen in `mod.rs`.

use super::mat::{Mat, MatMut};
use super::tile::{MicroKernel, MAX_TILE};
use std::cell::RefCell;

/// Depth of one packed block.
const KC: usize = 256;
/// Rows of A packed at once (a multiple of every MR).
const MC: usize = 64;
/// Columns of B packed at once (a multiple of every NR).
const NC: usize = 1024;

thread_local! {
    /// (packed A: (MC/MR, KC, MR), packed B: (NC/NR, KC, NR)), allocated on first use.
    static PACKS: RefCell<(Vec<f32>, Vec<f32>)> = const { RefCell::new((Vec::new(), Vec::new())) };
}

/// Where the loop nest gets B: a strided matrix it packs block by block, or a [`PackedB`].
#[derive(Clone, Copy)]
pub enum BSource<'a> {
    Strided(Mat<'a>),
    /// The data of a [`PackedB`] and the NR it was packed for.
    Packed(&'a [f32], usize),
}

/// One (NC, KC) block of B in the loop nest's order: columns `jc..jc+nc`, depth
/// `pc..pc+kc`, and where its panels start in a [`PackedB`] (`off`, `len` floats).
struct BBlock {
    jc: usize,
    nc: usize,
    pc: usize,
    kc: usize,
    off: usize,
    len: usize,
}

/// The blocks of a (k, n) B for panels of `nr` columns: the one order both the loop nest
/// and [`PackedB::pack`] walk, so that a packed operand is read as it was written.
fn b_blocks(k: usize, n: usize, nr: usize) -> impl Iterator<Item = BBlock> {
    (0..n).step_by(NC).flat_map(move |jc| {
        let nc = NC.min(n - jc);
        let padded = nc.div_ceil(nr) * nr;
        (0..k).step_by(KC).map(move |pc| {
            let kc = KC.min(k - pc);
            // Every earlier block: full column blocks of depth k, then this one's depth.
            let off = jc / NC * NC * k + padded * pc;
            BBlock {
                jc,
                nc,
                pc,
                kc,
                off,
                len: padded * kc,
            }
        })
    })
}

/// A B operand packed once for many products (a weight that every step of a recurrence
/// multiplies): the panels of every (NC, KC) block in the order the loop nest reads them.
/// Its layout belongs to one micro-kernel's NR: `kernels::PackedB::new` and `pack` (in
/// `mod.rs`) make it for this build's kernel, and only that kernel's loop nest reads it.
#[derive(Clone, Debug)]
pub struct PackedB {
    pub k: usize,
    pub n: usize,
    nr: usize,
    data: Vec<f32>, // (⌈n/NR⌉·NR · k) panels
}

impl PackedB {
    /// Room for a (k, n) operand in panels of `K::NR` columns; fill it with
    /// [`PackedB::pack_for`].
    pub fn new_for<K: MicroKernel>(k: usize, n: usize) -> PackedB {
        let nr = K::NR;
        PackedB {
            k,
            n,
            nr,
            data: vec![0.0; n.div_ceil(nr) * nr * k],
        }
    }

    /// Packs `b` (k, n) for micro-kernel `K`, reusing the buffer.
    pub fn pack_for<K: MicroKernel>(&mut self, b: Mat) {
        assert_eq!(self.nr, K::NR, "B packed for another micro-kernel");
        for blk in b_blocks(self.k, self.n, self.nr) {
            let dst = &mut self.data[blk.off..blk.off + blk.len];
            pack_b::<K>(blk.kc, blk.nc, self.nr, b, blk.pc, blk.jc, dst);
        }
    }

    /// The loop nest's view of it.
    pub fn source(&self) -> BSource<'_> {
        BSource::Packed(&self.data, self.nr)
    }
}

/// Runs `f` with this thread's packing buffers `ap` (MC·KC) and `bp` (NC·KC), made on first
/// use.
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

/// The blocked loop nest around micro-kernel `K`; `ap` (MC·KC) and `bp` (NC·KC) are the packing
/// buffers.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn gemm_with<K: MicroKernel>(
    m: usize,
    n: usize,
    k: usize,
    a: Mat,
    b: BSource,
    beta: f32,
    c: MatMut,
    ap: &mut [f32],
    bp: &mut [f32],
) {
    let (mr, nr) = (K::MR, K::NR);
    debug_assert!(MC.is_multiple_of(mr) && mr * nr <= MAX_TILE);
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
    for BBlock {
        jc,
        nc,
        pc,
        kc,
        off,
        len,
    } in b_blocks(k, n, nr)
    {
        let bp: &[f32] = match b {
            // One block of rows (a sequence's products, 41 rows at the paper size): the
            // packing is a large share of the call, and B's rows may be far apart (a
            // sequence's rows of an (L, B, H) buffer, 128 KB in the paper-size step: dctx and
            // q in the attention's backward pass), so it goes row by row. Larger products
            // (dgates·W_hh, 1024 rows) pack panel by panel, which is faster for them.
            BSource::Strided(b) if m <= MC => {
                pack_b_by_rows::<K>(kc, nc, nr, b, pc, jc, bp);
                bp
            }
            BSource::Strided(b) => {
                pack_b::<K>(kc, nc, nr, b, pc, jc, bp);
                bp
            }
            BSource::Packed(p, packed_nr) => {
                assert_eq!(packed_nr, nr, "B packed for another micro-kernel");
                &p[off..off + len]
            }
        };
        // The first depth block applies beta; later ones accumulate.
        let beta_here = if pc == 0 { beta } else { 1.0 };
        for ic in (0..m).step_by(MC) {
            let mc = MC.min(m - ic);
            pack_a::<K>(mc, kc, mr, a, ic, pc, ap);
            for jr in (0..nc).step_by(nr) {
                let nr_here = nr.min(nc - jr);
                let b_panel = &bp[(jr / nr) * kc * nr..(jr / nr + 1) * kc * nr];
                for ir in (0..mc).step_by(mr) {
                    let mr_here = mr.min(mc - ir);
                    let a_panel = &ap[(ir / mr) * kc * mr..(ir / mr + 1) * kc * mr];
                    K::tile_rows(mr_here, kc, a_panel, b_panel, &mut tile);
                    let (i0, j0) = (ic + ir, jc + jr);
                    if ccs == 1 && nr_here == nr {
                        // Whole rows of unit stride: loops of the constant length `nr`,
                        // which the compiler vectorises.
                        for i in 0..mr_here {
                            let row = &tile[i * nr..(i + 1) * nr];
                            let dst = &mut cd[(i0 + i) * crs + j0..][..nr];
                            if beta_here == 0.0 {
                                dst.copy_from_slice(row);
                            } else if beta_here == 1.0 {
                                dst.iter_mut().zip(row).for_each(|(x, &v)| *x += v);
                            } else {
                                let bh = beta_here;
                                dst.iter_mut().zip(row).for_each(|(x, &v)| *x = v + bh * *x);
                            }
                        }
                        continue;
                    }
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

/// Packs B[pc..pc+kc, jc..jc+nc] as panels of `nr` columns: (nc/nr, kc, nr), zero-padded.
#[inline(always)]
fn pack_b<K: MicroKernel>(
    kc: usize,
    nc: usize,
    nr: usize,
    b: Mat,
    pc: usize,
    jc: usize,
    bp: &mut [f32],
) {
    for (panel, jr) in (0..nc).step_by(nr).enumerate() {
        let dst = &mut bp[panel * kc * nr..(panel + 1) * kc * nr];
        let at = pc * b.rs + (jc + jr) * b.cs;
        pack_panel::<K>(dst, b.data, at, b.rs, b.cs, nr, nr.min(nc - jr), kc);
    }
}

/// [`pack_b`] reading B a row at a time where its rows have unit stride: eight panels at a
/// time, each row's 8·`nr` floats of them are read once, in order, and dealt out to the
/// panels. Panel by panel, each panel reads a piece of every one of the `kc` rows; rows a
/// multiple of 4 KB apart share one cache set, so the line read for one panel is gone by
/// the time the next panel wants the rest of it. (Eight, not all: the panels written per
/// row are `kc·nr` floats apart, 8 KB at full depth, and share a set in turn.)
#[inline(always)]
fn pack_b_by_rows<K: MicroKernel>(
    kc: usize,
    nc: usize,
    nr: usize,
    b: Mat,
    pc: usize,
    jc: usize,
    bp: &mut [f32],
) {
    if b.cs != 1 {
        pack_b::<K>(kc, nc, nr, b, pc, jc, bp);
        return;
    }
    let (full, rest) = (nc / nr, nc % nr);
    let panels = full + usize::from(rest > 0);
    let dst = &mut bp[..panels * kc * nr];
    // Every read below is at most this far into `b.data`.
    let start = pc * b.rs + jc;
    assert!(start + (kc - 1) * b.rs + nc <= b.data.len());
    // SAFETY: row p's floats q < nc are b.data[start + p·rs + q], inside by the assertion;
    // column q of it goes to dst[(q/nr)·kc·nr + p·nr + q%nr], inside `dst` (p < kc,
    // q/nr < panels). `nr` is a constant once inlined: fixed-size copies, not memcpy calls.
    unsafe {
        let (s, d) = (b.data.as_ptr().add(start), dst.as_mut_ptr());
        for t0 in (0..full).step_by(8) {
            for p in 0..kc {
                for t in t0..full.min(t0 + 8) {
                    std::ptr::copy_nonoverlapping(
                        s.add(p * b.rs + t * nr),
                        d.add((t * kc + p) * nr),
                        nr,
                    );
                }
            }
        }
    }
    if rest > 0 {
        // The last panel, `rest` columns wide.
        let last = &mut dst[full * kc * nr..];
        pack_panel::<K>(last, b.data, start + full * nr, b.rs, 1, nr, rest, kc);
    }
}

/// Packs A[ic..ic+mc, pc..pc+kc] as panels of `mr` rows: (mc/mr, kc, mr), zero-padded.
#[inline(always)]
fn pack_a<K: MicroKernel>(
    mc: usize,
    kc: usize,
    mr: usize,
    a: Mat,
    ic: usize,
    pc: usize,
    ap: &mut [f32],
) {
    for (panel, ir) in (0..mc).step_by(mr).enumerate() {
        let dst = &mut ap[panel * kc * mr..(panel + 1) * kc * mr];
        let at = (ic + ir) * a.rs + pc * a.cs;
        pack_panel::<K>(dst, a.data, at, a.cs, a.rs, mr, mr.min(mc - ir), kc);
    }
}

/// One packed panel `dst` (kc, w): `dst[p·w + q] = src[at + p·step_p + q·step_q]` for
/// q < `count` (≤ w), zero for the padding. The reads follow the operand's unit stride:
/// a copy of `w` floats per depth step when `step_q == 1`, an interleave of `count`
/// contiguous streams when `step_p == 1` (a row-major A, or a weight read as `Wᵀ`).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn pack_panel<K: MicroKernel>(
    dst: &mut [f32],
    src: &[f32],
    at: usize,
    step_p: usize,
    step_q: usize,
    w: usize,
    count: usize,
    kc: usize,
) {
    let dst = &mut dst[..kc * w];
    if count < w {
        dst.fill(0.0);
    }
    // Every read below is at most this far into `src`.
    assert!(at + (kc - 1) * step_p + (count - 1) * step_q < src.len());
    if step_q == 1 && count == w {
        // SAFETY: row p reads src[at + p·step_p ..][..w], inside `src` by the assertion
        // above (count == w), and writes dst[p·w..][..w], inside `dst` (kc·w floats); `w`
        // is a constant once inlined: a fixed-size copy, not a memcpy call.
        unsafe {
            let (s, d) = (src.as_ptr().add(at), dst.as_mut_ptr());
            for p in 0..kc {
                std::ptr::copy_nonoverlapping(s.add(p * step_p), d.add(p * w), w);
            }
        }
    } else if step_q == 1 {
        for (p, d) in dst.chunks_exact_mut(w).enumerate() {
            d[..count].copy_from_slice(&src[at + p * step_p..][..count]);
        }
    } else if step_p == 1 {
        interleave::<K>(dst, &src[at..], step_q, w, count, kc);
    } else {
        for (p, d) in dst.chunks_exact_mut(w).enumerate() {
            for (q, x) in d[..count].iter_mut().enumerate() {
                // SAFETY: in bounds by the assertion above (p < kc, q < count).
                *x = unsafe { *src.get_unchecked(at + p * step_p + q * step_q) };
            }
        }
    }
}

/// `dst[p·w + q] = src[q·ld + p]` for p < kc, q < count: `count` streams of `kc` floats,
/// `ld` apart, interleaved into a panel of width `w`: the kernel's own interleave
/// ([`MicroKernel::interleave_head`]) first, then element by element. The caller checked the
/// bounds.
#[inline(always)]
fn interleave<K: MicroKernel>(
    dst: &mut [f32],
    src: &[f32],
    ld: usize,
    w: usize,
    count: usize,
    kc: usize,
) {
    let p0 = K::interleave_head(dst, src, ld, w, count, kc);
    for p in p0..kc {
        for q in 0..count {
            // SAFETY: q·ld + p ≤ (count−1)·ld + kc−1, which the caller asserted is in `src`;
            // p·w + q < kc·w = dst.len().
            unsafe { *dst.get_unchecked_mut(p * w + q) = *src.get_unchecked(q * ld + p) };
        }
    }
}
