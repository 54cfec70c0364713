"""The analyzer's result: findings, a verdict, both graphs and the alignment.

JSON schema ``refgraph.report/2`` (docs/contracts.md section 5): fields are only ever added
within a schema version.
"""

from __future__ import annotations

import bisect
import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from .align import Alignment
from .findings import Evidence, Finding
from .model import RefGraph

REPORT_SCHEMA = "refgraph.report/2"
Verdict: TypeAlias = Literal["apply", "apply-with-log", "reject", "refuse"]


def verdict_for(findings: list[Finding]) -> Verdict:
    """Severity -> verdict: none -> apply; only info/warning -> apply-with-log; error -> reject."""
    if not findings:
        return "apply"
    if any(f.severity == "error" for f in findings):
        return "reject"
    return "apply-with-log"


@dataclass(slots=True)
class Report:
    """What :func:`refgraph.analyze` (or :func:`refgraph.lint`) found.

    ``before_graph``/``after_graph`` and ``alignment`` are kept for rendering and notebooks;
    ``after`` is empty and ``after_graph``/``alignment`` are None for a lint report.
    """

    verdict: Verdict
    intent: str
    mode: str
    findings: list[Finding]
    before: str
    after: str
    before_graph: RefGraph | None = None
    after_graph: RefGraph | None = None
    alignment: Alignment | None = None
    stats: dict[str, Any] = field(default_factory=dict)
    # Findings whose confidence was below ``min_confidence``: not in findings, codes or the
    # verdict, kept here to look at (and counted in to_dict()).
    suppressed: list[Finding] = field(default_factory=list)
    min_confidence: float = 0.0
    # Why the analysis stopped early (its ``deadline`` passed), or "" when it ran to the end.
    # An incomplete report's verdict is at least "apply-with-log": unchecked is not clean.
    incomplete: str = ""

    @property
    def complete(self) -> bool:
        """Whether every stage and every selected rule ran (no ``deadline`` cut it short)."""
        return not self.incomplete

    @property
    def codes(self) -> list[str]:
        """The codes found, sorted, each once."""
        return sorted({f.code for f in self.findings})

    def to_dict(self, *, paths: Mapping[str, str] | None = None) -> dict[str, Any]:
        """The report as JSON data. Each evidence span gains ``line``/``column`` and
        ``end_line``/``end_column`` (1-based, the end inclusive) and, with ``paths``
        (``{"before": FILE, "after": FILE}``), the ``path`` of its side."""
        # the line index is built only when there is a finding to place (a batch audit calls
        # this once per pair, most with none)
        lines = self._lines() if self.findings else {}
        return {"schema": REPORT_SCHEMA, "verdict": self.verdict, "intent": self.intent,
                "mode": self.mode, "min_confidence": self.min_confidence,
                "findings": [_finding_dict(f, paths, lines) for f in self.findings],
                "suppressed": len(self.suppressed), "complete": self.complete,
                "incomplete": self.incomplete, "stats": dict(self.stats)}

    def _lines(self) -> dict[str, _LineIndex]:
        return {"before": _LineIndex(self.before), "after": _LineIndex(self.after)}

    def to_json(self, *, indent: int | None = 2,
                paths: Mapping[str, str] | None = None) -> str:
        return json.dumps(self.to_dict(paths=paths), ensure_ascii=False, indent=indent)

    def format_text(self, *, before_name: str = "before", after_name: str = "after") -> str:
        """A terminal report: each finding with its code, message, lines and fix."""
        lines_of = self._lines()
        names = {"before": before_name, "after": after_name}
        out = []
        for f in self.findings:
            out.append(f"{f.code} {f.name} [{f.severity}] {f.message}")
            for e in f.evidence:
                # a message list's rendered lines mean nothing to its reader: say the message
                where = (f"message {e.message}, offset {e.offset}" if e.message is not None
                         else lines_of[e.side].where(e))
                out.append(f"  {names[e.side]}:{where}  {_quote(e)}")
            out.append(f"  fix: {f.hint}")
        counts = Counter(f.severity for f in self.findings)
        summary = ", ".join(f"{n} {s}" for s, n in sorted(counts.items())) or "no findings"
        if self.incomplete:
            out.append(f"incomplete: {self.incomplete}")
        out.append(f"verdict: {self.verdict} ({summary})")
        return "\n".join(out)

    def __str__(self) -> str:
        return self.format_text()

    def __repr__(self) -> str:
        """One line: verdict, codes with counts, severities, sizes (the texts stay out)."""
        per_code = Counter(f.code for f in self.findings)
        codes = " ".join(f"{c}x{n}" if n > 1 else c for c, n in sorted(per_code.items()))
        counts = Counter(f.severity for f in self.findings)
        summary = ", ".join(f"{n} {s}" for s, n in sorted(counts.items())) or "no findings"
        sizes = (f"text {len(self.before)} chars" if self.intent == "lint" else
                 f"before {len(self.before)} chars, after {len(self.after)} chars")
        return (f"<Report {self.verdict}: {codes or '-'} ({summary}); intent={self.intent} "
                f"mode={self.mode}; {sizes}>")

    def _repr_html_(self) -> str:
        """Jupyter shows the side-by-side review (with the graph-diff figure) inline."""
        from .render.html import review_fragment  # the renderer loads only when asked for

        return review_fragment(self)


def _finding_dict(f: Finding, paths: Mapping[str, str] | None,
                  lines: Mapping[str, _LineIndex]) -> dict[str, Any]:
    """One finding as :meth:`Report.to_dict` writes it: its evidence placed by line."""
    out = f.to_dict()
    for e, d in zip(f.evidence, out["evidence"], strict=True):
        if paths is not None and e.side in paths:
            d["path"] = paths[e.side]
        d.update(lines[e.side].position(e))
    return out


class _LineIndex:
    def __init__(self, text: str) -> None:
        self.starts = [0]
        k = text.find("\n")
        while k >= 0:  # str.find runs in C: a long context has many lines
            self.starts.append(k + 1)
            k = text.find("\n", k + 1)

    def position(self, e: Evidence) -> dict[str, int]:
        """1-based line and column of the span's first and last character."""
        line = bisect.bisect_right(self.starts, e.start)
        last = max(e.start, e.end - 1)
        end_line = bisect.bisect_right(self.starts, last)
        return {"line": line, "column": e.start - self.starts[line - 1] + 1,
                "end_line": end_line, "end_column": last - self.starts[end_line - 1] + 1}

    def where(self, e: Evidence) -> str:
        p = self.position(e)
        span = f"{p['line']}" if p["end_line"] == p["line"] else f"{p['line']}-{p['end_line']}"
        return f"{span}:{p['column']} [{e.start}:{e.end}]"


def _quote(e: Evidence, width: int = 100) -> str:
    q = " ".join(e.quote.split())
    return repr(q if len(q) <= width else q[: width - 3] + "...")
