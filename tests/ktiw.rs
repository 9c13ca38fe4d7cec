//! The KTIW probe β equals what a plain forward pass gives when attention is replaced by a
//! one-hot vector on each source position in turn.

mod common;

use attention_playground::copying::metrics::KtiwProbe;
use attention_playground::params::ParamLayout;
use common::tiny;

fn probe_matches_one_hot_forward(bidirectional: bool, heads: usize, uniform: bool) {
    let mut t = tiny(bidirectional, heads, uniform, 9);
    let params = t.params.clone();
    let p = t.model.layout.split(&params);
    let (bsz, ls, lt) = (t.batch.batch, t.batch.src_len, t.batch.tgt_len);
    let nt = t.model.dims.n_tok;
    t.model.forward(&p, &mut t.ws, &t.batch);
    let mut probe = KtiwProbe::new(&t.model, bsz, ls, lt);
    let mut beta = vec![0.0; bsz * lt * ls];
    let score = probe.run(&t.model, &p, &t.ws, &t.batch, &mut beta);

    let mut maxdiff = 0.0f32;
    let mut score_plain = 0.0f64;
    for s in 0..ls {
        let mut one_hot = vec![0.0; bsz * lt * ls];
        for row in one_hot.chunks_exact_mut(ls) {
            row[s] = 1.0;
        }
        t.model
            .forward_with_attention(&p, &mut t.ws, &t.batch, &one_hot);
        for b in 0..bsz {
            for tt in 0..lt {
                let y = t.batch.tgt(tt, b) as usize;
                let lp = t.ws.logp[(tt * bsz + b) * nt + y] as f64;
                let plain = (lp - (1.0 - lp.exp()).ln()) as f32;
                maxdiff = maxdiff.max((plain - beta[(b * lt + tt) * ls + s]).abs());
                if s == t.batch.aligned[tt] as usize {
                    score_plain += lp.exp();
                }
            }
        }
    }
    let score_plain = (score_plain / (bsz * lt) as f64) as f32;
    eprintln!("bi={bidirectional} heads={heads}: max |β − β_plain| = {maxdiff:.2e}");
    assert!(
        maxdiff < 1e-4,
        "probe differs from the one-hot forward by {maxdiff}"
    );
    assert!(
        (score - score_plain).abs() < 1e-5,
        "{score} vs {score_plain}"
    );
}

#[test]
fn probe_unidirectional() {
    probe_matches_one_hot_forward(false, 1, false);
}

#[test]
fn probe_bidirectional_three_heads() {
    probe_matches_one_hot_forward(true, 3, false);
}

#[test]
fn probe_under_uniform_attention() {
    probe_matches_one_hot_forward(false, 1, true);
}
