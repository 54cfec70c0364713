"""The option values the Python API, the CLI and the configuration share (standard library
only, so that parsing a command line loads nothing else)."""

from __future__ import annotations

from typing import Literal

Mode = Literal["accurate", "fast"]
MODES: tuple[Mode, ...] = ("accurate", "fast")

Intent = Literal["rewrite", "summarize", "prune"]
INTENTS: tuple[Intent, ...] = ("rewrite", "summarize", "prune")

# Findings whose proof is weaker than this are not reported (they are kept in
# ``Report.suppressed``). Chosen on the dev data: see the README's accuracy section and
# ``benchmarks/accuracy.py``, which prints precision and recall at every threshold.
DEFAULT_MIN_CONFIDENCE = 0.6
