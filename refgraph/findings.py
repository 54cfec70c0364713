"""Findings and their evidence: what a rule reports. Plain frozen data, JSON-ready.

Schema (``refgraph.report/2``, docs/contracts.md section 5): a finding has ``code``, ``name``,
``severity``, ``confidence`` (0..1, how strong its proof is), ``message``, ``hint``,
``fingerprint`` (:attr:`Finding.fingerprint`) and ``evidence``, a list of
``{side, start, end, quote, role, node}`` with ``quote == text_of_side[start:end]``.
``role`` says what the span proves: ``claim`` (the before claim), ``conflict`` (the after
claim that contradicts it), ``missing`` (material with no counterpart in after),
``dependent`` (what in after still relies on it), ``argument`` (a number, name or handle a
claim holds); ``node`` is the graph node the span is (a claim id).
For message lists, ``message`` and ``offset`` say which message the span starts in and where.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

Severity: TypeAlias = Literal["error", "warning", "info"]
Side: TypeAlias = Literal["before", "after"]
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")
ROLES = ("claim", "conflict", "missing", "dependent", "argument", "")


@dataclass(frozen=True, slots=True)
class Evidence:
    """A span of one side that a finding cites, and what it proves there."""

    side: Side
    start: int
    end: int
    quote: str
    role: str = ""
    node: str = ""
    # For a message list (refgraph.analyze_messages): the message's index in its list and
    # where the span starts in that message's content.
    message: int | None = None
    offset: int | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"side": self.side, "start": self.start, "end": self.end,
                               "quote": self.quote}
        if self.role:
            out["role"] = self.role
        if self.node:
            out["node"] = self.node
        if self.message is not None:
            out["message"] = self.message
            out["offset"] = self.offset
        return out


@dataclass(frozen=True, slots=True)
class Finding:
    """One cause, reported once, with the most specific code."""

    code: str
    name: str
    severity: Severity
    message: str
    hint: str
    evidence: tuple[Evidence, ...]
    confidence: float = 1.0

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "name": self.name, "severity": self.severity,
                "confidence": round(self.confidence, 3), "message": self.message,
                "hint": self.hint, "fingerprint": self.fingerprint,
                "evidence": [e.to_dict() for e in self.evidence]}

    @property
    def fingerprint(self) -> str:
        """16 hex digits from the code and each evidence span's side, role and quote (case and
        spacing folded), not its offsets: an edit elsewhere in either text leaves it as it is,
        so a baseline (``refgraph check --baseline``) keeps recognising the finding."""
        parts = [self.code, *(f"{e.side}:{e.role}:{' '.join(e.quote.split()).casefold()}"
                              for e in self.evidence)]
        return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:16]

    @property
    def blocking(self) -> bool:
        """True when the finding's severity is ``error`` (the verdict also weighs its
        confidence: see :func:`refgraph.report.verdict_for`)."""
        return self.severity == "error"
