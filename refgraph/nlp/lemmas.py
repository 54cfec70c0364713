"""Lemmas and match keys for claims, the same in both modes.

Accurate mode reads spaCy's rule lemmatizer (``token.lemma_``). Fast mode has no tagger, so
:func:`approx_lemma` stands in for it: the irregular forms of ``models/lexicon/predicates.json``,
then suffix rules (-ies/-ied -> y, -es, -ing, -ed, -s, with a doubled final consonant undone).
It is a documented approximation, not a dictionary lemma: "used" gives "us", "agreed" stays
"agreed". What claims compare is :func:`key`, which folds both modes' lemmas onto one stem-like
form ("require", "required", "requires" -> "requir"), so the approximation's misses rarely
matter: a word and its inflections meet.

>>> approx_lemma("running"), approx_lemma("retries"), approx_lemma("went")
('run', 'retry', 'go')
>>> key("required") == key("requires") == key("require")
True
"""

from __future__ import annotations

from functools import cache
from typing import Any

from ..casing import lower
from ..memo import WordMemo
from ..resources import load_json

_VOWELS = frozenset("aeiouy")
_KEEP_DOUBLE = frozenset("lsz")  # "spelled", "passed", "buzzed": the double is the stem's


@cache
def _lex() -> dict[str, Any]:
    data: dict[str, Any] = load_json("lexicon", "predicates.json")
    return data


@cache
def _irregular() -> dict[str, str]:
    return {str(k): str(v) for k, v in _lex()["irregular"].items()}


def _undouble(stem: str) -> str:
    if len(stem) > 3 and stem[-1] == stem[-2] and stem[-1] not in _VOWELS \
            and stem[-1] not in _KEEP_DOUBLE:
        return stem[:-1]
    return stem


def _voiced(stem: str) -> bool:
    """A stem that can be a word: two letters or more, one of them a vowel ("th" of "thing"
    is not)."""
    return len(stem) >= 2 and any(c in _VOWELS for c in stem)


def _approx(word: str) -> str:
    w = lower(word)
    found = _irregular().get(w)
    if found is not None:
        return found
    if not w.isalpha() or len(w) <= 3:
        return w
    if w.endswith(("ies", "ied")) and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith(("sses", "shes", "ches", "xes", "zes")):
        return w[:-2]
    if w.endswith("ing") and len(w) > 4 and _voiced(w[:-3]):
        return _undouble(w[:-3])
    if w.endswith("ed") and not w.endswith("eed") and _voiced(w[:-2]):
        return _undouble(w[:-2])
    if w.endswith("s") and not w.endswith(("ss", "us", "is", "ous")):
        return w[:-1]
    return w


def _key(lemma: str) -> str:
    w = _approx(lemma)
    # A final "e" comes and goes with the suffix ("use", "used", "using"): leave it out.
    if len(w) >= 3 and w.endswith("e") and not w.endswith("ee") and w.isalpha() \
            and _voiced(w[:-1]):
        return w[:-1]
    return w


approx_lemma = WordMemo(_approx)
key = WordMemo(_key)


@cache
def verb_keys() -> frozenset[str]:
    """The match keys of every verb of ``models/lexicon/predicates.json`` ("verbs"): whether
    a word can head a clause, in both modes."""
    return frozenset(key(v) for v in _lex()["verbs"])


def is_verb_form(word: str) -> bool:
    """Whether ``word`` is an inflected form of a lexicon verb ("listens", "failed")."""
    lemma = approx_lemma(word)
    return lemma != lower(word) and key(lemma) in verb_keys()
