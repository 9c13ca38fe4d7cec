#!/usr/bin/env bash
# Mutation check of the gradient tests: drops or flips one term of a backward pass at a
# time, in a scratch copy of the tree, and confirms the model's gradient check fails
# (`cargo test --test gradients` for the copying model, the sparse lab's check in
# `tests/sparse.rs` for its model, and for the GPU backend's kernels their comparison with
# the CPU model in `tests/gpu.rs`).
# Usage: scripts/mutants.sh   (prints one line per mutant; exit 1 if any survives)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$root/Cargo.toml" "$root/Cargo.lock" "$root/src" "$root/tests" "$work/"
export CARGO_TARGET_DIR="$root/target/mutants"
# file | exact text | replacement | what it does  (a file under src/sparse/ is checked by
# the sparse lab's test, one under src/copying/gpu/ by the GPU's)
mutants=(
  "src/copying/model/lstm.rs|s.dc[k] = dc * f;|s.dc[k] = 0.0 * dc * f;|drop the cell-state recurrence"
  "src/copying/model/lstm.rs|db[h + j] = df * f * (1.0 - f);|db[h + j] = -df * f * (1.0 - f);|flip the forget-gate gradient"
  "src/copying/model/lstm.rs|let dc = s.dc[k] + dh * o|let dc = dh * o|drop dc from the next step"
  "src/copying/model/lstm.rs|*bh_ += x;|*bh_ += 0.0 * x;|drop the b_hh gradient"
  "src/copying/model/lstm.rs|gemm_packed(b_sz, Mat::rows(dgates, g4), &s.w_hh, 0.0, MatMut::rows(&mut s.dh, h));|s.dh.fill(0.0);|drop the hidden-state recurrence"
  "src/copying/model/lstm.rs|let first = if cache.start == Start::Zero { b_sz } else { 0 };|let first = b_sz;|drop dW_hh's first step of the decoder too"
  "src/copying/model/lstm.rs|if t == 0 && cache.start == Start::Zero {|if t == 0 {|drop the decoder's initial h from the recurrence's gradient"
  "src/copying/model/attention.rs|*x = y * (*x - dot);|*x = y * *x;|drop the softmax normalisation term"
  "src/copying/model/attention.rs|matmul_tn(ls, hs, lt, dalpha, ls, &q[b * hs..], ld, 1.0, &mut dh_enc[b * enc..], hs);||drop the score path into h_enc"
  "src/copying/model/output.rs|dl[targets[r] as usize] -= inv_n;|dl[targets[r] as usize] += inv_n;|flip the one-hot term of the loss"
  "src/copying/model/output.rs|matmul_nt(h, h, hs, g_m, hs, w_c_k, hs, 1.0, &mut g_w_comb[h..], 2 * h);||drop the context half of dW"
  "src/copying/model/output.rs|*g += dbias[j] * head_sum(b_c, h, k, i) * inv_k;|*g += 0.0;|drop the fused bias's path into W_c'"
  "src/copying/model/mod.rs|ws.dh0[j] = ws.lstm.dh[j] * inv_dirs;|ws.dh0[j] = 0.0;|cut the decoder's initial h from the encoder"
  "src/copying/model/output.rs|g_m.iter_mut().for_each(\|x\| *x *= inv_k);||drop the 1/K of the head average"
  "src/copying/gpu/wgsl/lstm.wgsl|carry[cr + bh + e] = dc * f;|carry[cr + bh + e] = 0.0 * dc * f;|gpu: drop the cell-state recurrence"
  "src/copying/gpu/wgsl/rows.wgsl|x[o + j] = v[ao + j] * (x[o + j] - dot);|x[o + j] = v[ao + j] * x[o + j];|gpu: drop the softmax normalisation term"
  "src/copying/gpu/wgsl/probe.wgsl|if (j != y) { sum += exp(logits[o + j] - m); }|sum += exp(logits[o + j] - m);|gpu: the probe's odds count the target against itself"
  "src/sparse/model.rs|d_scores[bit as usize * t + pos] += a * (ws.da[pos] - weighted);|d_scores[bit as usize * t + pos] += a * ws.da[pos];|sparse: drop the softmax normalisation term"
  "src/sparse/model.rs|*dv += a * go;|*dv += 0.0 * a * go;|sparse: drop the gradient into the value table"
  "src/sparse/model.rs|d_act[j] = if pre[j] > 0.0 { dz * p.w_out[j] } else { 0.0 };|d_act[j] = dz * p.w_out[j];|sparse: pass the gradient through switched-off ReLU units"
  "src/sparse/model.rs|matmul_nn(2 * t, d, 1, d_scores, 1, u, d, 1.0, &mut ws.d_x_tab, d);||sparse: drop the score path into the embeddings"
  "src/sparse/model.rs|g_q.iter_mut().for_each(\|x\| *x *= scale);||sparse: drop the 1/sqrt(d) of the query's gradient"
  "src/sparse/model.rs|*b += x;|*b += 0.0 * x;|sparse: drop the position embedding's gradient"
  "src/sparse/model.rs|let dz = (math::sigmoid(z) - y) * inv_n;|let dz = (math::sigmoid(z) + y) * inv_n;|sparse: flip the label's term of the loss"
)
# The checks must pass on the tree as it is: a tree that does not build would kill every mutant.
for check in "--test sparse sparse_gradients" "--test gpu gradients_and_maps_equal_the_cpu_models" "--test gradients"; do
  # shellcheck disable=SC2086
  if ! (cd "$work" && cargo test -q $check >/dev/null 2>&1); then
    echo "the unmutated tree fails: cargo test $check"; exit 1
  fi
done
survivors=0
for m in "${mutants[@]}"; do
  IFS='|' read -r file from to what <<<"${m//\\|/$'\x01'}"
  from=${from//$'\x01'/|}; to=${to//$'\x01'/|}
  cp "$root/$file" "$work/$file"
  python3 - "$work/$file" "$from" "$to" <<'PY' || { echo "MUTANT NOT APPLIED: $what"; survivors=$((survivors+1)); continue; }
import re, sys
p, a, b = sys.argv[1:]
s = open(p).read()
# Whitespace-insensitive, and blind to rustfmt's trailing commas before ')'.
chars = [c for c in a if not c.isspace()]
pat = r"\s*".join((r",?\s*\)" if c == ")" else re.escape(c)) for c in chars)
hits = list(re.finditer(pat, s))
if len(hits) != 1:
    sys.exit(1)
open(p, "w").write(s[: hits[0].start()] + b + s[hits[0].end() :])
PY
  case "$file" in
    src/sparse/*) check=(--test sparse sparse_gradients) ;;
    src/copying/gpu/*) check=(--test gpu gradients_and_maps_equal_the_cpu_models) ;;
    *) check=(--test gradients) ;;
  esac
  if (cd "$work" && cargo test -q "${check[@]}" >/dev/null 2>&1); then
    echo "SURVIVED: $what"; survivors=$((survivors+1))
  else
    echo "killed:   $what"
  fi
  cp "$root/$file" "$work/$file"
done
[ "$survivors" -eq 0 ]
