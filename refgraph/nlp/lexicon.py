"""Build spaCy PhraseMatchers from refgraph's lexicon files (matched on lower-cased tokens)."""

from __future__ import annotations

from collections.abc import Mapping

from spacy.language import Language
from spacy.matcher import PhraseMatcher
from spacy.tokens import Doc, Span
from spacy.util import filter_spans


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
    """Matches as labelled spans, overlaps resolved in favour of the longest (then first)."""
    spans = matcher(doc, as_spans=True)
    return sorted(filter_spans(spans), key=lambda s: s.start)
