"""``refgraph_modality``: hedges and modal markers (may, likely, approximately, should, must).

Each gets a modality class and a strength, so a later comparison can tell "may fail" from
"fails" and "should" from "must". Approximators such as "about" count only before a number.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from spacy.language import Language
from spacy.tokens import Doc

from ..casing import lower
from ..model import NodeKind
from ..resources import load_json
from .lexicon import longest_matches, phrase_matcher
from .records import add, ensure_group
from .view import view

SPAN_KEY = "rg_hedges"
_MONTH_LIKE = frozenset({"may"})


@cache
def _lex() -> dict[str, Any]:
    data: dict[str, Any] = load_json("lexicon", "modality.json")
    return data


def _numberish(text: str) -> bool:
    return bool(text) and (text[0].isdigit() or text[0] in "$€£¥~." or lower(text) in {
        "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "twenty",
        "thirty", "forty", "fifty", "hundred", "a", "half", "a dozen", "dozen"})


class ModalityTagger:
    """spaCy component: see the module docstring."""

    def __init__(self, nlp: Language, name: str) -> None:
        self.name = name
        lex = _lex()
        self.matcher = phrase_matcher(nlp, {t: t for t in lex["terms"]})
        self.needs_number = frozenset(lex["needs_number"])
        self.needs_number_after = frozenset(lex["needs_number_after"])

    def __call__(self, doc: Doc) -> Doc:
        ensure_group(doc, SPAN_KEY)
        terms = _lex()["terms"]
        v = view(doc)
        n = len(v.starts)
        for start, end, term in longest_matches(self.matcher, doc, v):
            nxt = v.tok(end) if end < n else ""
            prev = v.tok(start - 1) if start > 0 else ""
            if term in self.needs_number and not _numberish(nxt):
                continue
            if term in self.needs_number_after and not _numberish(prev):
                continue
            s, e = v.starts[start], v.ends[end - 1]
            if term in _MONTH_LIKE and v.text[s:s + 1].isupper() and (
                    nxt[:1].isdigit() or (start > 0 and not v.is_sent_start(start)
                                          and prev[:1].isalnum())):
                continue  # "May 2024", "a credit for May": a month, mid-sentence
            modality, strength = terms[term]
            add(doc, SPAN_KEY, NodeKind.HEDGE, s, e, label="HEDGE",
                term=term, modality=modality, strength=float(strength))
        return doc


@Language.factory("refgraph_modality", default_config={},
                  assigns=["doc.spans", "doc._.rg_records"])
def make_modality(nlp: Language, name: str) -> ModalityTagger:
    return ModalityTagger(nlp, name)
