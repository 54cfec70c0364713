"""The guarded apply's codes: RG401-RG403 (raised while binding a patch to its base), RG406
protected-region edits and RG503 circular justifications (checked by the analyzer on the
candidate the gate is about to commit).

RG401-RG403 are raised by :class:`refgraph.ContextBuffer` as exceptions, not found in a pair of
texts; their classes live here so that the catalogue, ``refgraph rule`` and docs/findings.md
describe every code in one place.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..align import content_words
from ..findings import Finding
from ..model import NodeKind
from .base import Example, GuardExample, Rule
from .common import coverage, has_phrase, lexicon
from .context import Context
from .patches import changed_regions
from .recovery import SOURCE_KINDS

_LEDGER = re.compile(r"\bledger:[0-9a-f]{8,64}\b")
_BASE = "plan:\n  1. run the tests\n  2. deploy\ntool: tests passed (41/41)\nnotes: none"


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
        if ctx.intent == "rewrite" or j is None or not j.text.strip():
            return
        if _LEDGER.search(j.text) or any(
                d["kind"] == NodeKind.HANDLE.value and d.get("handle_kind") in SOURCE_KINDS
                for _, d in j.G.nodes(data=True)):
            return
        before = ctx.before.text
        regions = [(b0, b1) for b0, b1, _, _ in changed_regions(before, ctx.after.text)
                   if b1 > b0]
        if not regions:
            return
        removed = " ".join(before[b0:b1] for b0, b1 in regions)
        removed_words = content_words(removed)
        if coverage(removed_words, content_words(ctx.after.text)) >= 0.9:
            return  # the content is still there: pure redundancy, nothing rests on the claim
        cue = has_phrase(j.lower, lexicon("self_reference"))
        jw = content_words(j.text)
        drawn = len(jw) >= 2 and coverage(jw, removed_words) >= 0.6
        if not (cue or drawn):
            return
        why = f"it points back at it ({cue!r})" if cue else "its words come from it"
        b0, b1 = max(regions, key=lambda r: r[1] - r[0])
        yield self.finding(
            f"the justification {_short(j.text)!r} rests on the text it removes ({why}) and "
            "names no handle to re-derive it from", ctx.before.ev(b0, b1))


def _short(text: str, width: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width - 1] + "…"
