"""Our copying model and PyTorch's from the same start, step by step.

PyTorch's model (bench/torch_step.py's `Seq2Seq`: `nn.LSTM`, `nn.Linear`, PyTorch's own
initialisation, seed 0) writes its initial parameters as one of our weights files (the
page's format, docs/file-formats.md, in the layout of src/copying/model/params.rs). Our
tool trains from them (`reproduce trace`, one thread) and writes each step's batch, loss
and parameters; then PyTorch trains from the same parameters on the same batches with its
own Adam, and the two are compared at every step: the loss, and each tensor's parameters
(the largest difference, and the difference's norm relative to how far the tensor has
moved from the start). Float32 sums in another order differ by rounding, and Adam divides
each gradient by its own running size, so parameters whose gradients are near zero can
move by up to the learning rate either way; the tolerances below allow for both, and a
different model (a gate, a bias, a scale) fails them at the first step.

Usage: python bench/torch_same_start.py SIZE [--steps N] [--reproduce PATH] [--md FILE] [--mutate]
  SIZE: small (preset small-hard: V = L = 20, H = 64, B = 32) or paper (preset hard:
  V = L = 40, H = 256, B = 128). Prints a table; exits 1 where a tolerance is exceeded.
  --mutate: PyTorch's attention scores divided by √H (a scaled dot product, which ours is
  not), to see the check fail.
"""

import argparse
import base64
import datetime
import json
import math
import os
import subprocess
import sys
import tempfile

import torch
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_step import Seq2Seq  # noqa: E402

# The presets (src/copying/config.rs): name, then the settings that differ from the defaults.
SIZES = {
    "small": ("small-hard", {"vocab": 20, "length": 20, "hidden": 64, "batch": 32}),
    "paper": ("hard", {"vocab": 40, "length": 40, "hidden": 256, "batch": 128}),
}
DEFAULTS = {
    "task": "copy", "distinct": True, "learning_rate": 0.001, "optimizer": "adam",
    "attention": "learned", "heads": 1, "bidirectional": False, "seed": 0,
    "eval_every": 10, "eval_batch": 50,
}
# Largest relative difference of a step's loss, and of a tensor's move from the start.
LOSS_TOL = 1e-4
MOVE_TOL = 1e-2


class Scaled(Seq2Seq):
    """The model with scaled attention scores: what the check must tell from ours."""

    def forward(self, source, target_in):
        h_enc, state = self.encoder(self.embedding(source))
        d, _ = self.decoder(self.embedding(target_in), state)
        q = self.w_q(d).transpose(0, 1)
        keys = h_enc.transpose(0, 1)
        scores = torch.bmm(q, keys.transpose(1, 2)) / math.sqrt(keys.shape[-1])
        c = self.w_c(torch.bmm(torch.softmax(scores, dim=-1), keys)).transpose(0, 1)
        return torch.log_softmax(self.w_o(torch.tanh(self.w(torch.cat([d, c], -1)))), -1)


def layout(m: Seq2Seq):
    """Our tensors, in our buffer's order, as PyTorch's parameters of the same shape."""
    return [
        ("embedding", m.embedding.weight),
        ("enc_w_ih", m.encoder.weight_ih_l0), ("enc_w_hh", m.encoder.weight_hh_l0),
        ("enc_b_ih", m.encoder.bias_ih_l0), ("enc_b_hh", m.encoder.bias_hh_l0),
        ("dec_w_ih", m.decoder.weight_ih_l0), ("dec_w_hh", m.decoder.weight_hh_l0),
        ("dec_b_ih", m.decoder.bias_ih_l0), ("dec_b_hh", m.decoder.bias_hh_l0),
        ("w_q", m.w_q.weight), ("b_q", m.w_q.bias),
        ("w_c", m.w_c.weight), ("b_c", m.w_c.bias),
        ("w_comb", m.w.weight), ("b_comb", m.w.bias),
        ("w_out", m.w_o.weight), ("b_out", m.w_o.bias),
    ]


def flat(m: Seq2Seq) -> torch.Tensor:
    return torch.cat([p.detach().reshape(-1) for _, p in layout(m)])


def read_f32(path: str) -> torch.Tensor:
    with open(path, "rb") as f:
        return torch.frombuffer(bytearray(f.read()), dtype=torch.float32)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("size", choices=SIZES)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--reproduce", default="target/release/reproduce")
    ap.add_argument("--md", help="also write the table there")
    ap.add_argument("--mutate", action="store_true", help="scale PyTorch's attention scores by 1/sqrt(H)")
    a = ap.parse_args()
    preset, sizes = SIZES[a.size]
    config = {**DEFAULTS, **sizes}
    torch.set_num_threads(2)
    torch.manual_seed(0)
    model = (Scaled if a.mutate else Seq2Seq)(config["vocab"], config["hidden"])
    start = flat(model)
    with tempfile.TemporaryDirectory() as tmp:
        weights = os.path.join(tmp, "weights.json")
        with open(weights, "w") as f:
            json.dump({
                "format": "attention-playground-weights", "version": 2,
                "saved": datetime.datetime.now(datetime.timezone.utc).isoformat(),
                "lab": "copying", "preset": preset, "config": config, "step": 0,
                "count": start.numel(),
                "params": base64.b64encode(start.numpy().astype("<f4").tobytes()).decode(),
            }, f)
        out = os.path.join(tmp, "trace")
        subprocess.run([a.reproduce, "trace", weights, "--preset", preset, "--steps", str(a.steps),
                        "--out", out], check=True)
        with open(os.path.join(out, "trace.txt")) as f:
            dims = {k: int(v) for k, v in (line.split() for line in f)}
        with open(os.path.join(out, "losses.txt")) as f:
            ours_loss = [float(x) for x in f.read().split()]
        with open(os.path.join(out, "batches.u32"), "rb") as f:
            tokens = torch.frombuffer(bytearray(f.read()), dtype=torch.int32).to(torch.int64)
        ours = [read_f32(os.path.join(out, f"params-{k}.f32")) for k in range(a.steps + 1)]
    assert torch.equal(ours[0], start), "our tool loaded the parameters PyTorch wrote"
    b, ls, lt, n_tok = dims["batch"], dims["src_len"], dims["tgt_len"], dims["n_tok"]
    per_step = ls * b + 2 * lt * b
    names, sizes_of = zip(*[(n, p.numel()) for n, p in layout(model)])
    bounds = [0]
    for n in sizes_of:
        bounds.append(bounds[-1] + n)
    opt = torch.optim.Adam(model.parameters(), lr=config["learning_rate"])
    rows, worst_loss, worst_move, failed = [], 0.0, 0.0, False
    for k in range(1, a.steps + 1):
        chunk = tokens[(k - 1) * per_step: k * per_step]
        source = chunk[: ls * b].reshape(ls, b)
        target_in = chunk[ls * b: ls * b + lt * b].reshape(lt, b)
        target_out = chunk[ls * b + lt * b:].reshape(lt, b)
        logp = model(source, target_in)
        loss = nn.functional.nll_loss(logp.reshape(-1, n_tok), target_out.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        theirs = flat(model)
        rel_loss = abs(loss.item() - ours_loss[k - 1]) / abs(loss.item())
        move, move_name, most = 0.0, "", 0.0
        for i, name in enumerate(names):
            lo, hi = bounds[i], bounds[i + 1]
            d = (ours[k][lo:hi] - theirs[lo:hi]).double()
            moved = (theirs[lo:hi] - start[lo:hi]).double().norm().item()
            r = d.norm().item() / moved if moved > 0 else (0.0 if d.norm().item() == 0 else math.inf)
            most = max(most, d.abs().max().item())
            if r > move:
                move, move_name = r, name
        worst_loss, worst_move = max(worst_loss, rel_loss), max(worst_move, move)
        bad = rel_loss > LOSS_TOL or move > MOVE_TOL
        failed |= bad
        rows.append(f"| {k} | {ours_loss[k - 1]:.6f} | {loss.item():.6f} | {rel_loss:.1e} | "
                    f"{move:.1e} ({move_name}) | {most:.1e} |{' **over**' if bad else ''}")
    table = "\n".join([
        f"Same start, same batches: preset `{preset}` ({a.size} size), {a.steps} steps, "
        f"{'PyTorch MUTATED (scaled scores), ' if a.mutate else ''}"
        f"PyTorch {torch.__version__} ({torch.get_num_threads()} threads) against `reproduce trace`, "
        f"{datetime.date.today().isoformat()}",
        "",
        "| step | our loss | PyTorch's loss | relative difference | parameters: largest |Δ| / |moved| (tensor) | largest |Δ| |",
        "|---:|---:|---:|---:|---|---:|",
        *rows,
        "",
        f"Worst relative loss difference {worst_loss:.1e} (tolerance {LOSS_TOL:.0e}); worst tensor "
        f"difference relative to its move {worst_move:.1e} (tolerance {MOVE_TOL:.0e}): "
        f"{'over the tolerance' if failed else 'within the tolerances'}.",
    ])
    print(table)
    if a.md:
        with open(a.md, "w") as f:
            f.write(table + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
