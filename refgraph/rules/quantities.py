"""Quantity rules: RG201 dropped-unit, RG202 changed-quantity.

Both read one shared comparison (:func:`quantity_diffs`): every quantity of a rewritten
``after`` unit is paired with a quantity of the ``before`` units it came from. Equal values
written differently ("two seconds", "2000 ms", "2 s") pair as equal, so they never fire.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from ..align import content_words
from ..findings import Finding
from ..model import NodeKind
from ..resources import load_json
from .base import Example, Rule
from .common import close, numbers_in, scaled_numbers_in, scaled_value
from .context import Context, Side, contains_close

DiffKind = Literal["dropped-unit", "changed", "approx-dropped", "unsupported"]
_APPROX_TOLERANCE = 0.1  # "about 30 s" may round 29.4 s
_SMALL_COUNT = 100
_MEASURED = frozenset({"second", "bit", "meter", "kilogram", "kelvin", "meter ** 3",
                       "meter ** 2", "dimensionless", "bit / second", "ampere", "candela",
                       "mole", "radian"})
_SCALE_AFTER = re.compile(r"\s?(?:k|K|M|MM|B|bn|mn|G|T|thousand|million|billion|trillion)\b")
_WORD_AFTER = re.compile(r"\s*([^\W\d_]+)")
_WORD_BEFORE = re.compile(r"([^\W\d_]+)\W{0,3}$")
# "within 2 s" states the value as a deadline; the bare "2 s" says the same thing.
_SOFT_BOUND_WORDS = ("within", "up to", "in under")


@dataclass(frozen=True, slots=True)
class QDiff:
    kind: DiffKind
    after: str  # quantity node in after
    before: str | None  # the quantity it was paired with


def _same(qb: dict[str, Any], qa: dict[str, Any]) -> bool:
    if qb.get("base_unit") != qa.get("base_unit"):
        return False
    tol = _APPROX_TOLERANCE if qa["bound"] == "~" else 1e-6
    if not close(qb["base_magnitude"], qa["base_magnitude"], tol):
        return False
    if ("base_magnitude_high" in qb) != ("base_magnitude_high" in qa):
        return False
    if "base_magnitude_high" in qb and not close(qb["base_magnitude_high"],
                                                 qa["base_magnitude_high"], tol):
        return False
    return qb["bound"] == qa["bound"] or (qa["bound"] == "~" and qb["bound"] in ("=", "~"))


def _rounded(db: dict[str, Any], da: dict[str, Any]) -> bool:
    """True when after writes before's value rounded to fewer decimals ("4.19M" -> "4.2M",
    "1.61 GiB" -> "1.6 GiB"), same unit and bound, off by under 2%: a summary's rounding."""
    if db.get("unit") != da.get("unit") or db["bound"] != da["bound"] \
            or "magnitude_high" in db or "magnitude_high" in da:
        return False
    vb, va = float(db["magnitude"]), float(da["magnitude"])
    if vb == 0 or abs(va - vb) / abs(vb) >= 0.02:
        return False
    tb, ta = str(db["text"]), str(da["text"])
    decimals = [len(m.group(1)) for m in re.finditer(r"\d\.(\d+)", ta)]
    digits = decimals[0] if decimals else 0
    had = [len(m.group(1)) for m in re.finditer(r"\d\.(\d+)", tb)]
    return bool(had) and had[0] > digits and round(vb, digits) == va


_COMPLEMENT = {">": "<=", ">=": "<", "<": ">=", "<=": ">"}
_NEGATION_BEFORE = re.compile(r"(?:\b(?:not|never|no)\b|n't)(?:\W+\w+){0,3}\W*$", re.IGNORECASE)


def _negated_bound(b: Side, db: dict[str, Any], a: Side, da: dict[str, Any]) -> bool:
    """True when the two differ only in a bound that a negation just before one of them
    complements: "have not exported more than 50" says "no more than 50"."""
    if not close(db["base_magnitude"], da["base_magnitude"], 1e-6) \
            or db.get("base_unit") != da.get("base_unit") \
            or _COMPLEMENT.get(db["bound"]) != da["bound"]:
        return False
    for side, d in ((b, db), (a, da)):
        left = side.text[max(0, d["start"] - 40):d["start"]]
        left = left.rsplit("\n", 1)[-1]
        if _NEGATION_BEFORE.search(left) and not left.lower().rstrip().endswith(
                ("no more than", "no less than", "no fewer than", "not more than",
                 "not less than")):
            return True
    return False


_FRACTION = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s*/\s*(\d[\d,]*(?:\.\d+)?)")


def _fraction_of(b: Side, da: dict[str, Any]) -> bool:
    """True when the after quantity is "X/Y" (X out of Y) and before states both numbers."""
    m = _FRACTION.match(str(da["text"]).lstrip())
    if m is None:
        return False  # (a mixed number such as "20 1/2 in" starts with its whole part)
    x, y = (float(g.replace(",", "")) for g in m.groups())
    return x <= y and b.has_number(x) and b.has_number(y)


def _rescaled(b: Side, a: Side, da: dict[str, Any]) -> bool:
    """True when the after quantity and a number of before differ only by a scale word or
    suffix: "63.25M" for 63,250,000, or 63,250,000 for "63.25M"."""
    if "unit" in da:
        return False  # a measured quantity: units, not scale words, decide
    scaled = scaled_value(a.text, da["end"], float(da["magnitude"]))
    if scaled is not None and b.has_number(scaled):
        return True
    key = "scaled_numbers"
    nums: list[float] | None = b.memo.get(key)
    if nums is None:
        nums = b.memo[key] = scaled_numbers_in(b.text)
    return contains_close(nums, float(da["magnitude"]))


def _unit_nearby(db: dict[str, Any], text: str, da: dict[str, Any]) -> bool:
    """The unit word still stands close by: before the number ("USD (4,800.00)") or after a
    short list it ends ("180/210 ms", "2 and 4 s"); for a count, anywhere in its sentence
    ("Partitions moved: 7")."""
    unit = str(db.get("unit_text", "")).strip().lower()
    if not unit:
        return False
    if _counted(db):
        line_start = text.rfind("\n", 0, da["start"]) + 1
        line_end = text.find("\n", da["end"])
        line = text[line_start:line_end if line_end >= 0 else len(text)]
        if content_words(unit) & content_words(line):
            return True
        # "Two people named Morgan" -> "Two Morgans": the count still counts a named thing.
        if re.match(r"\s+[A-Z][a-z]{2,}", text[da["end"]:da["end"] + 20]):
            return True
    # Widen the window to whole words: a window cut inside "status" must not read as "s".
    lo, hi = max(0, da["start"] - 24), min(len(text), da["end"] + 40)
    while lo > 0 and text[lo - 1].isalnum():
        lo -= 1
    while hi < len(text) and text[hi].isalnum():
        hi += 1
    near = text[lo:hi].lower()
    # "% per month" is also written "%/month"; "requests per second" as "requests/second".
    forms = {unit, unit.replace(" per ", "/"), unit.replace(" per ", "/").replace(" ", "")}
    return any(re.search(r"(?<![^\W\d_])" + re.escape(f) + r"(?![^\W\d_])", near) is not None
               for f in forms)


def _really_changed(db: dict[str, Any], da: dict[str, Any]) -> bool:
    """A changed value, unit or range, or a bound that was stated and is now different.

    A bound added where before had none ("8 h" -> "over 8 h") and a deadline word dropped
    ("within 2 s" -> "2 s") are not changes of the quantity.
    """
    same_value = db.get("base_unit") == da.get("base_unit") and close(
        db["base_magnitude"], da["base_magnitude"], 1e-6)
    same_high = db.get("base_magnitude_high") == da.get("base_magnitude_high") or (
        "base_magnitude_high" in db and "base_magnitude_high" in da
        and close(db["base_magnitude_high"], da["base_magnitude_high"]))
    if not (same_value and same_high):
        return True
    if db["bound"] == da["bound"] or db["bound"] in ("=", "~"):
        return False
    return not (da["bound"] == "=" and db["bound"] == "<="
                and str(db["text"]).lower().startswith(_SOFT_BOUND_WORDS))


def _scaled(q: dict[str, Any]) -> bool:
    """True when the value is not the numeral as written ("20 million", "1.5k")."""
    numerals = numbers_in(q["text"])
    return bool(numerals) and not any(close(n, q["magnitude"]) for n in numerals)


def quantity_diffs(ctx: Context) -> list[QDiff]:
    """Pair the quantities of every rewritten or added after unit with their sources."""
    cached: list[QDiff] | None = ctx._cache.get("qdiff")
    if cached is not None:
        return cached
    out: list[QDiff] = []
    b, a, al = ctx.before, ctx.after, ctx.alignment
    for j in al.changed_after():
        qas = a.of_kind(j, NodeKind.QUANTITY)
        if not qas:
            continue
        src = set(al.sources.get(j, []))
        if j in al.match:
            src.add(al.match[j])
        qbs = [q for i in sorted(src) for q in b.of_kind(i, NodeKind.QUANTITY)]
        used: set[str] = set()
        left: list[str] = []
        for qa in qas:
            hit = next((qb for qb in qbs if qb not in used and _same(b.d(qb), a.d(qa))), None)
            if hit is None:
                left.append(qa)
            else:
                used.add(hit)
        for qa in left:
            da = a.d(qa)
            if _rescaled(b, a, da):
                continue  # "63.25M" restates "63,250,000" (or the other way round)
            if _fraction_of(b, da):
                continue  # "209/212" restates "212 jobs, 209 passed"
            free = [qb for qb in qbs if qb not in used]
            pair = _pair(da, free, b, a)
            if pair is not None and pair[0] == "dropped-unit" and (
                    _unit_nearby(b.d(pair[1]), a.text, da)
                    or ("unit" not in b.d(pair[1]) and _SCALE_AFTER.match(a.text, da["end"]))):
                continue  # the unit or scale word is still next to it ("1.2 M calls")
            if pair is not None and pair[0] == "dropped-unit":
                used.add(pair[1])
                out.append(QDiff(pair[0], qa, pair[1]))
                continue
            if any(_same(b.d(q), da) for q in _near(b, "base_magnitude", da["base_magnitude"],
                                                  _APPROX_TOLERANCE)):
                continue  # the same quantity is in before, elsewhere: moved or merged
            if pair is None and "base_unit" not in da:
                moved = _moved_with_unit(b, a, da)
                if moved is not None:
                    out.append(QDiff("dropped-unit", qa, moved))
                    continue
            if da["bound"] == "~" and b.has_number(da["magnitude"], _APPROX_TOLERANCE):
                continue  # "about 4.1 million" rounds a number before states exactly
            if pair is not None:
                used.add(pair[1])
                db = b.d(pair[1])
                if pair[0] == "changed" and not close(db["base_magnitude"], da["base_magnitude"]) \
                        and (any(b.d(q).get("base_unit") == da.get("base_unit") for q in
                                 _near(b, "base_magnitude", da["base_magnitude"], 1e-6))
                             or (not close(db["magnitude"], da["magnitude"])
                                 and b.has_number(da["magnitude"]))):
                    continue  # the new value is stated in before too: moved, not changed
                if pair[0] != "changed" or (_really_changed(db, da)
                                            and not _negated_bound(b, db, a, da)
                                            and not _rounded(db, da)):
                    out.append(QDiff(pair[0], qa, pair[1]))
                continue
            if _near(b, "base_magnitude", da["base_magnitude"],
                     _APPROX_TOLERANCE if da["bound"] == "~" else 1e-6):
                continue  # the value is in before, in another unit (or rounded): not invented
            if b.has_number(da["magnitude"]):
                continue
            if _derived(b, sorted(src), da["magnitude"]) or _derived(b, None, da["magnitude"]):
                continue  # a difference, sum or ratio of numbers its sources state
            if float(da["magnitude"]).is_integer() and 0 <= da["magnitude"] <= _SMALL_COUNT and (
                    ("base_unit" not in da and not _scaled(da))
                    or (da["magnitude"] <= 12 and _counted(da))):
                continue  # "two people", "3 failures": counts a summary derives by counting
            gone = _vanished(ctx, j, da)
            out.append(QDiff("changed", qa, gone) if gone is not None
                       else QDiff("unsupported", qa, None))
    ctx._cache["qdiff"] = out
    return out


def _pair(da: dict[str, Any], free: list[str], b: Side,
          a: Side) -> tuple[DiffKind, str] | None:
    data = b.d
    unitless = "base_unit" not in da
    if unitless and not (da.get("spelled") and da["magnitude"] == 1):  # "one" is mostly a word
        for qb in free:
            db = data(qb)
            if ("base_unit" in db or _scaled(db)) and (
                    close(db["magnitude"], da["magnitude"])
                    or any(close(n, da["magnitude"]) for n in numbers_in(db["text"]))
                    or _in_other_unit(db, da["magnitude"])):
                return "dropped-unit", qb
    for qb in free:
        db = data(qb)
        if db.get("base_unit") == da.get("base_unit") and _scaled(db) and not _scaled(da) and \
                any(close(n, da["magnitude"]) for n in numbers_in(db["text"])):
            return "dropped-unit", qb  # "EUR 10M" -> "EUR 10": the scale is gone
    for qb in free:
        db = data(qb)
        if (db.get("base_unit") == da.get("base_unit") and db["bound"] == "~"
                and da["bound"] == "=" and close(db["base_magnitude"], da["base_magnitude"],
                                                 _APPROX_TOLERANCE)):
            return "approx-dropped", qb
    same_dim = [qb for qb in free if data(qb).get("base_unit") == da.get("base_unit")]
    if "measured" in da:
        named = [qb for qb in same_dim if data(qb).get("measured") == da["measured"]]
        if named:
            return "changed", named[0]
    if len(same_dim) == 1 and (not unitless or _next_word(b.text, data(same_dim[0])) ==
                               _next_word(a.text, da) != ""):
        return "changed", same_dim[0]
    # Several candidates: the one written with the same number (its unit changed), or with the
    # same word on either side ("rows for 2025-06-02: 120,031", "41 passed").
    unit_changed = [qb for qb in same_dim if close(data(qb)["magnitude"], da["magnitude"])
                    and not close(data(qb)["base_magnitude"], da["base_magnitude"])]
    if len(unit_changed) == 1:
        return "changed", unit_changed[0]
    hits = [qb for qb in same_dim if _context_key(b, data(qb)) == _context_key(a, da) != ""
            and not close(data(qb)["base_magnitude"], da["base_magnitude"])]
    if len(hits) == 1:
        return "changed", hits[0]
    return None


def _vanished(ctx: Context, j: int, da: dict[str, Any]) -> str | None:
    """In a clear rewrite of one sentence, the only quantity of the same dimension that is no
    longer there: the number that was changed into this one ("86400" -> "84600")."""
    al, b, a = ctx.alignment, ctx.before, ctx.after
    i = al.match.get(j)
    if i is None or al.score.get(j, 0) < 0.5:
        return None
    kept = {round(a.d(q)["base_magnitude"], 9) for q in a.of_kind(j, NodeKind.QUANTITY)}
    gone = [q for q in b.of_kind(i, NodeKind.QUANTITY)
            if b.d(q).get("base_unit") == da.get("base_unit")
            and round(b.d(q)["base_magnitude"], 9) not in kept]
    return gone[0] if len(gone) == 1 else None


def _context_key(side: Side, d: dict[str, Any]) -> str:
    before, after = _word_before(side.text, d["start"]), _next_word(side.text, d)
    return f"{before}|{after}" if before or after else ""


def _moved_with_unit(b: Side, a: Side, da: dict[str, Any]) -> str | None:
    """A quantity with a unit anywhere in before, with the same value and the same word in
    front of it ("timed out after 30 s" -> "timed out after 30"): the sentence moved and lost
    its unit on the way."""
    left = _word_before(a.text, da["start"])
    if not left:
        return None
    for qb in _near(b, "magnitude", da["magnitude"], 1e-6):
        db = b.d(qb)
        if "base_unit" in db and _word_before(b.text, db["start"]) == left:
            return qb
    return None


def _near(side: Side, key: str, value: float, rel: float) -> list[str]:
    """Quantities of ``side`` whose ``key`` is within ``rel`` of ``value`` (sorted index)."""
    memo_key = f"q-{key}"
    index: tuple[list[float], list[str]] | None = side.memo.get(memo_key)
    if index is None:
        pairs = sorted((float(side.d(q)[key]), q) for q in side.nodes_of(NodeKind.QUANTITY))
        index = ([v for v, _ in pairs], [q for _, q in pairs])
        side.memo[memo_key] = index
    values, nodes = index
    tol = abs(value) * rel + 1e-12
    lo = bisect.bisect_left(values, value - tol)
    hi = bisect.bisect_right(values, value + tol)
    return nodes[lo:hi]


def _word_before(text: str, start: int) -> str:
    m = _WORD_BEFORE.search(text, max(0, start - 40), start)
    return m.group(1).lower() if m else ""


def _derived(b: Side, units: list[int] | None, value: float) -> bool:
    """True when ``value`` is a sum, difference, product or ratio (or percentage) of two
    numbers written in ``units`` (None: the whole text, its first 60 distinct numbers), or the
    sum of all of them: what a summary computes."""
    if units is None:
        nums = sorted(set(b.numbers()))[:60]
    else:
        nums = sorted({n for i in units for n in numbers_in(b.units[i].text)})[:40]
    if not nums:
        return False
    targets = (value, value / 100)
    for k, x in enumerate(nums):
        for y in nums[k + 1:]:
            for r in (x + y, y - x, x * y, x / y if y else 0.0, y / x if x else 0.0):
                if any(close(r, t, 1e-3) for t in targets):
                    return True
    return any(close(sum(nums), t, 1e-3) for t in targets)


def _counted(d: dict[str, Any]) -> bool:
    """A count of things ("4 columns", "two people"), not a measure with a physical unit."""
    base = str(d.get("base_unit", ""))
    return d.get("magnitude") == d.get("base_magnitude") and base not in _MEASURED and not (
        len(base) == 3 and base.isupper())  # currencies are ISO codes


def _in_other_unit(db: dict[str, Any], number: float) -> bool:
    """True when ``number`` is ``db`` written in another common unit: 1024 MiB -> 1 (GiB)."""
    if not number:
        return False
    factors = lexicon_factors().get(str(db.get("base_unit", "")), [])
    return any(close(db["base_magnitude"] / number, f, 1e-3) for f in factors)


@cache
def lexicon_factors() -> dict[str, list[float]]:
    table: dict[str, list[float]] = load_json("lexicon", "analysis.json")["unit_factors"]
    return table


def _next_word(text: str, d: dict[str, Any]) -> str:
    """The word right after a number: two bare numbers count the same thing when it is the
    same ("41 passed" -> "44 passed")."""
    m = _WORD_AFTER.match(text, d["end"])
    return m.group(1).lower() if m else ""


_NUMERAL = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*(?![\w.]*\d)")
_CLEAR = 0.6


def numeral_changes(ctx: Context) -> list[tuple[int, int, int, int]]:
    """Bare numerals the front end does not read as quantities ("port 8080", "PR 4512") that a
    clear rewrite of a sentence changed: same word in front, a value before never states.
    Returns (before start, before end, after start, after end)."""
    b, a, al = ctx.before, ctx.after, ctx.alignment
    out = []
    for j in al.changed_after():
        i = al.match.get(j)
        if i is None or al.score.get(j, 0) < _CLEAR:
            continue
        ua, ub = a.units[j], b.units[i]
        covered = [(a.d(q)["start"], a.d(q)["end"]) for q in a.of_kind(j, NodeKind.QUANTITY)]
        before_nums = {m.group(): m for m in _NUMERAL.finditer(ub.text)}
        for m in _NUMERAL.finditer(ua.text):
            s, e = ua.start + m.start(), ua.start + m.end()
            if any(cs <= s < ce for cs, ce in covered) or m.group() in before_nums:
                continue
            try:
                value = float(m.group().replace(",", ""))
            except ValueError:
                continue  # "0.4.2": a version, not a number
            if b.has_number(value):
                continue
            left = _word_before(a.text, s)
            for raw, mb in before_nums.items():
                if raw in ua.text or not left:
                    continue
                if _word_before(b.text, ub.start + mb.start()) == left:
                    out.append((ub.start + mb.start(), ub.start + mb.end(), s, e))
                    break
    return out


class DroppedUnit(Rule):
    """A number survives the rewrite but its unit or scale is gone.

    ## What it detects
    A quantity in ``after`` that is a bare number where its source in ``before`` had a unit or a
    scale word: "the timeout is 30 seconds" -> "the timeout is 30", "20 million rows" -> "20".

    ## Why it matters
    The number keeps its value and loses its dimension; later reasoning compares 30 seconds
    with 30 milliseconds, or 20 with 20 million, and nothing looks wrong.
    """

    code = "RG201"
    name = "dropped-unit"
    summary = "a number survives but its unit or scale is gone"
    hint = "Keep the unit (or scale word) next to the number, as it was in before."
    example = Example("The request timeout is 30 seconds.", "The request timeout is 30.")

    def check(self, ctx: Context) -> Iterator[Finding]:
        for dq in quantity_diffs(ctx):
            if dq.kind != "dropped-unit" or dq.before is None:
                continue
            qb, qa = ctx.before.d(dq.before), ctx.after.d(dq.after)
            yield self.finding(
                f"{qb['text']!r} became {qa['text']!r}: the number kept its value but lost its "
                f"{'scale' if _scaled(qb) and qb.get('unit') == qa.get('unit') else 'unit'}",
                ctx.before.ev_node(dq.before), ctx.after.ev_node(dq.after),
                hint=f"Write {qb['text']!r} in after, not {qa['text']!r}.")


class ChangedQuantity(Rule):
    """A quantity's magnitude, unit or bound changed in the rewrite.

    ## What it detects
    A quantity in a rewritten unit whose counterpart in ``before`` (the same thing measured, or
    the only quantity of the same dimension) has a different value, unit or bound: "30 s" ->
    "30 ms", "more than 40" -> "40", "15%" -> "1.5%". Equal quantities written differently
    ("two seconds" and "2 s", "2000 ms" and "2 s") are compared in base units and do not fire.

    ## Why it matters
    A changed number reads as fluently as the right one; an agent acting on it is silently off
    by the difference.
    """

    code = "RG202"
    name = "changed-quantity"
    summary = "a quantity's magnitude, unit or bound changed"
    hint = "Copy the quantity from before exactly, or an equal value in another unit."
    example = Example("Keep the cache TTL at 300 seconds.", "Keep the cache TTL at 300 ms.")

    def check(self, ctx: Context) -> Iterator[Finding]:
        for dq in quantity_diffs(ctx):
            if dq.kind != "changed" or dq.before is None:
                continue
            qb, qa = ctx.before.d(dq.before), ctx.after.d(dq.after)
            what = []
            if not close(qb["base_magnitude"], qa["base_magnitude"]):
                what.append("value")
            if qb.get("unit") != qa.get("unit") and what:
                what.append("unit")
            if qb["bound"] != qa["bound"]:
                what.append("bound")
            if not what:
                what.append("range")
            yield self.finding(
                f"{qb['text']!r} became {qa['text']!r} ({' and '.join(what)} changed)",
                ctx.before.ev_node(dq.before), ctx.after.ev_node(dq.after),
                hint=f"Restore {qb['text']!r}; if the value really changed, say where the new "
                     "value comes from.")
        for b0, b1, a0, a1 in numeral_changes(ctx):
            yield self.finding(
                f"{ctx.before.text[b0:b1]!r} became {ctx.after.text[a0:a1]!r}",
                ctx.before.ev(b0, b1), ctx.after.ev(a0, a1),
                hint=f"Restore {ctx.before.text[b0:b1]!r}.")
