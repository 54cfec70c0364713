"""Shared fixtures: both pipeline modes, loaded once per session."""

from __future__ import annotations

import pytest
from spacy.language import Language

from refgraph.nlp import load_pipeline, records
from refgraph.nlp.records import Record

MODES = ("fast", "accurate")


@pytest.fixture(params=MODES, scope="session")
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="session")
def nlp(mode: str) -> Language:
    return load_pipeline(mode)  # type: ignore[arg-type]


def extract(nlp: Language, text: str, kind: str) -> list[Record]:
    """Records of one kind for ``text``, in order; offsets checked against the text."""
    doc = nlp(text)
    out = [r for r in records(doc) if r.kind == kind]
    for r in out:
        assert 0 <= r.start <= r.end <= len(text)
    return sorted(out, key=lambda r: r.start)


def quote(text: str, rec: Record) -> str:
    return text[rec.start:rec.end]
