"""Baselines: accept today's findings once, report only new ones (``refgraph check --baseline``).

A baseline is a JSON file of finding fingerprints (:attr:`~refgraph.findings.Finding.fingerprint`),
with each finding's code and first quote so a reviewer can read what was accepted::

    {"schema": "refgraph.baseline/1",
     "findings": [{"fingerprint": "3f0c...", "code": "RG304", "quote": "may"}]}
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable
from pathlib import Path

from .errors import InputError
from .findings import Finding
from .report import Report, verdict_for

BASELINE_SCHEMA = "refgraph.baseline/1"


def baseline_dict(findings: Iterable[Finding]) -> dict[str, object]:
    """The baseline that accepts ``findings`` (each fingerprint once, sorted)."""
    rows = {f.fingerprint: {"fingerprint": f.fingerprint, "code": f.code,
                            "quote": f.evidence[0].quote if f.evidence else ""}
            for f in findings}
    return {"schema": BASELINE_SCHEMA, "findings": [rows[k] for k in sorted(rows)]}


def read_baseline(path: str | Path) -> frozenset[str]:
    """The fingerprints in the baseline file at ``path``."""
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"--baseline {path}: no such file (create it with "
                         "--write-baseline)") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"--baseline {path}: not a readable baseline: {exc}") from None
    rows = data.get("findings") if isinstance(data, dict) else None
    if (not isinstance(data, dict) or data.get("schema") != BASELINE_SCHEMA
            or not isinstance(rows, list)
            or not all(isinstance(r, dict) and isinstance(r.get("fingerprint"), str)
                       for r in rows)):
        raise InputError(f"--baseline {path}: not a {BASELINE_SCHEMA} file")
    return frozenset(r["fingerprint"] for r in rows)


def without_baseline(report: Report, fingerprints: frozenset[str]) -> Report:
    """``report`` without the findings the baseline accepts; the verdict is recomputed and
    ``stats["baselined"]`` counts what was left out."""
    kept = [f for f in report.findings if f.fingerprint not in fingerprints]
    stats = {**report.stats, "baselined": len(report.findings) - len(kept)}
    return dataclasses.replace(report, findings=kept, verdict=verdict_for(kept), stats=stats)
