"""A per-doc cache of what every component reads: the text, token offsets, sentence bounds.

``doc.text`` rebuilds the string from tokens on every access and iterating a doc creates a
Python ``Token`` per token; both dominate the cost of rule components on long contexts. The
view is computed once per doc (from ``doc.to_array``, no Token objects) and kept in
``doc.user_data``, so components look tokens up by character offset with a bisect.
"""

from __future__ import annotations

import bisect
import importlib
import operator
from collections.abc import Callable
from typing import Any, NamedTuple

from spacy.language import Language
from spacy.tokens import Doc

from ..casing import lower

_KEY = "rg_view"
RADIUS = 80  # tokens: the widest window a rule looks at around a cue
SEED_KEY = "rg_text"  # set by a caller that already holds the text (doc.text rebuilds it)
NO_SPANS_KEY = "rg_no_spans"  # set on docs made only to build a graph
FINAL_KEY = "rg_view_final"  # set by a caller that runs no more annotating spaCy pipes


_EMPTY: list[int] = []  # default of the per-token lists (never mutated)
_EMPTY_STR: list[str] = []


class DocView(NamedTuple):
    """Kept in ``doc.user_data`` as is: a tuple, so ``doc.to_bytes()`` still serialises it.

    Rules read tokens through it instead of ``doc[i]``, which creates a ``Token`` per lookup:
    ``v.tok(i)`` is ``doc[i].text``, ``v.low(i)`` ``doc[i].lower_``, ``v.ws[i]`` whether
    ``doc[i].whitespace_`` is a space, ``v.flags(i)`` the lexical flags (see :data:`PUNCT`).
    """

    text: str
    starts: list[int]  # character offset of each token
    sent_starts: list[int]  # token index where each sentence starts (always holds 0)
    has_sents: bool = False  # whether sentence boundaries were set when it was computed
    ends: list[int] = _EMPTY  # character offset after each token
    ws: list[int] = _EMPTY  # 1 when the token is followed by a space (``whitespace_ == " "``)
    lower: str = ""  # ``text.lower()`` when that keeps every offset, else ""
    flag_key: int = 0  # which lexical-flag table ``flags`` reads (one per set of getters)
    lows: list[int] = _EMPTY  # ``doc[i].lower``: the lower-cased form's string id
    # Each token's text and lower-cased text, sliced once: rules read them many times each.
    words: list[str] = _EMPTY_STR
    lowers: list[str] = _EMPTY_STR

    def tok(self, i: int) -> str:
        """``doc[i].text``."""
        return self.words[i]

    def low(self, i: int) -> str:
        """``doc[i].lower_``."""
        return self.lowers[i]

    def flags(self, i: int) -> int:
        """Lexical flags of token ``i``: ``PUNCT | ALPHA | NUM | SPACE`` bits, as
        ``doc[i].is_punct``, ``.is_alpha``, ``.like_num``, ``.is_space`` say."""
        return _word_flags(self.flag_key, self.words[i])

    def is_sent_start(self, i: int) -> bool:
        """``doc[i].is_sent_start is True``."""
        k = bisect.bisect_left(self.sent_starts, i)
        return k < len(self.sent_starts) and self.sent_starts[k] == i

    def token_at(self, char: int) -> int:
        """Index of the token that contains (or starts after) character ``char``."""
        return max(0, bisect.bisect_right(self.starts, char) - 1)

    def window(self, i: int) -> tuple[int, int]:
        """Token range [start, end) of the sentence holding token ``i``, at most ``RADIUS``
        tokens either side of ``i``.

        Rules scan "to the end of the sentence"; a log dump or a list with no full stop can be
        one sentence of 50,000 tokens, and scanning it once per cue would be quadratic. No
        scope, clause or measured thing is wider than the window.
        """
        k = bisect.bisect_right(self.sent_starts, i) - 1
        start = self.sent_starts[k]
        end = self.sent_starts[k + 1] if k + 1 < len(self.sent_starts) else len(self.starts)
        return max(start, i - RADIUS), min(end, i + RADIUS + 1)


def view(doc: Doc, *, refresh: bool = False) -> DocView:
    """The doc's view, computed on first use and kept in ``doc.user_data``.

    Each component calls it once with ``refresh=True`` (a component may run after a
    sentencizer that ran after the previous one); lookups inside a component reuse it.
    ``has_annotation`` scans every token, so it must not run per lookup.
    """
    data = doc.user_data
    cached = data.get(_KEY)
    # The common case first: components look the view up thousands of times per doc.
    if type(cached) is DocView and (not refresh or FINAL_KEY in data) and \
            len(cached.starts) == len(doc):
        return cached
    if cached is not None and len(cached[1]) == len(doc) and len(cached) == _FIELDS:
        if type(cached) is not DocView:
            cached = data[_KEY] = DocView(*cached)  # a list again after doc.from_bytes()
        if not refresh or data.get(FINAL_KEY):
            return cached
        has_sents: bool | None = doc.has_annotation("SENT_START")
        if cached.has_sents == has_sents:
            return cached
    else:
        has_sents = None  # read from the token array (see _compute)
    result = data[_KEY] = _compute(doc, _text(doc), has_sents)
    return result


def _text(doc: Doc) -> str:
    """The doc's text: as seeded (see :func:`seed`), else rebuilt by spaCy."""
    seeded = doc.user_data.get(SEED_KEY)
    return seeded if isinstance(seeded, str) else doc.text


_FIELDS = len(DocView._fields)
PUNCT, ALPHA, NUM, SPACE = 1, 2, 4, 8  # bits of DocView.flags
_IDS: dict[str, int] = importlib.import_module("spacy.attrs").IDS  # no type stubs
# Attribute ids, not names: to_array would look each name up on every call.
_ATTRS: list[int | str] = [_IDS[a] for a in ("IDX", "LENGTH", "SPACY", "SENT_START", "LOWER")]
_FLAG_ATTRS = ((_IDS["IS_PUNCT"], PUNCT), (_IDS["IS_ALPHA"], ALPHA), (_IDS["LIKE_NUM"], NUM),
               (_IDS["IS_SPACE"], SPACE))
# Lexical flags by word, one table per set of getter functions (every English pipeline shares
# one): spaCy computes a lexeme's flags with exactly these functions.
_FLAG_TABLES: list[tuple[tuple[Callable[[str], Any], ...], dict[str, int]]] = []


def _flag_key(doc: Doc) -> int:
    getters = getattr(doc.vocab, "lex_attr_getters")  # noqa: B009  (not in the stubs)
    funcs = tuple(getters[attr] for attr, _ in _FLAG_ATTRS)
    for k, (known, _) in enumerate(_FLAG_TABLES):
        if known == funcs:
            return k
    _FLAG_TABLES.append((funcs, {}))
    return len(_FLAG_TABLES) - 1


def _word_flags(key: int, word: str) -> int:
    """The flags of ``word`` by flag table ``key`` (see :meth:`DocView.flags`)."""
    table = _FLAG_TABLES[key]
    found = table[1].get(word)
    return found if found is not None else _flags_of(table, word)


def _flags_of(table: tuple[tuple[Callable[[str], Any], ...], dict[str, int]], word: str) -> int:
    value = 0
    for func, (_, bit) in zip(table[0], _FLAG_ATTRS, strict=True):
        if func(word):
            value |= bit
    if len(table[1]) < 1_000_000:  # a bound on the memory an adversarial text can take
        table[1][word] = value
    return value


def _compute(doc: Doc, text: str, has_sents: bool | None = None,
             sentence_punct: frozenset[str] | None = None) -> DocView:
    """The view; ``has_sents`` is ``doc.has_annotation("SENT_START")``, or None to work it out
    here from the token array that is read anyway. With ``sentence_punct``, sentence starts
    are not read from the doc but found as spaCy's sentencizer with those characters would
    set them (see :func:`finalize`)."""
    key = _flag_key(doc)
    if not len(doc):
        if sentence_punct is not None:
            has_sents = True  # what has_annotation says of an empty doc after a sentencizer
        elif has_sents is None:
            has_sents = doc.has_annotation("SENT_START")
        return DocView(text, [], [0], has_sents, [], [], lower(text), key, [], [], [])
    arr = doc.to_array(_ATTRS)  # one pass in C: no Token objects
    starts, lengths, ws, sent_start, lows = arr.T.tolist()
    ends = list(map(operator.add, starts, lengths))
    words = [text[a:b] for a, b in zip(starts, ends, strict=True)]
    if sentence_punct is not None:
        has_sents = True
        sent_starts = _sentencize(words, key, sentence_punct)
    else:
        if has_sents is None:
            # has_annotation("SENT_START") is true when a token after the first has a boundary
            # set or unset explicitly (a non-zero value), else only for a doc of one token or
            # with a "sents" hook: the array answers the usual case without a scan in spaCy.
            has_sents = any(sent_start[1:]) or doc.has_annotation("SENT_START")
        sent_starts = [0]
        if has_sents:
            # A parser's boundaries are guesses to check; a sentencizer's are its rule.
            parsed = doc.has_annotation("DEP")
            sent_starts += [i for i, s in enumerate(sent_start) if s == 1 and i and (
                not parsed or _ends_sentence(text, words, ends, starts, i))]
    lowered = lower(text)
    if len(lowered) == len(text):
        lowers = [lowered[a:b] for a, b in zip(starts, ends, strict=True)]
    else:  # lower-casing changed a length ("İ"): per token, as spaCy does
        lowered = ""
        lowers = [lower(w) for w in words]
    return DocView(text, starts, sent_starts, has_sents, ends, ws, lowered, key, lows, words,
                   lowers)


_FULL_STOPS = frozenset(".!?;:…")
_MARKERS = frozenset({"-", "*", "+", "•", ">"})
_CLOSERS = frozenset(")]}\"'”’»")


def _ends_sentence(text: str, words: list[str], ends: list[int], starts: list[int],
                   i: int) -> bool:
    """Whether a parser's sentence start at token ``i`` follows a sentence's end: a full stop
    (or one inside a closing quote or bracket) or a line break. The parser also guesses
    boundaries inside verbless notes ("olive oil 7 × 5 | L tins"); a quantity, scope or clause
    must not be cut there."""
    k = i - 1
    if k > 0 and words[k] in _MARKERS:
        k -= 1  # "\n- The customer": a list item's marker opens the sentence
    while k > 0 and words[k].isspace():  # spaCy makes "\n" and runs of spaces tokens
        if "\n" in words[k]:
            return True
        k -= 1
    if "\n" in text[ends[k]:starts[i]] or words[k].isspace():
        return True
    last = words[k][-1:]
    if last in _FULL_STOPS:
        return True
    return last in _CLOSERS and k >= 1 and words[k - 1][-1:] in _FULL_STOPS


def _sentencize(words: list[str], key: int, punct: frozenset[str]) -> list[int]:
    """Sentence starts as ``spacy.pipeline.Sentencizer`` sets them: a sentence starts at the
    first token, and at each token that is neither punctuation nor one of ``punct`` after a
    token in ``punct`` (a closing quote or bracket after the full stop stays in the sentence).
    """
    found = [0]
    seen_period = False
    for i, word in enumerate(words):
        if word in punct:
            seen_period = True
        elif seen_period and not _word_flags(key, word) & PUNCT:
            found.append(i)  # i > 0: nothing is seen before the first token
            seen_period = False
    return found


def finalize(doc: Doc, sentence_punct: frozenset[str] | None = None) -> DocView:
    """Compute the view once more and keep it for the doc's remaining components.

    For a caller (the block parser) that runs spaCy's own pipes first and only refgraph's
    components after them: nothing can change sentence bounds any more, so the components'
    ``view(doc, refresh=True)`` need not rescan the doc. A caller whose only spaCy pipe is a
    sentencizer may skip it on a doc fresh from the tokenizer (no sentence starts set) and pass
    its punctuation characters as ``sentence_punct``: the view then holds the sentences that
    pipe would have set (the doc itself gets none), which costs a tenth of running it (it
    makes a Python ``Token`` per token).
    """
    if sentence_punct is None:
        v = view(doc, refresh=True)
    else:
        v = doc.user_data[_KEY] = _compute(doc, _text(doc), sentence_punct=sentence_punct)
    doc.user_data[FINAL_KEY] = True
    return v


def make_doc(nlp: Language, text: str, *, spans: bool = True) -> Doc:
    """``nlp.make_doc(text)`` that remembers ``text``, so components need not rebuild it."""
    return seed(nlp.make_doc(text), text, spans=spans)


def seed(doc: Doc, text: str, *, spans: bool = True) -> Doc:
    """Remember ``doc``'s text; ``spans=False`` skips mirroring records into ``doc.spans``
    (the graph needs records only)."""
    doc.user_data[SEED_KEY] = text
    if not spans:
        doc.user_data[NO_SPANS_KEY] = True
    return doc
