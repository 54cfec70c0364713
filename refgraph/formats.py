"""Reports for CI: SARIF 2.1.0, GitHub workflow annotations and JSON lines.

``refgraph check --format sarif|github|jsonl`` (and ``lint``) write these; the functions take
the report and the paths its two sides were read from, so every location names a file, a
line and a column.

- :func:`to_sarif`: one SARIF run. Rule metadata comes from the catalogue; each result's
  location is its first evidence span on the after side (the file the rewrite produced), or
  on before when it cites none there (a pruned result); the other spans are related locations.
  ``partialFingerprints`` holds the finding's fingerprint, so code-scanning services track a
  finding across runs as ``--baseline`` does.
- :func:`github_annotations`: ``::error file=...,line=...::message`` lines.
- :func:`json_lines`: one finding per line, with its locations (ruff's ``json-lines``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from . import __version__
from .findings import Evidence, Finding
from .report import Report
from .rules import RULES

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
FINGERPRINT_KEY = "refgraph/v1"
_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def to_sarif(report: Report, paths: Mapping[str, str]) -> dict[str, Any]:
    """``report`` as a SARIF 2.1.0 log with one run; ``paths`` maps ``"before"`` and
    ``"after"`` to the files they were read from."""
    index = {r.code: k for k, r in enumerate(RULES)}
    data = report.to_dict(paths=paths)
    results = [_result(f, d, index) for f, d in zip(report.findings, data["findings"],
                                                   strict=True)]
    artifacts = sorted(set(paths.values()))
    return {
        "$schema": SARIF_SCHEMA_URI,
        "version": SARIF_VERSION,
        "runs": [{
            "tool": {"driver": {
                "name": "refgraph", "version": __version__, "semanticVersion": __version__,
                "rules": [_rule(r) for r in RULES]}},
            "columnKind": "unicodeCodePoints",  # Python string offsets, as in the JSON report
            "artifacts": [{"location": {"uri": p}} for p in artifacts],
            "results": results,
            "invocations": [{"executionSuccessful": True}],
            "properties": {"verdict": report.verdict, "intent": report.intent,
                           "mode": report.mode},
        }],
    }


def _rule(r: Any) -> dict[str, Any]:
    return {"id": r.code, "name": r.name,
            "shortDescription": {"text": r.summary},
            "fullDescription": {"text": r.doc()},
            "help": {"text": r.hint},
            "defaultConfiguration": {"level": _LEVEL[r.severity]}}


def _result(f: Finding, d: dict[str, Any], index: Mapping[str, int]) -> dict[str, Any]:
    spans = list(zip(f.evidence, d["evidence"], strict=True))
    main = next((k for k, (e, _) in enumerate(spans) if e.side == "after"), 0)
    out: dict[str, Any] = {
        "ruleId": f.code, "level": _LEVEL[f.severity],
        "message": {"text": f"{f.message}. Fix: {f.hint}"},
        "partialFingerprints": {FINGERPRINT_KEY: f.fingerprint},
        "properties": {"confidence": round(f.confidence, 3), "name": f.name},
    }
    if f.code in index:
        out["ruleIndex"] = index[f.code]
    if spans:
        out["locations"] = [_location(*spans[main])]
        related = [_location(e, x, k) for k, (e, x) in enumerate(spans) if k != main]
        if related:
            out["relatedLocations"] = related
    return out


def _location(e: Evidence, d: dict[str, Any], ident: int | None = None) -> dict[str, Any]:
    region: dict[str, Any] = {"startLine": d["line"], "startColumn": d["column"],
                              "endLine": d["end_line"], "endColumn": d["end_column"] + 1,
                              "charOffset": e.start, "charLength": e.end - e.start,
                              "snippet": {"text": e.quote}}
    loc: dict[str, Any] = {"physicalLocation": {
        "artifactLocation": {"uri": d.get("path", e.side)}, "region": region}}
    role = f"{e.side} ({e.role})" if e.role else e.side
    if e.message is not None:
        role += f", message {e.message}"
    loc["message"] = {"text": role}
    if ident is not None:
        loc["id"] = ident
    return loc


def github_annotations(report: Report, paths: Mapping[str, str]) -> Iterator[str]:
    """One GitHub Actions workflow command per finding, at its main span."""
    data = report.to_dict(paths=paths)
    for f, d in zip(report.findings, data["findings"], strict=True):
        spans = d["evidence"]
        main = next((x for x, e in zip(spans, f.evidence, strict=True) if e.side == "after"),
                    spans[0] if spans else None)
        level = {"error": "error", "warning": "warning"}.get(f.severity, "notice")
        props = [f"title={_prop(f'{f.code} {f.name}')}"]
        if main is not None:
            props = [f"file={_prop(main.get('path', main['side']))}",
                     f"line={main['line']}", f"col={main['column']}",
                     f"endLine={main['end_line']}", f"endColumn={main['end_column']}", *props]
        yield f"::{level} {','.join(props)}::{_data(f'{f.message}. Fix: {f.hint}')}"


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def json_lines(report: Report, paths: Mapping[str, str]) -> Iterator[str]:
    """One compact JSON object per finding: the finding as the JSON report writes it, plus
    the report's ``verdict`` and ``intent``."""
    data = report.to_dict(paths=paths)
    for d in data["findings"]:
        yield json.dumps({**d, "verdict": report.verdict, "intent": report.intent},
                         ensure_ascii=False)
