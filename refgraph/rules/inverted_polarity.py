"""RG301 inverted-polarity."""

from __future__ import annotations

from collections.abc import Iterator

from ..align import ClaimPair
from ..claims import ORDER_FORCES, Claim
from ..findings import Finding
from ..nlp.lemmas import key
from .base import Example, Rule
from .common import (
    beyond_predicate,
    claim_ev,
    explained_elsewhere,
    holds_zero,
    pairs,
    short,
    strict_pairs,
    words_of,
)
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
    the tests pass" -> "deploy only after the tests pass"). An ``unless`` turned into ``if``
    is proven by the pair of conditions and the pair of outcomes, so either may be reworded
    ("renews automatically ... unless either party gives notice" -> "auto-renews if either
    side gives notice").

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
        found: set[str] = set()
        for f in self._claims(ctx):
            found.add(f.evidence[0].node)
            yield f
        yield from _unless_became_if(self, ctx, found)

    def _claims(self, ctx: Context) -> Iterator[Finding]:
        for b in ctx.before.claims.claims:
            if not b.asserted or b.quoted:
                continue
            strict = [(a, p) for a, p in strict_pairs(ctx, b, cover=_COVER)
                      if _same_subject(b, a, p.score) or _about(ctx, b, a)]
            if not strict:
                continue
            if any(not _flipped(b, a, p.coverage) and a.asserted for a, p in strict):
                continue  # after still says it the before way
            for a, p in strict:
                if not a.asserted or a.quoted or bool(a.conditioned) != bool(b.conditioned):
                    continue  # an "if" clause is a supposition: it asserts nothing to flip
                if _directive(a) != _directive(b):
                    continue  # "we should run the file" / "we never ran it": other acts
                if holds_zero(b) and holds_zero(a):
                    continue  # "show 0 events" / "also 0": one zero, read as a cue on one side
                if _zero_left_out(b, a) or _zero_left_out(a, b):
                    continue  # "12 printing, 0 idle" / "12 printing": after kept the count
                    # and left the zero (said elsewhere, "none idle"), which it does not deny
                if _possible(a) != _possible(b) and not a.modality == b.modality == "ability":
                    continue  # "you can run main.py" / "main.py was not run": leave, no fact
                if (a.frame == "volition") != (b.frame == "volition"):
                    continue  # "plans to see a doctor" / "hasn't seen one": a plan, no fact
                kb = _ante_kinds(ctx.before.claims.by_id, b)
                ka = _ante_kinds(ctx.after.claims.by_id, a)
                if ("unless" in kb) != ("unless" in ka) and (kb or ka):
                    continue  # "unless we give notice" = "if no notice is given", both ways
                if a.qualified != b.qualified and (b.conditions or a.conditions):
                    continue  # "dropped if you lack senior standing" said as "dropped
                    # without senior standing": the condition, restated as a part
                if _flipped(b, a, p.coverage) and not _restated(b, a) and _comparable(b, a) \
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
_WHOLE = 0.9  # ... and a restriction's flip only when after holds all of before
_NEIGHBOUR = 0.8  # claims right after counterparts this good stand in the same place
_SAME = 0.95  # a pair this close holds the same features both ways: the same thing


def _about(ctx: Context, b: Claim, a: Claim) -> bool:
    """Whether the two claims are about the same things: two features in common besides
    the predicate, or one that names something (an identifier, a handle, an entity), or one
    where the claims stand in the same place: right after claims that restate each other
    ("The deploy did not fail and nothing was rolled back" / "... and it was rolled
    back")."""
    shared = beyond_predicate(b, a)
    if len(shared) >= 2 or any(f[:2] in ("i:", "h:", "e:") for f in shared):
        return True
    if not shared or not b.index or not a.index:
        return False
    pb = ctx.before.claims.claims[b.index - 1]
    pa = ctx.after.claims.claims[a.index - 1]
    return pb.block == b.block and pa.block == a.block and any(
        x.id == pa.id and q.score >= _NEIGHBOUR for x, q in pairs(ctx, pb))


def _ante_kinds(by_id: dict[str, Claim], c: Claim) -> frozenset[str]:
    """The kinds of condition ``c`` is the antecedent of ("unless", "if", ...): all of them,
    since one clause can be held by two markers ("if unless the above")."""
    return frozenset(kind for cons in c.conditioned if cons in by_id
                     for ante, _, kind in by_id[cons].conditions if ante == c.id)


def _directive(c: Claim) -> bool:
    """An order, a rule or advice ("do not call", "must run", "should run"), as against a
    statement; a waived duty ("is not required") states what is not required."""
    return c.mood == "imperative" or c.force in ORDER_FORCES or c.force == "permission"


def _possible(c: Claim) -> bool:
    """It says what can be done ("you can run main.py"), not what is or was done. A denied
    ability ("could not find it") reports a failed attempt, as a fact does."""
    return c.modality == "ability" and not c.negative


def _same_subject(b: Claim, a: Claim, score: float) -> bool:
    """Two main clauses that hold the same features both ways and name the same subject
    ("Failover is not required" / "Failover is required"): the same statement."""
    if score < _SAME or b.conditioned or a.conditioned:
        return False
    if b.subject and a.subject:
        return b.subject == a.subject
    # one subject unnamed ("Ethics: not required" / "ethics review needed"): the claims
    # still share what they are about besides the predicate
    return bool(beyond_predicate(b, a))


def _restricted(c: Claim) -> bool:
    """A part of the claim is negated: "without a lock", "except on Fridays"."""
    return c.qualified


def _parity(c: Claim) -> bool:
    """What the claim says, as the parity of its negations: "never runs without a lock" and
    "only runs with a lock" say one thing (an exclusive
    "only" restricts its positive claim as "never ... without" does); "runs without a lock"
    and "never runs with a lock" the opposite."""
    if c.exclusive and not c.negative and not c.qualified:
        return False  # "only P with Q" = "never P without Q": negative and restricted
    return c.negative != _restricted(c)


def _flipped(b: Claim, a: Claim, coverage: float) -> bool:
    """Whether ``a`` says the opposite of ``b``. A restriction dropped or added counts only
    when ``a`` holds all of ``b`` (else the restricted part may simply be gone: "never runs
    without a lock" -> "never runs" is a loss, not a flip)."""
    if _parity(b) == _parity(a):
        return False
    if b.negative == a.negative and {_restricted(b), "unless" in _kinds(b)} == {
            _restricted(a), "unless" in _kinds(a)} == {True, False}:
        return False  # "never runs without a lock" = "never runs unless it holds one"
    return _restricted(b) == _restricted(a) or coverage >= _WHOLE


def _comparable(b: Claim, a: Claim) -> bool:
    """Whether the two polarities are read the same way. The same word with and without a
    negation is; two antonyms are ("passed" / "failed"); a negation on one side against an
    antonym or an affix on the other ("not allowed" / "unchanged" / "forbidden") depends on
    parsing both exactly, and a bound said the other way round ("never more than twice" /
    "at most twice") is no flip."""
    if _bound_restated(b, a):
        return False
    if b.predicate == a.predicate and b.folded != a.folded and \
            b.cues - b.folded == a.cues - a.folded:
        return False  # one word, read as a verb on one side and a noun on the other ("are
        # crash-looping" / "replicas crash-looping"): the fold is the only difference
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
    return _parity(x) == _parity(a)


def _kinds(c: Claim) -> set[str]:
    return {kind for _, _, kind in c.conditions}


def _restated(b: Claim, a: Claim) -> bool:
    """Opposite polarities that a condition turns into the same statement."""
    kb, ka = _kinds(b), _kinds(a)
    # An order or a prohibition ("do not deploy unless ...") is kept by "deploy when ...";
    # a duty waived ("you don't need to ... unless") is not made one by "you need to ... if".
    order = any(c.mood == "imperative" or c.force in ORDER_FORCES
                for c in (b, a)) and "exemption" not in (b.force, a.force)
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


_ANTECEDENT = 0.5  # an antecedent restated this closely is the same condition
_ANTECEDENT_SAID = 0.4  # ... or this closely, with the same predicate
_ANTECEDENT_BEST = 0.3  # ... or this closely, as its best counterpart, with the outcome kept
_OUTCOME = 0.5  # a consequent restated this closely is the same outcome
_ANTECEDENT_WHOLE = 0.8  # an antecedent this close needs only one thing of the outcome


def _unless_became_if(rule: Rule, ctx: Context, found: set[str]) -> Iterator[Finding]:
    """Consequents whose ``unless`` condition after states, restated, under ``if`` or
    ``when``, with both clauses' polarities kept: "renews for 12-month terms unless either
    party gives notice" -> "auto-renews if either side gives notice". The proof is the
    antecedent pair (the same condition) and the consequent pair (the same outcome): the
    closer one of them is, the less the other needs to be."""
    before, after = ctx.before.claims.by_id, ctx.after.claims.by_id
    for b in ctx.before.claims.claims:
        if b.id in found or not b.asserted or b.quoted:
            continue
        outcome = {a.id: p.score for a, p in pairs(ctx, b) if a.negative == b.negative}
        for ante_id, _, kind in b.conditions:
            ante = before.get(ante_id)
            if kind != "unless" or ante is None:
                continue
            same = [(k, x, p) for k, (x, p) in enumerate(pairs(ctx, ante))
                    if x.negative == ante.negative]
            if any("unless" in _ante_kinds(after, x) for _, x, _ in same):
                break  # kept as an "unless" somewhere
            hit = next(_if_restatements(after, b, same, outcome), None)
            if hit is not None:
                x, a, score = hit
                yield rule.finding(
                    f"{short(b.text)!r} held unless {short(ante.text, 50)!r}; after makes it "
                    f"hold if it: {short(a.text)!r} {short(x.text, 50)!r}",
                    claim_ev(ctx.before, b, "claim"), claim_ev(ctx.after, a, "conflict"),
                    claim_ev(ctx.before, ante, "claim"), claim_ev(ctx.after, x, "conflict"),
                    confidence=0.6 + 0.2 * min(1.0, score))
                break


def _if_restatements(after: dict[str, Claim], b: Claim,
                     same: list[tuple[int, Claim, ClaimPair]], outcome: dict[str, float]
                     ) -> Iterator[tuple[Claim, Claim, float]]:
    """(after antecedent, its consequent, the proof's score) for restatements ``same`` of
    ``b``'s unless-antecedent that after holds under "if" or "when" of an outcome of ``b``'s
    polarity (``outcome``: ``b``'s counterparts and their scores)."""
    for k, x, p in same:
        if not _ante_kinds(after, x) & {"if", "when"}:
            continue
        for a in (after[c] for c in x.conditioned if c in after):
            kept = outcome.get(a.id, 0.0)
            if a.negative != b.negative:
                continue
            if (kept and (p.score >= _ANTECEDENT or (
                    p.same_predicate and p.score >= _ANTECEDENT_SAID))) or (
                    k == 0 and p.score >= _ANTECEDENT_BEST and kept >= _OUTCOME) or (
                    p.score >= _ANTECEDENT_WHOLE and beyond_predicate(b, a)):
                yield x, a, max(p.score, kept)


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


def _zero_left_out(x: Claim, y: Claim) -> bool:
    """Whether ``x`` is negative only through zero counts ("0 idle, 0 error", no negation
    cue of its own) and ``y`` holds none of them: ``y`` says another part of ``x``."""
    zeros = [q for q in x.args_of("quantity") if q.magnitude == 0]
    if not zeros or not x.negative or x.negations or y.negative:
        return False
    if any(q.magnitude == 0 for q in y.args_of("quantity")):
        return False
    words = words_of(y.features)
    nouns = [key(q.noun or q.unit) for q in zeros if q.noun or q.unit]
    return not any(n in words for n in nouns)
