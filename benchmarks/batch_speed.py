"""Batch audit throughput: one process against ``--jobs 2`` (issue 13's target: at least 1.7x
the pairs/s of one process on 2 cores), on pairs with distinct contexts, both modes, measured
side by side in one run.

Run ``python benchmarks/batch_speed.py [--pairs 2000] [--words 150] [--modes fast,accurate]``;
it prints a table. Each pair is a generated agent context (``gen_context.generate``, its own
seed) and a rewrite of it (``gen_context.rewrite``): no two pairs share a context, so nothing
is won from a shared parse cache, only from the workers.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gen_context import generate, rewrite

from refgraph.audit import audit


def pairs(n: int, words: int, first_seed: int) -> list[dict[str, str]]:
    out = []
    for k in range(n):
        before = generate(words, seed=first_seed + k)
        out.append({"id": str(k), "before": before, "after": rewrite(before, 0.3, seed=k),
                    "intent": "rewrite"})
    return out


def measure(todo: list[dict[str, str]], mode: str, jobs: int) -> tuple[float, int]:
    t0 = time.perf_counter()
    n = sum(1 for _ in audit(todo, mode=mode, jobs=jobs))
    return time.perf_counter() - t0, n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=2000)
    ap.add_argument("--words", type=int, default=150, help="words per generated context")
    ap.add_argument("--modes", default="fast,accurate")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    # Two disjoint sets of the same size: the second run must not find the first run's
    # contexts in a parse cache (workers fork from this process and inherit it).
    one, two = pairs(args.pairs, args.words, 10_000), pairs(args.pairs, args.words, 90_000)
    print(f"{len(one)} pairs per run, {args.words}-word contexts, {os.cpu_count()} cores; "
          "the pipeline is loaded before either run")
    print("| mode | jobs | seconds | pairs/s | speed-up |")
    print("|---|---:|---:|---:|---:|")
    for mode in args.modes.split(","):
        list(audit([{"id": "warm", "before": "Warm up.", "after": "Warm up."}], mode=mode))
        base, n = measure(one, mode, 1)
        print(f"| {mode} | 1 | {base:.1f} | {n / base:.1f} | 1.00 |", flush=True)
        t, n = measure(two, mode, args.jobs)
        print(f"| {mode} | {args.jobs} | {t:.1f} | {n / t:.1f} | {base / t:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
