"""RG502 pruned-negative-result."""

from __future__ import annotations

from collections.abc import Iterator

from ..claims import Claim
from ..findings import Finding
from .base import Example, Rule
from .common import (
    KEPT_SCORE,
    claim_ev,
    holds_zero,
    identity,
    live,
    pairs,
    short,
    thread,
    thread_blocks,
)
from .context import Context

_SAID = 0.3  # a negative after claim this close to the finding restates it
_RESULT_BLOCKS = frozenset({"log", "json"})


def negative_finding(c: Claim) -> bool:
    """A claim that reports what a check, search, test or lookup did not find: a plain
    negative statement (a negation cue or an absence, not an order, a hypothetical or a
    "without"), in a tool's output, a log line, or with a finding predicate ("matched",
    "found", "returned", "absent") outside a conversation's turns. "No worries" in a chat is
    not one, nor is "3 tests failed" (a failure found, not an absence)."""
    if not c.negative or not c.asserted or c.mood != "declarative" or c.force or \
            c.strength < 0.95:
        return False
    if c.qualified or c.quoted or c.conditions or c.conditioned or c.frame == "attitude":
        return False  # "never runs without a lock", "if errors exceed 1%": no plain finding
    if c.denial != "cue" and not c.absence:
        return False  # "3 tests failed" is a failure found, not an absence
    if not any(not f.startswith("q:") for f in c.features - {c.pred_key}):
        return False  # "0B" alone on a progress line: a zero about nothing named
    if c.source.startswith("tool") or c.block_kind in _RESULT_BLOCKS:
        return True
    # "Priya confirmed the export is not affected": a person's report in conversation, not
    # a check's result
    return c.finding and not c.source.startswith("speaker:") and c.frame != "report"


class PrunedNegativeResult(Rule):
    """A negative finding of a check was removed or blurred.

    ## What it detects
    A before claim that reports a negative result of a check, search, test or lookup ("no rows
    matched", "the email column was absent", "grep found nothing") that no after claim still
    states: no negative counterpart, in any wording ("0 rows" = "none found" = "no matches"),
    and none naming the same identifier, handle or entity as negative. It is an error while
    after still mentions, plans or questions the finding's subject, and a warning when the
    whole thread has left the context.

    ## Why it matters
    Absence is unfalsifiable once the evidence is gone: the agent will search again, or worse,
    assume the field exists.
    """

    code = "RG502"
    name = "pruned-negative-result"
    summary = '"no rows matched", "field X was absent" removed or blurred'
    hint = "Keep the negative result (what was checked and that nothing was found)."
    example = Example("Checked the export. The email column was absent in all 3 files. "
                      "Next: backfill the email column.",
                      "Checked the export. Next: backfill the email column.", intent="prune")

    def check(self, ctx: Context) -> Iterator[Finding]:
        yield from self._zero_counts(ctx)
        for n in ctx.before.claims.claims:
            if not negative_finding(n):
                continue
            if _said(ctx, n):
                continue
            # What depends on it is what names its own subject. A note's thread counts too (a
            # status report's other lines); a tool's output goes on about other things (its
            # warning is not what the call was about).
            topic = thread(ctx.before, n)
            dependents = live(ctx, n.features - {n.pred_key})
            # Proof that after depends on this result is a thing it names that after names
            # too (an identifier, a handle, a name); sharing common nouns ("the file", "the
            # output", "line") shows only that after talks about files or output.
            own = any(_specific(n, a) for a in dependents)
            worded = bool(dependents) and not own
            if not dependents and not n.source.startswith("tool"):
                # Only its thread is still talked about. Proven when after keeps a sentence
                # of the result's thread (the check that produced it: "Ran the duplicate
                # check on `orders_2024`" without "No rows matched"); going on about the
                # subject in general proves less.
                dependents = live(ctx, topic)
                kept_block = _kept_from_thread(ctx, n)
                dependents = [a for a in dependents if a.id in kept_block] or dependents
                worded = bool(dependents) and dependents[0].id not in kept_block
            evidence = [claim_ev(ctx.before, n, "missing")]
            if dependents:
                evidence.append(claim_ev(ctx.after, dependents[0], "dependent"))
                tail = f"after still relies on its subject: {short(dependents[0].text, 50)!r}"
            else:
                tail = "after no longer mentions its subject"
            # Proven when after says nothing negative about its thread; when it does, the
            # result may be paraphrased past what the alignment sees.
            paraphrased = any(a.negative and a.features & topic for a in live(ctx, topic))
            conf = (0.55 if paraphrased or worded else 0.7 if own else 0.62) if dependents \
                else 0.45
            yield self.finding(f"the negative result {short(n.text)!r} is gone; {tail}",
                               *evidence, confidence=conf,
                               severity="error" if dependents else "warning")


    def _zero_counts(self, ctx: Context) -> Iterator[Finding]:
        """ "0 errors" in a JSON line or a log (blocks with no claims of their own): a count of
        nothing found, lost when after has no zero of that unit and no negative claim about
        it."""
        before, after = ctx.before, ctx.after
        rewritten = {i: j for j, i in ctx.alignment.match.items()
                     if j not in ctx.alignment.exact}
        zeros_after = {str(after.d(n).get("base_unit")) for n in after.nodes_of("quantity")
                       if after.d(n).get("magnitude") == 0}
        for nid in before.nodes_of("quantity"):
            d = before.d(nid)
            if d.get("magnitude") != 0 or not d.get("counted") or nid.split(":", 1)[0] in \
                    before.claims.by_block:
                continue
            unit = str(d.get("base_unit", ""))
            if unit in zeros_after or any(a.negative for a in after.claims.with_feature(
                    f"q:{unit}")) or any(a.negative and unit in a.terms
                                         for a in after.claims.claims):
                continue
            dependents = live(ctx, {unit, f"q:{unit}"})
            evidence = [before.ev_node(nid, "missing")]
            if dependents:
                evidence.append(claim_ev(after, dependents[0], "dependent"))
            else:
                # The record itself is still there, rewritten without its count: the line
                # of "auth upstream" that now says "checked".
                j = rewritten.get(before.unit_of.get(nid, -1))
                if j is not None:
                    evidence.append(after.ev_unit(j, "dependent"))
            found = len(evidence) > 1
            yield self.finding(f"the zero count {d['text']!r} is gone from after",
                               *evidence, confidence=0.62 if found else 0.45,
                               severity="error" if found else "warning")


def _kept_from_thread(ctx: Context, n: Claim) -> set[str]:
    """The after claims that restate another claim of ``n``'s thread (its block and the
    turns before it: the check that produced it, the question it answers)."""
    by_block = ctx.before.claims.by_block
    return {a.id for bid in thread_blocks(ctx.before, n) for c in by_block.get(bid, ())
            if c.id != n.id for a, p in pairs(ctx, c) if p.score >= KEPT_SCORE}


def _specific(n: Claim, a: Claim) -> bool:
    """Whether after claim ``a`` shares with ``n`` an identifier, a handle or a named entity
    (a proper name, or a head with a qualifier: "replica[shard a]")."""
    if {f for f in n.features if f.startswith(("i:", "h:"))} & a.features:
        return True
    named = {x.key for x in n.args_of("mention") if x.label or "[" in x.key}
    return bool(named & {x.key for x in a.args_of("mention")})


def _said(ctx: Context, n: Claim) -> bool:
    """Whether after still states ``n``: a negative counterpart, or a negative claim naming
    one of its identifiers, handles or qualified entities."""
    if any((a.negative or holds_zero(a)) and p.score >= _SAID for a, p in pairs(ctx, n)):
        return True  # "fresh installs also 0" says "show 0 events" with its zero
    content = n.features - {n.pred_key} - {f for f in n.features if f.startswith("q:")}
    if any(a.negative for f in content for a in ctx.after.claims.with_feature(f)):
        return True  # "did not produce any output" said as "ran with no output"
    named = {f for f in identity(n) if f.startswith(("i:", "h:"))}
    return any(a.negative for a in live(ctx, named))
