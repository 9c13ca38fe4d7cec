//! The GPU buffers of a pass and their sizes: `Sizes` (the shape letters of one model and
//! batch), `Buffers` (every tensor a pass reads or writes, one part per seed), the token
//! upload (`Tokens`), and the making and reading back of a buffer. What is recorded into them
//! is the plans' (`plan.rs`, `forward.rs`, `backward.rs`, `eval.rs`).

use super::device::Gpu;
use super::kernels::put_words;
use crate::copying::model::params::Dims;
use crate::copying::tasks::Batch;

/// Sizes of one model and batch: `T` = source length = target length, `N = T·B` rows,
/// `G = 4H` gate width, `NL = D + 1` LSTMs (the encoder's directions, then the decoder).
#[derive(Clone, Copy, Debug)]
pub(super) struct Sizes {
    pub b: usize,
    pub t: usize,
    pub h: usize,
    pub nt: usize,
    pub d: usize,
    pub k: usize,
    pub hs: usize,
    pub n: usize,
    pub g: usize,
    pub nl: usize,
}

impl Sizes {
    pub fn new(dims: Dims, batch: usize, src_len: usize) -> Sizes {
        let (b, t, h) = (batch, src_len, dims.hidden);
        Sizes {
            b,
            t,
            h,
            nt: dims.n_tok,
            d: dims.dirs,
            k: dims.heads,
            hs: dims.dirs * h,
            n: t * b,
            g: 4 * h,
            nl: dims.dirs + 1,
        }
    }

    /// Values an evaluation of this batch reads back per seed: α, log-probabilities, β and
    /// the stats.
    pub fn read_back(&self) -> usize {
        let tt = self.t * self.t;
        self.k * self.b * tt + self.n * self.nt + self.b * tt + 4
    }

    /// The most values one seed's part of a buffer of this batch holds.
    pub fn largest(&self) -> usize {
        let Sizes {
            b,
            t,
            h,
            nt,
            k,
            hs,
            n,
            g,
            nl,
            ..
        } = *self;
        [
            nl * t * b * g,
            nl * (t + 1) * b * h,
            k * b * t * t,
            k * n * hs,
            n * nt,
            nl * nt * g,
        ]
        .into_iter()
        .max()
        .expect("sizes")
    }
}

/// The parts of `tok`, in its order: the source, the source reversed (the backward
/// direction's input), the decoder's input and its target.
pub(super) const SRC: usize = 0;
pub(super) const REV: usize = 1;
pub(super) const TIN: usize = 2;
pub(super) const TOUT: usize = 3;

/// Every buffer of a pass, in elements (f32 unless marked u32).
pub(super) struct Buffers {
    pub params: wgpu::Buffer,   // (P,) flat, the CPU model's layout
    pub grads: wgpu::Buffer,    // (P,)
    pub adam_m: wgpu::Buffer,   // (P,)
    pub adam_v: wgpu::Buffer,   // (P,)
    pub tok: wgpu::Buffer,      // u32 (4, T, B): source, source reversed, target in, target out
    pub wt: wgpu::Buffer,       // (NL, H, G) W_hhᵀ of each LSTM
    pub table: wgpu::Buffer,    // (NL, NT, G) E W_ihᵀ + b_ih + b_hh
    pub gates: wgpu::Buffer,    // (NL, T, B, G) activated gates
    pub h_states: wgpu::Buffer, // (NL, T+1, B, H) hidden states, [0] the initial one
    pub c_states: wgpu::Buffer, // (NL, T+1, B, H) cell states
    pub tc: wgpu::Buffer,       // (NL, T, B, H) tanh of the cell states
    pub h_enc: wgpu::Buffer,    // (B, T, Hs) encoder outputs, directions concatenated
    pub q: wgpu::Buffer,        // (K, T, B, Hs) queries
    pub alpha: wgpu::Buffer,    // (K, B, T, T) attention
    pub ctx: wgpu::Buffer,      // (K, T, B, Hs) raw contexts
    pub m_ctx: wgpu::Buffer,    // (K, H, Hs) fused context maps W_c' W_c^k / K
    pub b_ctx: wgpu::Buffer,    // (H,) fused bias
    pub act: wgpu::Buffer,      // (N, H) tanh(W [d; c] + b)
    pub logits: wgpu::Buffer,   // (N, NT) log-probabilities after the loss kernel
    pub nll: wgpu::Buffer,      // (N,)
    pub dlogits: wgpu::Buffer,  // (N, NT)
    pub dact: wgpu::Buffer,     // (N, H) gradient w.r.t. the pre-activation
    pub dd: wgpu::Buffer,       // (N, H) gradient w.r.t. the decoder outputs
    pub dbias: wgpu::Buffer,    // (H,)
    pub g_m: wgpu::Buffer,      // (H, Hs) gradient w.r.t. one head's fused map
    pub dctx: wgpu::Buffer,     // (N, Hs)
    pub dalpha: wgpu::Buffer,   // (B, T, T)
    pub dq: wgpu::Buffer,       // (N, Hs)
    pub dh_enc: wgpu::Buffer,   // (B, T, Hs)
    pub dh_dir: wgpu::Buffer,   // (T, B, H) one direction's share of dh_enc, in its time order
    pub dgates: wgpu::Buffer,   // (T, B, G) of the LSTM being differentiated
    pub carry: wgpu::Buffer,    // (2, B, H) dh into its last step, dc carried back
    pub dstate0: wgpu::Buffer,  // (2, B, H) gradient w.r.t. the decoder's initial h, c, over D
    pub dtable: wgpu::Buffer,   // (NT, G)
    pub stats: wgpu::Buffer,    // u32 (4,): loss bits, diverged
    pub readback: wgpu::Buffer, // u32 (4,) mapped copy of stats
    pub download: wgpu::Buffer, // (3, P) mapped copy of one seed's parameters and Adam's moments
}

impl Buffers {
    /// The buffers of a pass over batches of `s`'s shape for a model of `p` parameters: for
    /// training, or (`training` false) a forward pass alone that reads `params` (the
    /// backward pass's buffers then hold one value each).
    pub fn new(
        gpu: &Gpu,
        s: &Sizes,
        p: usize,
        params: Option<&wgpu::Buffer>,
        training: bool,
        seeds: usize,
    ) -> Result<Buffers, String> {
        let Sizes {
            b,
            t,
            h,
            nt,
            k,
            hs,
            n,
            g,
            nl,
            ..
        } = *s;
        let max = gpu.limits.max_storage_buffer_binding_size as usize;
        let make = |name: &str, len: usize, usage| make_buffer(gpu, name, len, seeds, usage, max);
        use wgpu::BufferUsages as U;
        let st = U::STORAGE | U::COPY_DST | U::COPY_SRC;
        let map = U::MAP_READ | U::COPY_DST;
        let tr = |len: usize| if training { len } else { 1 };
        Ok(Buffers {
            params: match params {
                Some(shared) => shared.clone(),
                None => make("params", p, st)?,
            },
            grads: make("grads", tr(p), st)?,
            adam_m: make("adam m", tr(p), st)?,
            adam_v: make("adam v", tr(p), st)?,
            tok: make("tokens", 4 * t * b, st)?,
            wt: make("wt", nl * h * g, st)?,
            table: make("table", nl * nt * g, st)?,
            gates: make("gates", nl * t * b * g, st)?,
            h_states: make("h_states", nl * (t + 1) * b * h, st)?,
            c_states: make("c_states", nl * (t + 1) * b * h, st)?,
            tc: make("tc", nl * t * b * h, st)?,
            h_enc: make("h_enc", b * t * hs, st)?,
            q: make("q", k * n * hs, st)?,
            alpha: make("alpha", k * b * t * t, st)?,
            ctx: make("ctx", k * n * hs, st)?,
            m_ctx: make("m_ctx", k * h * hs, st)?,
            b_ctx: make("b_ctx", h, st)?,
            act: make("act", n * h, st)?,
            logits: make("logits", n * nt, st)?,
            nll: make("nll", n, st)?,
            dlogits: make("dlogits", n * nt, st)?,
            dact: make("dact", tr(n * h), st)?,
            dd: make("dd", tr(n * h), st)?,
            dbias: make("dbias", tr(h), st)?,
            g_m: make("g_m", tr(h * hs), st)?,
            dctx: make("dctx", tr(n * hs), st)?,
            dalpha: make("dalpha", tr(b * t * t), st)?,
            dq: make("dq", tr(n * hs), st)?,
            dh_enc: make("dh_enc", tr(b * t * hs), st)?,
            dh_dir: make("dh_dir", tr(t * b * h), st)?,
            dgates: make("dgates", tr(t * b * g), st)?,
            carry: make("carry", tr(2 * b * h), st)?,
            dstate0: make("dstate0", tr(2 * b * h), st)?,
            dtable: make("dtable", tr(nt * g), st)?,
            stats: make("stats", 4, st)?,
            readback: make("readback", 4, map)?,
            // One seed's at a time, whatever the number of seeds.
            download: make_buffer(gpu, "download", tr(3 * p), 1, map, max)?,
        })
    }
}

/// The bytes of the tokens a step uploads, made once: (S, 4, T, B) u32 as `tok` holds them.
pub(super) struct Tokens {
    bytes: Vec<u8>,
}

impl Tokens {
    pub fn new(seeds: usize, s: &Sizes) -> Tokens {
        Tokens {
            bytes: vec![0; seeds * 4 * s.t * s.b * 4],
        }
    }

    /// Seed `seed`'s part: source, source reversed, target in, target out.
    fn fill(&mut self, seed: usize, batch: &Batch) {
        let (bsz, ls) = (batch.batch, batch.src_len);
        let tb = ls * bsz * 4;
        let part = &mut self.bytes[seed * 4 * tb..(seed + 1) * 4 * tb];
        let (src, rest) = part.split_at_mut(tb);
        let (rev, rest) = rest.split_at_mut(tb);
        let (tin, tout) = rest.split_at_mut(tb);
        put_words(src, batch.source.iter().copied());
        let reversed = (0..ls)
            .rev()
            .flat_map(|pos| &batch.source[pos * bsz..(pos + 1) * bsz]);
        put_words(rev, reversed.copied());
        put_words(tin, batch.target_in.iter().copied());
        put_words(tout, batch.target_out.iter().copied());
    }

    /// Fills every seed's part from `batches` (one per seed, of the pass's shape) and
    /// uploads them into `tok`.
    pub fn upload(&mut self, gpu: &Gpu, tok: &wgpu::Buffer, batches: &[Batch], s: &Sizes) {
        for (seed, batch) in batches.iter().enumerate() {
            assert_eq!(
                (batch.batch, batch.src_len),
                (s.b, s.t),
                "a batch of another shape"
            );
            self.fill(seed, batch);
        }
        gpu.queue.write_buffer(tok, 0, &self.bytes);
    }
}

/// A buffer of `len` values (at least 4) per seed, `seeds` parts; refused past `max` bytes.
pub(super) fn make_buffer(
    gpu: &Gpu,
    name: &str,
    len: usize,
    seeds: usize,
    usage: wgpu::BufferUsages,
    max: usize,
) -> Result<wgpu::Buffer, String> {
    let bytes = len.max(4) * 4 * seeds;
    if bytes > max {
        return Err(format!(
            "the GPU's largest buffer is {} MiB; {seeds} seed(s) of this model need {} MiB for \
             {name}: use fewer seeds at once, fewer sequences per batch or a smaller width",
            max >> 20,
            bytes >> 20
        ));
    }
    Ok(gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(name),
        size: bytes as u64,
        usage,
        mapped_at_creation: false,
    }))
}

/// Maps `buf` for reading, waits, hands its bytes to `f`, unmaps; an error where the device
/// is lost.
pub(super) async fn read_mapped(
    gpu: &Gpu,
    buf: &wgpu::Buffer,
    bytes: u64,
    f: impl FnOnce(&[u8]),
) -> Result<(), String> {
    gpu.map_read(buf, bytes).await?;
    let view = buf
        .slice(..bytes)
        .get_mapped_range()
        .map_err(|e| format!("reading from the GPU failed: {e}"))?;
    f(&view);
    drop(view);
    buf.unmap();
    Ok(())
}
