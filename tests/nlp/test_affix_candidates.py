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
        want = [m.span() for m in _AFFIX_CANDIDATE.finditer(text)]
        assert [m.span() for m in _affix_candidates(text)] == want, text
        # with the lower-cased text a view holds (the ASCII search runs on it)
        assert [m.span() for m in _affix_candidates(text, text.lower())] == want, text


@pytest.mark.parametrize("seed", range(4))
def test_ascii_prefix_search_finds_the_prefix_regex(seed: int) -> None:
    from refgraph.nlp.negation import _PREFIX_START, _PREFIX_START_ASCII
    rng = random.Random(seed)
    pieces = [p for p in _PIECES if p.isascii()] + ["Un", "dIs", "Z", "0", "(", "a_"]
    for _ in range(5000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 14)))
        assert [m.start() for m in _PREFIX_START_ASCII.finditer(text.lower())] == \
            [m.start() for m in _PREFIX_START.finditer(text)], text


def test_less_in_lower_case_is_less_in_any_case() -> None:
    import re
    import sys

    from refgraph.nlp.negation import _LESS, _less
    chars = [chr(c) for c in range(sys.maxunicode + 1)]
    for letter in "les":
        folded = {c for c in chars if re.fullmatch(letter, c, re.IGNORECASE)} - {"\u017f"}
        assert folded == {c for c in chars if c.lower() == letter}
    for text in ["less LESS LeSs le\u017fs lEss lesless", "unlessless", "l e s s", "\u0130less",
                 "LESSLESS", "x\u03a3less"]:
        assert [m.span() for m in _less(text)] == [m.span() for m in _LESS.finditer(text)]
