"""RG304 dropped-hedge."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from ..align import ClaimPair
from ..claims import Claim
from ..findings import Finding
from .base import Example, Rule
from .common import (
    arg_ev,
    beyond_predicate,
    claim_ev,
    pairs,
    same_quantity,
    short,
    strict_pairs,
    words_of,
)
from .context import Context

HEDGED = 0.95  # a claim weaker than this is hedged
_ATTRIBUTED = frozenset({"attitude", "report", "volition"})  # "considers a career in ..."


def hedged(c: Claim) -> bool:
    """Hedged, or attributed to someone's view ("she thinks", "they said"): not asserted as
    fact."""
    return c.strength < HEDGED or c.frame in _ATTRIBUTED


_WHOLE = 0.9  # share of a verbless claim's content an after claim must hold to restate it


def _about(b: Claim, a: Claim) -> bool:
    """Two claims about the same things: two features in common besides the predicate, or
    one that names something ("That's most likely the leak" says too little to be found)."""
    shared = beyond_predicate(b, a)
    return len(shared) >= 2 or any(f[:2] in ("i:", "h:", "e:") for f in shared)


def _keeps_doubt(a: Claim) -> bool:
    """An after claim that is not plain fact: hedged, attributed, or with a "should" in
    either reading ("the scheduler should delay the ETL" is advice or an expectation, never
    a certainty)."""
    return hedged(a) or a.force == "advice"


_GENERAL = 0.8  # "usually", "typically", "mostly": a frequency, not doubt


def _generalized(b: Claim) -> float:
    """How much less a dropped hedge proves when it only said "not always" ("heart effects
    usually above 40 mg/kg" summarized as "above 40 mg/kg"): the rule's statement still holds
    as a summary's generalization, unlike a guess stated as a finding."""
    return 0.3 if b.modality == "scope" and b.strength >= _GENERAL else 0.0


def _supposed(by_id: Mapping[str, Claim], c: Claim) -> bool:
    """Whether ``c`` holds only under a hedged supposition (``by_id`` is its side's claims):
    "if it's what I think it is, we load full-resolution bitmaps" asserts the load no more
    than the guess does."""
    return any(kind == "if" and ante in by_id and by_id[ante].strength < HEDGED and (
        by_id[ante].modality == "evidential" or by_id[ante].frame == "attitude")
        for ante, _, kind in c.conditions)


def _whole_restatements(ctx: Context, b: Claim) -> list[tuple[Claim, ClaimPair]]:
    """For a claim with no predicate ("probably 2 weeks without running"), after claims that
    hold all of it and more than one feature of it: what a predicate cannot tell, the whole
    content does."""
    content = words_of(f for f in b.features if not f.startswith("q:"))
    specific = any(f[:2] in ("q:", "i:", "h:") for f in b.features)
    if b.pred_key or len(content) < 2 or (len(content) < 3 and not specific):
        return []  # "maybe two" says too little to be found again, and "likely decrypt the
        # encrypted message" leaves a bare noun phrase that asserts nothing
    return [(a, p) for a, p in pairs(ctx, b) if p.coverage >= _WHOLE]


class DroppedHedge(Rule):
    """A hedge is gone: a possibility became a fact, or advice became an obligation.

    ## What it detects
    A before claim that is hedged (``may``, ``likely``, ``I think``, ``sometimes``: its
    strength is below 1) restated by an after claim of the same predicate about the same
    things that asserts it outright, when no other after claim keeps it hedged; a ``should``
    that became a ``must``; an approximate number ("about 40") stated as exact ("40"). A
    hedge kept in another form ("probably", "reportedly", "X thinks") is kept.

    ## Why it matters
    The hedge carried the evidence's weight. Without it the agent treats a guess as a
    finding and stops looking.
    """

    code = "RG304"
    name = "dropped-hedge"
    summary = "a hedge was dropped, or should became must"
    hint = "Keep the hedge ('may', 'likely', 'about') or the weaker modal."
    example = Example("The nightly export may fail when the bucket is full.",
                      "The nightly export fails when the bucket is full.", intent="summarize")

    def check(self, ctx: Context) -> Iterator[Finding]:
        for b in ctx.before.claims.claims:
            if not b.asserted or b.quoted or b.mood == "imperative" or b.conditioned:
                continue  # an antecedent supposes ("if you think you've fixed it, submit"):
                # its hedge weighs no evidence
            # An order states no fact: "could name target journals" -> "name target
            # journals" turns a suggestion into a request (a force, not a certainty)
            # An antecedent states nothing as fact: "unless the log shows a long-running
            # leak" supposes it, hedged or not
            strict = [(a, p) for a, p in strict_pairs(ctx, b)
                      if a.asserted and a.mood != "imperative" and not a.conditioned
                      and _about(b, a)] \
                or [(a, p) for a, p in _whole_restatements(ctx, b)
                    if a.asserted and a.mood != "imperative" and not a.conditioned]
            supposed = _supposed(ctx.before.claims.by_id, b)
            if strict and ((hedged(b) and b.strength < HEDGED) or supposed):
                after = ctx.after.claims.by_id
                if any(_keeps_doubt(a) or _supposed(after, a) for a, _ in pairs(ctx, b)
                       if a.pred_key == b.pred_key or not b.pred_key):
                    continue
                a, p = strict[0]
                if a.negative != b.negative:
                    continue  # a flipped polarity is RG301's
                yield self.finding(
                    f"{short(b.text)!r} was hedged ({b.modality or 'a supposition'}); after "
                    f"states {short(a.text)!r} as a fact",
                    claim_ev(ctx.before, b, "claim"), claim_ev(ctx.after, a, "conflict"),
                    confidence=0.5 + 0.35 * p.coverage - _generalized(b))
                continue
            if strict and b.force == "advice":
                strong = [(a, p) for a, p in strict if a.force == "obligation"]
                if strong and not any(a.force == "advice" for a, _ in strict):
                    a, p = strong[0]
                    yield self.finding(
                        f"{short(b.text)!r} advised it; after {short(a.text)!r} requires it",
                        claim_ev(ctx.before, b, "claim"), claim_ev(ctx.after, a, "conflict"),
                        confidence=0.5 + 0.35 * p.coverage)
                    continue
            if not hedged(b):
                yield from self._approximate(ctx, b)

    def _approximate(self, ctx: Context, b: Claim) -> Iterator[Finding]:
        """An approximate number whose value and unit after states only as exact, in a claim
        that is not hedged either: the statement of the number is the proof, wherever after
        makes it (a summary's "Plan: 1.3 TB" states the "about 1.3 TB of data")."""
        for q in b.args_of("quantity"):
            if q.bound != "~" or not q.base_unit:
                continue
            same = [(a, x) for a in ctx.after.claims.with_feature(q.feature)
                    for x in a.args_of("quantity") if same_quantity(q, x)]
            if not same or any(x.bound != "=" or hedged(a) for a, x in same):
                continue
            if any(y.bound == "=" and y.node != q.node and same_quantity(y, x)
                   for c in ctx.before.claims.with_feature(q.feature) if not hedged(c)
                   for y in c.args_of("quantity") for _, x in same):
                continue  # "Lag is 1.85 seconds" before, too: the exact value is before's
            if any(y.bound == "~" for a, _ in same for y in a.args_of("quantity")):
                continue  # "3.2 m² × €410/m² ≈ €1,312": the claim keeps its approximation
            x = same[0][1]
            yield self.finding(
                f"{q.text!r} was approximate; after states {x.text!r} as exact",
                arg_ev(ctx.before, q, "claim"), arg_ev(ctx.after, x, "conflict"),
                confidence=0.6)
            return
