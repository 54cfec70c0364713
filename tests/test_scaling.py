"""Every stage stays linear on hostile inputs: ``benchmarks/scaling.py``'s shapes at small sizes.

For each shape, mode and stage, the time at 8n must be at most 2.6 times the time at 4n (2 is
linear, 4 quadratic) and at most 2 s. A row measured under 30 ms at 8n is judged on the time
limit only: at that size the ratio is timer noise. A ratio over the limit is measured once more,
best of 5, before it fails the test (a busy CI machine is not a quadratic algorithm).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import scaling

MAX_RATIO, MAX_SECONDS, NOISE = 2.6, 2.0, 0.03
# Sizes: fast mode at half the benchmark's n; accurate mode, where spaCy's parse dominates,
# at a tenth, and without lint (the same parse and a subset of the rules).
PLAN = [("fast", 0.5, scaling.STAGES), ("accurate", 0.1, ("build_graph", "analyze"))]


def _bad(row: scaling.Row) -> list[str]:
    if row.seconds[-1] < NOISE:
        return scaling.failures([row], float("inf"), MAX_SECONDS)
    return scaling.failures([row], MAX_RATIO, MAX_SECONDS)


@pytest.mark.parametrize(("mode", "scale", "stages"), PLAN, ids=[p[0] for p in PLAN])
def test_every_shape_scales_linearly(mode: str, scale: float, stages: tuple[str, ...]) -> None:
    import refgraph

    refgraph.Analyzer(mode).analyze("warm up.", "warm up.")  # type: ignore[arg-type]
    bad = []
    for shape in scaling.SHAPES:
        for stage in stages:
            row = scaling.measure(shape, mode, stage, scale=scale, repeat=3, sizes=(4, 8))
            if _bad(row):
                row = scaling.measure(shape, mode, stage, scale=scale, repeat=5, sizes=(4, 8))
            bad.extend(_bad(row))
    assert bad == []


def test_the_check_fails_on_a_quadratic_stage() -> None:
    slow = scaling.Row("made up", "fast", "analyze", 1000, (0.1, 0.4))
    assert scaling.failures([slow], MAX_RATIO, MAX_SECONDS) == [
        "made up / analyze / fast: 8n/4n = 4.00 > 2.6"]
    assert _bad(scaling.Row("tiny", "fast", "lint", 10, (0.001, 0.004))) == []
    assert _bad(scaling.Row("big", "fast", "lint", 10, (1.5, 3.0))) == [
        "big / lint / fast: 3.00 s at 8n > 2.0 s"]
