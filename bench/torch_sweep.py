"""Success rates of the same model in PyTorch (issue 22, item 4): the model of
bench/torch_step.py (nn.LSTM, nn.Linear, PyTorch's own initialisation), trained with Adam at
1e-3 over many seeds of a copying task, each seed with its own random streams (torch's
generator for the weights, another for the data). Evaluated like `reproduce`: before
training and every 10 steps, on a fixed batch of 50 sequences drawn from the seed,
teacher forced: token accuracy (argmax of the output on the target, EOS included) and
attention accuracy (argmax of α on the aligned source position). A seed *reached* the task
at the first evaluation with token accuracy ≥ 0.99.

Usage: python bench/torch_sweep.py TASK SEEDS STEPS [--jobs N] [--csv FILE]
  TASK: small-easy | small-hard | easy | hard (the presets' sizes); SEEDS: e.g. 0-19.
Prints a Markdown table per seed and the count that reached 0.99 (and writes the CSV
`seed,step,token_acc,attention_acc`).
"""

import argparse
import multiprocessing
import os
import statistics
import sys

import torch
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_step import Seq2Seq  # noqa: E402  (the benchmark's model, unchanged)

# (vocab V, length L, hidden H, batch B) of the presets (src/copying/config.rs).
TASKS = {
    "small-easy": (30, 20, 64, 32),
    "small-hard": (20, 20, 64, 32),
    "easy": (60, 40, 256, 128),
    "hard": (40, 40, 256, 128),
}
EVAL_BATCH = 50
EVAL_EVERY = 10


def draw(gen, vocab, length, size):
    """Copying with distinct tokens: each source `length` distinct tokens of `vocab` (a
    permutation of the vocabulary when V = L), then EOS; the target the same."""
    x = torch.stack([torch.randperm(vocab, generator=gen)[:length] for _ in range(size)], 1)
    eos = torch.full((1, size), vocab)
    sos = torch.full((1, size), vocab + 1)
    return torch.cat([x, eos]), torch.cat([sos, x]), torch.cat([x, eos])


def attention(model, source, target_in):
    """α (B, Lt, Ls) of the model's forward pass, as bench/torch_step.py computes it."""
    h_enc, state = model.encoder(model.embedding(source))
    d, _ = model.decoder(model.embedding(target_in), state)
    q = model.w_q(d).transpose(0, 1)
    keys = h_enc.transpose(0, 1)
    return torch.softmax(torch.bmm(q, keys.transpose(1, 2)), dim=-1)


def evaluate(model, batch):
    source, target_in, target_out = batch
    with torch.no_grad():
        logp = model(source, target_in)
        token = (logp.argmax(-1) == target_out).float().mean().item()
        alpha = attention(model, source, target_in)  # (B, Lt, Ls): copying aligns t with t
        aligned = torch.arange(alpha.shape[1])
        attn = (alpha.argmax(-1) == aligned).float().mean().item()
    return token, attn


def run_seed(args):
    task, seed, steps = args
    torch.set_num_threads(1)
    vocab, length, hidden, bsz = TASKS[task]
    torch.manual_seed(seed)
    model = Seq2Seq(vocab, hidden)
    gen = torch.Generator().manual_seed(1_000_003 + seed)
    eval_batch = draw(gen, vocab, length, EVAL_BATCH)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    rows = [(0, *evaluate(model, eval_batch))]
    for step in range(1, steps + 1):
        source, target_in, target_out = draw(gen, vocab, length, bsz)
        logp = model(source, target_in)
        loss = nn.functional.nll_loss(logp.reshape(-1, vocab + 2), target_out.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % EVAL_EVERY == 0:
            rows.append((step, *evaluate(model, eval_batch)))
    return seed, rows


def seeds_of(text):
    a, _, b = text.partition("-")
    return list(range(int(a), int(b or a) + 1))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("task", choices=TASKS)
    p.add_argument("seeds")
    p.add_argument("steps", type=int)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--csv")
    a = p.parse_args()
    jobs = [(a.task, s, a.steps) for s in seeds_of(a.seeds)]
    with multiprocessing.Pool(a.jobs) as pool:
        results = sorted(pool.map(run_seed, jobs))
    if a.csv:
        with open(a.csv, "w") as f:
            f.write("seed,step,token_acc,attention_acc\n")
            for seed, rows in results:
                for step, token, attn in rows:
                    f.write(f"{seed},{step},{token:.4f},{attn:.4f}\n")
    print(f"PyTorch {torch.__version__}, {a.task}, {a.steps} steps, seeds {a.seeds}\n")
    print("| seed | final token acc | final attn acc | token acc ≥ 0.99 at |")
    print("|---:|---:|---:|---:|")
    reached = []
    for seed, rows in results:
        at = next((step for step, token, _ in rows if token >= 0.99), None)
        if at is not None:
            reached.append(at)
        _, token, attn = rows[-1]
        print(f"| {seed} | {token:.3f} | {attn:.3f} | {at if at is not None else 'never'} |")
    median = f", median step {statistics.median(reached):g}" if reached else ""
    print(f"\nreached token acc 0.99: {len(reached)}/{len(results)} seeds{median}")


if __name__ == "__main__":
    main()
