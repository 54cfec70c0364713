"""Is building the graph linear in the input? Time adversarial inputs at growing sizes.

Each family repeats one pattern (a giant one-sentence log, thousands of identifiers in one
block, a whitespace-free run, many cues in one sentence ...) at n, 2n and 4n repetitions and
prints the time ratio 4n/2n: about 2 is linear, about 4 quadratic. Fresh parser per run (cold
cache), fast mode by default, best of 2.

    python benchmarks/scaling.py [--mode fast|accurate] [--base 1000]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import refgraph

FAMILIES: dict[str, Callable[[int], str]] = {
    "assignments on one line": lambda k: "x_y=1 " * k,
    "identifiers then numbers": lambda k: "a_b " * k + "5 " * k,
    "negations in one sentence": lambda k: "it is not " * k,
    "conditionals in one sentence": lambda k: "if not a, " * k + "b.",
    "limits in one sentence": lambda k: "up to 5 " * k + ".",
    "prohibitions, many sentences": lambda k: "Do not run x_y. " * k,
    "paragraph blocks": lambda k: "The timeout is 30 s.\n\n" * k,
    "deictics": lambda k: "the budget. that budget. " * k,
    "punctuation run": lambda k: "!?.,;" * k,
    "nested brackets": lambda k: "(" * k + ")" * k,
    "minified JSON block": lambda k: "{" + ",".join(f'"k{i}":{i}' for i in range(k)) + "}",
    "causal chain, one sentence": lambda k: "a because b " * k,
}


def _time(text: str, mode: str) -> float:
    best = float("inf")
    for _ in range(2):
        parser = refgraph.Parser(mode)  # type: ignore[arg-type]
        t0 = time.perf_counter()
        refgraph.build_graph(text, parser=parser)
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--mode", choices=("fast", "accurate"), default="fast")
    ap.add_argument("--base", type=int, default=1000, help="repetitions at the smallest size")
    args = ap.parse_args()
    refgraph.build_graph("warm up", mode=args.mode)
    print(f"| input ({args.mode} mode) | chars at 4n | n (ms) | 2n (ms) | 4n (ms) | 4n/2n |")
    print("|---|---:|---:|---:|---:|---:|")
    worst = 0.0
    for name, make in FAMILIES.items():
        times = [_time(make(args.base * m), args.mode) for m in (1, 2, 4)]
        ratio = times[2] / max(times[1], 1e-9)
        worst = max(worst, ratio)
        print(f"| {name} | {len(make(args.base * 4)):,} | {times[0] * 1000:.0f} | "
              f"{times[1] * 1000:.0f} | {times[2] * 1000:.0f} | {ratio:.1f} |")
    print(f"\nworst 4n/2n ratio: {worst:.1f} (2 = linear, 4 = quadratic)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
