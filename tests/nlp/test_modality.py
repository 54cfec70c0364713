"""Hedges and modality with strength."""

from __future__ import annotations

import pytest
from spacy.language import Language

from tests.conftest import extract, quote


@pytest.mark.parametrize(("text", "term", "modality"), [
    ("The job may fail.", "may", "possibility"),
    ("It will likely time out.", "likely", "likelihood"),
    ("It takes about 40 minutes.", "about", "approximation"),
    ("You should rotate the key.", "should", "advice"),
    ("You must rotate the key.", "must", "necessity"),
    ("It might be the cache.", "might", "possibility"),
])
def test_hedges(nlp: Language, text: str, term: str, modality: str) -> None:
    found = [r for r in extract(nlp, text, "hedge") if r.attrs["term"] == term]
    assert len(found) == 1
    assert found[0].attrs["modality"] == modality
    assert quote(text, found[0]).lower() == term


def test_should_is_weaker_than_must(nlp: Language) -> None:
    (should,) = extract(nlp, "You should rotate it.", "hedge")
    (must,) = extract(nlp, "You must rotate it.", "hedge")
    assert float(should.attrs["strength"]) < float(must.attrs["strength"])


@pytest.mark.parametrize("text", ["We talked about the cache.", "It shipped in May 2024.",
                                  "Walk around the block."])
def test_not_hedges(nlp: Language, text: str) -> None:
    assert extract(nlp, text, "hedge") == []
