"""RG201 dropped-unit."""

from __future__ import annotations

import math
from collections.abc import Iterator
from functools import partial

from ..claims import Arg, Claim
from ..findings import Finding
from .base import Example, Rule
from .common import BOUNDS, ValueIndex, arg_ev, pairs, same_quantity
from .context import Context

_RESTATED = 0.4  # how well an after claim must restate the before claim to hold its number


def _names_unit(a: Claim, unit: str) -> bool:
    """Whether after claim ``a`` still names ``unit`` as a word of its own."""
    u = unit.lower()
    return any(t == u or (len(t) >= 4 and u.startswith(t)) for t in a.terms) or any(
        m.head.lower() == u for m in a.args_of("mention"))


_LIST_GAP = 5  # characters between a list's numbers: "850 -> 420 ms", "3, 5 and 8 GB"


def _shares_unit(x: Arg, qs: list[Arg], unit: str) -> bool:
    """Whether bare number ``x`` is one of a list or a change whose last number carries the
    unit for all ("850 -> 420 ms", "3, 5 and 8 GB"): the numbers follow each other closely,
    and the last one's unit is the one before gave ``x`` ("3 years, 2 months" -> "3, 2
    months" makes the years months)."""
    end = x.end
    for y in sorted((y for y in qs if y.start >= end), key=lambda y: y.start):
        if y.start - end > _LIST_GAP:
            return False
        if y.unit:
            return y.unit == unit
        end = y.end
    return False


_ELLIPSIS_GAP = 30  # characters from a stated unit to a number that leaves it out


def _unit_elided(x: Arg, qs: list[Arg], q: Arg) -> bool:
    """Whether bare number ``x`` is a bound set beside a measurement in the very unit before
    gave it, which it follows closely in the same claim: "at least 10 minutes" as "a
    12-minute run (10 minimum)". A plain value is not ("61 g reserved (579 still free)"
    drops the grams), nor another unit: after "5 s", a bare "10" that was "10 minutes" reads
    as seconds, wrongly."""
    return x.bound == q.bound and x.bound in BOUNDS and any(
        y.unit == q.unit and y.end <= x.start and x.start - y.end <= _ELLIPSIS_GAP for y in qs)


def _bare_in_before(ctx: Context, a: Claim, x: Arg) -> bool:
    """Whether before itself already writes ``x`` bare, as the very same number, in a claim
    that shares a term with after claim ``a`` ("eGFR 30–80 mL/min ... at eGFR 38 she's in the
    30–80 band" -> "eGFR 30–80"): the bare number is before's own, not a unit lost on the way."""
    if x.magnitude is None:
        return False
    form = "".join(x.text.split())
    return any(not a.terms.isdisjoint(b.terms) and any(
        not y.unit and y.magnitude is not None and math.isclose(y.magnitude, x.magnitude)
        and "".join(y.text.split()) == form for y in b.args_of("quantity"))
        for b in ctx.before.claims.claims)


class DroppedUnit(Rule):
    """A number survived but its unit or scale did not.

    ## What it detects
    A quantity with a unit in a before claim ("30 seconds", "4 GB", "20 million rows") whose
    counterpart claim in after holds the same number with no unit ("30"), while no after
    quantity anywhere states it with its unit (in any unit: "0.5 min" keeps "30 s"), and no
    measurement just before it in the claim, in that very unit, is what its bound is set on
    ("a 12-minute run (10 minimum)"), and before does not itself write that very number bare
    in a claim on the same terms ("in the 30–80 band").

    ## Why it matters
    A bare number is read in whatever unit the reader assumes: 30 seconds and 30 milliseconds
    differ a thousandfold, and the text no longer says which.
    """

    code = "RG201"
    name = "dropped-unit"
    summary = "a number survives but its unit or scale is gone"
    hint = "Write the unit next to the number again."
    example = Example("The request timeout is 30 seconds.", "The request timeout is 30.")

    def check(self, ctx: Context) -> Iterator[Finding]:
        after_qs = ValueIndex(x for a in ctx.after.claims.claims for x in a.args_of("quantity"))
        for b in ctx.before.claims.claims:
            for q in b.args_of("quantity"):
                if not q.unit or q.magnitude is None or q.magnitude == 0:
                    continue  # zero is zero in every unit: "0 events" -> "events: 0"
                if after_qs.any(q, partial(same_quantity, q)):
                    continue  # stated with its unit somewhere: "30-day month" keeps "30 days"
                for a, p in pairs(ctx, b):
                    if p.score < _RESTATED:
                        continue
                    if _names_unit(a, q.unit):
                        continue  # "shards: two", "two (A and C) shards": the noun is there
                    qs = a.args_of("quantity")
                    bare = [x for x in qs if not x.unit and x.magnitude is not None and
                            math.isclose(x.magnitude, q.magnitude) and
                            not _shares_unit(x, qs, q.unit) and not _unit_elided(x, qs, q)]
                    if bare and not _bare_in_before(ctx, a, bare[0]):
                        x = bare[0]
                        # A count that lost its noun ("5,461 rows" -> "5,461") is read from
                        # its sentence far more often than a measurement that lost its unit.
                        base = 0.35 if q.counted else 0.6
                        yield self.finding(
                            f"{q.text!r} became {x.text!r}: the number kept its value but lost "
                            "its unit", arg_ev(ctx.before, q, "claim"),
                            arg_ev(ctx.after, x, "conflict"), confidence=base + 0.35 * p.score,
                            hint=f"Write {q.text!r} in after, not {x.text!r}.")
                        break
                else:
                    continue
                break
