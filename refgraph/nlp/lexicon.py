"""Phrase lookups for refgraph's lexicon files, matched on lower-cased tokens.

:class:`PhraseIndex` finds exactly what ``spacy.matcher.PhraseMatcher(vocab, attr="LOWER")``
finds, from the token view (``refgraph.nlp.view``): the phrases are tokenized by the
pipeline's own tokenizer and compared by lower-case string id, token by token. Calling a
PhraseMatcher per component and doc, and making a ``Span`` per match, cost more than most
components' rules; here the tokens that can start any phrase are found once per doc, for every
index at once, and each index walks its phrases from those tokens only.
"""

from __future__ import annotations

from collections.abc import Mapping

from spacy.language import Language
from spacy.tokens import Doc

from .view import DocView

# Lower-case id of the first word of a phrase -> the serial numbers of the indexes (of all
# built so far) that have a phrase starting with it: one pass over a doc's tokens finds the
# candidate starts of every index at once.
_FIRSTS: dict[int, list[int]] = {}
_INDEXES = [0]  # how many indexes were built: the next one's serial number
_HITS_KEY = "rg_phrase_hits"


class _Node:
    """A trie node: the phrases continue by token id; ``labels`` of the phrases ending here."""

    __slots__ = ("labels", "next")

    def __init__(self) -> None:
        self.next: dict[int, _Node] = {}
        self.labels: list[str] = []


class PhraseIndex:
    """A phrase -> label lexicon, matched like a ``PhraseMatcher`` on ``LOWER``."""

    def __init__(self, nlp: Language, labelled: Mapping[str, str]) -> None:
        self.serial = _INDEXES[0]
        _INDEXES[0] += 1
        self.root = _Node()
        for phrase, label in labelled.items():
            ids = [tok.lower for tok in nlp.make_doc(phrase)]
            if not ids:
                continue  # as the PhraseMatcher skips an empty pattern
            node = self.root
            for t in ids:
                nxt = node.next.get(t)
                if nxt is None:
                    nxt = node.next[t] = _Node()
                node = nxt
            if label not in node.labels:
                node.labels.append(label)
        for t in self.root.next:
            _FIRSTS.setdefault(t, []).append(self.serial)

    def single_tokens(self) -> bool:
        """Whether every phrase is one token: its matches are then its first-word hits."""
        return all(node.labels and not node.next for node in self.root.next.values())

    def first_word_starts(self, doc: Doc, v: DocView) -> list[int]:
        """The tokens holding the first word of a phrase, in order (do not modify it): for an
        index of one-token phrases, the starts of its matches."""
        found: list[int] = _hits(doc, v).get(self.serial, [])
        return found

    def matches(self, doc: Doc, v: DocView) -> list[tuple[str, int, int]]:
        """Every (label, start, end) match, in the PhraseMatcher's order: by start, then end."""
        lows = v.lows
        n = len(lows)
        first = self.root.next
        found: list[tuple[str, int, int]] = []
        for start in _hits(doc, v).get(self.serial, ()):
            node = first.get(lows[start])
            end = start + 1
            while node is not None:
                for label in node.labels:
                    found.append((label, start, end))
                if end >= n:
                    break
                node = node.next.get(lows[end])
                end += 1
        return found


def _hits(doc: Doc, v: DocView) -> dict[int, list[int]]:
    """Index serial number -> the tokens where a phrase of that index may start (kept in the
    doc for the components that run after the first)."""
    data = doc.user_data
    cached = data.get(_HITS_KEY)
    if cached is not None and cached[0] == _INDEXES[0] and cached[1] == len(v.lows):
        hits: dict[int, list[int]] = cached[2]
        return hits
    firsts = _FIRSTS
    hits = {}
    for i, t in enumerate(v.lows):
        owners = firsts.get(t)
        if owners is not None:
            for serial in owners:
                if serial in hits:
                    hits[serial].append(i)
                else:
                    hits[serial] = [i]
    data[_HITS_KEY] = (_INDEXES[0], len(v.lows), hits)  # plain data: doc.to_bytes() still works
    return hits


def phrase_matcher(nlp: Language, labelled: Mapping[str, str]) -> PhraseIndex:
    """A phrase index whose match label is the value for each phrase key."""
    return PhraseIndex(nlp, labelled)


def longest_matches(index: PhraseIndex, doc: Doc, v: DocView) -> list[tuple[int, int, str]]:
    """Matches in ``doc`` (whose view is ``v``) as (start, end, label), overlaps resolved in
    favour of the longest (then first), as ``spacy.util.filter_spans`` resolves them; sorted by
    start."""
    matches = index.matches(doc, v)
    if not matches:
        return []
    # Usually no two matches overlap (they come by start, then end): filter_spans would keep
    # them all, in this order, so the sort and the token set are needed only otherwise.
    prev_end = -1
    for _, start, end in matches:
        if start < prev_end:
            break
        prev_end = end
    else:
        return [(start, end, label) for label, start, end in matches]
    # The same order filter_spans takes them in: longest first, then leftmost (stable).
    ordered = sorted(matches, key=lambda m: (m[2] - m[1], -m[1]), reverse=True)
    seen: set[int] = set()
    kept: list[tuple[int, int, str]] = []
    for label, start, end in ordered:
        if start not in seen and end - 1 not in seen:
            kept.append((start, end, label))
            seen.update(range(start, end))
    kept.sort(key=lambda k: k[0])
    return kept
