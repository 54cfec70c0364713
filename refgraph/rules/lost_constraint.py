"""RG303 lost-constraint."""

from __future__ import annotations

from collections.abc import Iterator

from ..claims import Claim
from ..findings import Finding
from .base import Example, Rule
from .common import claim_ev, explained_elsewhere, kept, pairs, short, strict_pairs
from .context import Context

_GOVERNED = 0.4  # how well an after claim must restate the governed action to still be it
_RESTRICTS = frozenset({"prohibition", "obligation", "advice"})
_PRECONDITIONS = frozenset({"before", "until", "unless", "only-if", "after"})
_BOUNDS = frozenset({"<", "<=", ">", ">="})


class LostConstraint(Rule):
    """A prohibition, precondition or limit is gone while the action it governs remains.

    ## What it detects
    A before claim that restricts an action (a prohibition or an obligation, "do not call
    deploy", "must run the tests"; a precondition on it, "... before the tests pass", "only
    if ..."; or a bound on a quantity, "at most 3 retries") that after restates without the
    restriction: the action is still there, its restriction is not, and no other after claim
    keeps it. A restriction whose action is gone too is no finding (nothing depends on it).

    ## Why it matters
    The negative space goes first: pruning keeps positive instructions and drops the
    constraints on them, the single most predictive signal of a later policy violation.
    """

    code = "RG303"
    name = "lost-constraint"
    summary = "a prohibition, precondition or limit was removed while what it governs remains"
    hint = "Restore the constraint next to the action it governs."
    example = Example("Run the integration suite.\n\nDo not call deploy before the tests pass.\n\n"
                      "Then call deploy with the release tag.",
                      "Run the integration suite.\n\nThen call deploy with the release tag.",
                      intent="prune")

    def check(self, ctx: Context) -> Iterator[Finding]:
        before = ctx.before.claims
        for b in before.claims:
            if not b.asserted or not b.pred_key:
                continue
            lost = _restriction(ctx, b)
            if not lost:
                continue
            what, dependent, conf = lost
            yield self.finding(
                f"{short(b.text)!r} {what}; after keeps {short(dependent.text)!r} without it",
                claim_ev(ctx.before, b, "missing"), claim_ev(ctx.after, dependent, "dependent"),
                confidence=conf)


def _restriction(ctx: Context, b: Claim) -> tuple[str, Claim, float] | None:
    """(what the lost restriction was, the after claim that still does the action, confidence)
    for before claim ``b``, or None when ``b`` restricts nothing or after keeps it."""
    actions = [(a, p.coverage) for a, p in strict_pairs(ctx, b, cover=_GOVERNED)
               if a.asserted]
    if not actions:
        return None
    before = ctx.before.claims.by_id
    if b.force == "prohibition":
        # Kept while some restatement says it the same way ("must not be deleted" and "not to
        # be deleted" both deny deleting) or restricts it otherwise; lost when after only
        # still does the action.
        if any(a.negative == b.negative or _restricted(a) for a, _ in actions):
            return None
        a, cov = max(actions, key=lambda x: x[1])
        if not explained_elsewhere(ctx, b, a, lambda x, y: x.negative == y.negative) and \
                a.mood == b.mood and cov >= 0.8:
            return None  # the same claim flipped: RG301's
        return "prohibited it", a, 0.5 + 0.3 * cov
    if b.force in ("obligation", "advice"):
        # "must regenerate" is kept by "regenerate": an order or a plain statement of the same
        # polarity keeps it; only a permission or a possibility weakens it.
        if any(a.negative == b.negative and not _weakened(a) for a, _ in actions) or \
                not any(_weakened(a) for a, _ in actions):
            return None
        a, cov = max(((a, c) for a, c in actions if _weakened(a)), key=lambda x: x[1])
        return "required it", a, 0.45 + 0.3 * cov
    if b.mood != "imperative" and not b.force:
        return None  # a precondition is one on an action: an order, a rule
    for ante, marker, kind in b.conditions:
        if kind not in _PRECONDITIONS or ante not in before:
            continue
        if kept(ctx, before[ante]) or any(_restricted(a) for a, _ in actions):
            continue
        a, cov = max(actions, key=lambda x: x[1])
        return f"held only {marker} {short(before[ante].text, 40)!r}", a, 0.5 + 0.3 * cov
    bounded = [q for q in b.args_of("quantity") if q.bound in _BOUNDS]
    for q in bounded:
        for a, cov in actions:
            same = [x for x in a.args_of("quantity")
                    if x.base_unit == q.base_unit and x.base_magnitude == q.base_magnitude]
            if same and all(x.bound == "=" for x in same) and not _bound_elsewhere(ctx, q.bound,
                                                                                   b):
                return (f"bounded {q.text!r} ({q.bound})", a, 0.45 + 0.3 * cov)
    return None


def _restricted(a: Claim) -> bool:
    """An after claim that carries a restriction of its own: an order, a condition (or is
    the condition of another claim), an "only"."""
    return bool(a.force in _RESTRICTS or a.conditions or a.conditioned or a.exclusive)


def _weakened(a: Claim) -> bool:
    return a.force == "permission" or a.strength < 0.95


def _bound_elsewhere(ctx: Context, bound: str, b: Claim) -> bool:
    """Whether some counterpart of ``b`` keeps a bound of that direction."""
    for a, _ in pairs(ctx, b):
        if any(x.bound[:1] == bound[:1] for x in a.args_of("quantity")):
            return True
    return False
