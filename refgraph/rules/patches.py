"""Patch-shape rules: RG404 non-shrinking-prune, RG405 patch-fanout."""

from __future__ import annotations

import difflib
from collections.abc import Iterator

from ..align import UnitStatus
from ..findings import Finding
from .base import Example, Rule
from .context import Context


def changed_regions(before: str, after: str) -> list[tuple[int, int, int, int]]:
    """Character ranges ``(b0, b1, a0, a1)`` where ``after`` differs from ``before``.

    Common prefix and suffix are trimmed first (the usual edit is local), the middle is diffed by
    lines, and each changed line group is trimmed again by characters, so a change inside one
    long line is reported at its true extent.
    """
    n = min(len(before), len(after))
    p = 0
    while p < n and before[p] == after[p]:
        p += 1
    s = 0
    while s < n - p and before[-1 - s] == after[-1 - s]:
        s += 1
    mb, ma = before[p:len(before) - s], after[p:len(after) - s]
    if not mb and not ma:
        return []
    lb, la = mb.splitlines(keepends=True), ma.splitlines(keepends=True)
    ob = [0]
    for line in lb:
        ob.append(ob[-1] + len(line))
    oa = [0]
    for line in la:
        oa.append(oa[-1] + len(line))
    out = []
    sm = difflib.SequenceMatcher(None, lb, la, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            continue
        b0, b1, a0, a1 = p + ob[i1], p + ob[i2], p + oa[j1], p + oa[j2]
        while b0 < b1 and a0 < a1 and before[b0] == after[a0]:
            b0, a0 = b0 + 1, a0 + 1
        while b1 > b0 and a1 > a0 and before[b1 - 1] == after[a1 - 1]:
            b1, a1 = b1 - 1, a1 - 1
        if "".join(before[b0:b1].split()) == "".join(after[a0:a1].split()):
            continue  # whitespace only: a reflow, not a change
        out.append((b0, b1, a0, a1))
    return out


class NonShrinkingPrune(Rule):
    """A prune did not make the context smaller.

    ## What it detects
    ``intent="prune"`` and ``after`` has at least as many tokens as ``before`` (spaCy tokens by
    default; pass ``count_tokens`` to use the model's tokenizer).

    ## Why it matters
    A prune exists to free budget. A patch whose context lines outweigh its deletions grows the
    context while everyone believes it shrank, and the next budget decision is made on a false
    size.
    """

    code = "RG404"
    name = "non-shrinking-prune"
    summary = "intent is prune and after is not smaller in tokens"
    hint = "Re-author the prune so it deletes more than it adds; check the patch's context lines."
    example = Example("Step one passed. Step two passed.",
                      "Step one passed. Step two passed. Both steps passed as expected.",
                      intent="prune")

    def check(self, ctx: Context) -> Iterator[Finding]:
        if ctx.intent != "prune" or ctx.tokens_after < ctx.tokens_before:
            return
        a = ctx.after
        grown = [j for j, s in enumerate(ctx.alignment.after_status) if s is not UnitStatus.KEPT]
        grown.sort(key=lambda j: a.units[j].start - a.units[j].end)
        ev = [a.ev_unit(j) for j in sorted(grown[:2])] or [a.ev(0, min(len(a.text), 200))]
        yield self.finding(
            f"prune left {ctx.tokens_after} tokens where before had {ctx.tokens_before}", *ev)


class PatchFanout(Rule):
    """The rewrite changed text outside the span it declared.

    ## What it detects
    ``declared_span`` (a character range of ``before``) is given, and ``after`` differs from
    ``before`` somewhere outside it. Whitespace-only reflows are ignored.

    ## Why it matters
    A "summarize this section" patch that touches neighbouring turns or tool results was
    reconstructed from memory, not from the bytes; its reflow silently edits content nobody
    asked it to touch.
    """

    code = "RG405"
    name = "patch-fanout"
    summary = "declared_span is given and the rewrite changed text outside it"
    hint = "Re-author the patch so that it only touches the declared span."
    example = Example("Intro stays.\nSummarize this line please.\nOutro stays.",
                      "Intro changed.\nA summary.\nOutro stays.", declared_span=(13, 40))

    def check(self, ctx: Context) -> Iterator[Finding]:
        if ctx.declared_span is None:
            return
        s, e = ctx.declared_span
        before = ctx.before.text
        for b0, b1, a0, a1 in changed_regions(before, ctx.after.text):
            inside = s <= b0 and b1 <= e if b1 > b0 else s <= b0 <= e
            if not inside and b1 > b0 and b0 < e and s < b1:
                # Only whitespace of the change lies outside the span (a block's text excludes
                # the blank line after it): the change is the span's.
                outside = before[b0:max(b0, s)] + before[min(b1, e):b1]
                inside = not outside.strip()
            if inside:
                continue
            where = "before" if b0 < s else "after"
            ev = [ctx.before.ev(b0, b1)] if b1 > b0 else []
            ev.append(ctx.after.ev(a0, a1))
            yield self.finding(
                f"the rewrite changed text at {b0}..{b1} of before, {where} the declared span "
                f"{s}..{e}", *ev)
            return  # one cause: the patch fans out; the first place is enough to re-author
