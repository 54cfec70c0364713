"""Findings and their evidence: what a rule reports. Plain frozen data, JSON-ready.

Schema (``refgraph.report/1``, docs/contracts.md section 5): a finding has ``code``, ``name``,
``severity``, ``message``, ``hint`` and ``evidence``, a list of ``{side, start, end, quote}``
with ``quote == text_of_side[start:end]``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

Severity: TypeAlias = Literal["error", "warning", "info"]
Side: TypeAlias = Literal["before", "after"]
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")


@dataclass(frozen=True, slots=True)
class Evidence:
    """A span of one side that a finding cites."""

    side: Side
    start: int
    end: int
    quote: str

    def to_dict(self) -> dict[str, Any]:
        return {"side": self.side, "start": self.start, "end": self.end, "quote": self.quote}


@dataclass(frozen=True, slots=True)
class Finding:
    """One cause, reported once, with the most specific code."""

    code: str
    name: str
    severity: Severity
    message: str
    hint: str
    evidence: tuple[Evidence, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "name": self.name, "severity": self.severity,
                "message": self.message, "hint": self.hint,
                "evidence": [e.to_dict() for e in self.evidence]}

    @property
    def blocking(self) -> bool:
        """True when the finding alone makes the verdict ``reject``."""
        return self.severity == "error"
