"""Is every stage linear in its input? Adversarial inputs timed at n, 2n, 4n and 8n.

Each shape repeats one hostile pattern (a DNA-like upper-case token, a clause repeating "not
run", a flood of turn lines, one 100,000-character line, thousands of identifiers or handles,
deep brackets and JSON, a long markdown table, near-duplicate sentences ...) k times. For each
shape, mode and stage (``build_graph`` of before, ``analyze`` of before against a rewrite that
halves it and changes one number, ``lint`` of before) it prints the times and the ratio 8n/4n:
about 2 is linear, about 4 quadratic. A fresh parser or analyzer per run (cold caches), the
pipeline loaded outside the timing, best of ``--repeat`` runs.

    python benchmarks/scaling.py [--mode fast|accurate|both] [--scale 1.0] [--check]

``--check`` exits 1 when a ratio exceeds ``--max-ratio`` (2.6) or a shape at 8n takes longer
than ``--max-seconds`` (2 s): ``tests/test_scaling.py`` runs it that way at small sizes.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import gc
import json
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import refgraph


def _lines(k: int, line: Callable[[int], str]) -> str:
    return "".join(line(i) for i in range(k))


# Each shape: k -> before. k is the repetition count at size n; sizes are chosen so that n is
# a few thousand characters at --scale 1.
SHAPES: dict[str, tuple[int, Callable[[int], str]]] = {
    "upper-case token (DNA)": (400, lambda k: ("ACGT" * k)[: 4 * k]),
    "'not run' clause repeated": (150, lambda k: "We did not run the tests and " * k + "stop."),
    "capitalised words": (400, lambda k: " ".join(f"Word{i} Alpha Beta" for i in range(k))),
    "flood of turn lines": (80, lambda k: _lines(
        k, lambda i: f"user: hello {i}, not now\nassistant: ok {i}, done\n")),
    "one long line": (400, lambda k: " ".join(f"tok{i} = {i}" for i in range(k))),
    "many short lines": (400, lambda k: _lines(k, lambda i: f"x{i}\n")),
    "identifier list": (300, lambda k: "Files: " + ", ".join(
        f"src/mod_{i}.py" for i in range(k)) + "."),
    "nested brackets": (400, lambda k: "(" * k + "x" + ")" * k),
    "nested JSON": (200, lambda k: '{"a": ' * k + "1" + "}" * k),
    "minified JSON": (200, lambda k: "{" + ",".join(f'"k{i}":{i}' for i in range(k)) + "}"),
    "repeated deictics": (150, lambda k: "the budget. That budget is set. " * k),
    "numbers with separators": (300, lambda k: " ".join(
        f"{i:,}00,000.5 kg" for i in range(1000, 1000 + k)) + "."),
    "markdown table": (150, lambda k: "| id | size | ok |\n|---|---:|---|\n" + _lines(
        k, lambda i: f"| r{i} | {i} MB | no |\n")),
    "near-duplicate sentences": (100, lambda k: _lines(
        k, lambda i: f"The retry budget of worker {i % 7} is {i % 5} seconds.\n")),
    "many handles": (150, lambda k: _lines(
        k, lambda i: f"tool[call_{i}]: see https://x.test/r/{i} and /tmp/f{i}.log\n")),
    "prohibitions, many sentences": (120, lambda k: "Do not run x_y. " * k),
    "conditionals in one sentence": (120, lambda k: "if not a, " * k + "b."),
    "causal chain, one sentence": (150, lambda k: "a because b " * k + "."),
    "punctuation run": (500, lambda k: "!?.,;" * k),
}

STAGES = ("build_graph", "analyze", "lint")
SIZES = (1, 2, 4, 8)


def rewrite(before: str) -> str:
    """What the ``analyze`` stage compares before with: its first half, cut at a space, with one
    digit changed (a rewrite that prunes and edits)."""
    cut = before.rfind(" ", 0, len(before) // 2)
    half = before[: cut if cut > 0 else len(before) // 2]
    for i, ch in enumerate(half):
        if ch.isdigit():
            return half[:i] + ("7" if ch != "7" else "3") + half[i + 1:]
    return half


@dataclass(frozen=True)
class Row:
    shape: str
    mode: str
    stage: str
    chars: int  # of before at 8n
    seconds: tuple[float, ...]  # at n, 2n, 4n, 8n

    @property
    def ratio(self) -> float:
        return self.seconds[-1] / max(self.seconds[-2], 1e-4)


def _once(stage: str, mode: str, before: str, after: str) -> float:
    gc.collect()
    if stage == "build_graph":
        parser = refgraph.Parser(mode)  # type: ignore[arg-type]
        t0 = time.perf_counter()
        refgraph.build_graph(before, parser=parser)
    else:
        az = refgraph.Analyzer(mode)  # type: ignore[arg-type]
        t0 = time.perf_counter()
        if stage == "analyze":
            az.analyze(before, after)
        else:
            az.lint(before)
    return time.perf_counter() - t0


def measure(shape: str, mode: str, stage: str, *, scale: float = 1.0, repeat: int = 2,
            sizes: tuple[int, ...] = SIZES) -> Row:
    """Best-of-``repeat`` times of ``stage`` on ``shape`` at each multiple of n in ``sizes``
    (the ratio is of the last two)."""
    base, make = SHAPES[shape]
    k = max(1, round(base * scale))
    pairs = [(before, rewrite(before)) for before in (make(k * m) for m in sizes)]
    best = [math.inf] * len(sizes)
    # Round by round over all sizes, not size by size: a burst of load on the machine then
    # slows one run of each size instead of every run of one size.
    for _ in range(repeat):
        for i, (before, after) in enumerate(pairs):
            best[i] = min(best[i], _once(stage, mode, before, after))
    return Row(shape, mode, stage, len(pairs[-1][0]), tuple(best))


def failures(rows: list[Row], max_ratio: float, max_seconds: float) -> list[str]:
    out = []
    for r in rows:
        if r.ratio > max_ratio:
            out.append(f"{r.shape} / {r.stage} / {r.mode}: 8n/4n = {r.ratio:.2f} > {max_ratio}")
        if r.seconds[-1] > max_seconds:
            out.append(f"{r.shape} / {r.stage} / {r.mode}: {r.seconds[-1]:.2f} s at 8n "
                       f"> {max_seconds} s")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--mode", choices=("fast", "accurate", "both"), default="fast")
    ap.add_argument("--scale", type=float, default=1.0, help="multiplies every shape's n")
    ap.add_argument("--stage", choices=STAGES, action="append",
                    help="only this stage (repeatable); all three by default")
    ap.add_argument("--shape", action="append", help="only shapes containing this text")
    ap.add_argument("--repeat", type=int, default=2, help="best of this many runs")
    ap.add_argument("--check", action="store_true", help="exit 1 on a ratio or time over limit")
    ap.add_argument("--max-ratio", type=float, default=2.6)
    ap.add_argument("--max-seconds", type=float, default=2.0)
    ap.add_argument("--json", metavar="OUT", help="also write the rows as JSON")
    args = ap.parse_args(argv)
    modes = ("fast", "accurate") if args.mode == "both" else (args.mode,)
    shapes = [s for s in SHAPES if not args.shape or any(p in s for p in args.shape)]
    stages = args.stage or list(STAGES)
    for mode in modes:  # load each pipeline outside the timing
        refgraph.Analyzer(mode).analyze("warm up.", "warm up.")  # type: ignore[arg-type]
    print("| shape | mode | stage | chars at 8n | n (ms) | 2n | 4n | 8n | 8n/4n |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|")
    rows: list[Row] = []
    for shape in shapes:
        for mode in modes:
            for stage in stages:
                r = measure(shape, mode, stage, scale=args.scale, repeat=args.repeat)
                rows.append(r)
                ms = " | ".join(f"{s * 1000:.0f}" for s in r.seconds)
                print(f"| {shape} | {mode} | {stage} | {r.chars:,} | {ms} | {r.ratio:.2f} |",
                      flush=True)
    worst = max(rows, key=lambda r: r.ratio)
    print(f"\nworst 8n/4n: {worst.ratio:.2f} ({worst.shape}, {worst.stage}, {worst.mode}); "
          f"slowest at 8n: {max(r.seconds[-1] for r in rows):.2f} s")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump([r.__dict__ | {"ratio": r.ratio} for r in rows], f, indent=1)
    bad = failures(rows, args.max_ratio, args.max_seconds)
    for line in bad:
        print(f"over limit: {line}", file=sys.stderr)
    return 1 if args.check and bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
