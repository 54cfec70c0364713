"""How long ``refgraph.analyze`` takes on a long context pair, cold and with warm caches.

For a generated context (``gen_context.generate``, 30,000 words by default) and each mode:

* **cold**: a fresh ``refgraph.Analyzer`` (pipeline loaded outside the timing) analyzes
  ``before`` against a 5% rewrite of it: both texts are parsed from scratch.
* **warm, new rewrite**: the same analyzer then analyzes ``before`` against a *different* 5%
  rewrite (``rewrite(before, 0.05, seed=2)``): ``before`` and most blocks of ``after`` are
  cached, only the changed blocks are parsed. This is the agent loop's case: the context was
  checked last turn, the model proposes a new rewrite. Target: well under a second.
* **warm, same pair**: the pair analyzed again (graphs and units come from the analyzer's cache;
  alignment and rules run again).

Each warm figure is the best of 3 runs, each run with its own fresh rewrite seed for the "new
rewrite" row. Prints a table; ``--json OUT`` also writes the numbers.

    python benchmarks/analyze_speed.py [--words 30000] [--mode fast|accurate|both] [--json OUT]
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import json
import sys
import time
from typing import Any

from gen_context import generate, rewrite

import refgraph
from refgraph.nlp import load_pipeline

RUNS = 3


def measure(mode: str, words: int) -> dict[str, Any]:
    before = generate(words, seed=0)
    load_pipeline(mode)  # type: ignore[arg-type]  # loading is not analysis
    az = refgraph.Analyzer(mode)  # type: ignore[arg-type]
    after = rewrite(before, 0.05, seed=1)
    t0 = time.perf_counter()
    rep = az.analyze(before, after)
    cold = time.perf_counter() - t0
    warm_new = []
    for k in range(RUNS):
        other = rewrite(before, 0.05, seed=2 + k)
        t0 = time.perf_counter()
        rep = az.analyze(before, other)
        warm_new.append(time.perf_counter() - t0)
    warm_same = []
    for _ in range(RUNS):
        t0 = time.perf_counter()
        az.analyze(before, other)
        warm_same.append(time.perf_counter() - t0)
    return {"mode": mode, "words": len(before.split()), "cold_ms": cold * 1000,
            "warm_new_ms": min(warm_new) * 1000, "warm_same_ms": min(warm_same) * 1000,
            "findings": len(rep.findings), "units_changed": rep.stats.get("units_rewritten", 0)
            + rep.stats.get("units_removed", 0) + rep.stats.get("units_added", 0)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--words", type=int, default=30_000)
    ap.add_argument("--mode", choices=("fast", "accurate", "both"), default="both")
    ap.add_argument("--json", help="also write the numbers here")
    args = ap.parse_args(argv)
    modes = ["fast", "accurate"] if args.mode == "both" else [args.mode]
    rows = [measure(m, args.words) for m in modes]
    print(f"\nrefgraph.analyze on a {rows[0]['words']:,}-word context pair, 5% rewritten")
    print("| mode | cold | warm, new rewrite | warm, same pair | findings |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['mode']} | {r['cold_ms']:.0f} ms | {r['warm_new_ms']:.0f} ms | "
              f"{r['warm_same_ms']:.0f} ms | {r['findings']} |")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(rows, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
