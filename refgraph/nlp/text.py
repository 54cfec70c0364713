"""Small text helpers the components share: normalised keys, clause boundaries, word classes."""

from __future__ import annotations

import re
from functools import cache

from ..casing import lower
from ..memo import WordMemo
from ..resources import load_word_list, load_words
from .view import ALPHA, PUNCT, SPACE, DocView

# Punctuation that ends a clause for the rule-based (fast mode) scopes.
CLAUSE_PUNCT = frozenset({",", ";", ":", "(", ")", "—", "–", ".", "!", "?", '"', "“", "”", "[",
                          "]"})


@cache
def stopwords() -> frozenset[str]:
    return load_words("lexicon", "stopwords.txt")


@cache
def common_verbs() -> frozenset[str]:
    return load_words("lexicon", "verbs.txt")


@cache
def clause_openers() -> frozenset[str]:
    return load_words("lexicon", "clause_openers.txt")


def grammar_words(name: str) -> frozenset[str]:
    """A closed word class of ``grammar.json`` ("discourse_words": "hey", "alright",
    "thanks"; "determiners"; ...)."""
    return load_word_list("grammar.json", name)


def norm(word: str) -> str:
    """A lower-cased, crudely singular form: the same in both modes, so keys compare equal."""
    return _NORMS(word)


def _norm(word: str) -> str:
    w = lower(word)
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 4 and w.endswith(("sses", "xes", "ches", "shes")):
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is", "'s")):
        return w[:-1]
    return w


_NORMS = WordMemo(_norm)  # the same few thousand words come back all the time


def is_wordlike(v: DocView, j: int) -> bool:
    """A word: alphabetic, or a letter then digits somewhere ("eu1", "v2beta")."""
    if v.flags(j) & ALPHA:
        return True
    text = v.tok(j)
    return text[:1].isalpha() and any(c.isdigit() for c in text)


def looks_verbal(low: str) -> bool:
    """Whether a lower-cased word is (probably) a verb without a tagger: the common-verb list,
    or a long -ed form."""
    return low in common_verbs() or (len(low) > 5 and low.endswith("ed"))


def clause_bounds(v: DocView, lo: int, hi: int, i: int) -> tuple[int, int]:
    """Token range [start, end) of the clause around token ``i`` within the sentence window
    [lo, hi), by punctuation and openers."""
    openers = clause_openers()
    words, lowers = v.words, v.lowers
    start = i
    while start > lo:
        if words[start - 1] in CLAUSE_PUNCT or (lowers[start - 1] in openers and start - 1 != i):
            break
        start -= 1
    end = i + 1
    while end < hi:
        if words[end] in CLAUSE_PUNCT or lowers[end] in openers:
            break
        end += 1
    return start, end


def trim(v: DocView, start: int, end: int) -> tuple[int, int]:
    """Drop leading/trailing punctuation and spaces from a token range."""
    flags = v.flags
    while start < end and flags(start) & (PUNCT | SPACE):
        start += 1
    while end > start and flags(end - 1) & (PUNCT | SPACE):
        end -= 1
    return start, end


def char_range(v: DocView, start: int, end: int) -> tuple[int, int]:
    """Character offsets of the token range [start, end)."""
    if start >= end:
        at = v.starts[start] if start < len(v.starts) else len(v.text)  # only on empty ranges
        return at, at
    return v.starts[start], v.ends[end - 1]


_DETERMINERS = frozenset({"the", "a", "an", "every", "each", "all", "this", "that", "these",
                          "those", "its", "their", "our", "your", "my", "his", "her", "no"})


DETERMINERS = _DETERMINERS


def verb_by_context(v: DocView, j: int) -> bool:
    """ "table lists every shard": an -s word followed by a determiner is a verb."""
    low = v.low(j)
    return (low.endswith("s") and not low.endswith("ss") and j + 1 < len(v.starts)
            and v.low(j + 1) in _DETERMINERS)


def at_clause_start(v: DocView, lo: int, i: int) -> bool:
    """Whether only punctuation, spaces or a list marker precede token ``i`` in its sentence
    window, which starts at token ``lo``."""
    flags, words = v.flags, v.words
    for k in range(lo, i):
        if not flags(k) & (PUNCT | SPACE) and words[k] not in ("-", "*", "+", "•"):
            return False
    return True


def class_table(classes: dict[str, str]) -> bytes:
    """A ``bytes.translate`` table giving each ASCII character the byte of the first regex
    character class (in ``classes``' order) it belongs to, else a space."""
    table = bytearray(b" " * 256)
    for code in range(128):
        for byte, cls in classes.items():
            if re.fullmatch(cls, chr(code)):
                table[code] = ord(byte)
                break
    return bytes(table)


def ascii_classes(text: str, table: bytes) -> bytes | None:
    """``text`` as one class byte per character (offsets unchanged), or None unless ``text`` is
    ASCII. Finding a pattern of classes with ``bytes.find`` is several times faster than a
    regex that starts with a character class: ``re`` checks such a class at every character."""
    return text.encode("ascii").translate(table) if text.isascii() else None
