//! The evaluation on the GPU (`EvalPass`): a forward pass over the evaluation batch on
//! buffers of its size, then the KTIW probe (KtiwProbe::run), recorded once, and what it
//! reads back (`EvalMaps`). The forward pass is `forward.rs`'s; the step is `model.rs`'s.

use super::buffers::{make_buffer, read_mapped, Buffers, Sizes, Tokens, TOUT};
use super::device::Gpu;
use super::kernels::{grid, le_words, Kernel, Mat, Recorder, Recording};
use super::plan::Plan;
use crate::copying::model::params::Layout;
use crate::copying::tasks::Batch;

/// The most probe logits one chunk holds (floats).
pub(super) const PROBE_CHUNK: usize = 1 << 23;

/// What an evaluation read back: the forward pass's `α` (K, Be, T, T) and log-probabilities
/// (T, Be, NT), its mean loss, and the probe's `β` (Be, T, T).
pub struct EvalMaps<'a> {
    pub alpha: &'a [f32],
    pub logp: &'a [f32],
    pub beta: &'a [f32],
    pub loss: f32,
}

/// The host copies an evaluation reads back into, one part per seed.
struct EvalHost {
    alpha: Vec<f32>, // (S, K, Be, T, T)
    logp: Vec<f32>,  // (S, T, Be, NT)
    beta: Vec<f32>,  // (S, Be, T, T)
    stats: Vec<u32>, // (S, 4): loss bits, …
}

/// The evaluation: a forward pass over the evaluation batch on buffers of its size (reading
/// the training pass's parameters), then the KTIW probe, recorded once.
pub(super) struct EvalPass {
    sizes: Sizes,
    buf: Buffers,
    u: wgpu::Buffer,       // (T, Be, H) W_d d_t + the fused bias
    v: wgpu::Buffer,       // (Be, T, H) Σ_k M_k h_s
    plogits: wgpu::Buffer, // (chunk rows, NT) the probe's logits, a chunk of sequences at a time
    beta: wgpu::Buffer,    // (Be, T, T)
    out: wgpu::Buffer,     // α, log-probabilities, β and stats, mapped for reading
    list: Recording,
    tokens: Tokens,
    host: EvalHost,
}

impl EvalPass {
    /// The evaluation of a model of `layout` on `gpu` whose parameters are `params`, over
    /// batches of `batch` sequences of source length `src_len`, its dispatches recorded by
    /// `r`; `uniform` forces `α` uniform.
    pub fn new(
        gpu: &Gpu,
        r: &Recorder,
        layout: &Layout,
        params: &wgpu::Buffer,
        batch: usize,
        src_len: usize,
        uniform: bool,
    ) -> Result<EvalPass, String> {
        let seeds = r.seeds;
        let sizes = Sizes::new(layout.dims, batch, src_len);
        let buf = Buffers::new(gpu, &sizes, layout.len, Some(params), false, seeds)?;
        let Sizes {
            b, t, h, nt, n, k, ..
        } = sizes;
        let tt = t * t;
        // Sequences per chunk of the probe: its logits within PROBE_CHUNK floats, its rows
        // within the 65,535 workgroups of 16 rows a dispatch may have.
        let per = (PROBE_CHUNK / (tt * nt))
            .clamp(1, (65_535 * 16) / tt)
            .min(b);
        let max = gpu.limits.max_buffer_size as usize;
        let make = |name: &str, len: usize, usage| make_buffer(gpu, name, len, seeds, usage, max);
        use wgpu::BufferUsages as U;
        let st = U::STORAGE | U::COPY_SRC;
        let host = EvalHost {
            alpha: vec![0.0; seeds * k * b * tt],
            logp: vec![0.0; seeds * n * nt],
            beta: vec![0.0; seeds * b * tt],
            stats: vec![0; seeds * 4],
        };
        let out_len = sizes.read_back();
        let mut pass = EvalPass {
            u: make("u", n * h, st)?,
            v: make("v", b * t * h, st)?,
            plogits: make("probe logits", per * tt * nt, st)?,
            beta: make("beta", b * tt, st)?,
            out: make("evaluation out", out_len, U::MAP_READ | U::COPY_DST)?,
            list: Recording::default(),
            tokens: Tokens::new(seeds, &sizes),
            host,
            buf,
            sizes,
        };
        let mut list = Recording::default();
        let plan = Plan {
            recorder: r,
            sizes,
            buf: &pass.buf,
            layout,
        };
        plan.forward(&mut list, uniform);
        plan.probe(&mut list, &pass, per);
        pass.list = list;
        Ok(pass)
    }

    /// Evaluates each seed's current parameters on its evaluation batch (`batches`, one per
    /// seed) and waits for what it reads back.
    pub async fn run(&mut self, gpu: &Gpu, batches: &[Batch]) -> Result<(), String> {
        self.tokens.upload(gpu, &self.buf.tok, batches, &self.sizes);
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        enc.clear_buffer(&self.buf.stats, 0, None);
        self.list.encode(&mut enc);
        let mut at = 0u64;
        for (src, len) in [
            (&self.buf.alpha, self.host.alpha.len()),
            (&self.buf.logits, self.host.logp.len()),
            (&self.beta, self.host.beta.len()),
            (&self.buf.stats, self.host.stats.len()),
        ] {
            let bytes = (len * 4) as u64;
            enc.copy_buffer_to_buffer(src, 0, &self.out, at, bytes);
            at += bytes;
        }
        gpu.queue.submit([enc.finish()]);
        let host = &mut self.host;
        read_mapped(gpu, &self.out, self.out.size(), |bytes| {
            let mut words = le_words(bytes);
            for v in [&mut host.alpha, &mut host.logp, &mut host.beta] {
                for (x, w) in v.iter_mut().zip(&mut words) {
                    *x = f32::from_bits(w);
                }
            }
            for (x, w) in host.stats.iter_mut().zip(&mut words) {
                *x = w;
            }
        })
        .await
    }

    /// Seed `seed`'s maps (of `seeds`) of the last [`EvalPass::run`].
    pub fn maps(&self, seed: usize, seeds: usize) -> EvalMaps<'_> {
        let host = &self.host;
        EvalMaps {
            alpha: part(&host.alpha, seed, seeds),
            logp: part(&host.logp, seed, seeds),
            beta: part(&host.beta, seed, seeds),
            loss: f32::from_bits(host.stats[seed * 4]),
        }
    }
}

/// Part `seed` of `seeds` equal parts of `v`.
fn part(v: &[f32], seed: usize, seeds: usize) -> &[f32] {
    let n = v.len() / seeds;
    &v[seed * n..(seed + 1) * n]
}

impl Plan<'_> {
    /// The KTIW probe after a forward pass (KtiwProbe::run): `u`, `v`, then the logits and
    /// `β` of `per` sequences at a time.
    fn probe(&self, list: &mut Recording, pass: &EvalPass, per: usize) {
        let (r, buf, ranges) = (self.recorder, self.buf, &self.layout.ranges);
        let Sizes {
            b,
            t,
            h,
            hs,
            n,
            nt,
            k,
            ..
        } = self.sizes;
        r.gemm(
            list,
            (n, h, h, 1),
            self.decoder_out(),
            Mat::rows(&buf.params, ranges.w_comb.start, 2 * h).t(),
            Mat::rows(&pass.u, 0, h),
            1.0,
            0.0,
        );
        r.rows(
            list,
            Kernel::AddBias,
            (n, h, h),
            (&pass.u, 0),
            (&buf.b_ctx, 0),
            None,
            0.0,
        );
        for head in 0..k {
            r.gemm(
                list,
                (b * t, h, hs, 1),
                Mat::rows(&buf.h_enc, 0, hs),
                Mat::rows(&buf.m_ctx, head * h * hs, hs).t(),
                Mat::rows(&pass.v, 0, h),
                1.0,
                if head == 0 { 0.0 } else { 1.0 },
            );
        }
        let mut b0 = 0;
        while b0 < b {
            let rows = (b - b0).min(per) * t * t;
            let probe = [
                rows as u32,
                t as u32,
                b as u32,
                h as u32,
                nt as u32,
                b0 as u32,
                ranges.w_out.start as u32,
                ranges.b_out.start as u32,
                self.tok_off(TOUT) as u32,
                0,
                0,
                0,
            ];
            let groups = [(nt as u32).div_ceil(16), (rows as u32).div_ceil(16), 1];
            r.push(
                list,
                Kernel::ProbeLogits,
                &probe,
                &[&pass.u, &pass.v, &buf.params, &pass.plogits],
                groups,
            );
            r.push(
                list,
                Kernel::LogOdds,
                &probe,
                &[&pass.plogits, &buf.tok, &pass.beta],
                grid(rows),
            );
            b0 += per;
        }
    }
}
