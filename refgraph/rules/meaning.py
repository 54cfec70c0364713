"""Meaning rules: RG301 inverted-polarity, RG302 inverted-causality, RG303 lost-constraint,
RG304 dropped-hedge. Each compares a before unit with the after units its content went to."""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from ..align import _WORD as _WORDS
from ..align import content_words, fold
from ..blocks import TURN_LABEL
from ..findings import Finding
from ..model import EdgeKind, NodeKind
from ..resources import load_json
from .base import Example, Rule
from .common import coverage, has_phrase, lexicon, numbers_in, region_after, region_words
from .context import Context, Side
from .quantities import quantity_diffs

_SKIP_HEDGES = frozenset({"can", "will", "some"})  # ability / future / quantifier, not hedges
_WEAK = 0.9  # a modality weaker than this is a hedge
_RAW = frozenset({"json", "log", "code"})
# Narrowing cues: losing one is a lost condition (RG303), not a flipped polarity.
_NOT_FLIPS = frozenset({"limit", "only-if", "unless"})
# "only if", "only after", and "only <a few words> if/when/after/once" ("only needed back if"):
# a restrictive restatement of "not ... unless/until/before".
_ONLY = re.compile(r"\bonly\s+(?:if|when|once|after|for|with|until|while|on|in|by)\b"
                   r"|\bonly(?:\s+[\w'-]+){1,3}?\s+(?:if|when|once|after|until)\b"
                   r"|\bat the (?:earliest|latest)\b")
_CLEAR = 0.6  # alignment score of a unit that is clearly a rewrite of one source unit
_COMPARATIVE = re.compile(r"\b(?:more|longer|larger|greater|higher|bigger|later) than\b|"
                          r"\bexceed|\bbeyond\b|\babove\b|\bover\b")
_UPPER_BOUNDS = frozenset({"at most", "no more than", "not more than", "up to", "maximum",
                           "max", "must not exceed", "not exceed", "cap", "capped at", "below",
                           "under", "less than", "fewer than", "no longer than", "within",
                           "limit", "limited to", "no later than"})
_KEEP = 0.5  # share of a scope's words that must survive for a dropped cue to matter


@dataclass(frozen=True, slots=True)
class Polar:
    """A polarity-bearing cue: a negation, an ``unless``, an ``only if``, a prohibition or an
    upper bound ("at most 3" says what "never more than 3" says)."""

    node: str
    cue: str
    scope: frozenset[str]
    focus: str = ""  # the word the cue negates: "not required" -> required, "no rows" -> row


def _focus(side: Side, start: int, end: int, cue_end: int) -> str:
    """The first content word after the cue inside its scope, else the last one before it."""
    after = _ordered_words(side.text[max(cue_end, start):end])
    if after:
        return after[0]
    before = _ordered_words(side.text[start:min(cue_end, end)])
    return before[-1] if before else ""


def _ordered_words(text: str) -> list[str]:
    words = content_words(text)
    out = []
    for m in _WORDS.finditer(text.lower()):
        w = fold(m.group())
        if w in words and w not in out:
            out.append(w)
    return out


def polarity_items(side: Side, i: int) -> list[Polar]:
    """The polarity cues of unit ``i`` with the content words they scope over (once per unit;
    at most ``_MAX_ITEMS``, so a pathological one-line text stays linear)."""
    key = ("polar", i)
    cached: list[Polar] | None = side.memo.get(key)
    if cached is None:
        cached = _polarity_items(side, i)[:_MAX_ITEMS]
        side.memo[key] = cached
    return cached


_MAX_ITEMS = 64
_LONG_UNIT = 4000


def _polarity_items(side: Side, i: int) -> list[Polar]:
    out: list[Polar] = []
    negs = []
    for nid in side.in_unit[i]:
        d = side.d(nid)
        kind = d["kind"]
        if kind == NodeKind.NEGATION.value:
            cue = str(d["cue"])
            word = str(d.get("word", d["text"]))
            s, e = d["scope_start"], d["scope_end"]
            # "the column was absent": a lexical cue follows what it negates.
            focus = _focus(side, s, min(e, d["start"]), d["start"]) if d["cue_kind"] == \
                "lexical" else ""
            out.append(Polar(nid, cue, content_words(side.text[s:e]) - content_words(word),
                             focus or _focus(side, s, e, d["end"])))
            negs.append((d["start"], d["end"]))
        elif kind == NodeKind.CONDITIONAL.value and d["cond_kind"] in ("unless", "only-if"):
            s, e = d["antecedent_start"], d["antecedent_end"]
            out.append(Polar(nid, str(d["cond_kind"]), content_words(side.text[s:e]),
                             _focus(side, s, e, s)))
        elif kind == NodeKind.QUANTITY.value and d["bound"] in ("<", "<="):
            u = side.units[i]
            out.append(Polar(nid, "limit", u.words, ""))
    for nid in side.in_unit[i]:
        d = side.d(nid)
        if d["kind"] != NodeKind.CONSTRAINT.value:
            continue
        s, e = d["governed_start"], d["governed_end"]
        if d["constraint_kind"] == "prohibition" \
                and not any(s < d["end"] and d["start"] < e for s, e in negs):
            out.append(Polar(nid, "prohibition", content_words(side.text[s:e]),
                             _focus(side, s, e, s)))
        elif d["constraint_kind"] == "limit" and str(d["cue"]).lower() in _UPPER_BOUNDS:
            out.append(Polar(nid, "limit", side.units[i].words, ""))
    return out


def _all_items(ctx: Context, name: str) -> list[Polar]:
    """Every polarity item of one side (computed once per analysis)."""
    key = f"polar-{name}"
    items: list[Polar] | None = ctx._cache.get(key)
    if items is None:
        side = ctx.before if name == "before" else ctx.after
        items = [p for i in range(len(side.units)) for p in polarity_items(side, i)]
        ctx._cache[key] = items
    return items


_TOKEN = re.compile(r"[a-z]+(?:n't)?")


def negated_near(text: str, focus: str) -> bool:
    """True when a negation word stands at most four words before, or two after, a word that
    starts with ``focus`` in ``text`` ("did not run", "no failover", "column absent"): a
    text-level fallback for where extraction found no negation node (JSON, odd phrasing)."""
    if not focus:
        return False
    low = text.lower()
    neg = lexicon("negation_words")
    for m in re.finditer(r"\b" + re.escape(focus), low):
        left = _TOKEN.findall(low[max(0, m.start() - 48):m.start()])[-4:]
        right = _TOKEN.findall(low[m.end():m.end() + 32])[1:3]
        if any(w in neg or w.endswith("n't") for w in left + right):
            return True
    return False


@cache
def _equivalents() -> dict[str, re.Pattern[str]]:
    """Folded verb -> one pattern of the words that say its negation without a negation word."""
    raw = load_json("lexicon", "analysis.json")["negated_equivalents"]
    return {fold(k): re.compile(r"(?<![\w-])(?:" + "|".join(map(re.escape, v)) + r")(?![\w-])")
            for k, v in raw.items()}


@cache
def _contrast_tail() -> re.Pattern[str]:
    """A contrast cue ("instead of") or a change verb + "from", then at most two words."""
    cues = "|".join(map(re.escape, sorted(lexicon("contrast_cues"), key=len, reverse=True)))
    verbs = "|".join(map(re.escape, sorted(lexicon("change_verbs"), key=len, reverse=True)))
    return re.compile(rf"\b(?:(?:{cues})|(?:{verbs})\s+from)(?:\s+\S+){{0,2}}$")


def said_positively(text: str, focus: str) -> bool:
    """True when ``text`` says "not <focus>" with a word of its own: "do not change the layout"
    -> "keep the layout", "did not pass" -> "failed"."""
    words = _equivalents().get(focus)
    return words is not None and words.search(text.lower()) is not None


def contrasted_near(text: str, focus: str) -> bool:
    """True when a word starting with ``focus`` follows, within three words, a contrast that
    says it no longer holds: "instead of Thursday", "rather than X", "moved from this Thursday
    to next Tuesday". Such a sentence keeps what a negation said ("not this Thursday")."""
    if not focus:
        return False
    low = text.lower()
    tail = _contrast_tail()
    for m in re.finditer(r"\b" + re.escape(focus), low):
        left = " ".join(_TOKEN.findall(low[max(0, m.start() - 60):m.start()])[-5:])
        if tail.search(left):
            return True
    return False


_COUNTERFACTUAL = re.compile(r"\s+(?:not\s+)?have\b")
_PASSIVE_VERB = re.compile(r"\s+(?:not\s+)?be\s+([a-z]{4,})ed\b")
_NUMERAL = re.compile(r"\d+(?:[.,]\d+)*")


def _not_a_hedge_here(text: str, end: int, term: str, after_lower: str) -> bool:
    """A modal that hedges nothing, or whose modality after keeps in another form: "should have
    been charged" (a counterfactual duty, not a doubt), "may be disclosed" -> "disclosable"."""
    if term in ("should", "could", "might", "may", "would") and _COUNTERFACTUAL.match(text, end):
        return True
    m = _PASSIVE_VERB.match(text.lower(), end)
    return bool(term in ("may", "can", "could", "might") and m and re.search(
        r"\b" + re.escape(m.group(1)[:5]) + r"\w*[ai]ble\b", after_lower))


def _refuted(before_unit: str, after_lower: str) -> bool:
    """True when after explicitly denies a number the hedged sentence stated ("not 3.12"): the
    doubtful claim was corrected, so no doubt was removed from a claim that still stands."""
    for m in _NUMERAL.finditer(before_unit):
        if re.search(r"\b(?:not|no|never)\s+(?:\w+\s+)?" + re.escape(m.group()) + r"(?![\d.,]\d)",
                     after_lower):
            return True
    return False


def _region_text(side: Side, units: list[int]) -> str:
    return "\n".join(side.units[j].text for j in units)


def _stated(p: Polar, others: list[Polar]) -> bool:
    """True when some item of the other side negates the same thing (moved, not flipped)."""
    return any((p.focus in q.scope and coverage(p.scope, q.scope) >= _KEEP)
               or (len(q.scope) >= 2 and coverage(q.scope, p.scope) >= _KEEP) for q in others)


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

        def everywhere_after() -> list[Polar]:
            return _all_items(ctx, "after")

        def everywhere_before() -> list[Polar]:
            return _all_items(ctx, "before")

        for i in al.changed_before():
            mine = [p for p in polarity_items(b, i) if p.cue not in _NOT_FLIPS and p.focus
                    and p.scope]
            if not mine:
                continue
            comparative = _COMPARATIVE.search(b.units[i].text.lower()) is not None
            for p in mine:
                if _double_negative(b, p, mine):
                    continue  # "no folder is missing" says all are there
                j = _bare_restatement(p, a, _rewrites_of(ctx, i), comparative)
                if j is None or _stated(p, everywhere_after()) or negated_near(a.text, p.focus):
                    continue
                reported.add(p.node)
                yield self.finding(
                    f"{b.d(p.node)['text']!r} was dropped: {a.units[j].text.strip()[:90]!r} "
                    "keeps what it negated without the negation", b.ev_node(p.node),
                    a.ev_unit(j))
                break
        for j in al.changed_after():
            src = sorted(set(al.sources.get(j, [])) | ({al.match[j]} if j in al.match else set()))
            if not src:
                continue
            theirs = [q for i in src for q in polarity_items(b, i) if q.cue not in _NOT_FLIPS]
            mine = [q for q in polarity_items(a, j) if q.cue not in _NOT_FLIPS]
            if len(theirs) >= len(mine):
                continue  # as many negations as its sources had: reworded, not added
            for p in mine:
                if not p.focus or al.score.get(j, 0) < _CLEAR:
                    continue  # only a clear rewrite of one sentence can be said to add it
                if a.text[max(0, a.d(p.node)["start"] - 2):a.d(p.node)["start"]] == ", ":
                    continue  # "raw.events, not mart.events": a contrast that clarifies
                source = _bare_restatement(
                    p, b, src, _COMPARATIVE.search(a.units[j].text.lower()) is not None)
                # Before negates any word of the scope ("Not before the GRACE_WINDOW ends" for
                # "No suspension before the GRACE_WINDOW ends"): the negation is not new.
                if source is None or _stated(p, everywhere_before()) or any(
                        negated_near(b.text, w) for w in p.scope | {p.focus}):
                    continue
                yield self.finding(
                    f"{a.d(p.node)['text']!r} was added: before says "
                    f"{b.units[source].text.strip()[:90]!r} without it", b.ev_unit(source),
                    a.ev_node(p.node),
                    hint="Drop the added negation, or cite what in before says the opposite.")
                break
        yield from self._in_text(ctx, reported)

    def _in_text(self, ctx: Context, reported: set[str]) -> Iterator[Finding]:
        """Where extraction found no negation (JSON, logs) or missed one, count negation words:
        in a clear rewrite of one sentence, a "never"/"not"/"no" whose next content word is
        still there without any negation, or a new one before a word before stated plainly."""
        b, a, al = ctx.before, ctx.after, ctx.alignment
        done = {b.unit_of.get(n) for n in reported}
        for j in al.changed_after():
            i = al.match.get(j)
            if i is None or i in done or al.score.get(j, 0) < _KEEP:
                continue
            tb, ta = b.units[i].text, a.units[j].text
            if len(tb) > _LONG_UNIT or len(ta) > _LONG_UNIT:
                continue  # a one-to-one sentence comparison means nothing on a wall of text
            nb, na = _negated_words(tb), _negated_words(ta)
            # Sentences merge and split: count the negations of the neighbours too.
            near_b = sum(len(_negated_words(b.units[k].text))
                         for k in range(max(0, i - 1), min(len(b.units), i + 2)))
            near_a = sum(len(_negated_words(a.units[k].text))
                         for k in range(max(0, j - 1), min(len(a.units), j + 2)))
            if len(nb) > len(na) and near_a < near_b and not _ONLY.search(ta.lower()) and not (
                    _COMPARATIVE.search(tb.lower()) and has_phrase(ta.lower(),
                                                                   lexicon("bound_words"))):
                words_a = a.units[j].words
                paired = _paired_starts(tb)
                for w, (s, e) in nb:
                    if s in paired:
                        continue  # "no longer returns without releasing": the two cancel
                    if w in words_a and not negated_near(a.text, w) \
                            and not contrasted_near(ta, w) and not said_positively(ta, w) \
                            and w not in dict(na):
                        yield self.finding(
                            f"{tb[s:e]!r} was dropped: {ta.strip()[:90]!r} keeps {w!r} without "
                            "the negation", b.ev(b.units[i].start + s, b.units[i].start + e),
                            a.ev_unit(j))
                        break
                else:
                    half = _half_of_double(tb, nb, na, words_a, ta)
                    if half is not None:
                        s, e = half
                        yield self.finding(
                            f"{tb[s:e]!r} was dropped from a double negation: "
                            f"{ta.strip()[:90]!r} keeps only the other one, which flips it",
                            b.ev(b.units[i].start + s, b.units[i].start + e), a.ev_unit(j))
            elif len(na) > len(nb) and near_b < near_a:
                for w, (s, e) in na:
                    if ta[max(0, s - 2):s] == ", ":
                        continue  # "A, not B": a contrast that clarifies
                    if w in b.units[i].words and not negated_near(b.text, w) \
                            and w not in dict(nb):
                        yield self.finding(
                            f"{ta[s:e]!r} was added: before says {tb.strip()[:90]!r} without it",
                            b.ev_unit(i), a.ev(a.units[j].start + s, a.units[j].start + e),
                            hint="Drop the added negation, or cite what in before says the "
                                 "opposite.")
                        break


def _rewrites_of(ctx: Context, i: int) -> list[int]:
    """After units that rewrite before unit ``i``: matched to it, or holding most of it."""
    al, b, a = ctx.alignment, ctx.before, ctx.after
    words = b.units[i].words
    return [j for j in region_after(ctx, i)
            if (al.match.get(j) == i and al.score.get(j, 0) >= _KEEP)
            or coverage(words, a.units[j].words) >= _CLEAR]


def _double_negative(side: Side, p: Polar, items: list[Polar]) -> bool:
    """True when another negation stands inside ``p``'s scope ("no folder is missing")."""
    d = side.d(p.node)
    if d["kind"] != NodeKind.NEGATION.value:
        return False
    s, e = d["scope_start"], d["scope_end"]
    if any(q.node != p.node and q.cue not in _NOT_FLIPS
           and side.d(q.node)["kind"] == NodeKind.NEGATION.value
           and s <= side.d(q.node)["start"] < e for q in items):
        return True
    rest = side.text[d["end"]:e].lower()  # "no folder is missing": the second cue as text
    if has_phrase(rest, lexicon("negation_words") - {"too"}) is not None:
        return True
    # The inner one of a pair: "no longer returns without releasing" says it releases.
    start = d["start"]
    # Matches come in order: the last is the nearest before the cue.
    before = list(_NEG_WORD.finditer(side.text, max(0, start - _PAIR_REACH), start))
    outer = before[-1] if before else None
    return outer is not None and _pairs_with(side.text, outer.span(), (start, d["end"]))


def _bare_restatement(p: Polar, other: Side, units: list[int],
                      comparative: bool = False) -> int | None:
    """The unit of ``other`` that states what ``p`` negates, without negating it.

    It holds the negated word and most of the scope's words, and nothing in it negates that
    word: no polarity item scoping over it, no negation word next to it. With
    ``comparative`` (the negation denied a comparison: "never more than twice"), an upper
    bound ("at most twice") says the same.
    """
    for j in units:
        u = other.units[j]
        if len(u.text) > _LONG_UNIT or p.focus not in u.words or \
                coverage(p.scope, u.words) < _KEEP:
            continue  # (a wall of text is no sentence-level restatement)
        if any((p.focus in q.scope and q.cue != "limit") or (q.cue == "limit" and comparative)
               for q in polarity_items(other, j)):
            continue
        if negated_near(u.text, p.focus) or said_positively(u.text, p.focus) or any(
                contrasted_near(u.text, w) for w in p.scope | {p.focus}):
            continue  # "use the primary instead of the replica" keeps "do not use the replica"
        if _ONLY.search(u.text.lower()):
            continue  # "not urgent unless it rises" == "urgent only if it rises"
        return j
    return None


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
        changed_after = set(ctx.alignment.changed_after())
        after_links = [(u, v) for u, v, k in a.G.edges(keys=True) if k == supports
                       and a.unit_of.get(v) in changed_after]
        before_links = _links(b)
        link_words: list[tuple[frozenset[str], frozenset[str]]] | None = b.memo.get("link-words")
        if link_words is None:
            link_words = [(b.words(p0, p1), b.words(c0, c1)) for p0, p1, c0, c1 in before_links]
            b.memo["link-words"] = link_words
        for u, v in after_links:
            uw, vw = content_words(a.d(u)["text"]), content_words(a.d(v)["text"])
            if any(min(_overlap(vw, cw), _overlap(uw, pw)) >= 0.5 for pw, cw in link_words):
                continue  # this link stands in before the same way round
            for (p0, p1, c0, c1), (pw, cw) in zip(before_links, link_words, strict=True):
                swap = min(_overlap(vw, pw), _overlap(uw, cw))
                keep = min(_overlap(vw, cw), _overlap(uw, pw))
                if swap >= 0.5 and swap > keep + 0.25:
                    yield self.finding(
                        f"before concludes {b.text[c0:c1][:60]!r} from {b.text[p0:p1][:60]!r}; "
                        "after argues the other way round",
                        b.ev(p0, p1), b.ev(c0, c1), a.ev_node(u), a.ev_node(v))
                    return
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
            lp, lc = _location(ctx, p), _location(ctx, c)
            if lp is None or lc is None or lc >= lp or b.d(p)["start"] > b.d(c)["start"]:
                continue
            k = max(0, bisect.bisect_right(starts, lc) - 1)
            unit = a.units[k]
            if not any(_leans_back(a, n) for n in a.of_kind(k, NodeKind.CAUSAL)):
                continue  # no "therefore" that leans on what precedes it: order is free
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


def _overlap(x: frozenset[str], y: frozenset[str]) -> float:
    """|x & y| / min(|x|, |y|): a short claim inside a long clause still overlaps fully."""
    return len(x & y) / min(len(x), len(y)) if x and y else 0.0


def _leans_back(side: Side, nid: str) -> bool:
    """A connective whose premise is what precedes its sentence ("Therefore, ..."), also when
    only a turn prefix stands before it in the sentence ("assistant: Therefore, ...")."""
    d = side.d(nid)
    if d.get("premise_scope") == "previous":
        return True
    if "premise_start" not in d or d.get("direction") != "forward":
        return False
    return len(side.words(d["premise_start"], d["premise_end"]) - _ROLE_WORDS) == 0


_ROLE_WORDS = frozenset(fold(w) for w in ("user", "assistant", "system", "tool", "human",
                                           "observation"))


def _links(side: Side) -> list[tuple[int, int, int, int]]:
    """Premise -> conclusion spans of a side: causal links, and conditionals read the same way
    ("if latency exceeds 180 ms, roll back": the latency is why one rolls back)."""
    memo: list[tuple[int, int, int, int]] | None = side.memo.get("links")
    if memo is not None:
        return memo
    out: list[tuple[int, int, int, int]] = []
    for p, c, k in side.G.edges(keys=True):
        if k == EdgeKind.SUPPORTS.value:
            dp, dc = side.d(p), side.d(c)
            out.append((dp["start"], dp["end"], dc["start"], dc["end"]))
    for n in side.nodes_of(NodeKind.CONDITIONAL):
        d = side.d(n)
        if d["cond_kind"] in ("if", "when", "only-if"):
            out.append((d["antecedent_start"], d["antecedent_end"], d["consequent_start"],
                        d["consequent_end"]))
    side.memo["links"] = out
    return out


def _is_instruction(side: Side, nid: str) -> bool:
    d = side.d(nid)
    kind = d["constraint_kind"]
    if kind in ("precondition", "limit"):
        return True
    return kind == "prohibition" and str(d["cue"]).lower() in lexicon("instruction_cues")


def _governed_names(side: Side, nid: str) -> frozenset[str]:
    """Content words of the identifiers and handles a constraint governs (`deploy`)."""
    out: set[str] = set()
    for _, v, k in side.G.out_edges(nid, keys=True):
        d = side.d(v)
        if k == EdgeKind.GOVERNS.value and d.get("ref_kind") in ("identifier", "handle"):
            out |= content_words(str(d.get("key", "")))
    return frozenset(out)



def _key_words(side: Side, nid: str) -> frozenset[str]:
    """What a constraint governs, minus verbs too common to identify it and the speaker label
    a governed span can start with ("user: do X before Y" governs X, not the user)."""
    d = side.d(nid)
    words = content_words(str(d.get("target", "")))
    g0 = d.get("governed_start")
    if isinstance(g0, int):
        line0 = side.text.rfind("\n", 0, g0) + 1
        label = TURN_LABEL.match(side.text, line0)
        if label and label.end() > g0:
            words = words - content_words(label.group())
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
        for i in ctx.alignment.changed_before():
            # At most _MAX_ITEMS constraints per sentence: a pathological wall of text stays
            # linear, and no real sentence has more.
            for nid in b.of_kind(i, NodeKind.CONSTRAINT)[:_MAX_ITEMS]:
                if not _is_instruction(b, nid):
                    continue
                key = _key_words(b, nid)
                if not key:
                    continue
                # Units of after that still talk about what the constraint governed: most of
                # its words, or the named thing it governs (`deploy`, MAX_RETRIES, a path).
                named = _governed_names(b, nid)
                about = [j for j in _units_with(ctx, key | named)
                         if (coverage(key, a.units[j].words) >= 0.5
                             and len(key & a.units[j].words) >= min(2, len(key)))
                         or named & a.units[j].words]
                # ... or the sentence's own rewrite, when it still names part of it.
                about += [j for j in ctx.after_units_from(i) if j not in about
                          and key & a.units[j].words]
                if not about or any(self._restated(ctx, nid, j)
                                    for j in {*about, *_rewrites_of(ctx, i)}):
                    continue
                d = b.d(nid)
                yield self.finding(
                    f"the {d['constraint_kind']} {b.units[i].text.strip()[:90]!r} was removed "
                    f"but {a.units[about[0]].text.strip()[:60]!r} still refers to what it governed",
                    b.ev_unit(i), a.ev_unit(about[0]),
                    hint="Keep the constraint (or restate it) wherever what it governs is kept.")
            yield from self._clause_dropped(ctx, i)

    def _clause_dropped(self, ctx: Context, i: int) -> Iterator[Finding]:
        """A clear rewrite of a sentence that narrowed something ("only for orders before
        May", "unless users are added") keeps the sentence and drops every narrowing word."""
        b, a, al = ctx.before, ctx.after, ctx.alignment
        if b.d(b.units[i].block)["block_kind"] in _RAW or "\n" in b.units[i].text.strip():
            return  # output and tables: their "conditions" are data, not instructions
        if b.of_kind(i, NodeKind.CONSTRAINT) and not any(
                _is_instruction(b, n) for n in b.of_kind(i, NodeKind.CONSTRAINT)):
            return
        marker = has_phrase(b.units[i].text.lower(), lexicon("conditions"))
        if marker is None:
            return
        home = [j for j in ctx.after_units_from(i) if al.score.get(j, 0) >= _KEEP
                and j not in al.exact]
        if not home:
            return
        # The rewrite keeps the condition when it still says the same kind of thing: a word of
        # the marker's family ("only when" ~ "only if", "unless" ~ "except"), or the words of
        # the condition itself.
        family = _family(marker)
        cond = b.words(*_clause_after(b, i, marker))
        for j in home:
            text = a.units[j].text.lower()
            if has_phrase(text, family) or (cond and coverage(cond, a.units[j].words) >= 0.6):
                return
        words = b.units[i].words
        j = max(home, key=lambda j: len(words & a.units[j].words))
        yield self.finding(
            f"{b.units[i].text.strip()[:90]!r} was narrowed by {marker!r}; its rewrite "
            f"{a.units[j].text.strip()[:70]!r} keeps the statement without the condition",
            b.ev_unit(i), a.ev_unit(j),
            hint=f"Keep the condition introduced by {marker!r} in the rewritten sentence.")

    @staticmethod
    def _restated(ctx: Context, nid: str, j: int) -> bool:
        """True when after unit ``j`` still constrains the same way: a prohibition by a
        negation or prohibition; a precondition by a condition word or its condition's words;
        a limit by a bound word or its numbers."""
        a, b = ctx.after, ctx.before
        d = b.d(nid)
        kind = d["constraint_kind"]
        text = a.units[j].text.lower()
        same_kind = any(a.d(c)["constraint_kind"] == kind
                        for c in a.of_kind(j, NodeKind.CONSTRAINT))
        if _ONLY.search(text):
            return True  # "only once the TTL has been live 48 h" restates "not before ..."
        if kind == "prohibition":
            i = b.unit_of.get(nid)
            denied_comparison = i is not None and _COMPARATIVE.search(b.units[i].text.lower())
            verbs = content_words(str(d.get("target", "")))
            return same_kind or bool([p for p in polarity_items(a, j) if p.cue != "limit"]) or \
                has_phrase(text, lexicon("negation_words")) is not None or bool(
                    denied_comparison and has_phrase(text, lexicon("bound_words"))) or \
                any(said_positively(text, v) for v in verbs)  # "do not change" -> "keep"
        if kind == "precondition":
            if same_kind or has_phrase(text, lexicon("condition_words")):
                return True
            cond = content_words(b.text[d["condition_start"]:d["condition_end"]]) \
                if "condition_start" in d else frozenset()
            return bool(cond) and coverage(cond, a.units[j].words) >= 0.5
        # a limit
        if same_kind or has_phrase(text, lexicon("bound_words")):
            return True
        i = b.unit_of.get(nid)
        values = set(numbers_in(b.units[i].text)) if i is not None else set()
        return bool(values) and values <= set(numbers_in(a.units[j].text))


def _units_with(ctx: Context, words: frozenset[str]) -> list[int]:
    """After units holding any of ``words`` (an inverted index built once per analysis)."""
    index: dict[str, list[int]] | None = ctx._cache.get("after-words")
    if index is None:
        index = {}
        for j, u in enumerate(ctx.after.units):
            for w in u.words:
                index.setdefault(w, []).append(j)
        ctx._cache["after-words"] = index
    return sorted({j for w in words for j in index.get(w, [])})


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
                yield from self._in_text(ctx, i)
                continue
            region = region_after(ctx, i)
            if not region:
                continue
            if coverage(b.units[i].words, region_words(a, region)) < _KEEP:
                continue
            theirs = [n for j in region for n in a.of_kind(j, NodeKind.HEDGE)]
            weak = [n for n in theirs if self._weak(a, n)]
            text = _region_text(a, region).lower()
            # Pair by term first ("seem" with "seem"), then by modality, then any weak hedge.
            left = list(hedges)
            for key in ("term", "modality", None):
                for n in list(weak):
                    hit = next((h for h in left if key is None
                                or str(b.d(h)[key]).lower() == str(a.d(n)[key]).lower()), None)
                    if hit is not None:
                        left.remove(hit)
                        weak.remove(n)
            for h in left:
                term = str(b.d(h)["term"]).lower()
                if re.search(r"\b" + re.escape(term[:5]), text):
                    continue  # "prefer" -> "is preferred": the hedge word is still there
                if has_phrase(text, lexicon("hedge_words")) and not [
                        n for n in theirs if a.d(n)["strength"] > b.d(h)["strength"]]:
                    continue  # "we think" -> "probable (unconfirmed)": hedged in other words
                strong = [n for n in theirs if a.d(n)["strength"] > b.d(h)["strength"]]
                if not strong and _advice(b.text, b.d(h)["start"], term):
                    continue  # "we should restart" -> "restart": an action item, not a fact
                if not strong and _not_a_hedge_here(b.text, b.d(h)["end"], term, text):
                    continue
                if not strong and _refuted(b.units[i].text, text):
                    continue  # "3.12, I think" -> "3.11, not 3.12": corrected, not strengthened
                j = max(region, key=lambda j: len(b.units[i].words & a.units[j].words))
                ev = [b.ev_node(h), a.ev_node(strong[0]) if strong else a.ev_unit(j)]
                verb = f"strengthened to {a.d(strong[0])['text']!r}" if strong else "dropped"
                yield self.finding(f"the hedge {b.d(h)['text']!r} was {verb}: "
                                   f"{a.units[j].text.strip()[:90]!r}", *ev)

    def _in_text(self, ctx: Context, i: int) -> Iterator[Finding]:
        """Where no hedge node was extracted (JSON, logs, code), compare the words: a clear
        rewrite of the unit that loses a hedge word ("likely", "should") and keeps the rest."""
        b, a, al = ctx.before, ctx.after, ctx.alignment
        low = b.units[i].text.lower()
        term = has_phrase(low, _weak_terms())
        if term is None:
            return
        for j in ctx.after_units_from(i):
            if al.score.get(j, 0) < _CLEAR or j in al.exact:
                continue
            after = a.units[j].text.lower()
            if has_phrase(after, _weak_terms()) is not None:
                continue
            start = b.units[i].start + _alternation_pos(b.units[i].text, term)
            stronger = has_phrase(after, _strong_terms())
            if not stronger and _advice(b.units[i].text, _alternation_pos(b.units[i].text, term),
                                        term):
                return
            what = f"strengthened to {stronger!r}" if stronger else "dropped"
            m = re.compile(re.escape(term), re.IGNORECASE).match(b.text, start)
            yield self.finding(
                f"the hedge {term!r} was {what}: {a.units[j].text.strip()[:90]!r}",
                b.ev(start, m.end() if m else start), a.ev_unit(j))
            return

    @staticmethod
    def _weak(side: Side, nid: str) -> bool:
        d = side.d(nid)
        if d["text"] == "May" and side.text[max(0, d["start"] - 2):d["start"]].strip(" ") \
                not in ("", ".", "\n", ":", "-"):
            return False  # "billed in May": the month
        return float(d["strength"]) < _WEAK and str(d["term"]).lower() not in _SKIP_HEDGES

    @staticmethod
    def _on_quantity(side: Side, i: int, nid: str) -> bool:
        d = side.d(nid)
        # Only when the quantity carries it as its bound ("about 40" is "~ 40"); "within about
        # 20 frames" reads as "<= 20" and the hedge is judged here.
        return d["modality"] == "approximation" and any(
            (side.d(q)["start"] <= d["start"] < side.d(q)["end"]
             or d["end"] <= side.d(q)["start"] <= d["end"] + 1) and side.d(q)["bound"] == "~"
            for q in side.of_kind(i, NodeKind.QUANTITY))


@cache
def _weak_terms() -> frozenset[str]:
    """Hedge words from models/lexicon/modality.json weaker than a certainty, without the modal
    verbs: read as bare text, "may" and "should" are as often permission or advice."""
    terms = load_json("lexicon", "modality.json")["terms"]
    return frozenset(t for t, (_, strength) in terms.items()
                     if strength < _WEAK and t not in _SKIP_HEDGES and t not in _NUMBER_HEDGES
                     and t not in _MODALS)


@cache
def _strong_terms() -> frozenset[str]:
    terms = load_json("lexicon", "modality.json")["terms"]
    return frozenset(t for t, (_, strength) in terms.items() if strength >= _WEAK)


# Approximators hedge a number; the quantity rules judge them ("about 40" -> "40").
_NUMBER_HEDGES = frozenset({"about", "around", "approximately", "approx", "approx.", "roughly",
                            "nearly", "almost", "circa", "~", "≈", "estimated", "an estimated",
                            "or so"})


def _alternation_pos(text: str, term: str) -> int:
    """Where ``term`` starts in ``text`` (matched case-insensitively on the original text, so
    the offset is valid there even when lower-casing changes lengths: "İ")."""
    m = re.search(r"(?<![\w])" + re.escape(term) + r"(?![\w])", text, re.IGNORECASE)
    return m.start() if m else 0


# After "should", verbs that make it a forecast ("should be enough", "should take 2 h").
_OUTCOME_VERBS = frozenset({"be", "have", "work", "behave", "take", "fit", "finish", "arrive",
                            "last", "suffice", "hold", "pass", "return", "succeed", "stay",
                            "remain", "help", "improve", "reduce", "drop", "rise", "fall", "land",
                            "complete", "recover", "converge", "match", "cover", "cost", "need",
                            "see", "get", "come", "clear", "resolve", "settle", "start", "end",
                            "fail", "break", "crash", "time", "miss", "lose", "drift", "slip",
                            "stall", "leak", "increase", "decrease", "change", "differ", "vary",
                            "exceed", "apply", "affect", "cause", "contain", "include", "mean",
                            "explain", "indicate", "reflect", "require", "happen", "occur"})
_ADVERBS = frozenset({"also", "still", "already", "well", "only", "just", "really", "then",
                      "now", "probably", "likely", "easily", "soon", "eventually"})
_PERSONS = frozenset({"we", "you", "i", "they", "he", "she", "someone", "somebody", "nobody"})
_MODALS = frozenset({"should", "could", "may", "might", "ought to", "can"})


def _advice(text: str, start: int, term: str) -> bool:
    """"we should restart", "you could try", "may not be deleted", "should go to legal":
    advice, permission or obligation, which a plan rewrites as an instruction; not a hedge on a
    fact ("it should be enough", "the job may fail")."""
    term = term.lower()
    if term not in _MODALS:
        return False
    words = re.findall(r"[a-z]+", text[max(0, start - 24):start].lower())
    if words and words[-1] in _PERSONS:
        return True
    after = re.findall(r"[a-z]+", text[start + len(term):start + len(term) + 24].lower())
    while after and after[0] in _ADVERBS:
        after = after[1:]
    if term in ("may", "should") and after[:1] in (["not"], ["never"]):
        return True  # "should not be repitched", "may not be deleted": a prohibition
    # "should go to legal", "support may restore it by hand": obligation or permission; "should
    # be enough", "may fail": a forecast, which is a hedge.
    return term in ("should", "may") and bool(after) and after[0] not in _OUTCOME_VERBS


@cache
def _families() -> tuple[frozenset[str], ...]:
    return tuple(frozenset(f) for f in load_json("lexicon", "analysis.json")["condition_families"])


def _family(marker: str) -> frozenset[str]:
    """The condition words that say what ``marker`` says ("only when" ~ "only if", "once")."""
    out: set[str] = {marker}
    for fam in _families():
        if marker in fam:
            out |= fam
    return frozenset(out)


def _clause_after(side: Side, i: int, marker: str) -> tuple[int, int]:
    """The words a condition marker introduces, up to the next comma, semicolon or stop."""
    u = side.units[i]
    low = u.text  # matched case-insensitively: offsets must index the original text
    m = re.search(r"(?<![\w])" + re.escape(marker) + r"(?![\w])", low, re.IGNORECASE)
    if not m:
        return u.start, u.start
    end = len(low)
    stop = re.search(r"[,;:.()]", low[m.end():])
    if stop:
        end = m.end() + stop.start()
    return u.start + m.end(), u.start + end


_NEG_WORD = re.compile(r"\b(?:not|no|never|none|nothing|without|cannot|neither|nor)\b|n't\b",
                       re.IGNORECASE)


_CLAUSE_END = re.compile(r"[.;:!?,\n]")


def _pairs_with(text: str, first: tuple[int, int], second: tuple[int, int]) -> bool:
    """Whether two negation words (spans, in order) negate each other: "never starts without
    a token", "no longer returns without releasing" say something positive. They share a
    clause, a few words apart with no conjunction that starts a second statement ("no errors
    and no warnings" are two); a "nor" after them, or a "neither" before, coordinates them
    instead ("not A nor B" denies both)."""
    gap_start, gap_end = first[1], second[0]
    if _CLAUSE_END.search(text, gap_start, gap_end):
        return False
    gap = _WORDS.findall(text[gap_start:gap_end].lower())
    if len(gap) > _PAIR_GAP or _JOINS.intersection(gap):
        return False
    return not (text[gap_end:gap_end + 3].lower() == "nor"
                or text[max(0, gap_start - 7):gap_start].lower() == "neither")


def _paired_starts(text: str) -> set[int]:
    """Where the negation words of ``text`` that make a pair with a neighbour start."""
    cues = [m.span() for m in _NEG_WORD.finditer(text)]
    out: set[int] = set()
    for first, second in itertools.pairwise(cues):
        if _pairs_with(text, first, second):
            out.update((first[0], second[0]))
    return out


_PAIR_GAP = 5  # words
_PAIR_REACH = 120  # characters before a cue searched for its partner (five words fit)
_JOINS = frozenset({"and", "but", "or", "nor", "while", "because", "although", "though",
                    "whereas", "so", "yet", "since", "as", "if", "when"})


def _half_of_double(text: str, nb: list[tuple[str, tuple[int, int]]],
                    na: list[tuple[str, tuple[int, int]]], words_a: set[str] | frozenset[str],
                    after: str) -> tuple[int, int] | None:
    """The cue of a pair in one clause of ``text`` that after dropped while keeping the other
    ("never runs without a lock" -> "runs without a lock", or -> "never runs with a lock"):
    one negation of two went, and the meaning flipped. After must still hold both negated
    words, one negated and one plain, and no "unless"/"only"/"except" that could restate it."""
    if _RESTATES_DOUBLE.search(after.lower()):
        return None
    negated_a = dict(na)
    for (w, (s, e)), (w2, (s2, e2)) in itertools.pairwise(nb):
        if w == w2 or not _pairs_with(text, (s, e), (s2, e2)):
            continue
        if w in words_a and w2 in words_a:
            if w not in negated_a and w2 in negated_a:
                return s, e
            if w in negated_a and w2 not in negated_a:
                return s2, e2
    return None


_RESTATES_DOUBLE = re.compile(r"\b(?:unless|only|except|until|always|must|requires?)\b")


def _negated_words(text: str) -> list[tuple[str, tuple[int, int]]]:
    """Each negation word of ``text`` with the first content word after it (folded)."""
    out = []
    for m in _NEG_WORD.finditer(text):
        if m.group().lower() == "no" and \
                text[m.end():m.end() + 3].lstrip(" ")[:1] in (",", ".", "|", ";", ":", ")", ""):
            continue  # "no," "| no |": an answer or a value
        words = [w for w in _ordered_words(text[m.end():m.end() + 60])]
        if words:
            out.append((words[0], (m.start(), m.end())))
    return out
