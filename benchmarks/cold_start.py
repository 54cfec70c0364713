"""How long refgraph takes to answer from a fresh interpreter (issue targets in brackets).

Each row runs a new process, best of ``--runs`` (5): ``import refgraph`` (< 0.5 s),
``refgraph --version``, ``refgraph rules`` and ``refgraph rule RG201`` (< 0.3 s each), and
``import refgraph`` followed by a fast-mode ``analyze`` of a generated 30,000-word pair
against a 5% rewrite of it (< 0.5 s; the pipeline load counts). The Python start-up alone
(``python -c pass``) is printed first, for scale; it is inside every other figure.

    python benchmarks/cold_start.py [--runs 5] [--words 30000]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gen_context import generate, rewrite

HERE = Path(__file__).resolve().parent
CLI = [sys.executable, "-c", "import sys; from refgraph.cli import main; sys.exit(main())"]


def best(cmd: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       env={**os.environ, "PYTHONWARNINGS": "ignore"})
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--words", type=int, default=30_000)
    args = ap.parse_args()
    before = generate(args.words, seed=1)
    after = rewrite(before, 0.05, seed=1)
    with tempfile.TemporaryDirectory() as tmp:
        b, a = Path(tmp, "before.txt"), Path(tmp, "after.txt")
        b.write_text(before, encoding="utf-8")
        a.write_text(after, encoding="utf-8")
        pair = (f"import refgraph, pathlib; refgraph.analyze(pathlib.Path({str(b)!r}).read_text(),"
                f" pathlib.Path({str(a)!r}).read_text(), mode='fast')")
        rows = [
            ("python -c pass (start-up alone)", [sys.executable, "-c", "pass"], None),
            ("import refgraph", [sys.executable, "-c", "import refgraph"], 0.5),
            ("refgraph --version", [*CLI, "--version"], 0.3),
            ("refgraph rules", [*CLI, "rules"], 0.3),
            ("refgraph rule RG201", [*CLI, "rule", "RG201"], 0.3),
            (f"import + analyze, fast, {args.words:,}-word pair", [sys.executable, "-c", pair],
             0.5),
        ]
        print(f"| command (best of {args.runs}, fresh process) | seconds | target | |")
        print("|---|---:|---:|---|")
        for label, cmd, target in rows:
            s = best(cmd, args.runs)
            verdict = "" if target is None else ("met" if s <= target else "**missed**")
            print(f"| {label} | {s:.3f} | {'' if target is None else f'<= {target}'} | "
                  f"{verdict} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
