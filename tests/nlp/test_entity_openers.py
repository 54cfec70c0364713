"""The fast-mode chunk openers are the same whichever way the capitals are found: a byte-class
search on ASCII text, or the ``_CAPITAL`` regex."""

from __future__ import annotations

import random

import pytest
from spacy.tokens import Doc

from refgraph.nlp import entities, load_pipeline
from refgraph.nlp.entities import _CAPITAL, _CAPITAL_CLASSES, EntityTagger
from refgraph.nlp.text import ascii_classes
from refgraph.nlp.view import DocView, view

_PIECES = ["A", "Z", "a", "z", "0", "_", "the", "The", "THE", "an", "Its", "\u0130ts", "x", " ",
           "  ", "\n", "-", "(", ".", ",", "'", "é", "É", "Sam", "iPhone", "aB", "_B", "9B",
           "\u017fome", "ALL", "no", "No", "each", "\t"]


def _strings(count: int, seed: int, ascii_only: bool) -> list[str]:
    rng = random.Random(seed)
    pieces = [p for p in _PIECES if p.isascii()] if ascii_only else _PIECES
    return ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 25))) for _ in range(count)]


def test_openers_are_the_same_either_way() -> None:
    # An ASCII text is read by a byte-class search; the same text with a trailing non-ASCII
    # word (no capital, no determiner) goes through the _CAPITAL regex instead. (Not by
    # monkeypatching: compiled modules call each other directly, past any patch.)
    nlp = load_pipeline("fast")
    tagger = nlp.get_pipe("refgraph_entities")
    assert isinstance(tagger, EntityTagger)
    for text in _strings(1500, 3, True):
        doc = nlp.make_doc(text)
        assert ascii_classes(text, _CAPITAL_CLASSES) is not None
        other = nlp.make_doc(text + " \u00e9t\u00e9")
        assert ascii_classes(other.text, _CAPITAL_CLASSES) is None
        assert tagger._openers(doc, view(doc, refresh=True)) == \
            tagger._openers(other, view(other, refresh=True)), text


def test_space_capital_regex_finds_the_capital_regex() -> None:
    for text in _strings(5000, 5, True):
        classes = ascii_classes(text, _CAPITAL_CLASSES)
        assert classes is not None
        got = [m.end() - 1 for m in entities._SPACE_CAPITAL.finditer(classes)]
        got += [0] if classes[:1] == b"A" else []
        assert sorted(got) == [m.start() for m in _CAPITAL.finditer(text)], text


def _reference_openers(tagger: EntityTagger, doc: Doc, v: DocView) -> list[int]:
    """The openers as found before the search moved to token index + 1 (capitals by find_all
    and bisect_right, determiners from the phrase matches)."""
    text = v.text
    if not text.isascii() and entities._CASE_ODD.search(text):
        return [v.token_at(m.start()) for m in entities._CHUNK_OPENER.finditer(text)]
    found = {v.token_at(m.start()) for m in _CAPITAL.finditer(text)}
    for _, i, _ in tagger.determiners.matches(doc, v):
        a, b = v.starts[i], v.ends[i]
        if (a == 0 or not entities._is_word(text[a - 1])) and (
                b == len(text) or not entities._is_word(text[b])):
            found.add(i)
    return sorted(found)


@pytest.mark.parametrize("ascii_only", [True, False])
def test_openers_match_the_reference(ascii_only: bool) -> None:
    nlp = load_pipeline("fast")
    tagger = nlp.get_pipe("refgraph_entities")
    assert isinstance(tagger, EntityTagger)
    assert tagger.single_dets
    for text in _strings(3000, 6, ascii_only):
        doc = nlp.make_doc(text)
        v = view(doc, refresh=True)
        assert tagger._openers(doc, v) == _reference_openers(tagger, doc, v), text
