"""Align two referent graphs: which sentence or block of ``after`` came from where, and which
claims of ``after`` restate which claims of ``before``.

A *unit* is a sentence, or a whole block when the block has no sentences (code, JSON, log lines).
Units whose text is unchanged are matched exactly (in order, so a repeated unit pairs with its
own copy); every other ``after`` unit is matched to the ``before`` unit that best explains its
content words (idf-weighted containment, through an inverted index, so alignment stays linear in
practice). Rules compare aligned units; an ``after`` unit with no match is new material, and a
``before`` unit that nothing matches was removed.

Claims are aligned anywhere in the text, not only inside aligned units: a meaning restated in
another sentence, or merged into one, still finds its counterpart (:func:`align_claims`).

Pure functions over graphs: no spaCy here.
"""

from __future__ import annotations

import bisect
import math
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache, lru_cache

from .claims import Claim, ClaimSet
from .model import NodeKind, RefGraph
from .resources import load_words

_WORD = re.compile(r"[^\W_]+(?:[._'-][^\W_]+)*|\d+(?:\.\d+)?")
# A word that occurs in more units than this is too common to propose candidates by itself.
_MAX_POSTINGS = 64
MATCH_THRESHOLD = 0.45


class UnitStatus(StrEnum):
    """What happened to a unit between ``before`` and ``after``."""

    KEPT = "kept"  # the same text is in the other side
    REWRITTEN = "rewritten"  # matched to a unit with different text
    REMOVED = "removed"  # a before unit nothing in after came from
    ADDED = "added"  # an after unit with no source in before


@dataclass(frozen=True, slots=True)
class Unit:
    """A sentence, or a block without sentences, on one side."""

    node: str  # sentence or block node id
    start: int
    end: int
    text: str
    block: str  # the block node id
    words: frozenset[str]


@dataclass(slots=True)
class Alignment:
    """Unit-level alignment of ``before`` and ``after``.

    ``match[j]`` is the before-unit index ``after.units[j]`` came from (absent: added);
    ``score[j]`` how well it is explained (1.0 for an exact match); ``sources[j]`` every before
    unit that contributed at least a third of its content (for merges).
    """

    before: list[Unit]
    after: list[Unit]
    match: dict[int, int] = field(default_factory=dict)
    score: dict[int, float] = field(default_factory=dict)
    exact: set[int] = field(default_factory=set)
    sources: dict[int, list[int]] = field(default_factory=dict)
    before_status: list[UnitStatus] = field(default_factory=list)
    after_status: list[UnitStatus] = field(default_factory=list)
    claims: ClaimAlignment | None = None  # set by the analyzer (align_claims)

    def counterpart(self, j: int) -> Unit | None:
        """The before unit that after unit ``j`` came from."""
        i = self.match.get(j)
        return None if i is None else self.before[i]

    def changed_after(self) -> list[int]:
        """After units that are not verbatim copies of a before unit."""
        return [j for j in range(len(self.after)) if j not in self.exact]

    def changed_before(self) -> list[int]:
        """Before units with no verbatim copy in after."""
        return [i for i, s in enumerate(self.before_status) if s is not UnitStatus.KEPT]


@cache
def _stopwords() -> frozenset[str]:
    return load_words("lexicon", "stopwords.txt")


@lru_cache(maxsize=1 << 17)
def content_words(text: str) -> frozenset[str]:
    """Lower-cased content words with a light plural/suffix folding (rows -> row).

    Cached: a rewrite leaves most sentences as they were, so the same texts come back.
    """
    stop = _stopwords()
    out = set()
    for m in _WORD.finditer(text.lower()):
        w = m.group()
        if w in stop:
            continue
        out.add(fold(w))
    return frozenset(out)


def fold(word: str) -> str:
    """A crude stem that makes 'retries'/'retry', 'tests'/'test', 'suspend'/'suspension' meet.

    Long alphabetic words are cut to their first six letters (a prefix stemmer: cheap, and
    good enough to see the same content word in two phrasings); identifiers stay whole.
    """
    if word.endswith(("'s", "’s")):
        word = word[:-2]  # "FRA's" is FRA
    if len(word) > 4 and word.endswith(("ies", "ied")):
        word = word[:-3] + "y"  # before the cut: "retries" and "replied" meet "retry", "reply"
    if len(word) > 6 and word.isalpha():
        return word[:6]
    if len(word) > 5 and word.endswith("ing"):
        return word[:-3]
    if len(word) > 4 and word.endswith("ed") and not word.endswith("eed"):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def units_of(G: RefGraph) -> list[Unit]:
    """The units of a graph in document order."""
    blocks = []
    sentences_of: dict[str, list[tuple[int, str]]] = defaultdict(list)
    block_kind, sentence_kind = NodeKind.BLOCK.value, NodeKind.SENTENCE.value
    for nid, d in G.nodes(data=True):
        kind = d["kind"]
        if kind == block_kind:
            blocks.append((d["start"], nid))
        elif kind == sentence_kind:
            sentences_of[_block_of(nid)].append((d["start"], nid))
    nodes = G.nodes
    units: list[Unit] = []
    for _, bid in sorted(blocks):
        sents = sentences_of.get(bid)
        ids = [s for _, s in sorted(sents)] if sents else [bid]
        for nid in ids:
            d = nodes[nid]
            units.append(Unit(nid, d["start"], d["end"], d["text"], bid,
                              content_words(d["text"])))
    return units


def unit_index(units: list[Unit], G: RefGraph) -> dict[str, int]:
    """Map every span node of ``G`` to the index of the unit that holds it."""
    starts = [u.start for u in units]
    out: dict[str, int] = {}
    for nid, d in G.nodes(data=True):
        if d["kind"] in (NodeKind.BLOCK.value, NodeKind.REFERENT.value):
            continue
        i = bisect.bisect_right(starts, d["start"]) - 1
        if i >= 0 and (d["start"] < max(units[i].end, units[i].start + 1)
                       or units[i].block == _block_of(nid)):
            out[nid] = i
    return out


def _block_of(nid: str) -> str:
    return nid.split(":", 1)[0]


def _idf(units: Iterable[Unit], n: int) -> dict[str, float]:
    df: dict[str, int] = defaultdict(int)
    for u in units:
        for w in u.words:
            df[w] += 1
    return {w: math.log(1.0 + n / c) for w, c in df.items()}


def align(before: list[Unit], after: list[Unit]) -> Alignment:
    """Match every after unit to its source in before (see the module docstring)."""
    al = Alignment(before, after)
    by_text: dict[str, list[int]] = defaultdict(list)
    for i, u in enumerate(before):
        by_text[u.text.strip()].append(i)
    used: dict[str, int] = defaultdict(int)
    kept_before: set[int] = set()
    for j, u in enumerate(after):
        key = u.text.strip()
        lst = by_text.get(key)
        if lst and used[key] < len(lst):
            i = lst[used[key]]
            used[key] += 1
            al.match[j], al.score[j], al.sources[j] = i, 1.0, [i]
            al.exact.add(j)
            kept_before.add(i)
    idf = _idf(list(before) + list(after), len(before) + len(after))
    postings: dict[str, list[int]] = defaultdict(list)
    for i, u in enumerate(before):
        for w in u.words:
            postings[w].append(i)
    b_totals = [sum(idf.get(w, 1.0) for w in u.words) or 1.0 for u in before]
    explained: set[int] = set()
    for j, u in enumerate(after):
        if j in al.exact or len(u.words) < 2:
            continue  # "2." or "Done.": too little content to say where it came from
        weight = {w: idf.get(w, 1.0) for w in u.words}
        total = sum(weight.values())
        overlap: dict[int, float] = defaultdict(float)
        for w, wt in weight.items():
            plist = postings.get(w)
            if not plist or len(plist) > _MAX_POSTINGS:
                continue
            for i in plist:
                overlap[i] += wt
        if not overlap:
            continue
        scored = []
        for i, ov in overlap.items():
            containment = ov / total
            dice = 2 * ov / (total + b_totals[i])
            merged = ov / b_totals[i] >= 0.6 and len(before[i].words) >= 2
            scored.append((0.7 * containment + 0.3 * dice, -abs(i - j), i,
                           1.0 if merged else containment))
        scored.sort(reverse=True)
        best, _, i, _ = scored[0]
        if best >= MATCH_THRESHOLD:
            al.match[j], al.score[j] = i, best
            explained.add(i)
        # Sources: units that explain a third of this one, or most of whose own content
        # went into it (a short sentence merged into a longer one).
        al.sources[j] = sorted(i for s, _, i, c in scored[:6] if c >= 0.33)
    al.before_status = [UnitStatus.KEPT if i in kept_before else
                        UnitStatus.REWRITTEN if i in explained else UnitStatus.REMOVED
                        for i in range(len(before))]
    al.after_status = [UnitStatus.KEPT if j in al.exact else
                       UnitStatus.REWRITTEN if j in al.match else UnitStatus.ADDED
                       for j in range(len(after))]
    return al


# --- claims ----------------------------------------------------------------------------------

CLAIM_THRESHOLD = 0.25  # the lowest score a counterpart is kept at
_MAX_COUNTERPARTS = 6
_MAX_CLAIM_POSTINGS = 64  # a feature shared by more after claims proposes no candidates
# (no after text of the corpus, the batches or LoCoMo has a feature in more than 41 claims;
# the bound keeps claim alignment linear, n x 64, on a flood of near-duplicate claims)
# Identity features (identifiers, handles) weigh more than a content word; a quantity's unit
# alone says little.
_FEATURE_WEIGHT = {"i": 2.0, "h": 2.0, "q": 0.5, "e": 1.2, "d": 0.3}


@dataclass(frozen=True, slots=True)
class ClaimPair:
    """A before claim and an after claim that restates (some of) it."""

    before: str
    after: str
    score: float  # 0.7 x how much of before's weight is shared + 0.3 x how much of after's
    coverage: float  # the share of the before claim's weight the after claim holds
    same_predicate: bool


@dataclass(slots=True)
class ClaimAlignment:
    """Counterparts of each before claim (best first), and of each after claim."""

    pairs: dict[str, list[ClaimPair]] = field(default_factory=dict)
    reverse: dict[str, list[ClaimPair]] = field(default_factory=dict)

    def counterparts(self, before_claim: str) -> list[ClaimPair]:
        return self.pairs.get(before_claim, [])

    def sources(self, after_claim: str) -> list[ClaimPair]:
        return self.reverse.get(after_claim, [])


def feature_weights(before: ClaimSet, after: ClaimSet) -> dict[str, float]:
    """idf of each claim feature over both sides, scaled by its kind (``_FEATURE_WEIGHT``)."""
    n = len(before.claims) + len(after.claims)
    df: dict[str, int] = defaultdict(int)
    for cs in (before, after):
        for f, posting in cs.by_feature.items():
            df[f] += len(posting)
    return {f: math.log(1.0 + n / c) * _FEATURE_WEIGHT.get(f[:1] if f[1:2] == ":" else "", 1.0)
            for f, c in df.items()}


def align_claims(before: ClaimSet, after: ClaimSet) -> ClaimAlignment:
    """For every before claim, the after claims that share its arguments and content.

    A candidate shares at least one feature (an argument's referent, identifier, handle or
    unit, or a content term: predicates and terms are lemma keys mapped through the synonym
    lexicon by the front end). Its score weighs the shared features by idf, mostly by how much
    of the *before* claim they cover: a summary's claim usually carries several claims of the
    context at once.

    Examples
    --------
    >>> from refgraph.graph import build_graph
    >>> from refgraph.claims import claims_of
    >>> b = claims_of(build_graph("The export failed twice. Sam owns the report.", mode="fast"))
    >>> a = claims_of(build_graph("Sam owns the report; the export failed.", mode="fast"))
    >>> al = align_claims(b, a)
    >>> [[a.claims[a.by_id[p.after].index].text for p in al.counterparts(c.id)][:1]
    ...  for c in b.claims]
    [['the export failed'], ['Sam owns the report']]
    """
    out = ClaimAlignment()
    if not before.claims or not after.claims:
        return out
    w = feature_weights(before, after)
    totals_a = [sum(w.get(f, 1.0) for f in c.features) or 1.0 for c in after.claims]
    for b in before.claims:
        total_b = sum(w.get(f, 1.0) for f in b.features) or 1.0
        shared: dict[int, float] = defaultdict(float)
        for f in b.features:
            posting = after.by_feature.get(f)
            if not posting or len(posting) > _MAX_CLAIM_POSTINGS:
                continue
            wf = w.get(f, 1.0)
            for j in posting:
                shared[j] += wf
        scored: list[ClaimPair] = []
        for j, ov in shared.items():
            a = after.claims[j]
            cov = ov / total_b
            same = bool(b.pred_key) and b.pred_key == a.pred_key
            score = min(1.0, 0.7 * cov + 0.3 * ov / totals_a[j] + (0.1 if same else 0.0))
            if score >= CLAIM_THRESHOLD:
                scored.append(ClaimPair(b.id, a.id, round(score, 4), round(cov, 4), same))
        twin = after.by_id.get(b.id)
        if twin is not None and twin.text == b.text and not any(
                p.after == b.id and p.score >= 1.0 for p in scored):
            # The same claim of the same block, unchanged: its own counterpart, even with no
            # features to match on ("NO" on a line of its own is still "NO").
            scored = [p for p in scored if p.after != b.id]
            scored.append(ClaimPair(b.id, b.id, 1.0, 1.0, bool(b.pred_key)))
        scored.sort(key=lambda p: (-p.score, after.by_id[p.after].index))
        kept = scored[:_MAX_COUNTERPARTS]
        if kept:
            out.pairs[b.id] = kept
            for p in kept:
                out.reverse.setdefault(p.after, []).append(p)
    for lst in out.reverse.values():
        lst.sort(key=lambda p: -p.score)
    return out


def shared_features(b: Claim, a: Claim) -> frozenset[str]:
    """The features two claims share."""
    return b.features & a.features
