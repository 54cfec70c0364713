"""RG103 merged-entity."""

from __future__ import annotations

from collections.abc import Iterator

from ..claims import Arg, Claim
from ..findings import Finding
from .base import Example, Rule
from .common import arg_ev, claim_ev, pairs, short
from .context import Context

_RESTATED = 0.3
_PEOPLE = frozenset({"PERSON", "ORG", "PROPER", "NORP", "GPE"})
# "14 June" and "June 2025" are two ways to write dates, not two things one name stands for
_NUMERIC = frozenset({"DATE", "TIME", "CARDINAL", "ORDINAL", "MONEY", "PERCENT", "QUANTITY"})


def _qualifiers(key: str) -> frozenset[str]:
    """The qualifiers of an entity key ``head[q1;q2]``."""
    if "[" not in key:
        return frozenset()
    return frozenset(q for q in key.split("[", 1)[1].rstrip("]").split(";") if q)


def _words(key: str) -> frozenset[str]:
    """The words of an entity key's qualifiers ("replica[of=shard a;primary]" -> shard, a,
    primary), lower-cased: "Shard A primary replica" keeps the "a" that tells it apart."""
    out: set[str] = set()
    for q in _qualifiers(key):
        out.update(w for w in q.split("=", 1)[-1].strip("()").lower().split() if not _clock(w))
    return frozenset(out)


def _clock(word: str) -> bool:
    """A time of day ("10:05", "(01:05)"): when something was said or left, not which one."""
    w = word.strip("()")
    return ":" in w and all(ch.isdigit() or ch in ":." for ch in w)


def _label_words(key: str) -> frozenset[str]:
    """The words of a key's qualifiers that can name which one: not a count ("group of 6"
    says how many, not which)."""
    out: set[str] = set()
    for q in _qualifiers(key):
        words = q.split("=", 1)[-1].strip("()").lower().split()
        if q.startswith("of=") and words and words[0][:1].isdigit():
            continue
        out.update(w for w in words if not _clock(w))
    return frozenset(out)


class MergedEntity(Rule):
    """Two things before kept apart are one thing in after.

    ## What it detects
    Two entities of before with the same head and different distinguishing qualifiers ("the
    primary replica of shard A" and "... of shard B", "Sam (billing)" and "Sam (support)"),
    each in its own claim, and an after claim that restates both of those claims with a
    mention of that head that has lost what told them apart ("the primary replica"), while
    after names neither of the two as before did.

    ## Why it matters
    Deduplication keyed on words instead of identity makes one claim that is true of neither.
    It is the most dangerous merge: the memory looks cleaner after it.
    """

    code = "RG103"
    name = "merged-entity"
    summary = 'two entities before kept apart ("replica of shard A/B") are one in after'
    hint = "Keep the qualifier that tells the two apart (shard A / shard B) on each claim."
    example = Example("The primary replica of shard A is db-7. The primary replica of shard B "
                      "is db-9.", "The primary replica is db-7.", intent="summarize")

    def check(self, ctx: Context) -> Iterator[Finding]:
        by_head: dict[str, dict[str, list[tuple[Claim, Arg]]]] = {}
        for b in ctx.before.claims.claims:
            if b.heading:
                continue  # "## Plan (draft 1)", "## Plan (draft 2)": sections, not things
            for m in b.args_of("mention"):
                if not m.key.isprintable():
                    continue  # a terminal's colour codes and line breaks inside: no name
                if _qualifiers(m.key) and m.label not in _NUMERIC and not m.plural and \
                        not m.none:
                    # "Two Dans on site" names the group, not one of the two; "no untagged
                    # S3" names none at all
                    by_head.setdefault(m.head, {}).setdefault(m.key, []).append((b, m))
        after_words = _after_words(ctx)
        reported: set[str] = set()
        for head, keyed in by_head.items():
            if len(keyed) < 2 or head in reported:
                continue
            found = _merge(ctx, head, keyed, after_words)
            if found is None:
                continue
            (_, m1), (_, m2), a, x, both = found
            reported.add(head)
            one = x.text if x is not None else short(a.text, 40)
            yield self.finding(
                f"{m1.text!r} and {m2.text!r} are one {one!r} in after",
                arg_ev(ctx.before, m1, "claim"), arg_ev(ctx.before, m2, "claim"),
                arg_ev(ctx.after, x, "conflict") if x is not None else
                claim_ev(ctx.after, a, "conflict"), confidence=0.7 if both else 0.6)
        yield from self._namespaces(ctx)

    def _namespaces(self, ctx: Context) -> Iterator[Finding]:
        """`staging.users` and `prod.users` before, only `users` in after: the name that
        told them apart is gone."""
        spaced: dict[str, dict[str, Arg]] = {}
        for b in ctx.before.claims.claims:
            for x in b.args_of("identifier"):
                if "." in x.key and not x.key.endswith("()"):
                    space, _, last = x.key.rpartition(".")
                    spaced.setdefault(last, {}).setdefault(space, x)
        if not spaced:
            return
        after_idents = {x.key: (a, x) for a in ctx.after.claims.claims
                        for x in a.args_of("identifier")}
        for last, spaces in spaced.items():
            if len(spaces) < 2 or last not in after_idents:
                continue
            if any(f"{space}.{last}" in after_idents for space in spaces):
                continue
            a, x = after_idents[last]
            first, second = list(spaces.values())[:2]
            yield self.finding(
                f"{first.text!r} and {second.text!r} are one {x.text!r} in after",
                arg_ev(ctx.before, first, "claim"), arg_ev(ctx.before, second, "claim"),
                claim_ev(ctx.after, a, "conflict"), confidence=0.7)


def _person(m: Arg) -> bool:
    """A person or an organisation: so named by the parse, or a capitalised name with an
    aside that says which ("Jo (finance)"); fast mode's capitals alone are no evidence
    ("Fees for the period" opens a sentence)."""
    if m.label in _PEOPLE and m.label != "PROPER":
        return True
    return m.label == "PROPER" and any(q.startswith("(") for q in _qualifiers(m.key))


def _amounts(qualifiers: frozenset[str]) -> bool:
    """Whether every one of ``qualifiers`` is an aside that states an amount ("($ 18,400)")."""
    def amount(q: str) -> bool:
        words = [w for w in q.strip("()").split() if w.strip("$€£¥")]
        first = words[0].lstrip("$€£¥") if words else ""
        return q.startswith("(") and first.replace(",", "").replace(".", "", 1).isdigit()
    return bool(qualifiers) and all(amount(q) for q in qualifiers)


def _labels(words: frozenset[str]) -> bool:
    """Words that name which one: a letter ("shard A"), a number or a code ("node 2",
    "eu-west-1")."""
    return any((len(w) == 1 and w.isalpha()) or (any(c.isdigit() for c in w) and not (
        w.isdigit() and len(w) >= 4) and not _decimal(w))
        for w in words)  # "step 12360" is a time, "T 38.4" a reading, not which one


def _decimal(w: str) -> bool:
    """A number with a fractional part ("38.4"): a measured value, never a label."""
    whole, dot, frac = w.partition(".")
    return bool(dot) and whole.isdigit() and frac.isdigit()


def _after_words(ctx: Context) -> frozenset[str]:
    """Every word after uses: its claims' terms and its mentions' key words."""
    out: set[str] = set()
    for a in ctx.after.claims.claims:
        out |= a.terms
        for m in a.args_of("mention"):
            out |= _words(m.key) | {m.head.lower()}
    return frozenset(out)


def _merge(ctx: Context, head: str, keyed: dict[str, list[tuple[Claim, Arg]]],
           after_words: frozenset[str]
           ) -> tuple[tuple[Claim, Arg], tuple[Claim, Arg], Claim, Arg | None, bool] | None:
    """Two occurrences of different keys whose claims an after claim restates with a mention
    of ``head`` that carries neither key's distinguishing qualifiers."""
    keys = sorted(keyed)
    for i, k1 in enumerate(keys):
        for k2 in keys[i + 1:]:
            w1, w2 = _words(k1), _words(k2)
            only1, only2 = w1 - w2, w2 - w1
            if not only1 or not only2 or (only1 & after_words and only2 & after_words):
                continue  # not two distinct things, or after still tells them apart
            # People and organisations are told apart by any qualifier ("cousin Sam", "Sam
            # from work"); other things only by a label ("shard A", "node 2").
            named = all(_person(m) for _, m in keyed[k1] + keyed[k2])
            if named and (_amounts(_qualifiers(k1) - _qualifiers(k2)) or
                          _amounts(_qualifiers(k2) - _qualifiers(k1))):
                continue  # "Brightline Studio LLC ($18,400)" and "... (EIN 84-2219034)":
                # an amount said beside a name is what it paid or owes, not which one it is
            if not named and not (_labels(only1 & _label_words(k1)) and
                                  _labels(only2 & _label_words(k2))):
                continue  # "the specific file", "the open file": descriptions, not identities
            for b1, m1 in keyed[k1]:
                hits1 = {a.id for a, p in pairs(ctx, b1) if p.score >= _RESTATED}
                for b2, m2 in keyed[k2]:
                    hits2 = {a.id for a, p in pairs(ctx, b2) if p.score >= _RESTATED}
                    # One after claim that carries both (a merge); both carried on, each by
                    # its own claim, under one name (after can no longer tell whose is
                    # whose); or one of them while the other is gone: weaker.
                    both = hits1 & hits2
                    spread = (hits1 | hits2) if hits1 and hits2 else set()
                    lone = (hits1 if not hits2 else hits2 if not hits1 else set())
                    for aid in sorted(both) + sorted(spread - both) + sorted(lone):
                        a = ctx.after.claims.by_id[aid]
                        if (only1 | only2) & a.terms:
                            continue  # the claim itself still says which one
                        for x in a.args_of("mention"):
                            # the merged mention is the two's common part: "the primary
                            # replica" of "... of shard A" and "... of shard B"
                            if x.head == head and x.key not in (k1, k2) and not x.plural \
                                    and _words(x.key) <= w1 & w2:
                                return (b1, m1), (b2, m2), a, x, aid in both or aid in spread
                        if named and head in a.terms and not any(
                                x.head == head or head in _words(x.key)
                                for x in a.args_of("mention")):
                            # "Jo: ..." for "Jo (finance)" and "Jo (legal)": the bare name;
                            # "Sam Oyelaran" for "Sam O." names one of them in full
                            return (b1, m1), (b2, m2), a, None, aid in both or aid in spread
    return None
