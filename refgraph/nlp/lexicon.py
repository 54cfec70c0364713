"""Build spaCy PhraseMatchers from refgraph's lexicon files (matched on lower-cased tokens)."""

from __future__ import annotations

from collections.abc import Mapping

from spacy.language import Language
from spacy.matcher import PhraseMatcher
from spacy.tokens import Doc, Span


def phrase_matcher(nlp: Language, labelled: Mapping[str, str]) -> PhraseMatcher:
    """A matcher whose match label is the value for each phrase key."""
    matcher = PhraseMatcher(nlp.vocab, attr="LOWER")
    by_label: dict[str, list[Doc]] = {}
    for phrase, label in labelled.items():
        by_label.setdefault(label, []).append(nlp.make_doc(phrase))
    for label, docs in by_label.items():
        matcher.add(label, docs)
    return matcher


def longest_matches(matcher: PhraseMatcher, doc: Doc) -> list[Span]:
    """Matches as labelled spans, overlaps resolved in favour of the longest (then first).

    ``spacy.util.filter_spans`` on the raw (label, start, end) matches, so that a Span is made
    only for a match that is kept (most blocks match nothing, many match one phrase twice).
    """
    matches = matcher(doc)
    if not matches:
        return []
    # The same order filter_spans takes them in: longest first, then leftmost (stable).
    ordered = sorted(matches, key=lambda m: (m[2] - m[1], -m[1]), reverse=True)
    seen: set[int] = set()
    kept: list[tuple[int, int, int]] = []
    for label, start, end in ordered:
        if start not in seen and end - 1 not in seen:
            kept.append((start, end, label))
            seen.update(range(start, end))
    kept.sort(key=lambda k: k[0])
    return [Span(doc, start, end, label=label) for start, end, label in kept]
