"""Meaning rules: RG301 inverted-polarity, RG302 inverted-causality, RG303 lost-constraint,
RG304 dropped-hedge. Each compares a before unit with the after units its content went to."""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from dataclasses import dataclass

from ..align import content_words
from ..findings import Evidence, Finding
from ..model import EdgeKind, NodeKind
from .base import Example, Rule
from .common import coverage, lexicon, region_after, region_words
from .context import Context, Side
from .quantities import quantity_diffs

_SKIP_HEDGES = frozenset({"can", "will", "some"})  # ability / future / quantifier, not hedges
_WEAK = 0.9  # a modality weaker than this is a hedge
_KEEP = 0.5  # share of a scope's words that must survive for a dropped cue to matter


@dataclass(frozen=True, slots=True)
class Polar:
    """A polarity-bearing cue: a negation, an ``unless``, an ``only if`` or a prohibition."""

    node: str
    cue: str
    scope: frozenset[str]


def polarity_items(side: Side, i: int) -> list[Polar]:
    """The polarity cues of unit ``i`` with the content words they scope over."""
    out: list[Polar] = []
    negs = []
    for nid in side.in_unit[i]:
        d = side.d(nid)
        kind = d["kind"]
        if kind == NodeKind.NEGATION.value:
            cue = str(d["cue"])
            word = str(d.get("word", d["text"]))
            out.append(Polar(nid, cue, content_words(
                side.text[d["scope_start"]:d["scope_end"]]) - content_words(word)))
            negs.append((d["start"], d["end"]))
        elif kind == NodeKind.CONDITIONAL.value and d["cond_kind"] in ("unless", "only-if"):
            out.append(Polar(nid, str(d["cond_kind"]), content_words(
                side.text[d["antecedent_start"]:d["antecedent_end"]])))
    for nid in side.in_unit[i]:
        d = side.d(nid)
        if d["kind"] == NodeKind.CONSTRAINT.value and d["constraint_kind"] == "prohibition" \
                and not any(s < d["end"] and d["start"] < e for s, e in negs):
            out.append(Polar(nid, "prohibition", content_words(
                side.text[d["governed_start"]:d["governed_end"]])))
    return out


def _unmatched(mine: list[Polar], theirs: list[Polar]) -> list[Polar]:
    """Cues of ``mine`` with no counterpart in ``theirs`` (same cue first, then overlap)."""
    free = list(theirs)
    left = []
    for p in sorted(mine, key=lambda p: -len(p.scope)):
        hit = next((q for q in free if q.cue == p.cue and (q.scope & p.scope or not p.scope)),
                   None)
        if hit is None:
            hit = next((q for q in free if q.scope & p.scope), None)
        if hit is None and not p.scope:
            hit = next((q for q in free if q.cue == p.cue), None)
        if hit is None:
            left.append(p)
        else:
            free.remove(hit)
    return left


def _cancel(dropped: list[Polar], added: list[Polar], present: list[Polar]) -> bool:
    """True for the known equivalences: "not ... unless" == "only if"; "unless" == "if not"."""
    cues = {p.cue for p in dropped}
    return "unless" in cues and (any(p.cue == "only-if" for p in present) or bool(added))


class InvertedPolarity(Rule):
    """A negation was dropped or added, or a conditional's polarity flipped.

    ## What it detects
    A rewritten unit that keeps the content a negation scoped over but not the negation ("the
    field was not set" -> "the field was set", "never" -> "always"), adds one that ``before``
    did not have, or turns ``unless`` into ``if``/``when`` ("X is not required unless Y is
    absent" -> "X is required when Y is absent"). Equivalent forms ("not ... unless" and "only
    if", "unless X" and "if not X") do not fire.

    ## Why it matters
    A polarity flip leaves a fluent sentence that says the opposite; the agent acts on it with
    full confidence.
    """

    code = "RG301"
    name = "inverted-polarity"
    summary = "a negation was dropped or added, or a conditional's polarity flipped"
    hint = "Keep the negation (or the unless) and its scope exactly as before says it."
    example = Example("The migration flag is not required unless the schema is absent.",
                      "The migration flag is required when the schema is absent.",
                      intent="summarize")

    def check(self, ctx: Context) -> Iterator[Finding]:
        b, a, al = ctx.before, ctx.after, ctx.alignment
        reported: set[str] = set()
        for i in al.changed_before():
            region = region_after(ctx, i)
            if not region:
                continue
            mine = polarity_items(b, i)
            if not mine:
                continue
            theirs = [p for j in region for p in polarity_items(a, j)]
            dropped = [p for p in _unmatched(mine, theirs)
                       if p.scope and coverage(p.scope, region_words(a, region)) >= _KEEP]
            if not dropped:
                continue
            added = _unmatched(theirs, mine)
            if _cancel(dropped, added, theirs):
                continue
            p = dropped[0]
            reported.add(p.node)
            j = max(region, key=lambda j: len(p.scope & a.units[j].words))
            yield self.finding(
                f"{b.d(p.node)['text']!r} was dropped: {a.units[j].text.strip()[:90]!r} keeps "
                "what it negated without the negation", b.ev_node(p.node), a.ev_unit(j))
        for j in al.changed_after():
            src = sorted(set(al.sources.get(j, [])) | ({al.match[j]} if j in al.match else set()))
            if not src:
                continue
            mine = polarity_items(a, j)
            if not mine:
                continue
            theirs = [p for i in src for p in polarity_items(b, i)]
            added = [p for p in _unmatched(mine, theirs)
                     if p.scope and coverage(p.scope, region_words(b, src)) >= _KEEP]
            if not added or _cancel(_unmatched(theirs, mine), added, mine):
                continue
            p = added[0]
            i = max(src, key=lambda i: len(p.scope & b.units[i].words))
            yield self.finding(
                f"{a.d(p.node)['text']!r} was added: before says "
                f"{b.units[i].text.strip()[:90]!r} without it", b.ev_unit(i), a.ev_node(p.node),
                hint="Drop the added negation, or cite what in before says the opposite.")


def _location(ctx: Context, nid: str) -> int | None:
    """Where the content of before node ``nid`` (a claim or sentence) now starts in after."""
    b, a = ctx.before, ctx.after
    i = b.unit_of.get(nid)
    if i is None:
        return None
    need = content_words(b.d(nid)["text"])
    best = None
    for j in region_after(ctx, i):
        if j in ctx.alignment.exact and ctx.alignment.match.get(j) == i:
            return int(a.units[j].start + (b.d(nid)["start"] - b.units[i].start))
        if coverage(need, a.units[j].words) >= 0.6:
            best = a.units[j].start if best is None else min(best, a.units[j].start)
    return best


class InvertedCausality(Rule):
    """A conclusion now precedes, or is cited as evidence for, its own premise.

    ## What it detects
    A premise -> conclusion link of ``before`` ("the canary failed, so we rolled back") whose
    roles are swapped in ``after`` ("we rolled back, so the canary failed"), or a forward
    connective ("therefore", "so", "as a result") moved ahead of the premise it rested on.

    ## Why it matters
    The text stays grammatical while the inference runs backwards; the agent later cites the
    conclusion as evidence for its own premise.
    """

    code = "RG302"
    name = "inverted-causality"
    summary = "a conclusion now precedes or is cited as evidence for its own premise"
    hint = "Restore the order: premise first, then the connective and the conclusion."
    example = Example("The canary returned 502s for ten minutes, so we rolled back the release.",
                      "We rolled back the release, so the canary returned 502s for ten minutes.")

    def check(self, ctx: Context) -> Iterator[Finding]:
        b, a = ctx.before, ctx.after
        supports = EdgeKind.SUPPORTS.value
        after_links = [(u, v) for u, v, k in a.G.edges(keys=True) if k == supports]
        changed = set(ctx.alignment.changed_before())
        starts = [u.start for u in a.units]
        for p, c, k in b.G.edges(keys=True):
            if k != supports:
                continue
            pi, ci = b.unit_of.get(p), b.unit_of.get(c)
            if pi is None or ci is None:
                continue
            if pi not in changed and ci not in changed and self._same_order(ctx, pi, ci):
                continue
            pw, cw = content_words(b.d(p)["text"]), content_words(b.d(c)["text"])
            for u, v in after_links:
                uw, vw = content_words(a.d(u)["text"]), content_words(a.d(v)["text"])
                if coverage(pw, vw) >= 0.6 and coverage(cw, uw) >= 0.6 and \
                        coverage(pw, uw) < 0.6:
                    yield self.finding(
                        f"before concludes {b.d(c)['text'][:60]!r} from "
                        f"{b.d(p)['text'][:60]!r}; after argues the other way round",
                        b.ev_node(p), b.ev_node(c), a.ev_node(u), a.ev_node(v))
                    break
            else:
                lp, lc = _location(ctx, p), _location(ctx, c)
                if lp is None or lc is None or lc >= lp or b.d(p)["start"] > b.d(c)["start"]:
                    continue
                unit = a.units[max(0, bisect.bisect_right(starts, lc) - 1)]
                yield self.finding(
                    f"the conclusion {b.d(c)['text'][:60]!r} now comes before its premise "
                    f"{b.d(p)['text'][:60]!r}", b.ev_node(p), b.ev_node(c),
                    a.ev(unit.start, unit.end))

    @staticmethod
    def _same_order(ctx: Context, pi: int, ci: int) -> bool:
        """Both units kept verbatim and still in the same relative order."""
        a = ctx.after_units_from(pi)
        c = ctx.after_units_from(ci)
        if not a or not c:
            return True
        return (min(a) <= min(c)) == (pi <= ci)


def _is_instruction(side: Side, nid: str) -> bool:
    d = side.d(nid)
    kind = d["constraint_kind"]
    if kind in ("precondition", "limit"):
        return True
    return kind == "prohibition" and str(d["cue"]).lower() in lexicon("instruction_cues")


def _key_words(side: Side, nid: str) -> frozenset[str]:
    """What a constraint governs, minus verbs too common to identify it."""
    d = side.d(nid)
    words = content_words(str(d.get("target", "")))
    return frozenset(w for w in words if w not in lexicon("generic_verbs"))


class LostConstraint(Rule):
    """A prohibition, precondition or limit was removed while what it governs remains.

    ## What it detects
    A constraint of ``before`` ("do not call deploy before tests pass", "only if the flag is
    set", "must not exceed 5 GB") with no counterpart in ``after``, while the action or thing it
    governed (``deploy``, the flag, the quota) is still mentioned there.

    ## Why it matters
    The seeds' "negative space": positive instructions survive pruning, prohibitions do not, and
    the agent then does the forbidden thing because nothing it can still see forbids it.
    """

    code = "RG303"
    name = "lost-constraint"
    summary = "a prohibition, precondition or limit was removed while what it governs remains"
    hint = "Keep the constraint next to the action it governs."
    example = Example("Run the integration suite.\n\nDo not call deploy before the tests pass.\n\n"
                      "Then call deploy with the release tag.",
                      "Run the integration suite.\n\nThen call deploy with the release tag.",
                      intent="prune")

    def check(self, ctx: Context) -> Iterator[Finding]:
        b, a = ctx.before, ctx.after
        after_words: frozenset[str] | None = None
        after_constraints: list[tuple[str, frozenset[str]]] | None = None
        for i in ctx.alignment.changed_before():
            for nid in b.of_kind(i, NodeKind.CONSTRAINT):
                if not _is_instruction(b, nid):
                    continue
                key = _key_words(b, nid)
                if not key:
                    continue
                region = region_after(ctx, i)
                kept = [p for j in region for p in polarity_items(a, j)]
                if any(p.scope & key for p in kept) or any(
                        _key_words(a, n) & key for j in region
                        for n in a.of_kind(j, NodeKind.CONSTRAINT)):
                    continue
                if after_constraints is None:
                    after_constraints = [(n, _key_words(a, n))
                                         for n in a.nodes_of(NodeKind.CONSTRAINT)]
                if any(coverage(key, k) >= 0.5 for _, k in after_constraints):
                    continue  # it moved
                if after_words is None:
                    after_words = region_words(a, list(range(len(a.units))))
                if coverage(key, after_words) < 0.5:
                    continue  # what it governed is gone too: a clean prune
                ev: list[Evidence] = [b.ev_unit(i)]
                where = next((j for j, u in enumerate(a.units) if u.words & key), None)
                if where is not None:
                    ev.append(a.ev_unit(where))
                d = b.d(nid)
                yield self.finding(
                    f"the {d['constraint_kind']} {b.units[i].text.strip()[:90]!r} was removed "
                    f"but {', '.join(sorted(key & after_words)[:3])!r} is still in after", *ev,
                    hint="Keep the constraint (or restate it) wherever what it governs is kept.")


class DroppedHedge(Rule):
    """A hedge or modality was removed or strengthened.

    ## What it detects
    A rewritten unit that keeps the content of a hedged statement but drops the hedge ("the job
    may fail on Mondays" -> "the job fails on Mondays"; "likely", "probably", "usually"), replaces
    it by a stronger modal ("should" -> "must"), or drops an approximation from a number ("about
    40" -> "40").

    ## Why it matters
    Uncertainty is information. A summary that turns "may" into a fact makes the agent act on a
    guess as if it had been observed.
    """

    code = "RG304"
    name = "dropped-hedge"
    summary = "a hedge or modality was removed or strengthened"
    hint = "Keep the hedge (may, likely, about, should) with the statement it qualifies."
    example = Example("The nightly export may fail when the bucket is full.",
                      "The nightly export fails when the bucket is full.", intent="summarize")

    def check(self, ctx: Context) -> Iterator[Finding]:
        b, a = ctx.before, ctx.after
        for dq in quantity_diffs(ctx):
            if dq.kind == "approx-dropped" and dq.before is not None:
                yield self.finding(
                    f"{b.d(dq.before)['text']!r} became {a.d(dq.after)['text']!r}: the "
                    "approximation was dropped", b.ev_node(dq.before), a.ev_node(dq.after))
        for i in ctx.alignment.changed_before():
            hedges = [n for n in b.of_kind(i, NodeKind.HEDGE) if self._weak(b, n)
                      and not self._on_quantity(b, i, n)]
            if not hedges:
                continue
            region = region_after(ctx, i)
            if not region:
                continue
            if coverage(b.units[i].words, region_words(a, region)) < _KEEP:
                continue
            theirs = [n for j in region for n in a.of_kind(j, NodeKind.HEDGE)]
            weak = [n for n in theirs if self._weak(a, n)]
            for h in hedges[len(weak):]:
                strong = [n for n in theirs if a.d(n)["strength"] > b.d(h)["strength"]]
                j = max(region, key=lambda j: len(b.units[i].words & a.units[j].words))
                ev = [b.ev_node(h), a.ev_node(strong[0]) if strong else a.ev_unit(j)]
                verb = f"strengthened to {a.d(strong[0])['text']!r}" if strong else "dropped"
                yield self.finding(f"the hedge {b.d(h)['text']!r} was {verb}: "
                                   f"{a.units[j].text.strip()[:90]!r}", *ev)

    @staticmethod
    def _weak(side: Side, nid: str) -> bool:
        d = side.d(nid)
        return float(d["strength"]) < _WEAK and str(d["term"]).lower() not in _SKIP_HEDGES

    @staticmethod
    def _on_quantity(side: Side, i: int, nid: str) -> bool:
        d = side.d(nid)
        return d["modality"] == "approximation" and any(
            side.d(q)["start"] <= d["start"] < side.d(q)["end"]
            or d["end"] <= side.d(q)["start"] <= d["end"] + 1
            for q in side.of_kind(i, NodeKind.QUANTITY))
