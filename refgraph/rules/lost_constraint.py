"""RG303 lost-constraint."""

from __future__ import annotations

from collections.abc import Iterator

from ..claims import ORDER_FORCES, Claim
from ..findings import Finding
from .base import Example, Rule
from .common import (
    BOUNDS,
    KEPT_SCORE,
    claim_ev,
    explained_elsewhere,
    identity,
    kept,
    pairs,
    quantities,
    same_quantity,
    short,
    strict_pairs,
)
from .context import Context

_GOVERNED = 0.4  # how well an after claim must restate the governed action to still be it
_PRECONDITIONS = frozenset({"before", "until", "unless", "only-if", "after", "if"})


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
    """(what the lost restriction was, the after claim that still depends on it, confidence)
    for before claim ``b``, or None when ``b`` restricts nothing or after keeps it."""
    # An antecedent supposes the act rather than doing it ("... unless we pay the fee").
    actions = [(a, p.coverage) for a, p in strict_pairs(ctx, b, cover=_GOVERNED)
               if a.asserted and not a.conditioned]
    before = ctx.before.claims.by_id
    if b.force == "prohibition":  # not any negative order: "close it" folds to
        # "not open" but forbids nothing
        again = [(a, p) for a, p in pairs(ctx, b)
                 if p.score >= KEPT_SCORE and (a.negative == b.negative or (
                     _restricted(a) and not a.conditioned))]
        # (An antecedent of the other polarity supposes the act, it neither repeats the
        # prohibition nor does the act: "... unless we pay the fee" for "don't pay the fee".)
        if again:
            # Said again ("not to be deleted" keeps "must not be deleted"), unless it held
            # until something after no longer says: "do not call deploy before the tests
            # pass" -> "call deploy once the build is green".
            gone = _lost_precondition(ctx, b)
            if gone is None or any(_folded(gone[1], b, a) for a, _ in again):
                return None  # "do not edit the tests in it" keeps "if main.py has tests"
            a, p = max(again, key=lambda ap: ap[1].score)
            if any(kind in _PRECONDITIONS for _, _, kind in a.conditions) or any(
                    ctx.after.d(n).get("constraint_kind") == "precondition"
                    for n in a.constraints):
                return None  # restated with a precondition of its own ("close it only after
                # rf_3310 completes" for "don't close it until the refund completes")
            return (f"held only {gone[0]} {short(gone[1].text, 40)!r}", a,
                    0.5 + 0.3 * p.coverage)
        if actions:
            a, cov = max(actions, key=lambda x: x[1])
            if _limit_kept(ctx, b):
                return None  # "no venue more than 45 minutes' drive" kept as "the limit is
                # 45 min" (how its bound reads is RG202's question)
            if a.qualified:
                return None  # "use `goto N` instead of repeated scroll_down" keeps "don't
                # use scroll_down" as the part it negates
            if not explained_elsewhere(ctx, b, a, lambda x, y: x.negative == y.negative) \
                    and a.mood == b.mood and cov >= 0.8:
                return None  # the same claim flipped: RG301's
            return "prohibited it", a, 0.5 + 0.3 * cov
        # The action is gone but what it governs is not: "don't touch the nightly job
        # config" pruned while after still works on the nightly job.
        acting, dependent = _dependents(ctx, identity(b))
        if acting is not None:
            # Stronger when after still orders something done to it than when it only
            # mentions it; weak either way (below the default floor): another verb may honour
            # the prohibition ("leave `legacy_ini.py` untouched").
            return "prohibited touching it", acting, 0.58
        if dependent is not None:
            return "prohibited touching it", dependent, 0.5
        return None
    # Past the prohibition, the act is the claim as it is: "the file was not modified" does
    # not do "edit the file again (if necessary)".
    actions = [(a, cov) for a, cov in actions if a.negative == b.negative]
    if not actions:
        return None
    for ante, marker, kind in b.conditions:
        if kind not in _PRECONDITIONS or ante not in before:
            continue
        if kept(ctx, before[ante]) or any(_restricted(a) for a, _ in actions):
            continue
        if any(_folded(before[ante], b, a) for a, _ in actions):
            continue  # "check the code after each edit" keeps "after you issue an edit"
        a, cov = max(actions, key=lambda x: x[1])
        # An order or a rule losing its precondition is a lost constraint; a statement losing
        # its condition ("it goes to Marta" without "if the quote comes through") may be a
        # summary's shorthand for a case it states elsewhere: below the default floor.
        strong = b.mood == "imperative" or bool(b.force)
        return (f"held only {marker} {short(before[ante].text, 40)!r}", a,
                0.5 + 0.3 * cov if strong else 0.42 + 0.15 * cov)
    bounded = [q for q in b.args_of("quantity") if q.bound in BOUNDS]
    for q in bounded:
        for a, cov in actions:
            same = [x for x in a.args_of("quantity")
                    if x.base_unit == q.base_unit and x.base_magnitude == q.base_magnitude]
            if same and all(x.bound == "=" for x in same) and not _bound_elsewhere(ctx, q.bound,
                                                                                   b):
                # a bare number under a bound word may be no amount at all ("the sole remedy
                # under 16.4" cites a section): below the default floor
                conf = 0.45 + 0.3 * cov if q.base_unit or q.noun else 0.5
                return (f"bounded {q.text!r} ({q.bound})", a, conf)
    return None


def _dependents(ctx: Context, governed: frozenset[str]) -> tuple[Claim | None, Claim | None]:
    """(the first acting, the first of any) unrestricted after statement naming one of the
    ``governed`` identity features: what :func:`live` finds for them (each one alone is
    enough there), from a per-feature table built once per text. Thousands of prohibitions
    of one file then cost one pass over its claims, not one each."""
    table: dict[str, tuple[Claim | None, Claim | None]] = ctx.after.claims.memo.setdefault(
        "lost_constraint.dependents", {})
    acting: Claim | None = None
    dependent: Claim | None = None
    for f in governed:
        got = table.get(f)
        if got is None:
            got = table[f] = _first_dependents(ctx.after.claims.with_feature(f))
        act, dep = got
        if act is not None and (acting is None or act.start < acting.start):
            acting = act
        if dep is not None and (dependent is None or dep.start < dependent.start):
            dependent = dep
    return acting, dependent


def _first_dependents(claims: list[Claim]) -> tuple[Claim | None, Claim | None]:
    acting: Claim | None = None
    dependent: Claim | None = None
    for a in claims:
        if not a.asserted or _restricted(a):
            continue
        if dependent is None or a.start < dependent.start:
            dependent = a
        if (a.mood == "imperative" or a.force) and (acting is None or a.start < acting.start):
            acting = a
    return acting, dependent


def _limit_kept(ctx: Context, b: Claim) -> bool:
    """Whether every quantity of prohibition ``b`` is still stated somewhere in after."""
    qs = [q for q in b.args_of("quantity") if q.base_magnitude]
    return bool(qs) and all(any(same_quantity(q, x) for x in quantities(ctx.after))
                            for q in qs)


def _lost_precondition(ctx: Context, b: Claim) -> tuple[str, Claim] | None:
    """(marker, antecedent) of a precondition of ``b`` that no after claim states."""
    before = ctx.before.claims.by_id
    for ante, marker, kind in b.conditions:
        if kind in _PRECONDITIONS and ante in before and not kept(ctx, before[ante]):
            return marker, before[ante]
    return None


def _folded(ante: Claim, b: Claim, a: Claim) -> bool:
    """Whether after claim ``a`` holds what condition ``ante`` of ``b`` is about (a content
    word of the condition that ``b`` itself does not have): the condition folded into the
    action's own words."""
    own = {f for f in ante.features if f != ante.pred_key and not f.startswith(("d:", "q:"))}
    return bool((own - b.features) & a.features)


def _restricted(a: Claim) -> bool:
    """An after claim that carries a restriction of its own: an order, a condition (or is
    the condition of another claim), an "only"."""
    return bool(a.force in ORDER_FORCES or a.conditions or a.conditioned or a.exclusive or
                any(q.bound in BOUNDS for q in a.args_of("quantity")))


def _weakened(a: Claim, b: Claim) -> bool:
    """An after claim that says less than before's order: a permission, or weaker."""
    return a.force == "permission" or a.strength < min(b.strength, 0.95)


def _bound_elsewhere(ctx: Context, bound: str, b: Claim) -> bool:
    """Whether some counterpart of ``b`` keeps a bound of that direction."""
    for a, _ in pairs(ctx, b):
        if any(x.bound[:1] == bound[:1] for x in a.args_of("quantity")):
            return True
    return False
