"""The PyTorch reference of the speed benchmark: the playground's model (SCIENCE.md 1.1)
written the way a PyTorch user writes it, trained on the easy copying task on one CPU thread.

The model: a shared embedding, `nn.LSTM` encoder and decoder (the decoder started from the
encoder's final state and run over the whole teacher-forced target in one call, as there is
no input feeding), scores `(W_q d_t) · h_s`, `α = softmax`, context `W_c Σ α h`, output
`log_softmax(W_o tanh(W [d; c]))`, mean NLL, Adam at 1e-3. PyTorch's own kernels do what
its LSTM does: the input-weight product for every token, which the playground replaces by a
table lookup, so its step has more arithmetic than the playground's.

Usage: python bench/torch_step.py SIZE STEPS   (SIZE: small | paper). Prints one JSON line:
the median ms of STEPS timed steps after two warm-up ones, every loss, versions.
"""

import json
import statistics
import sys
import time

import torch
from torch import nn

SIZES = {
    # (vocab V, length L, hidden H, batch B): the presets small-easy and easy
    "small": (30, 20, 64, 32),
    "paper": (60, 40, 256, 128),
}


class Seq2Seq(nn.Module):
    def __init__(self, vocab: int, hidden: int):
        super().__init__()
        self.embedding = nn.Embedding(vocab + 2, hidden)  # tokens, EOS = V, SOS = V + 1
        self.encoder = nn.LSTM(hidden, hidden)
        self.decoder = nn.LSTM(hidden, hidden)
        self.w_q = nn.Linear(hidden, hidden)
        self.w_c = nn.Linear(hidden, hidden)
        self.w = nn.Linear(2 * hidden, hidden)
        self.w_o = nn.Linear(hidden, vocab + 2)

    def forward(self, source, target_in):
        """source (Ls, B), target_in (Lt, B) → log-probabilities (Lt, B, V + 2)."""
        h_enc, state = self.encoder(self.embedding(source))  # (Ls, B, H)
        d, _ = self.decoder(self.embedding(target_in), state)  # (Lt, B, H)
        q = self.w_q(d).transpose(0, 1)  # (B, Lt, H)
        keys = h_enc.transpose(0, 1)  # (B, Ls, H)
        alpha = torch.softmax(torch.bmm(q, keys.transpose(1, 2)), dim=-1)  # (B, Lt, Ls)
        c = self.w_c(torch.bmm(alpha, keys)).transpose(0, 1)  # (Lt, B, H)
        return torch.log_softmax(self.w_o(torch.tanh(self.w(torch.cat([d, c], -1)))), -1)


def batch(gen: torch.Generator, vocab: int, length: int, size: int):
    """Easy copying: each source `length` distinct tokens of `vocab`, then EOS."""
    x = torch.stack([torch.randperm(vocab, generator=gen)[:length] for _ in range(size)], 1)
    eos = torch.full((1, size), vocab)
    sos = torch.full((1, size), vocab + 1)
    return torch.cat([x, eos]), torch.cat([sos, x]), torch.cat([x, eos])


def main() -> None:
    size, steps = sys.argv[1], int(sys.argv[2])
    vocab, length, hidden, bsz = SIZES[size]
    torch.set_num_threads(1)
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(0)
    model = Seq2Seq(vocab, hidden)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    losses, times = [], []
    for i in range(steps + 2):
        source, target_in, target_out = batch(gen, vocab, length, bsz)
        t0 = time.perf_counter()
        logp = model(source, target_in)
        loss = nn.functional.nll_loss(logp.reshape(-1, vocab + 2), target_out.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        if i >= 2:
            times.append((time.perf_counter() - t0) * 1e3)
    print(
        json.dumps(
            {
                "size": size,
                "msPerStep": statistics.median(times),
                "losses": losses,
                "torch": torch.__version__,
                "threads": torch.get_num_threads(),
            }
        )
    )


if __name__ == "__main__":
    main()
