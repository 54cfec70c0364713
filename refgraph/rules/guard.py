"""The guarded apply's codes: RG401-RG403 (raised while binding a patch to its base), RG406
protected-region edits and RG503 circular justifications (checked by the analyzer on the
candidate the gate is about to commit).

RG401-RG403 are raised by :class:`refgraph.ContextBuffer` as exceptions, not found in a pair of
texts; their classes live here so that the catalogue, ``refgraph rule`` and docs/findings.md
describe every code in one place.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..findings import Finding
from ..model import NodeKind
from .base import Example, GuardExample, Rule
from .common import kept, short
from .context import Context
from .patches import changed_regions

# Handle kinds that name a source the removed text can be re-derived from (a ledger key is a
# store key).
SOURCE_KINDS = frozenset({"tool_call", "path", "url", "store_key"})
_BACK = frozenset({"above", "previous", "discourse", "same"})
_DRAWN = 0.6  # share of the justification's content that comes from the removed claims
_GATED = "notes:\n- the request timeout is 30 seconds\n- retries: 3"
_BASE = "plan:\n  1. run the tests\n  2. deploy\ntool: tests passed (41/41)\nnotes: none"


class BlockingFindings(Rule):
    """The gate refused to commit a patch because the analyzer found blocking findings in it.

    ## What it detects
    A patch that binds cleanly to its base (no RG401-RG403) whose candidate text the analyzer
    rejects: an error finding of any other code (a dropped unit, an inverted negation, a pruned
    result ...). :class:`refgraph.Gate` raises :class:`refgraph.GateRejected` with this code; its
    ``report`` holds the findings that blocked it, each with its own code.

    ## Why it matters
    A patch that applies is not a patch that keeps the context true. Nothing was written: the
    caller can re-author the patch with the findings, or escalate.
    """

    code = "RG400"
    name = "blocking-findings"
    summary = "the gate refused a patch whose candidate has blocking findings"
    hint = "Read the report's findings (GateRejected.report) and re-author the patch to fix them."
    guard = True
    gate = True  # raised by refgraph.Gate, not by the buffer alone
    example = Example(_GATED)
    guard_example = GuardExample(_GATED, replace=("30 seconds", "30"))


class StaleBaseRule(Rule):
    """A patch names a base revision the buffer does not know.

    ## What it detects
    The sha256 a patch was bound to is no revision of the live buffer: the patch was authored
    against a text this buffer never held, or one from another context.

    ## Why it matters
    Without its base, nothing says where the patch's line numbers point or which lines its author
    saw. Applying it anyway is how content the model never read gets deleted.
    """

    code = "RG401"
    name = "stale-base"
    summary = "the patch's base sha256 is no revision of the buffer"
    hint = "Take a fresh snapshot() and re-author the patch against that revision."
    guard = True
    example = Example(_BASE)
    guard_example = GuardExample(_BASE, replace=("deploy", "deploy to staging"),
                                 unknown_base=True)


class AmbiguousAnchorRule(Rule):
    """A patch's anchor is at no place in its base, or at several.

    ## What it detects
    A ``Patch.replace`` whose ``old`` text occurs zero times or more than once in the base
    revision; a diff hunk whose lines or context do not read as the base does at the stated line;
    in the file form (``refgraph apply``), a hunk whose lines occur at no place in LIVE or at
    several, or at a place that is not where BASE's own lines went.

    ## Why it matters
    Agent contexts repeat themselves: the same tool output, a re-injected prompt block. A patch
    that lands on "the first match" edits a copy its author never meant, and every check that
    compares text passes.
    """

    code = "RG402"
    name = "ambiguous-anchor"
    summary = "the patch's anchor occurs at no place or at several"
    hint = "Quote more surrounding text so that the anchor is unique, or bind the patch by lines."
    guard = True
    example = Example(_BASE)
    guard_example = GuardExample(_BASE + "\ntool: tests passed (41/41)",
                                 replace=("tool: tests passed (41/41)", "tests: green"))


class EditConflictRule(Rule):
    """An edit recorded since the patch's base changed the lines the patch replaces.

    ## What it detects
    Rebasing the patch through the edits recorded after its base revision finds one that changed
    a line the patch removes or replaces, or inserted lines strictly inside them. Edits that only
    touch the patch's boundary or its context lines do not conflict.

    ## Why it matters
    The patch was written about text that is no longer there. Applying it would overwrite a
    change (a tool result, a correction) its author never saw.
    """

    code = "RG403"
    name = "edit-conflict"
    summary = "a recorded edit since the base changed lines the patch replaces"
    hint = "Re-read the live revision and re-author the patch against it."
    guard = True
    example = Example(_BASE)
    guard_example = GuardExample(
        _BASE, drift=((2, 3, ("  2. deploy only after sign-off",)),),
        diff="@@ -2,3 +2,3 @@\n   1. run the tests\n-  2. deploy\n+  2. deploy now\n"
             " tool: tests passed (41/41)\n")


class ProtectedRegionEdit(Rule):
    """A patch deleted or rewrote text inside a protected region.

    ## What it detects
    ``protected`` character ranges of before are given (the gate tracks them as line ranges
    through every recorded edit) and the rewrite changed text inside one, or inserted text
    strictly inside one. Whitespace-only reflows are ignored.

    ## Why it matters
    The user's instructions and constraint blocks are what every later step is checked against.
    Finding them again by a marker string fails exactly when it matters: the marker survives and
    the region under it does not.
    """

    code = "RG406"
    name = "protected-region-edit"
    summary = "the rewrite changed text inside a protected region"
    hint = "Leave protected regions as they are; edit around them, or ask the user to change them."
    example = Example("USER: reply with the diff first.\nlog: 3 retries, all passed.",
                      "USER: reply with the summary first.\nlog: passed.", protected=((0, 32),))

    def check(self, ctx: Context) -> Iterator[Finding]:
        if not ctx.protected:
            return
        before = ctx.before.text
        for b0, b1, a0, a1 in changed_regions(before, ctx.after.text):
            for s, e in ctx.protected:
                hit = (b0 < e and s < b1) if b1 > b0 else s < b0 < e
                if not hit:
                    continue
                c0, c1 = max(b0, s), min(b1, e)
                ev = [ctx.before.ev(c0, c1) if c1 > c0 else ctx.before.ev(b0, b0),
                      ctx.after.ev(a0, a1)]
                yield self.finding(
                    f"the rewrite changed protected text at {b0}..{b1} of before (protected "
                    f"region {s}..{e})", *ev)
                break


class CircularJustification(Rule):
    """A prune is justified only by the content it removes.

    ## What it detects
    ``intent`` is prune or summarize, the patch carries a ``justification``, and that
    justification rests on the removed text alone: it points back at it ("the above
    establishes...") or most of its content words come from it, it names no external handle (a
    path, URL, tool-call id, store key or ``ledger:`` key) to re-derive it from, and after does
    not keep that content elsewhere.

    ## Why it matters
    A model that compresses a claim using the claim is the only witness of what it removes. If
    the summary is wrong, nothing left in the context can show it.
    """

    code = "RG503"
    name = "circular-justification"
    summary = "a prune's justification rests only on the content it removes"
    hint = ("Name an external handle (path, URL, tool-call id, ledger key) the removed content "
            "can be re-derived from, or keep the content.")
    example = Example(
        "Schema check: the table has 4 columns (id, timestamp, actor, action).\nNext: migrate.",
        "Next: migrate.", intent="prune",
        justification="The above establishes the schema has 4 columns, so it can be condensed.")

    def check(self, ctx: Context) -> Iterator[Finding]:
        j = ctx.justification
        if ctx.intent == "rewrite" or j is None or not j.claims.claims:
            return
        if any(j.d(n).get("handle_kind") in SOURCE_KINDS for n in j.nodes_of(
                NodeKind.HANDLE.value)):
            return
        removed = [c for c in ctx.before.claims.claims if not kept(ctx, c)]
        if not removed:
            return  # the content is still there: pure redundancy, nothing rests on the claim
        back = [n for n in j.nodes_of(NodeKind.DEICTIC.value)
                if j.d(n).get("deictic_kind") in _BACK]
        gone = frozenset().union(*(c.features for c in removed))
        mine = frozenset().union(*(c.features for c in j.claims.claims))
        drawn = len(mine) >= 2 and len(mine & gone) >= _DRAWN * len(mine)
        if not (back or drawn):
            return
        why = (f"it points back at it ({j.d(back[0])['text']!r})" if back
               else "its content comes from it")
        regions = [(b0, b1) for b0, b1, _, _ in changed_regions(ctx.before.text, ctx.after.text)
                   if b1 > b0]
        if regions:
            b0, b1 = max(regions, key=lambda r: r[1] - r[0])
            ev = ctx.before.ev(b0, b1, "missing")
        else:
            c = max(removed, key=lambda c: c.end - c.start)
            ev = ctx.before.ev(c.start, c.end, "missing", c.id)
        yield self.finding(
            f"the justification {short(j.text, 80)!r} rests on the text it removes ({why}) and "
            "names no handle to re-derive it from", ev, confidence=0.7)


