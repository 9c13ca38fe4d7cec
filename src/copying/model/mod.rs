//! The seq2seq model of docs/science.md 1.1: shared embedding, LSTM encoder (one or two
//! directions), LSTM decoder started from the encoder's final state and teacher forced,
//! `K` attention heads whose projected contexts are averaged, and the output layer (which
//! applies each head's context projection fused with its own context weights).
//! `Workspace` owns every activation of a batch size, so a step allocates nothing.

pub mod attention;
pub mod lstm;
pub mod output;
pub mod params;

use crate::copying::tasks::Batch;
use crate::params::ParamLayout;
use attention::{attention_backward, attention_forward, AttnShape, Weights};
use lstm::{lstm_backward, lstm_forward, LstmCache, LstmGrads, LstmScratch, LstmWeights, Start};
use output::{
    context_backward, fuse_context, fused_bias_backward, output_backward, output_forward, OutShape,
};
use params::{Dims, Layout, Tensors};

/// The model's structure: sizes, parameter layout and how attention is computed.
#[derive(Clone, Debug)]
pub struct Seq2Seq {
    pub dims: Dims,
    pub layout: Layout,
    /// Scores forced to zero (`α` uniform).
    pub uniform_attention: bool,
}

/// Activations of one forward pass and the scratch of its backward pass, for batches of
/// `batch` sequences with source length `Ls` and `Lt` target steps.
#[derive(Clone, Debug)]
pub struct Workspace {
    pub batch: usize,
    pub src_len: usize,
    pub tgt_len: usize,
    pub enc: Vec<LstmCache>, // D caches, each over Ls steps
    pub dec: LstmCache,      // over Lt steps
    src_rev: Vec<u32>,       // (Ls, B) the source reversed, for the backward direction
    pub h_enc: Vec<f32>,     // (B, Ls, Hs) encoder outputs, directions concatenated
    pub q: Vec<f32>,         // (K, Lt, B, Hs) queries
    pub alpha: Vec<f32>,     // (K, B, Lt, Ls) attention weights
    pub ctx: Vec<f32>,       // (K, Lt, B, Hs) raw contexts Σ_s α h_s
    pub m_ctx: Vec<f32>,     // (K, H, Hs) W_c' W_c^k / K, the fused context maps
    pub b_ctx: Vec<f32>,     // (H,) b_comb + W_c' mean_k b_c^k, the fused bias
    pub act: Vec<f32>,       // (Lt, B, H) tanh(W [d; c] + b)
    pub logp: Vec<f32>,      // (Lt, B, NT) log-probabilities
    dlogits: Vec<f32>,       // (Lt, B, NT)
    dact: Vec<f32>,          // (Lt, B, H)
    dd: Vec<f32>,            // (Lt, B, H) gradient w.r.t. decoder outputs
    dbias: Vec<f32>,         // (H,) gradient w.r.t. the fused bias
    g_m: Vec<f32>,           // (H, Hs) gradient w.r.t. one head's fused context map
    dctx: Vec<f32>,          // (Lt, B, Hs)
    dalpha: Vec<f32>,        // (Lt, Ls)
    dq: Vec<f32>,            // (Lt, B, Hs)
    dh_enc: Vec<f32>,        // (B, Ls, Hs)
    dh_dir: Vec<f32>,        // (Ls, B, H) one direction's share of dh_enc
    dh0: Vec<f32>,           // (B, H) gradient w.r.t. the decoder's initial h
    dc0: Vec<f32>,           // (B, H) gradient w.r.t. the decoder's initial c
    lstm: LstmScratch,
}

impl Seq2Seq {
    pub fn new(dims: Dims, uniform_attention: bool) -> Seq2Seq {
        Seq2Seq {
            dims,
            layout: Layout::new(dims),
            uniform_attention,
        }
    }

    pub fn workspace(&self, batch: usize, src_len: usize, tgt_len: usize) -> Workspace {
        let Dims {
            n_tok: nt,
            hidden: h,
            dirs,
            heads: k,
        } = self.dims;
        let hs = self.dims.enc_width();
        let (b, ls, lt) = (batch, src_len, tgt_len);
        Workspace {
            batch,
            src_len,
            tgt_len,
            enc: (0..dirs).map(|_| LstmCache::new(ls, b, h, nt)).collect(),
            dec: LstmCache::new(lt, b, h, nt),
            src_rev: vec![0; ls * b],
            h_enc: vec![0.0; ls * b * hs],
            q: vec![0.0; k * lt * b * hs],
            alpha: vec![0.0; k * b * lt * ls],
            ctx: vec![0.0; k * lt * b * hs],
            m_ctx: vec![0.0; k * h * hs],
            b_ctx: vec![0.0; h],
            act: vec![0.0; lt * b * h],
            logp: vec![0.0; lt * b * nt],
            dlogits: vec![0.0; lt * b * nt],
            dact: vec![0.0; lt * b * h],
            dd: vec![0.0; lt * b * h],
            dbias: vec![0.0; h],
            g_m: vec![0.0; h * hs],
            dctx: vec![0.0; lt * b * hs],
            dalpha: vec![0.0; lt * ls],
            dq: vec![0.0; lt * b * hs],
            dh_enc: vec![0.0; ls * b * hs],
            dh_dir: vec![0.0; ls * b * h],
            dh0: vec![0.0; b * h],
            dc0: vec![0.0; b * h],
            lstm: LstmScratch::new(ls.max(lt), b, h, nt),
        }
    }

    fn out_shape(&self, n: usize) -> OutShape {
        OutShape {
            n,
            h: self.dims.hidden,
            hs: self.dims.enc_width(),
            k: self.dims.heads,
            nt: self.dims.n_tok,
        }
    }

    fn attn_shape(&self, ws: &Workspace) -> AttnShape {
        AttnShape {
            batch: ws.batch,
            src_len: ws.src_len,
            tgt_len: ws.tgt_len,
            hidden: self.dims.hidden,
            enc_width: self.dims.enc_width(),
        }
    }

    /// Teacher-forced forward pass; returns the mean NLL over all target tokens.
    pub fn forward(&self, p: &Tensors<&[f32]>, ws: &mut Workspace, batch: &Batch) -> f32 {
        let weights = if self.uniform_attention {
            Weights::Uniform
        } else {
            Weights::Learned
        };
        self.forward_with(p, ws, batch, weights)
    }

    /// Forward pass with `α` replaced by `alpha` (B, Lt, Ls) in every head.
    pub fn forward_with_attention(
        &self,
        p: &Tensors<&[f32]>,
        ws: &mut Workspace,
        batch: &Batch,
        alpha: &[f32],
    ) -> f32 {
        self.forward_with(p, ws, batch, Weights::Given(alpha))
    }

    fn forward_with(
        &self,
        p: &Tensors<&[f32]>,
        ws: &mut Workspace,
        batch: &Batch,
        weights: Weights,
    ) -> f32 {
        let Dims {
            hidden: h,
            dirs,
            heads: k,
            ..
        } = self.dims;
        let hs = self.dims.enc_width();
        let (bsz, ls, lt) = (ws.batch, ws.src_len, ws.tgt_len);
        assert_eq!(
            (batch.batch, batch.src_len, batch.tgt_len),
            (bsz, ls, lt),
            "workspace made for another batch shape"
        );
        let bh = bsz * h;
        // Encoder, each direction from a zero state.
        for s in 0..ls {
            ws.src_rev[s * bsz..(s + 1) * bsz]
                .copy_from_slice(&batch.source[(ls - 1 - s) * bsz..(ls - s) * bsz]);
        }
        for dir in 0..dirs {
            let cache = &mut ws.enc[dir];
            let tokens = if dir == 0 { &batch.source } else { &ws.src_rev };
            let w = enc_weights(p, dir, h);
            lstm_forward(&w, p.embedding, tokens, Start::Zero, cache);
            // h_enc[b, s, dir·H ..] = this direction's output at source position s: each
            // sequence's outputs dense, for the products of one sequence in attention
            for s in 0..ls {
                let step = if dir == 0 { s } else { ls - 1 - s };
                let out = &cache.h[(step + 1) * bh..(step + 2) * bh];
                for b in 0..bsz {
                    let dst = (b * ls + s) * hs + dir * h;
                    ws.h_enc[dst..dst + h].copy_from_slice(&out[b * h..(b + 1) * h]);
                }
            }
        }
        // Decoder from the encoder's final state (averaged over directions).
        let inv_dirs = 1.0 / dirs as f32;
        for j in 0..bh {
            let (mut hj, mut cj) = (0.0, 0.0);
            for cache in &ws.enc {
                hj += cache.final_h()[j];
                cj += cache.final_c()[j];
            }
            ws.dec.h[j] = hj * inv_dirs;
            ws.dec.c[j] = cj * inv_dirs;
        }
        let dec_w = LstmWeights {
            w_ih: p.dec_w_ih,
            w_hh: p.dec_w_hh,
            b_ih: p.dec_b_ih,
            b_hh: p.dec_b_hh,
        };
        lstm_forward(
            &dec_w,
            p.embedding,
            &batch.target_in,
            Start::Given,
            &mut ws.dec,
        );
        let d = &ws.dec.h[bh..]; // (Lt, B, H)
                                 // Attention heads, each giving its raw context ctx_k.
        let sh = self.attn_shape(ws);
        let n = lt * bsz;
        let (qn, an) = (n * hs, bsz * lt * ls);
        for head in 0..k {
            let q = &mut ws.q[head * qn..(head + 1) * qn];
            let alpha = &mut ws.alpha[head * an..(head + 1) * an];
            let ctx = &mut ws.ctx[head * qn..(head + 1) * qn];
            let (w_q, b_q) = head_query(p, head, h, hs);
            attention_forward(sh, weights, d, &ws.h_enc, w_q, b_q, q, alpha, ctx);
        }
        let os = self.out_shape(n);
        fuse_context(
            os,
            p.w_comb,
            p.b_comb,
            p.w_c,
            p.b_c,
            &mut ws.m_ctx,
            &mut ws.b_ctx,
        );
        output_forward(
            os,
            d,
            &ws.ctx,
            &ws.m_ctx,
            &ws.b_ctx,
            p.w_comb,
            p.w_out,
            p.b_out,
            &batch.target_out,
            &mut ws.act,
            &mut ws.logp,
        )
    }

    /// Gradient of the last [`Seq2Seq::forward`]'s loss w.r.t. every parameter, written into
    /// the flat buffer `grads` (overwritten; same layout as the parameters).
    pub fn backward(
        &self,
        p: &Tensors<&[f32]>,
        grads: &mut [f32],
        ws: &mut Workspace,
        batch: &Batch,
    ) {
        let Dims {
            hidden: h,
            dirs,
            heads: k,
            ..
        } = self.dims;
        let hs = self.dims.enc_width();
        let (bsz, ls, lt) = (ws.batch, ws.src_len, ws.tgt_len);
        let bh = bsz * h;
        let n = lt * bsz;
        grads.fill(0.0);
        let g = self.layout.split_mut(grads);
        let d = &ws.dec.h[bh..]; // (Lt, B, H)
        let os = self.out_shape(n);
        output_backward(
            os,
            d,
            &ws.act,
            &ws.logp,
            &batch.target_out,
            p.w_comb,
            p.w_out,
            g.w_comb,
            g.b_comb,
            g.w_out,
            g.b_out,
            &mut ws.dlogits,
            &mut ws.dact,
            &mut ws.dbias,
            &mut ws.dd,
        );
        fused_bias_backward(os, &ws.dbias, p.w_comb, p.b_c, g.w_comb, g.b_c);
        ws.dh_enc.fill(0.0);
        let sh = self.attn_shape(ws);
        let (qn, an) = (n * hs, bsz * lt * ls);
        for head in 0..k {
            let hw = head * h * hs..(head + 1) * h * hs;
            context_backward(
                os,
                &ws.dact,
                &ws.ctx[head * qn..(head + 1) * qn],
                &ws.m_ctx[hw.clone()],
                p.w_comb,
                &p.w_c[hw.clone()],
                g.w_comb,
                &mut g.w_c[hw],
                &mut ws.g_m,
                &mut ws.dctx,
            );
            let (w_q, _) = head_query(p, head, h, hs);
            let (g_w_q, g_b_q) = (
                &mut g.w_q[head * hs * h..(head + 1) * hs * h],
                &mut g.b_q[head * hs..(head + 1) * hs],
            );
            attention_backward(
                sh,
                !self.uniform_attention,
                d,
                &ws.h_enc,
                w_q,
                &ws.q[head * qn..(head + 1) * qn],
                &ws.alpha[head * an..(head + 1) * an],
                &ws.dctx,
                g_w_q,
                g_b_q,
                &mut ws.dd,
                &mut ws.dh_enc,
                &mut ws.dalpha,
                &mut ws.dq,
            );
        }
        // Decoder, then its initial state back into each encoder direction's final state.
        let dec_w = LstmWeights {
            w_ih: p.dec_w_ih,
            w_hh: p.dec_w_hh,
            b_ih: p.dec_b_ih,
            b_hh: p.dec_b_hh,
        };
        let mut dec_g = LstmGrads {
            w_ih: g.dec_w_ih,
            w_hh: g.dec_w_hh,
            b_ih: g.dec_b_ih,
            b_hh: g.dec_b_hh,
        };
        lstm_backward(
            &dec_w,
            p.embedding,
            &batch.target_in,
            &ws.dec,
            &ws.dd,
            None,
            &mut dec_g,
            g.embedding,
            &mut ws.lstm,
        );
        let inv_dirs = 1.0 / dirs as f32;
        for j in 0..bh {
            ws.dh0[j] = ws.lstm.dh[j] * inv_dirs;
            ws.dc0[j] = ws.lstm.dc[j] * inv_dirs;
        }
        for dir in 0..dirs {
            for s in 0..ls {
                let step = if dir == 0 { s } else { ls - 1 - s };
                for b in 0..bsz {
                    let src = (b * ls + s) * hs + dir * h;
                    let dst = (step * bsz + b) * h;
                    ws.dh_dir[dst..dst + h].copy_from_slice(&ws.dh_enc[src..src + h]);
                }
            }
            let tokens = if dir == 0 { &batch.source } else { &ws.src_rev };
            let (g4hh, g4) = (4 * h * h, 4 * h);
            let mut enc_g = LstmGrads {
                w_ih: &mut g.enc_w_ih[dir * g4hh..(dir + 1) * g4hh],
                w_hh: &mut g.enc_w_hh[dir * g4hh..(dir + 1) * g4hh],
                b_ih: &mut g.enc_b_ih[dir * g4..(dir + 1) * g4],
                b_hh: &mut g.enc_b_hh[dir * g4..(dir + 1) * g4],
            };
            lstm_backward(
                &enc_weights(p, dir, h),
                p.embedding,
                tokens,
                &ws.enc[dir],
                &ws.dh_dir,
                Some((&ws.dh0, &ws.dc0)),
                &mut enc_g,
                g.embedding,
                &mut ws.lstm,
            );
        }
    }
}

/// The weights of encoder direction `dir`.
fn enc_weights<'a>(p: &Tensors<&'a [f32]>, dir: usize, h: usize) -> LstmWeights<'a> {
    let (g4hh, g4) = (4 * h * h, 4 * h);
    LstmWeights {
        w_ih: &p.enc_w_ih[dir * g4hh..(dir + 1) * g4hh],
        w_hh: &p.enc_w_hh[dir * g4hh..(dir + 1) * g4hh],
        b_ih: &p.enc_b_ih[dir * g4..(dir + 1) * g4],
        b_hh: &p.enc_b_hh[dir * g4..(dir + 1) * g4],
    }
}

/// `W_q` (Hs, H) and `b_q` (Hs,) of one head.
fn head_query<'a>(
    p: &Tensors<&'a [f32]>,
    head: usize,
    h: usize,
    hs: usize,
) -> (&'a [f32], &'a [f32]) {
    (
        &p.w_q[head * hs * h..(head + 1) * hs * h],
        &p.b_q[head * hs..(head + 1) * hs],
    )
}
