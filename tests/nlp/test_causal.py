"""Causal and inferential links with premise, conclusion and their order."""

from __future__ import annotations

from spacy.language import Language

from tests.conftest import extract


def _span(text: str, a: dict[str, object], part: str) -> str:
    return text[int(str(a[f"{part}_start"])):int(str(a[f"{part}_end"]))]


def test_forward_connective(nlp: Language) -> None:
    text = "The disk filled up, so the archiver stalled."
    (c,) = extract(nlp, text, "causal")
    assert _span(text, c.attrs, "premise") == "The disk filled up"
    assert _span(text, c.attrs, "conclusion") == "the archiver stalled"
    assert c.attrs["order"] == "premise-first"


def test_backward_connective(nlp: Language) -> None:
    text = "The archiver stalled because the disk filled up."
    (c,) = extract(nlp, text, "causal")
    assert _span(text, c.attrs, "premise") == "the disk filled up"
    assert _span(text, c.attrs, "conclusion") == "The archiver stalled"
    assert c.attrs["order"] == "conclusion-first"


def test_sentence_initial_because(nlp: Language) -> None:
    text = "Because the cache expired, the request failed."
    (c,) = extract(nlp, text, "causal")
    assert _span(text, c.attrs, "premise") == "the cache expired"
    assert _span(text, c.attrs, "conclusion") == "the request failed"


def test_therefore_takes_previous_sentence_as_premise(nlp: Language) -> None:
    text = "Lag exceeded 30 s. Therefore the failover was paused."
    (c,) = extract(nlp, text, "causal")
    assert c.attrs["premise_scope"] == "previous"
    assert "premise_start" not in c.attrs
    assert _span(text, c.attrs, "conclusion") == "the failover was paused"


def test_non_causal_uses(nlp: Language) -> None:
    for text in ("It has been down since 2024.", "There are so many shards.",
                 "Since Monday the queue is empty."):
        assert extract(nlp, text, "causal") == [], text


def test_so_before_a_demonstrative_is_so(nlp: Language) -> None:
    """ "so that retry budget ...": "so", then the deictic "that retry budget", not purpose."""
    text = "Mirror eu-2 timed out twice, so that retry budget leaves 3 attempts for eu-3."
    (c,) = extract(nlp, text, "causal")
    assert c.attrs["connective"] == "so"
    assert text[c.start:c.end] == "so"
    assert _span(text, c.attrs, "premise") == "Mirror eu-2 timed out twice"
    assert _span(text, c.attrs, "conclusion") == "that retry budget leaves 3 attempts for eu-3"


def test_purpose_so_that_stays_one_connective(nlp: Language) -> None:
    text = "Set the flag, so that we can retry later."
    (c,) = extract(nlp, text, "causal")
    assert c.attrs["connective"] == "so that"
    assert _span(text, c.attrs, "conclusion") == "we can retry later"
