"""Fast mode's sentences: the block parser skips spaCy's sentencizer and the view finds the
same sentence starts (refgraph.nlp.view.finalize with ``sentence_punct``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from spacy.pipeline import Sentencizer

from refgraph import Parser, split_blocks
from refgraph.nlp import load_pipeline
from refgraph.nlp.view import finalize, make_doc, view

ROOT = Path(__file__).resolve().parents[2]


def _both(text: str) -> tuple[tuple[bool, list[int]], tuple[bool, list[int]]]:
    """(has_sents, sentence starts) from the sentencizer and from the view's rule."""
    nlp = load_pipeline("fast")
    sentencizer = nlp.get_pipe("sentencizer")
    assert isinstance(sentencizer, Sentencizer)
    by_spacy = view(sentencizer(make_doc(nlp, text, spans=False)))
    by_view = finalize(make_doc(nlp, text, spans=False), frozenset(sentencizer.punct_chars))
    return ((by_spacy.has_sents, by_spacy.sent_starts),
            (by_view.has_sents, by_view.sent_starts))


@pytest.mark.parametrize("text", [
    "", " ", "\n\n", "Hi", "Hi.", "Stop. Go!", "Done.) Next", 'He said "stop." Then left.',
    "Wait... what?! Yes.", "v1.2.3 is out. Use it.", "Ends with a dot.", "。日本語。次",
    "- item one.\n- item two", "user: retry? assistant: no.", "(a) x. (b) y.", "?!?!",
    "approx. 1.3 TB left. OK", "e.g. this. i.e. that", "3.5 s. Then 4 s.",
])
def test_view_sentences_are_the_sentencizers(text: str) -> None:
    by_spacy, by_view = _both(text)
    assert by_view == by_spacy


# Text made of what the rule turns on: its punctuation, other punctuation, quotes, brackets,
# whitespace of every kind and words.
_PIECES = st.sampled_from([".", "!", "?", "...", "。", "।", ",", ";", ")", "(", '"', "'", "”",
                           "-", " ", "  ", "\n", "\n\n", "\t", "word", "Word", "x", "3.5", "e.g.",
                           "U.S.", "Mr.", ":)", "--", "»"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=30).map("".join))
def test_view_sentences_match_on_generated_text(text: str) -> None:
    by_spacy, by_view = _both(text)
    assert by_view == by_spacy


def test_fast_parser_skips_the_sentencizer_and_keeps_its_sentences() -> None:
    text = (ROOT / "examples").joinpath(sorted(p.name for p in (ROOT / "examples").iterdir()
                                               if p.is_file())[0]).read_text("utf-8")
    blocks = split_blocks(text)
    fast = Parser("fast")
    assert fast._sentence_punct is not None  # the shortcut is taken in fast mode
    # The same pipeline with the sentencizer run as a pipe, as in accurate mode.
    slow = Parser("fast")
    slow._sentence_punct = None
    assert [pb.sentences for pb in fast.parse(blocks)] == \
        [pb.sentences for pb in slow.parse(blocks)]

