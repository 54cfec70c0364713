"""Small text helpers the components share: normalised keys, clause boundaries, word classes."""

from __future__ import annotations

from functools import cache

from spacy.tokens import Doc, Span, Token

from ..resources import load_words

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


def norm(word: str) -> str:
    """A lower-cased, crudely singular form: the same in both modes, so keys compare equal."""
    w = word.lower()
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 4 and w.endswith(("sses", "xes", "ches", "shes")):
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is", "'s")):
        return w[:-1]
    return w


def is_wordlike(tok: Token) -> bool:
    return bool(tok.is_alpha or (tok.text[:1].isalpha() and any(c.isdigit() for c in tok.text)))


def looks_verbal(tok: Token, accurate: bool) -> bool:
    """Whether a token is (probably) a verb: the tagger says so, else a common-verb list."""
    if accurate and tok.pos_:
        return tok.pos_ in {"VERB", "AUX"}
    low = tok.lower_
    return low in common_verbs() or (len(low) > 5 and low.endswith("ed"))


def clause_bounds(doc: Doc, sent: Span, i: int) -> tuple[int, int]:
    """Token range [start, end) of the clause around token ``i``, by punctuation and openers."""
    start = i
    while start > sent.start:
        prev = doc[start - 1]
        if prev.text in CLAUSE_PUNCT or (prev.lower_ in clause_openers() and start - 1 != i):
            break
        start -= 1
    end = i + 1
    while end < sent.end:
        tok = doc[end]
        if tok.text in CLAUSE_PUNCT or tok.lower_ in clause_openers():
            break
        end += 1
    return start, end


def trim(doc: Doc, start: int, end: int) -> tuple[int, int]:
    """Drop leading/trailing punctuation and spaces from a token range."""
    while start < end and (doc[start].is_punct or doc[start].is_space):
        start += 1
    while end > start and (doc[end - 1].is_punct or doc[end - 1].is_space):
        end -= 1
    return start, end


def char_range(doc: Doc, start: int, end: int) -> tuple[int, int]:
    """Character offsets of the token range [start, end)."""
    if start >= end:
        at = doc[start].idx if start < len(doc) else len(doc.text)  # only on empty ranges
        return at, at
    last = doc[end - 1]
    return doc[start].idx, last.idx + len(last.text)


_DETERMINERS = frozenset({"the", "a", "an", "every", "each", "all", "this", "that", "these",
                          "those", "its", "their", "our", "your", "my", "his", "her", "no"})


DETERMINERS = _DETERMINERS


def verb_by_context(doc: Doc, j: int) -> bool:
    """ "table lists every shard": an -s word followed by a determiner is a verb."""
    tok = doc[j]
    low = tok.lower_
    return (low.endswith("s") and not low.endswith("ss") and j + 1 < len(doc)
            and doc[j + 1].lower_ in _DETERMINERS)


def at_clause_start(doc: Doc, sent: Span, i: int) -> bool:
    """Whether only punctuation, spaces or a list marker precede token ``i`` in its sentence."""
    return all(t.is_punct or t.is_space or t.text in ("-", "*", "+", "•")
               for t in doc[sent.start:i])
