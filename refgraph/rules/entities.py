"""RG103 merged-entity: two entities that before kept apart are one in after.

A *homonym group* is a name that ``before`` uses for two or more entities: it says so ("two
queues named `orders`", "two Sams", "another Dana", "with the same name"), or it tells them
apart by a qualifier each time the name occurs: a parenthesis ("Sam (billing)", "Sam
(support)"), a possessive ("the vendor's Chen"), a first name or surname ("Ada Okafor", "Emeka
Okafor"), a namespace or suffix of an identifier (``raw.events``/``mart.events``,
``dA-1``/``dA-2``), or a mention key ("the primary replica of shard A/B"). ``after`` merges
the group when it still uses the name, no longer says there are several, and keeps fewer than
two of the qualifiers.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache

from ..align import content_words
from ..findings import Evidence, Finding
from ..model import NodeKind
from ..resources import load_json
from .base import Example, Rule
from .context import Context, Side

_NAME = re.compile(r"(?<![\w.'’-])[A-Z][a-z]{1,20}(?:-[A-Z][a-z]+)?(?![\w'’-])")
_POSSESSIVE = re.compile(r"([A-Za-z][\w-]*)['’]s\s+$")
_DESIGNATOR = re.compile(r"^(?:\w+=)?[a-z][\w-]* (?:[a-z]|\d+|[a-z]\d+)$")
_PAREN = re.compile(r"\s*\(([^()]{1,80})\)")
_IDENT_PART = re.compile(r"^(?P<ns>[A-Za-z][\w-]*)\.(?P<name>[A-Za-z_]\w+)$|"
                         r"^(?P<stem>[A-Za-z][\w]*?)-(?P<suffix>\d+|[A-Za-z]\d*)$")


@cache
def _lex(name: str) -> frozenset[str]:
    return frozenset(str(w) for w in load_json("lexicon", "recovery.json")[name])


@dataclass(slots=True)
class _Group:
    """One name and the entities ``before`` keeps apart under it."""

    name: str
    # qualifier kind ("paren", "possessive", "first", "last", "namespace", "suffix") ->
    # qualifier words -> where that variant occurs
    kinds: dict[str, dict[frozenset[str], list[tuple[int, int]]]] = field(default_factory=dict)
    plural: tuple[int, int] | None = None  # where the text says there are several

    def add(self, kind: str, quals: frozenset[str], span: tuple[int, int]) -> None:
        if not quals:
            return
        seen = self.kinds.setdefault(kind, {})
        same = next((q for q in seen if quals <= q or q <= quals), None)
        if same is None:
            seen[quals] = [span]
        else:
            seen[same].append(span)

    @property
    def all_variants(self) -> dict[frozenset[str], list[tuple[int, int]]]:
        """The qualifiers of the one kind that tells most entities apart, with every span."""
        best = max(self.kinds.values(), key=len, default={})
        return best if len(best) >= 2 else {q: s for v in self.kinds.values()
                                               for q, s in v.items()}

    @property
    def variants(self) -> dict[frozenset[str], tuple[int, int]]:
        """Each variant with its first span."""
        return {q: spans[0] for q, spans in self.all_variants.items()}


def _groups(side: Side) -> dict[str, _Group]:
    """Names of ``side`` with their qualifiers (computed once per text; see _build_groups)."""
    groups: dict[str, _Group] | None = side.memo.get("rg103-groups")
    if groups is None:
        groups = _build_groups(side)
        side.memo["rg103-groups"] = groups
    return groups


def _build_groups(side: Side) -> dict[str, _Group]:
    """Names of ``side`` with the qualifiers that tell their entities apart."""
    text = side.text
    out: dict[str, _Group] = {}

    def group(name: str) -> _Group:
        return out.setdefault(name, _Group(name))

    titles = _lex("name_titles")
    for m in _NAME.finditer(text):
        name = m.group()
        if name.lower() in titles:
            continue
        s, e = m.start(), m.end()
        p = _PAREN.match(text, e)
        if p:
            group(name).add("paren", frozenset(_qual_words(p.group(1), name)), (s, p.end()))
        ls = text.rfind("\n", 0, s) + 1
        line = text[ls:s]
        pos = _POSSESSIVE.search(line)
        if pos:
            group(name).add("possessive", frozenset(_qual_words(pos.group(1), name)),
                            (ls + pos.start(), e))
        prev = re.search(r"([A-Z][a-z]+)\s+$", line)
        if prev and prev.group(1).lower() not in titles and not _sentence_start(line,
                                                                                  prev.start(1)):
            group(name).add("first", frozenset({prev.group(1).lower()}), (ls + prev.start(1), e))
        nxt = re.match(r" ([A-Z][a-z]+)(?![\w'’])", text[e:e + 30])
        if nxt and nxt.group(1).lower() not in titles:
            group(name).add("last", frozenset({nxt.group(1).lower()}), (s, e + nxt.end()))
    for nid in side.nodes_of(NodeKind.IDENTIFIER):
        d = side.d(nid)
        im = _IDENT_PART.match(str(d.get("name", "")))
        if im:
            name = im.group("name") or im.group("stem")
            qual = im.group("ns") or im.group("suffix")
            group(name).add("namespace" if im.group("ns") else "suffix",
                            frozenset({qual.lower(), str(d["name"]).lower()}),
                            (d["start"], d["end"]))
    for nid in side.nodes_of(NodeKind.MENTION):
        d = side.d(nid)
        quals = frozenset(q for q in str(d.get("qualifiers", "")).split(";")
                          if _DESIGNATOR.search(q))  # "of=shard a", "of=region 2"
        head = str(d["head"])
        if quals and len(head) > 2 and "ent_label" not in d and head in side.lower:
            group(head).add("key", quals, (d["start"], d["end"]))
    many = "|".join(re.escape(w) for w in sorted(_lex("plural_cues")))
    named = [m.group(1) for m in re.finditer(
        rf"\b(?:{many})\s+(?:[\w-]+\s+){{0,3}}(?:named|called)\s+[`'\"]?(\w[\w.-]*\w)", text, re.I)]
    index = _plural_index(text)
    for name in list(out) + named + [m.group() for m in _NAME.finditer(text)
                                     if m.group().lower() not in titles]:
        span = _plural(index, name)
        if span is not None:
            group(name).plural = span
    return out


def _qual_words(text: str, name: str) -> set[str]:
    return set(content_words(text)) - content_words(name) - _lex("qualifier_skip")


def _sentence_start(line: str, pos: int) -> bool:
    head = line[:pos].rstrip()
    return not head or head.endswith((".", ":", "!", "?", "-", "*", ">"))


_NAME_TOKEN = r"[`'\"]?(?P<n>\w[\w.-]*\w)"


def _plural_index(text: str) -> tuple[dict[str, tuple[int, int]], dict[str, tuple[int, int]]]:
    """Where ``text`` says that a name stands for several entities ("two Sams", "another
    Dana", "also called Chen", "... share a name"), found in one pass per pattern so the cost
    stays linear in the text. Returns (exact-case names, lower-cased names) -> span."""
    many = "|".join(sorted((re.escape(w) for w in _lex("plural_cues")), key=len, reverse=True))
    pats = (
        (rf"\b(?:{many})\s+(?:[\w-]+\s+){{0,3}}(?:named|called)\s+" + _NAME_TOKEN, True),
        (rf"\b(?:{many})\s+(?P<n>\w[\w.-]*?)(?:es|s)\b", True),
        (r"\b(?:another|a different|a second|the other)\s+" + _NAME_TOKEN, False),
        (r"\balso (?:called|named|known as)\s+" + _NAME_TOKEN, True),
        (r"(?<![\w.-])(?P<n>\w[\w.-]*\w)[`'\"]?\s*\([^()\n]{0,80}\b(?:another|a different|"
         r"a second)\b[^()\n]{0,80}\)", True),
    )
    exact: dict[str, tuple[int, int]] = {}
    lower: dict[str, tuple[int, int]] = {}
    for pat, common_ok in pats:
        for m in re.finditer(pat, text, flags=re.I):
            name = m.group("n")
            exact.setdefault(name, (m.start(), m.end()))
            if common_ok:  # "a second read" is one more occurrence, not a namesake
                lower.setdefault(name.lower(), (m.start(), m.end()))
    for m in re.finditer(r"\b(?:same name|share a name|namesakes?)\b", text, flags=re.I):
        # The names in the same sentence (up to a stop or a line break), 120 characters at most.
        lo = max(0, m.start() - 120, text.rfind(".", 0, m.start()) + 1,
                 text.rfind("\n", 0, m.start()) + 1)
        stops = [k for k in (text.find(".", m.end()), text.find("\n", m.end())) if k >= 0]
        hi = min([len(text), m.end() + 120, *stops])
        for w in re.finditer(r"\w[\w.-]*\w", text[lo:hi]):
            span = (min(lo + w.start(), m.start()), max(lo + w.end(), m.end()))
            exact.setdefault(w.group(), span)
            lower.setdefault(w.group().lower(), span)
    return exact, lower


def _plural(index: tuple[dict[str, tuple[int, int]], dict[str, tuple[int, int]]],
            name: str) -> tuple[int, int] | None:
    """Where the text says that ``name`` stands for several entities (see _plural_index)."""
    exact, lower = index
    return lower.get(name) if name.islower() else exact.get(name)


def _matched(g: _Group, after: dict[frozenset[str], tuple[int, int]]
             ) -> tuple[set[frozenset[str]], bool]:
    """Before variants that an after variant still names, and whether one after qualifier
    names two of them at once ("Dr. Okafor (safety officer and product owner)")."""
    kept: set[frozenset[str]] = set()
    merged = False
    for qa in after:
        hits = [q for q in g.variants if q & qa]
        merged |= len(hits) >= 2
        kept.update(hits)
    return kept, merged


def _indefinite(text: str, pos: int) -> bool:
    """True when the noun at ``pos`` is used generically ("a replica", "each replica")."""
    words = re.findall(r"[a-z]+", text[max(0, pos - 30):pos].lower())[-3:]
    return any(w in ("a", "an", "any", "each", "every", "some") for w in words)


def _has_word(text: str, word: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(word)}", text) is not None


def _bare(text: str, name: str, *, qualified: bool = False) -> list[tuple[int, int]]:
    """Occurrences of ``name`` in ``text`` that carry no namespace or suffix and (unless
    ``qualified``) no parenthesis, possessive or other name either."""
    out = []
    titles = _lex("name_titles")
    for m in re.finditer(rf"(?<![\w.-]){re.escape(name)}(?![\w-]|\.\w)", text):
        rest = text[m.end():m.end() + 30]
        line = text[text.rfind("\n", 0, m.start()) + 1:m.start()]
        prev = re.search(r"([A-Z][a-z]+)\s+$", line)
        nxt = re.match(r"[`'\"]? ([A-Z][a-z]+)(?![\w'’])", rest)
        if qualified:
            pass
        elif _PAREN.match(rest) or _POSSESSIVE.search(line) \
                or (prev and prev.group(1).lower() not in titles
                    and not _sentence_start(line, prev.start(1))) \
                or (nxt and nxt.group(1).lower() not in titles):
            continue  # "Sam (support)", "Harbor's Chen", "Ada Okafor": qualified, not bare
        out.append((m.start(), m.end()))
    return out


_SEVERAL = re.compile(r"\b(?:two|three|four|both|several|multiple|[2-9])\b\W*$")


def _apart_nearby(text: str, g: _Group) -> bool:
    """True when every mention of the name in after has, within a few words, a qualifier word
    only one of the entities has, and every entity is mentioned so: "Main (Dublin, id 61440)"
    and "Main (Galway, ...)", "Kettleby Joinery" and "Kettleby Holdings'"."""
    variants = list(g.all_variants)
    if len(variants) < 2:
        return False
    words = [{w.split("=")[-1].lower() for w in q} for q in variants]
    owns = [mine - set().union(*(w for n, w in enumerate(words) if n != k))
            for k, mine in enumerate(words)]
    if not all(owns):
        return False
    low = text.lower()
    covered: set[int] = set()
    mentions = [(m.start(), m.end()) for m in
                re.finditer(rf"(?<![\w.-]){re.escape(g.name)}(?![\w-])", text)]
    for k, (s, e) in enumerate(mentions):
        # Its own neighbourhood: the 30 characters after it and the few words just before it
        # ("Kettleby Holdings'", "the Dublin Main"), never past a neighbouring mention or a
        # list separator.
        lo = max(s - 30, mentions[k - 1][1] if k else 0)
        hi = min(e + 30, mentions[k + 1][0] if k + 1 < len(mentions) else len(text))
        before = re.split(r"[,;()]| and | or ", low[max(lo, s - 20):s])[-1]
        near = before + low[s:hi]
        mine = {v for v, own in enumerate(owns)
                if any(re.search(rf"(?<![\w-]){re.escape(w)}(?![\w-])", near) for w in own)}
        if not mine and _SEVERAL.search(low[lo:s]):
            continue  # 'two "Main" locations' speaks of all of them
        if len(mine) != 1:
            return False  # no qualifier, or both ("Main (ids 61440, 61877)"): which one is it?
        covered |= mine
    return len(covered) == len(owns)


class MergedEntity(Rule):
    """Two entities that ``before`` kept apart are collapsed into one claim in ``after``.

    ## What it detects
    A name that ``before`` uses for two or more entities, and says so ("two queues named
    `orders`", "two Sams", "another Dana") or tells apart by a qualifier each time (a
    parenthesis "Sam (billing)"/"Sam (support)", a possessive, a first name "Ada"/"Emeka
    Okafor", a namespace ``raw.events``/``mart.events`` or a suffix ``dA-1``/``dA-2``), while
    ``after`` still uses the name in a rewritten unit, no longer says there are several, and
    keeps fewer than two of the qualifiers.

    ## Why it matters
    Deduplication by surface overlap makes memory look cleaner while the merged claim is true of
    neither entity; it is the hardest corruption to notice because it removes apparent conflict.
    """

    code = "RG103"
    name = "merged-entity"
    summary = "two entities kept apart in before are collapsed into one in after"
    hint = "Keep the qualifier that tells the entities apart (shard, team, region, version)."
    example = Example("The primary replica of shard A is db-7. The primary replica of shard B "
                      "is db-9.", "The primary replica is db-7.", intent="summarize")

    def check(self, ctx: Context) -> Iterator[Finding]:
        b, a, al = ctx.before, ctx.after, ctx.alignment
        changed = al.changed_after()
        after_groups: dict[str, _Group] | None = None
        for name, g in sorted(_groups(b).items()):
            if max((len(v) for v in g.kinds.values()), default=0) < 2 and g.plural is None:
                continue  # one qualifier each of different kinds: one entity described twice
            quals = list(g.all_variants)
            if g.plural is None and not any(not (x <= y or y <= x) for k, x in enumerate(quals)
                                            for y in quals[k + 1:]):
                continue  # "a second read", "the second read on day 7": one, said twice
            named = {j: [u for u in _bare(a.units[j].text, name, qualified=True)
                         if not ("key" in g.kinds and _indefinite(a.units[j].text, u[0]))]
                     for j in changed}
            named = {j: v for j, v in named.items() if v}
            if not named:
                continue
            if after_groups is None:
                after_groups = _groups(a)
            hit: int | None = min(named) if self._global(a, g, after_groups.get(name)) else None
            if hit is None:
                hit = next((j for j in sorted(named) if _bare(a.units[j].text, name)
                            and self._local(ctx, g, j)), None)
            if hit is None:
                continue
            start = a.units[hit].start + named[hit][0][0]
            ev: list[Evidence] = [b.ev(*span) for span in list(g.variants.values())[:2]]
            if g.plural is not None and len(ev) < 2:
                ev.insert(0, b.ev(*g.plural))
            apart = " and ".join(repr(e.quote) for e in ev[:2])
            ev.append(a.ev(start, start + len(name)))
            yield self.finding(
                f"{name!r} in after stands for what before kept apart ({apart}); after no "
                "longer tells them apart", *ev,
                hint=f"Say which {name} is meant: keep the qualifier of each, or say there are "
                     "several.")

    def _global(self, a: Side, g: _Group, ga: _Group | None) -> bool:
        """True when after as a whole no longer keeps the group's entities apart."""
        if ga is not None and ga.plural is not None:
            return False  # after still says there are several
        if _apart_nearby(a.text, g):
            return False  # each still has a qualifier of its own next to the name
        kept, merged = _matched(g, ga.variants if ga is not None else {})
        if "key" in g.kinds:  # "shard a" still written out: the designator survives
            kept |= {q for q in g.kinds["key"]
                     if all(re.search(rf"\b{re.escape(x.split('=')[-1])}\b", a.lower) for x in q)}
        return merged or (len(kept) < 2 and not (len(g.variants) >= 2 and self._all_named(a, g)))

    @staticmethod
    def _local(ctx: Context, g: _Group, j: int) -> bool:
        """True when after unit ``j`` is drawn from before units that hold two of the group's
        entities and names none of them itself."""
        b, a, al = ctx.before, ctx.after, ctx.alignment
        src = set(al.sources.get(j, [])) | ({al.match[j]} if j in al.match else set())
        spans = [b.units[i] for i in src]
        inside = [q for q, sps in g.all_variants.items()
                  if any(u.start <= sp[0] < u.end for u in spans for sp in sps)]
        if len(inside) < 2:
            return False
        low = a.units[j].text.lower()
        named = [q for q in inside if any(_has_word(low, w.split("=")[-1]) for w in q)]
        return not named and _plural(_plural_index(a.units[j].text), g.name) is None

    @staticmethod
    def _all_named(a: Side, g: _Group) -> bool:
        """True when after still holds each variant's full identifier ("raw.events")."""
        full = [next((w for w in q if "." in w or "-" in w), None) for q in g.variants]
        return all(f is not None and f in a.lower for f in full)
