"""The finding catalogue: one class per code, one module per rule where it can be.
``docs/findings.md`` is generated from it.

Rules compare claims (``refgraph.claims``) and the claim alignment; none reads raw text or a
word list (``tests/rules/test_no_raw_text.py`` fails when one does). Shared functions over
claims are in ``common.py``.

Codes are never reused. RG1xx referents, RG2xx quantities, RG3xx meaning, RG4xx patch shape,
RG5xx recoverability, RG6xx single-text lint. RG400-RG403 are raised by the guarded apply
(``guard = True``; RG400 by the gate, when its analyzer blocks a patch); RG406 and RG503 are
pair rules fed by the gate (protected regions, a justification).
"""

from __future__ import annotations

from .base import Example, GuardExample, Rule
from .changed_quantity import ChangedQuantity
from .context import INTENTS, Context, Intent, Side
from .dangling_deictic import DanglingDeictic
from .dropped_hedge import DroppedHedge
from .dropped_unit import DroppedUnit
from .guard import (
    AmbiguousAnchorRule,
    BlockingFindings,
    CircularJustification,
    EditConflictRule,
    ProtectedRegionEdit,
    StaleBaseRule,
)
from .inverted_causality import InvertedCausality
from .inverted_polarity import InvertedPolarity
from .lint import OneSidedConditional, UndefinedIdentifier, UnitlessMeasure, UnresolvedReference
from .lost_constraint import LostConstraint
from .merged_entity import MergedEntity
from .misattributed_claim import MisattributedClaim
from .orphaned_reference import OrphanedReference
from .patches import NonShrinkingPrune, PatchFanout
from .pruned_negative_result import PrunedNegativeResult
from .unrecoverable_prune import UnrecoverablePrune
from .unsupported_referent import UnsupportedReferent

RULES: tuple[type[Rule], ...] = (
    OrphanedReference, DanglingDeictic, MergedEntity, UnsupportedReferent, MisattributedClaim,
    DroppedUnit, ChangedQuantity,
    InvertedPolarity, InvertedCausality, LostConstraint, DroppedHedge,
    BlockingFindings, StaleBaseRule, AmbiguousAnchorRule, EditConflictRule,
    NonShrinkingPrune, PatchFanout, ProtectedRegionEdit,
    UnrecoverablePrune, PrunedNegativeResult, CircularJustification,
    UnitlessMeasure, UnresolvedReference, OneSidedConditional, UndefinedIdentifier,
)
BY_CODE: dict[str, type[Rule]] = {r.code: r for r in RULES}

# One cause, one finding: when two findings cite overlapping spans, the code earlier in this list
# is the more specific one and the other is dropped. Patch-shape codes are causes of their own.
SPECIFICITY: tuple[str, ...] = ("RG201", "RG202", "RG304", "RG301", "RG302", "RG103", "RG105",
                                "RG102", "RG101", "RG303", "RG502", "RG501", "RG104")
INDEPENDENT = frozenset({"RG404", "RG405", "RG406", "RG503"})
# Closure codes a ledger handle satisfies: what they miss was externalized, not lost.
RECOVERABLE = frozenset({"RG101", "RG102", "RG303", "RG501", "RG502", "RG503"})


def _guard_example(g: GuardExample) -> list[str]:
    out = ["base (the revision the patch was authored against):", "```text", g.base, "```"]
    if g.unknown_base:
        out += ["", "the patch is bound to a text this buffer never held."]
    for s, e, lines in g.drift:
        out += ["", f"recorded since: lines {s + 1}-{e} replaced by", "```text", *lines, "```"]
    if g.diff is not None:
        out += ["", "patch (unified diff against base):", "```diff", g.diff.rstrip("\n"), "```"]
    if g.replace is not None:
        out += ["", f"patch: `Patch.replace({g.replace[0]!r}, {g.replace[1]!r})`"]
    return out


def get_rule(code: str) -> type[Rule]:
    """The rule class for ``code`` (case-insensitive); ``KeyError`` when there is none."""
    return BY_CODE[code.upper()]


def render_markdown() -> str:
    """``docs/findings.md``: every rule with its summary, docs, hint and example."""
    out = ["# Findings catalogue", "",
           "Generated from `refgraph.rules` by `python -m refgraph.rules > docs/findings.md`; "
           "a test fails when this file is stale. Severity is the default policy's.", "",
           "| code | name | severity | fires when |", "|---|---|---|---|"]
    for r in RULES:
        out.append(f"| {r.code} | {r.name} | {r.severity} | {r.summary} |")
    for r in RULES:
        ex = r.example
        out += ["", f"## {r.code} {r.name}", "", r.doc().split("\n", 1)[1].strip()
                if "\n" in r.doc() else r.doc(), "", f"**Fix:** {r.hint}", "", "**Example:**", ""]
        if r.guard_example is not None:
            out += _guard_example(r.guard_example)
        elif ex.after is None:
            out += ["```text", ex.before, "```"]
        else:
            extra = f", declared_span={ex.declared_span}" if ex.declared_span else ""
            extra += f", protected={list(ex.protected)}" if ex.protected else ""
            extra += f", justification={ex.justification!r}" if ex.justification else ""
            out += [f"intent=`{ex.intent}`{extra}", "", "before:", "```text", ex.before, "```",
                    "after:", "```text", ex.after, "```"]
    return "\n".join(out).replace("\n## What", "\n### What").replace("\n## Why", "\n### Why") \
        + "\n"


__all__ = ["BY_CODE", "INDEPENDENT", "INTENTS", "RECOVERABLE", "RULES", "SPECIFICITY", "Context",
           "Example", "GuardExample", "Intent", "Rule", "Side", "get_rule", "render_markdown"]
