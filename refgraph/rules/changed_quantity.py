"""RG202 changed-quantity."""

from __future__ import annotations

import math
from collections.abc import Iterator

from ..align import ClaimPair
from ..claims import Arg, Claim
from ..findings import Finding
from .base import Example, Rule
from .common import (
    ValueIndex,
    arg_ev,
    compatible,
    pairs,
    quantities,
    quantity_index,
    same_quantity,
    sentence_quantities,
    words_of,
)
from .context import Context

_RESTATED = 0.3
_WHOLE = 0.9  # coverage of a claim that holds all of another

def _direction(bound: str, c: Claim | None = None) -> str:
    """``<``, ``>`` or ``""``; under a claim a negation cue denies, the complement ("have not
    exported more than 50" bounds it from above)."""
    d = bound[:1] if bound[:1] in "<>" else ""
    if d and c is not None and c.negative and c.denial == "cue":
        return "<" if d == ">" else ">"
    return d


class ChangedQuantity(Rule):
    """A number, unit or bound of a kept claim changed.

    ## What it detects
    A quantity of a before claim whose strict counterpart in after (the same predicate about
    the same things) holds a quantity of the same dimension with another value ("300 s" ->
    "300 ms", "3 retries" -> "5 retries") or the opposite bound ("at most 5" -> "at least 5"),
    while no after quantity anywhere states the before one. Equal amounts in other units
    ("2,000 ms" and "2 s") and the rounding summaries do ("4.2M" for 4,193,280, "about 40"
    for 41) are the same quantity. An after value before states elsewhere, or a claim whose
    numbers all differ, may be another fact about the same things, and is no proof.

    ## Why it matters
    The sentence reads as correct and the agent acts on the wrong number: a TTL a thousand
    times shorter, a limit turned into a floor.
    """

    code = "RG202"
    name = "changed-quantity"
    summary = "a value, unit or bound changed (equal values in other units do not fire)"
    hint = "Restore the before value, unit and bound."
    example = Example("Keep the cache TTL at 300 seconds.", "Keep the cache TTL at 300 ms.")

    def check(self, ctx: Context) -> Iterator[Finding]:
        after_qs = [x for a in ctx.after.claims.claims for x in a.args_of("quantity")]
        done: set[str] = set()
        for q, x in _rewritten_numbers(ctx, after_qs):
            done.add(q.node)
            yield self.finding(
                f"{q.text!r} became {x.text!r}: the value changed in a rewritten sentence",
                arg_ev(ctx.before, q, "claim"), arg_ev(ctx.after, x, "conflict"),
                confidence=0.7, hint=f"Write {q.text!r} in after, not {x.text!r}.")
        stated = ValueIndex(after_qs)
        for b in ctx.before.claims.claims:
            qs = b.args_of("quantity")
            if not qs or not b.asserted:
                continue
            for q in qs:
                if q.base_magnitude is None or q.node in done or _stated(q, stated):
                    continue
                hit = self._changed(ctx, b.id, q)
                if hit is not None:
                    x, why, conf = hit
                    yield self.finding(
                        f"{q.text!r} became {x.text!r}: {why}",
                        arg_ev(ctx.before, q, "claim"), arg_ev(ctx.after, x, "conflict"),
                        confidence=conf, hint=f"Write {q.text!r} in after, not {x.text!r}.")
                    break

    @staticmethod
    def _changed(ctx: Context, bid: str, q: Arg) -> tuple[Arg, str, float] | None:
        b = ctx.before.claims.by_id[bid]
        before_index = quantity_index(ctx.before)
        others = [y for y in b.args_of("quantity") if y is not q]
        for a, p in _restatements(ctx, b):
            if others and not any(_states(y, x) for y in others for x in a.args_of("quantity")):
                continue  # every number differs: another fact about the same things ("two
                # payouts and four lines unmatched" / "22 payouts vs 24 lines")
            if not q.base_unit and not q.noun and not (p.same_predicate and p.coverage >= 0.6):
                continue  # a bare number is matched only inside the same statement
            # "Audit: 58/120 credits" (a count of a total) is another measure than "18
            # credits", unless a predicate says what both count ("209 passed" / "208/212
            # passed")
            cands = [x for x in a.args_of("quantity") if x.base_unit == q.base_unit
                     and x.noun == q.noun and x.base_magnitude is not None
                     and (p.same_predicate or (x.total is None) == (q.total is None))]
            # The after quantity that stands for q: one of its dimension that states none of
            # the before claim's other quantities, nor any before quantity at all ("8 h 50
            # min, within the 11-hour cap": the 8 h and the 50 min are before's own)
            cands = [x for x in cands if not any(_states(y, x) for y in others)
                     and not _states_some(before_index, x)]
            if len(cands) != 1:
                continue
            x = cands[0]
            if _computed(q, sentence_quantities(ctx.before, q), x):
                continue  # "olive oil (5 L tins): 7 tins" -> "7 tins (35 L)": worked out
            if _stated_elsewhere(ctx, b, x):
                continue  # "Run 1: 3 passed. Run 2: 5 passed" -> "Run 2: 5 passed"
            conf = 0.55 + 0.35 * p.coverage
            dq, dx = _direction(q.bound, b), _direction(x.bound, a)
            if dq and dx and dq != dx and same_value(q, x):
                return x, f"the bound turned from {q.bound} to {x.bound}", conf
            if not same_value(q, x):
                unit = f" ({q.unit} -> {x.unit})" if q.unit != x.unit else ""
                return x, f"the value changed{unit}", conf
        return None


def _computed(q: Arg, qs: list[Arg], x: Arg) -> bool:
    """Whether after's ``x`` is ``q`` worked together with another number of its sentence: a
    product ("5 L tins: 7 tins" -> "35 L") or a sum or difference in q's unit ("3 h, then
    2 h more" -> "5 h"). A derivation states q; it does not change it."""
    m, bm = x.magnitude, x.base_magnitude
    if m is None or q.magnitude is None:
        return False
    for y in qs:
        if y.node == q.node or y.magnitude is None:
            continue
        if (y.noun or y.counted) and math.isclose(m, q.magnitude * y.magnitude, rel_tol=1e-9):
            # only a count of items multiplies: "7 tins" of 5 L; a bare "10" nearby is no
            # licence to read a tenfold value as worked out
            return True
        if bm is not None and q.base_magnitude is not None and y.base_magnitude is not None \
                and y.base_unit == q.base_unit and any(
                    math.isclose(bm, v, rel_tol=1e-9) for v in (
                        q.base_magnitude + y.base_magnitude,
                        abs(q.base_magnitude - y.base_magnitude))):
            return True
    return False


def _block_quantities(ctx: Context, blocks: set[str]) -> list[Arg]:
    """The before quantities of ``blocks`` (a summary sentence merges a bullet's)."""
    by_block: dict[str, list[Arg]] | None = ctx.before.memo.get("quantities_by_block")
    if by_block is None:
        by_block = ctx.before.memo["quantities_by_block"] = {}
        for q in quantities(ctx.before):
            if (k := ctx.before.unit_of.get(q.node)) is not None:
                by_block.setdefault(ctx.alignment.before[k].block, []).append(q)
    return [q for b in sorted(blocks) for q in by_block.get(b, ())]


def _rewritten_numbers(ctx: Context, after_qs: list[Arg]) -> Iterator[tuple[Arg, Arg]]:
    """(before, after) quantities of a sentence the rewrite changed where exactly one number
    of a unit went (from the blocks it came from) and exactly one of that unit came, the same
    bound either side, and neither side states the other's value anywhere: "never set either
    above 21 °C" -> "neither ever above 23 °C". The sentence alignment, not the claims, pairs
    them."""
    al = ctx.alignment
    before_qs = quantities(ctx.before)
    before_index, after_index = quantity_index(ctx.before), ValueIndex(after_qs)
    by_unit_b: dict[int, list[Arg]] = {}
    for q in before_qs:
        i = ctx.before.unit_of.get(q.node)
        if i is not None and q.base_magnitude is not None and not q.counted:
            by_unit_b.setdefault(i, []).append(q)
    units_of_block: dict[str, list[int]] = {}  # the units of by_unit_b, by block
    for i in sorted(by_unit_b):
        units_of_block.setdefault(al.before[i].block, []).append(i)
    by_unit_a: dict[int, list[Arg]] = {}
    for x in after_qs:
        j = ctx.after.unit_of.get(x.node)
        if j is not None and x.base_magnitude is not None:
            by_unit_a.setdefault(j, []).append(x)
    for j, i in al.match.items():
        if j in al.exact or j not in by_unit_a:
            continue
        # the blocks the sentence came from (a summary merges a bullet's sentences)
        blocks = {al.before[k].block for k in {i, *al.sources.get(j, ())}}
        gone = [q for k in sorted(k for b in blocks for k in units_of_block.get(b, ()))
                for q in by_unit_b[k] if not _stated(q, after_index)]
        new = [x for x in by_unit_a[j] if not _states_some(before_index, x)]
        for unit in {q.base_unit for q in gone if q.base_unit}:
            g = [q for q in gone if q.base_unit == unit]
            n = [x for x in new if x.base_unit == unit]
            if len(g) == 1 and len(n) == 1 and _direction(g[0].bound) == _direction(n[0].bound) \
                    and not _computed(g[0], _block_quantities(ctx, blocks), n[0]):
                yield g[0], n[0]


def _restatements(ctx: Context, b: Claim) -> list[tuple[Claim, ClaimPair]]:
    """After claims that restate ``b`` closely enough to hold its numbers: the same
    predicate, or two content features in common besides the numbers themselves (a summary
    says "resolve after 10 min of stable metrics" for "30 minutes of stable metrics before
    resolving")."""
    out = []
    counted = {x.feature for x in b.args_of("quantity") if x.noun}  # "calls" is content
    for a, p in pairs(ctx, b):
        if not compatible(b, a) or p.score < _RESTATED:
            continue
        shared = {f for f in b.features & a.features if not f.startswith("q:") or f in counted}
        # "209 passed" -> "CI: 208/212 passed": a claim that is its predicate and its number
        # is restated by one that holds all of it
        if (p.same_predicate and (shared - {b.pred_key} or p.coverage >= _WHOLE)) or \
                len(words_of(shared)) >= 2:
            out.append((a, p))
    return out


def _stated_elsewhere(ctx: Context, b: Claim, x: Arg) -> bool:
    """Whether before states ``x`` outside ``b``: then ``x`` may be that number, kept, not
    ``b``'s changed ("22 payouts" is what "pulled 22 payouts" said, not a changed "two
    payouts ... unmatched"; a file view's "(32 lines total)" in a listing's header). Which
    claim after restates cannot be told from the counterpart scores: a tried refinement
    that asked for it fired on safe summaries (b3, b5)."""
    own = {q.node for q in b.args_of("quantity")}
    # The value alone: "under 4 mm" elsewhere is what "at least 4 mm" restates, with the
    # bound said the other way round ("no pads under 4 mm").
    return quantity_index(ctx.before).any(x, lambda q: q.node not in own and same_value(q, x))


def _stated(q: Arg, after: ValueIndex) -> bool:
    """Whether a quantity of ``after`` states before quantity ``q``."""
    return after.any(q, lambda x: _states(q, x))


def _states_some(before: ValueIndex, x: Arg) -> bool:
    """Whether after quantity ``x`` states a quantity of ``before``."""
    return before.any(x, lambda q: _states(q, x))


def same_value(q: Arg, x: Arg) -> bool:
    """The same quantity, or one inside the other's range ("1473" in "1471-1475")."""
    if same_quantity(q, x) or (q.bound == "~" and same_quantity(x, q)):
        return True
    return _within(q, x) or _within(x, q)


def _within(q: Arg, x: Arg) -> bool:
    """Whether ``q``'s value lies in ``x``'s range (of the same unit)."""
    if x.magnitude_high is None or q.base_unit != x.base_unit or q.magnitude is None or \
            x.magnitude is None:
        return False
    return x.magnitude <= q.magnitude <= x.magnitude_high


def _states(q: Arg, x: Arg) -> bool:
    """Whether after quantity ``x`` states before quantity ``q``: same value, compatible
    bound."""
    if not same_value(q, x):
        return False
    dq, dx = _direction(q.bound), _direction(x.bound)
    return not (dq and dx and dq != dx)
