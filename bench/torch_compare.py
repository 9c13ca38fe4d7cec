"""Our success rate against PyTorch's, and their token accuracy step by step, from the CSVs
of `reproduce` and of bench/torch_sweep.py (any number of each, e.g. shards of seeds).

For each side: the seeds that reached token accuracy >= 0.99 by the last step, and the
median token accuracy at chosen steps; between the sides: Fisher's exact test on the
successes and the Mann-Whitney U test (two-sided, normal approximation with the tie
correction) on the token accuracies at each chosen step. Standard library only.

Usage: python bench/torch_compare.py --ours A.csv [B.csv ...] --torch C.csv [D.csv ...]
         [--steps 40,120,190,200]
"""

import argparse
import csv
import math
import statistics


def read(files):
    """{seed: {step: token_acc}} from CSVs with seed, step and token_acc columns."""
    runs = {}
    for f in files:
        with open(f) as fh:
            for row in csv.DictReader(fh):
                runs.setdefault(int(row["seed"]), {})[int(row["step"])] = float(row["token_acc"])
    return runs


def fisher(a, n1, b, n2):
    """Two-sided p of Fisher's exact test: a of n1 against b of n2."""
    total = a + b
    def p(k):
        return math.comb(n1, k) * math.comb(n2, total - k) / math.comb(n1 + n2, total)
    observed = p(a)
    lo, hi = max(0, total - n2), min(n1, total)
    return min(1.0, sum(p(k) for k in range(lo, hi + 1) if p(k) <= observed * (1 + 1e-9)))


def mann_whitney(x, y):
    """Two-sided p of the Mann-Whitney U test (normal approximation, ties corrected)."""
    both = sorted([(v, 0) for v in x] + [(v, 1) for v in y])
    ranks, i = [0.0] * len(both), 0
    ties = 0.0
    while i < len(both):
        j = i
        while j + 1 < len(both) and both[j + 1][0] == both[i][0]:
            j += 1
        for k in range(i, j + 1):
            ranks[k] = (i + j) / 2 + 1
        t = j - i + 1
        ties += t ** 3 - t
        i = j + 1
    n1, n2 = len(x), len(y)
    r1 = sum(r for r, (_, side) in zip(ranks, both) if side == 0)
    u = r1 - n1 * (n1 + 1) / 2
    n = n1 + n2
    var = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1)))
    if var == 0:
        return 1.0
    z = (u - n1 * n2 / 2) / math.sqrt(var)
    return math.erfc(abs(z) / math.sqrt(2))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ours", nargs="+", required=True)
    ap.add_argument("--torch", nargs="+", required=True)
    ap.add_argument("--steps", default="40,120,190,200")
    a = ap.parse_args()
    steps = [int(s) for s in a.steps.split(",")]
    sides = {"ours": read(a.ours), "PyTorch": read(a.torch)}
    reached = {}
    for name, runs in sides.items():
        reached[name] = sorted(s for s, r in runs.items() if max(r.values()) >= 0.99)
    n = {name: len(runs) for name, runs in sides.items()}
    print(f"| | ours ({n['ours']} seeds) | PyTorch ({n['PyTorch']} seeds) | p |")
    print("|---|---:|---:|---:|")
    p = fisher(len(reached["ours"]), n["ours"], len(reached["PyTorch"]), n["PyTorch"])
    print(f"| reached token accuracy 0.99 | {len(reached['ours'])} | {len(reached['PyTorch'])} | {p:.2f} (Fisher) |")
    for step in steps:
        x = [r[step] for r in sides["ours"].values() if step in r]
        y = [r[step] for r in sides["PyTorch"].values() if step in r]
        if not x or not y:
            continue
        p = mann_whitney(x, y)
        print(f"| median token accuracy at step {step} | {statistics.median(x):.3f} | "
              f"{statistics.median(y):.3f} | {p:.3f} (Mann-Whitney) |")


if __name__ == "__main__":
    main()
