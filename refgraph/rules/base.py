"""The rule base class: one class per finding, ruff-style (code, name, docs, example).

A rule's docstring has "What it detects" and "Why it matters" sections; ``docs/findings.md`` is
generated from the catalogue (``python -m refgraph.rules``) and a test fails when it is stale.
Each rule carries an ``example`` that the test suite runs through the analyzer.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from dataclasses import dataclass
from typing import ClassVar

from ..findings import Evidence, Finding, Severity
from .context import Context, Intent, Side


@dataclass(frozen=True, slots=True)
class Example:
    """A pair that must produce the rule's code (``after`` is None for a lint rule)."""

    before: str
    after: str | None = None
    intent: Intent = "rewrite"
    declared_span: tuple[int, int] | None = None
    justification: str | None = None
    protected: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True, slots=True)
class GuardExample:
    """A stale-patch story for a guarded-apply rule: ``base`` is what the patch was authored
    against; ``drift`` edits (``start, end, new_lines``) land before it is applied; the patch is a
    unified ``diff`` or a ``replace`` pair; ``unknown_base`` binds it to a text the buffer never
    held. Applying it must raise the rule's code."""

    base: str
    drift: tuple[tuple[int, int, tuple[str, ...]], ...] = ()
    diff: str | None = None
    replace: tuple[str, str] | None = None
    unknown_base: bool = False


class Rule:
    """A check over an aligned pair of referent graphs."""

    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]  # one line: fires when ...
    hint: ClassVar[str]  # how to fix it
    example: ClassVar[Example]
    severity: ClassVar[Severity] = "error"
    lint: ClassVar[bool] = False  # True: checks one text (``refgraph lint``), not a pair
    # True: raised by the guarded apply (refgraph.ContextBuffer / Gate), not by the analyzer.
    guard: ClassVar[bool] = False
    gate: ClassVar[bool] = False  # a guard code raised by refgraph.Gate (its analyzer)
    guard_example: ClassVar[GuardExample | None] = None

    def check(self, ctx: Context) -> Iterator[Finding]:  # pragma: no cover - abstract
        raise NotImplementedError
        yield

    def check_text(self, side: Side) -> Iterator[Finding]:  # pragma: no cover - abstract
        raise NotImplementedError
        yield

    def finding(self, message: str, *evidence: Evidence, hint: str | None = None,
                confidence: float = 1.0, severity: Severity | None = None) -> Finding:
        """A finding of this rule; ``severity`` overrides the rule's default for this one
        (a closure finding whose subject left the context is a warning, not an error)."""
        return Finding(self.code, self.name, severity or self.severity, message,
                       hint or self.hint, tuple(evidence),
                       round(max(0.0, min(1.0, confidence)), 3))

    @classmethod
    def doc(cls) -> str:
        """The rule's documentation (its docstring, dedented)."""
        return inspect.cleandoc(cls.__doc__ or "")
