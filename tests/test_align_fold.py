"""The crude stem that lets two phrasings of one content word meet."""

from __future__ import annotations

import pytest

from refgraph.align import fold


@pytest.mark.parametrize(("a", "b"), [
    ("retries", "retry"), ("replied", "reply"), ("applied", "apply"),
    ("tests", "test"), ("suspend", "suspension"), ("FRA's", "FRA"),
])
def test_forms_of_one_word_meet(a: str, b: str) -> None:
    assert fold(a) == fold(b)


@pytest.mark.parametrize(("a", "b"), [("retry", "return"), ("reply", "replica")])
def test_different_words_stay_apart(a: str, b: str) -> None:
    assert fold(a) != fold(b)
