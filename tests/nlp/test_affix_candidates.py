"""``negation._affix_candidates`` finds what ``_AFFIX_CANDIDATE.finditer`` finds, on random
strings of prefixes in every case form the IGNORECASE regex accepts ("İ", "ı", "ſ", "K")."""

from __future__ import annotations

import random

import pytest

from refgraph.nlp.negation import _AFFIX_CANDIDATE, _affix_candidates

_PIECES = ["un", "UN", "uN", "in", "IN", "\u0130n", "\u0131m", "ir", "Il", "iL", "dis", "DIS",
           "d\u0130s", "d\u0131\u017f", "D\u0131S", "abc", "ab", "a", "K", "\u212a", "\u017f",
           "less", "LESS", "le\u017fs", "ly", "ness", "x", "é", "_", "1", " ", "\n", "-", "'",
           "do", "is", "it", "under", "unless"]


@pytest.mark.parametrize("seed", range(6))
def test_affix_candidates_match_the_full_regex(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(3000):
        text = "".join(rng.choice(_PIECES) for _ in range(rng.randint(1, 14)))
        assert [m.span() for m in _affix_candidates(text)] == \
            [m.span() for m in _AFFIX_CANDIDATE.finditer(text)], text
