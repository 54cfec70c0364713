"""Golden snapshots of the claims the front end reads off the bundled examples, in both modes.

A change to the front end that changes a claim shows up here as a diff to review, not as a
silent shift in what the rules compare. After an intended change, regenerate with
``REFGRAPH_UPDATE_GOLDEN=1 python -m pytest tests/test_golden_graphs.py`` and review the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from refgraph.claims import claims_of
from refgraph.graph import build_graph

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.md"))
GOLDEN = Path(__file__).parent / "golden"


def _snapshot(text: str, mode: str) -> list[dict[str, Any]]:
    cs = claims_of(build_graph(text, mode=mode))  # type: ignore[arg-type]
    return [{"text": c.text, "predicate": c.pred_key, "negative": c.negative,
             "strength": c.strength, "force": c.force, "mood": c.mood, "source": c.source,
             "args": sorted(a.feature for a in c.args)} for c in cs.claims]


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_claims_match_the_golden_snapshot(path: Path, mode: str) -> None:
    got = _snapshot(path.read_text(encoding="utf-8"), mode)
    golden = GOLDEN / f"{path.stem}.{mode}.json"
    if os.environ.get("REFGRAPH_UPDATE_GOLDEN"):
        golden.write_text(json.dumps(got, indent=1, ensure_ascii=False) + "\n",
                          encoding="utf-8")
    assert golden.exists(), f"no snapshot: run with REFGRAPH_UPDATE_GOLDEN=1 ({golden.name})"
    want = json.loads(golden.read_text(encoding="utf-8"))
    assert got == want, f"{path.name} ({mode}): claims changed; review and regenerate"
    assert got, "an example with no claims snapshots nothing"
