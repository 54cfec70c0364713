"""How fast refgraph reads a long agent context, against spaCy alone on the same text.

For a generated context (``gen_context.generate``, 30,000 words by default) and each mode this
measures, best of 3 runs, after the pipeline has been loaded and warmed up outside the timing:

* **spaCy baseline**: ``nlp.pipe`` over the texts of all the context's blocks (as split by
  ``refgraph.split_blocks``) with the same underlying pipeline but none of refgraph's
  components: ``spacy.load(<trained pipeline>, exclude=["lemmatizer"])`` in accurate mode,
  ``spacy.blank("en")`` + ``sentencizer`` in fast mode. Reported in words/s.
* **spaCy, same work**: the baseline restricted to what refgraph's parser actually runs spaCy on:
  each distinct block once, and code/JSON blocks tokenized only (``refgraph.parse.RAW_BLOCKS``).
  The cold build's time over this one is the cost of refgraph's own components and graph. (In
  fast mode the parser runs spaCy's tokenizer only and finds the sentencizer's sentences in its
  own token views, so there this row still counts the sentencizer, about 10 ms.)
* **cold build**: ``refgraph.build_graph`` end to end (split, parse, assemble) with a fresh
  ``Parser``, i.e. an empty block cache. Words/s and the overhead over the baseline's time.
  Targets: accurate mode at most 25% slower than the baseline; fast mode >= 100,000 words/s.
* **warm rebuild**: ``build_graph`` of ``gen_context.rewrite(text, 0.05)`` with the parser that
  just built ``text``: only changed blocks are re-parsed. Milliseconds and blocks re-parsed.
* **cached rebuild**: ``build_graph`` of the unchanged text with every block cached, i.e. block
  splitting plus pure graph assembly; split by itself and ``refgraph.graph.assemble`` by
  itself are reported too, the latter twice: with each block's graph fragment kept from an
  earlier assembly (what a rebuild does) and with every fragment built afresh (what a cold
  build does).

The header says which build of refgraph's hot modules ran (``refgraph.native``): compiled with
mypyc by ``make``, or the pure-Python sources (``REFGRAPH_PURE=1`` forces them, to compare).

Word counts are whitespace-separated words of the whole context. spaCy on CPU runs in one
thread; the BLAS thread pools are pinned to one thread as well, before numpy is imported.

    python benchmarks/speed.py [--words 30000] [--mode fast|accurate|both] [--json OUT]
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")
os.environ.setdefault("VECLIB_MAXIMUM_THREADS", "1")

import argparse
import gc
import json
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import spacy
from gen_context import generate, rewrite
from spacy.language import Language

import refgraph
from refgraph import Parser, build_graph, load_pipeline, split_blocks
from refgraph.graph import assemble
from refgraph.nlp import trained_pipeline_name
from refgraph.nlp.pipeline import Mode
from refgraph.parse import RAW_BLOCKS

RUNS = 3
SPACY_VERSION: str = spacy.about.__version__
FAST_TARGET_WPS = 100_000
ACCURATE_MAX_OVERHEAD = 0.25


@dataclass
class ModeResult:
    """Every number measured for one mode; times in seconds, best of ``RUNS``."""

    mode: str
    pipeline: str
    words: int
    blocks: int
    distinct_blocks: int
    baseline_s: float = 0.0
    same_work_s: float = 0.0
    cold_s: float = 0.0
    cold_parsed: int = 0
    warm_s: float = 0.0
    warm_reparsed: int = 0
    warm_blocks: int = 0
    cached_s: float = 0.0
    split_s: float = 0.0
    assemble_s: float = 0.0
    assemble_fresh_s: float = 0.0
    nodes: int = 0
    edges: int = 0

    @property
    def overhead(self) -> float:
        """Cold build time over the baseline's, minus one (0.25 = 25% slower)."""
        return self.cold_s / self.baseline_s - 1.0

    def wps(self, seconds: float) -> float:
        return self.words / seconds

    def target_met(self) -> bool:
        if self.mode == "fast":
            return self.wps(self.cold_s) >= FAST_TARGET_WPS
        return self.overhead <= ACCURATE_MAX_OVERHEAD


def best_of(runs: int, fn: Callable[[], float]) -> float:
    """The smallest of ``runs`` timings returned by ``fn`` (each run times its own section)."""
    return min(fn() for _ in range(runs))


def timed(fn: Callable[[], object]) -> float:
    """Seconds ``fn()`` takes to return its result; freeing that result (a graph of ~40,000
    dicts, a list of docs) happens after the clock stops: it is not building."""
    gc.collect()
    t0 = time.perf_counter()
    result = fn()
    elapsed = time.perf_counter() - t0
    del result
    return elapsed


def baseline_pipeline(mode: Mode) -> tuple[Language, str]:
    """The pipeline refgraph builds on, without refgraph's components (nor its tokenizer tweaks)."""
    if mode == "fast":
        nlp = spacy.blank("en")
        nlp.add_pipe("sentencizer")
        return nlp, "spacy.blank('en') + sentencizer"
    name = trained_pipeline_name()
    assert name is not None
    return spacy.load(name, exclude=["lemmatizer"]), f"{name} (no lemmatizer)"


def measure(mode: Mode, text: str, changed: str) -> ModeResult:
    words = len(text.split())
    blocks = split_blocks(text)
    texts = [b.text for b in blocks]
    base, base_name = baseline_pipeline(mode)
    base.max_length = max(base.max_length, max(map(len, texts), default=0) + 1)

    # Warm-up outside the timing: load both pipelines, touch every lazily loaded resource
    # (lexicons, pint registry, compiled patterns) and let the vocabularies see the text once.
    load_pipeline(mode)
    for _ in base.pipe(texts):
        pass
    build_graph(text, mode=mode, parser=Parser(mode))

    r = ModeResult(mode, base_name, words, len(blocks), len({(b.kind, b.text) for b in blocks}))

    def run_baseline() -> float:
        return timed(lambda: [doc for doc in base.pipe(texts)])

    r.baseline_s = best_of(RUNS, run_baseline)

    distinct = {(b.kind, b.text): b for b in blocks}.values()
    prose = [b.text for b in distinct if b.kind not in RAW_BLOCKS]
    raw = [b.text for b in distinct if b.kind in RAW_BLOCKS]

    def run_same_work() -> float:
        return timed(lambda: ([doc for doc in base.pipe(prose)],
                              [base.make_doc(t) for t in raw]))

    r.same_work_s = best_of(RUNS, run_same_work)

    def run_builds() -> None:
        # One run = cold build, cached rebuild and warm rebuild on one fresh parser; each is
        # timed separately and the best of each kept.
        parser = Parser(mode)
        cold = timed(lambda: build_graph(text, mode=mode, parser=parser))
        r.cold_parsed = parser.parses
        cached = timed(lambda: build_graph(text, mode=mode, parser=parser))
        before = parser.parses
        warm = timed(lambda: build_graph(changed, mode=mode, parser=parser))
        r.warm_reparsed = parser.parses - before
        r.cold_s = min(r.cold_s or cold, cold)
        r.cached_s = min(r.cached_s or cached, cached)
        r.warm_s = min(r.warm_s or warm, warm)

    for _ in range(RUNS):
        run_builds()
    r.warm_blocks = len(split_blocks(changed))

    parser = Parser(mode)
    parsed = parser.parse(blocks)
    r.split_s = best_of(RUNS, lambda: timed(lambda: split_blocks(text)))
    r.assemble_s = best_of(RUNS, lambda: timed(
        lambda: assemble(text, blocks, parsed, mode=mode)))

    def run_assemble_fresh() -> float:
        for pb in parsed:
            pb.fragment = None  # forget the fragments: every block's is built again
        return timed(lambda: assemble(text, blocks, parsed, mode=mode))

    r.assemble_fresh_s = best_of(RUNS, run_assemble_fresh)
    graph = assemble(text, blocks, parsed, mode=mode)
    r.nodes, r.edges = graph.number_of_nodes(), graph.number_of_edges()
    return r


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:,.1f}"


def _wps(words: int, seconds: float) -> str:
    return f"{words / seconds:,.0f}"


def table(results: list[ModeResult]) -> str:
    """A Markdown table of the results."""
    head = ("mode", "measurement", "time (ms)", "words/s", "vs baseline", "blocks parsed")
    rows: list[tuple[str, ...]] = []
    for r in results:
        target = (f"target >= {FAST_TARGET_WPS:,} w/s" if r.mode == "fast"
                  else f"target <= +{ACCURATE_MAX_OVERHEAD:.0%}")
        met = "met" if r.target_met() else "MISSED"
        rows += [
            (r.mode, f"spaCy baseline: {r.pipeline}", _ms(r.baseline_s),
             _wps(r.words, r.baseline_s), "1.00x", f"{r.blocks} (pipe)"),
            (r.mode, "spaCy, same work (distinct blocks; code/JSON tokenized only)",
             _ms(r.same_work_s), _wps(r.words, r.same_work_s),
             f"{r.same_work_s / r.baseline_s:.2f}x", f"{r.cold_parsed}"),
            (r.mode, "refgraph cold build", _ms(r.cold_s), _wps(r.words, r.cold_s),
             f"{r.cold_s / r.baseline_s:.2f}x ({r.overhead:+.0%}; {target}: {met}); "
             f"{r.cold_s / r.same_work_s:.2f}x same work",
             f"{r.cold_parsed}"),
            (r.mode, "warm rebuild after 5% rewrite", _ms(r.warm_s), _wps(r.words, r.warm_s),
             f"{r.warm_s / r.baseline_s:.3f}x", f"{r.warm_reparsed} of {r.warm_blocks}"),
            (r.mode, "cached rebuild (split + assembly)", _ms(r.cached_s),
             _wps(r.words, r.cached_s), f"{r.cached_s / r.baseline_s:.3f}x", "0"),
            (r.mode, "  of which split_blocks", _ms(r.split_s), "", "", ""),
            (r.mode, "  of which assemble (block fragments kept)", _ms(r.assemble_s),
             "", "", ""),
            (r.mode, "assemble with every block fragment built", _ms(r.assemble_fresh_s),
             "", "", ""),
        ]
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(head)]
    right = {2, 3}

    def line(cells: tuple[str, ...]) -> str:
        return "| " + " | ".join(c.rjust(w) if i in right else c.ljust(w)
                                 for i, (c, w) in enumerate(zip(cells, widths, strict=True))) + " |"

    sep = "|" + "|".join(("-" * (w + 1) + ":") if i in right else "-" * (w + 2)
                         for i, w in enumerate(widths)) + "|"
    return "\n".join([line(head), sep, *(line(row) for row in rows)])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="refgraph speed benchmark (see module docstring)")
    ap.add_argument("--words", type=int, default=30_000, help="context size (default 30000)")
    ap.add_argument("--mode", choices=("fast", "accurate", "both"), default="both")
    ap.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    ap.add_argument("--json", metavar="OUT", help="also write the results as JSON to OUT")
    args = ap.parse_args(argv)

    modes: list[Mode] = ["fast", "accurate"] if args.mode == "both" else [args.mode]
    notes: list[str] = []
    if "accurate" in modes and trained_pipeline_name() is None:
        modes.remove("accurate")
        notes.append("accurate mode skipped: no trained English pipeline (en_core_web_sm) "
                     "is installed")

    text = generate(args.words, args.seed)
    changed = rewrite(text, 0.05, args.seed)
    results = [measure(mode, text, changed) for mode in modes]

    print(f"refgraph {refgraph.__version__} ({refgraph.native.build()}), spaCy {SPACY_VERSION}, "
          f"Python {platform.python_version()}, {platform.machine()}; {args.words:,}-word context "
          f"(seed {args.seed}), best of {RUNS}")
    for r in results:
        print(f"{r.mode}: {r.blocks} blocks ({r.distinct_blocks} distinct), graph "
              f"{r.nodes:,} nodes / {r.edges:,} edges")
    if results:
        print()
        print(table(results))
    for note in notes:
        print(note)

    if args.json:
        out: dict[str, Any] = {
            "words": args.words, "seed": args.seed, "runs": RUNS,
            "versions": {"refgraph": refgraph.__version__, "spacy": SPACY_VERSION,
                         "python": platform.python_version()},
            "build": refgraph.native.build(),
            "results": [{**asdict(r), "overhead": r.overhead,
                         "cold_words_per_s": r.wps(r.cold_s),
                         "baseline_words_per_s": r.wps(r.baseline_s),
                         "target_met": r.target_met()} for r in results],
            "notes": notes,
        }
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(out, fh, indent=2)
            fh.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
