"""RG301 inverted-polarity."""

from __future__ import annotations

from collections.abc import Iterator

from ..claims import Claim
from ..findings import Finding
from .base import Example, Rule
from .common import claim_ev, explained_elsewhere, pairs, short, strict_pairs
from .context import Context

# Conditions that restate a flipped polarity. "not P before Q" says what "P only after Q" or
# "P once Q" says, and "not P unless Q" what "P only if Q" says; an order ("do not deploy
# unless the tests pass") is also kept by "deploy when the tests pass". Whether Q itself
# survived is RG303's question. "X is not required unless Q" -> "X is required when Q" is not
# a restatement: it turns a necessary condition into a sufficient one.
_TEMPORAL = (frozenset({"before", "until"}), frozenset({"after", "when", "only-if"}))
_EXCEPTION = (frozenset({"unless"}), frozenset({"only-if"}))
_ORDER_EXCEPTION = (frozenset({"unless"}), frozenset({"only-if", "when", "if", "after"}))


class InvertedPolarity(Rule):
    """A claim kept in after now says the opposite of what before said.

    ## What it detects
    A before claim and an after claim that state the same predicate (a lemma, or a synonym or
    antonym of the lexicon: "failed" is "did not pass") about the same things, with opposite
    polarity: a negation dropped or added ("not required" -> "required"), or an ``unless``
    turned into ``if``. It fires only when no other after claim still says it the before way,
    and never when the flip comes with a condition that restates it ("do not deploy before
    the tests pass" -> "deploy only after the tests pass").

    ## Why it matters
    A flipped negation keeps every word that matters and reverses the instruction; nothing in
    the text looks wrong.
    """

    code = "RG301"
    name = "inverted-polarity"
    summary = "a kept claim now has the opposite polarity, or unless became if"
    hint = "Restore the negation (or the 'unless') the before claim had."
    example = Example("The migration flag is not required unless the schema is absent.",
                      "The migration flag is required when the schema is absent.",
                      intent="summarize")

    def check(self, ctx: Context) -> Iterator[Finding]:
        for b in ctx.before.claims.claims:
            if not b.asserted or b.quoted:
                continue
            strict = [(a, p) for a, p in strict_pairs(ctx, b, cover=_COVER) if _about(b, a)]
            if not strict:
                continue
            if any(a.negative == b.negative and a.asserted for a, _ in strict):
                continue  # after still says it the before way
            for a, p in strict:
                if not a.asserted or a.quoted:
                    continue
                if a.negative != b.negative and not _restated(b, a) and _comparable(b, a) \
                        and not explained_elsewhere(ctx, b, a, _same_polarity):
                    said = "denies" if a.negative else "asserts"
                    yield self.finding(
                        f"{short(b.text)!r} became {short(a.text)!r}: after {said} what "
                        "before " + ("asserted" if a.negative else "denied"),
                        claim_ev(ctx.before, b, "claim"), claim_ev(ctx.after, a, "conflict"),
                        confidence=_confidence(b, a, p.coverage))
                    break
                flipped = _unless_to_if(ctx, b, a)
                if flipped:
                    yield self.finding(
                        f"{short(b.text)!r} held unless {flipped!r}; after makes it hold if it",
                        claim_ev(ctx.before, b, "claim"), claim_ev(ctx.after, a, "conflict"),
                        confidence=_confidence(b, a, p.coverage))
                    break


_COVER = 0.6  # a flip is proven only between claims that say nearly the same thing


def _about(b: Claim, a: Claim) -> bool:
    """Whether the two claims are about the same things: two features in common besides
    the predicate, or one that names something (an identifier, a handle, an entity)."""
    shared = (b.features & a.features) - {b.pred_key}
    return len(shared) >= 2 or any(f[:2] in ("i:", "h:", "e:") for f in shared)


def _comparable(b: Claim, a: Claim) -> bool:
    """Whether the two polarities are read the same way. The same word with and without a
    negation is; two antonyms are ("passed" / "failed"); a negation on one side against an
    antonym or an affix on the other ("not allowed" / "unchanged" / "forbidden") depends on
    parsing both exactly, and a bound said the other way round ("never more than twice" /
    "at most twice") is no flip."""
    if _bound_restated(b, a):
        return False
    return b.predicate == a.predicate or not (b.folded or a.folded) or (
        b.folded and a.folded and not (b.cues or a.cues))


def _bound_restated(b: Claim, a: Claim) -> bool:
    for q in b.args_of("quantity"):
        for x in a.args_of("quantity"):
            if q.base_magnitude == x.base_magnitude and q.base_unit == x.base_unit and \
                    q.bound[:1] in "<>" and x.bound[:1] in "<>" and q.bound[:1] != x.bound[:1]:
                return True
    return False


def _same_polarity(x: Claim, a: Claim) -> bool:
    return x.negative == a.negative


def _kinds(c: Claim) -> set[str]:
    return {kind for _, _, kind in c.conditions}


def _restated(b: Claim, a: Claim) -> bool:
    """Opposite polarities that a condition turns into the same statement."""
    kb, ka = _kinds(b), _kinds(a)
    order = b.mood == "imperative" or bool(b.force) or a.mood == "imperative" or bool(a.force)
    for neg, pos in (_TEMPORAL, _ORDER_EXCEPTION if order else _EXCEPTION):
        if (kb & neg and ka & pos) or (ka & neg and kb & pos):
            return True
    return False


def _unless_to_if(ctx: Context, b: Claim, a: Claim) -> str:
    """The antecedent of ``b``'s ``unless`` when ``a`` (same polarity) holds under ``if`` or
    ``when`` of that same antecedent."""
    if a.negative != b.negative:
        return ""
    before, after = ctx.before.claims.by_id, ctx.after.claims.by_id
    for ante_b, _, kind_b in b.conditions:
        if kind_b != "unless" or ante_b not in before:
            continue
        wanted = {x.id for x, _ in pairs(ctx, before[ante_b])}
        for ante_a, _, kind_a in a.conditions:
            if kind_a in ("if", "when") and ante_a in wanted and ante_a in after:
                return short(before[ante_b].text, 50)
    return ""


def _confidence(b: Claim, a: Claim, coverage: float) -> float:
    """Strong when the two claims share most of their content and name the same things;
    weaker when a "without" or "except" also qualifies either clause."""
    conf = 0.45 + 0.35 * min(1.0, coverage) + (0.1 if b.predicate == a.predicate else 0.0)
    if any(x.kind in ("identifier", "handle") for x in a.args):
        conf += 0.05
    if b.conditions or a.conditions:
        conf -= 0.05
    if b.exclusive or a.exclusive:
        conf -= 0.25  # "only up to 3,000" says what "nothing above 3,000" says
    if b.cues > 1 or a.cues > 1:
        conf -= 0.15  # two negations in one clause: which one scopes what is unclear
    weakest = min(b.strength, a.strength)
    if weakest < 0.95:
        # a hedged claim is not plainly asserted or denied; under a denied frame ("I
        # wouldn't say it is excluded") it is neither
        conf -= 0.4 if weakest <= 0.5 else 0.15
    return conf
