"""``refgraph_quantities``: numbers with their units, scale, bounds, ranges and what they measure.

Reads tokens left to right: a number (digits, spelled words, a unicode fraction), an optional
scale word ("20 million"), a unit from the lexicon or pint ("30 seconds", "5 req/s", "°C", "%",
"$"), a bound before or after ("more than 40", "<= 2 s", "40 or more") and a range ("between 2
and 4", "2-4 s"). Digits inside dates, versions, identifiers and handles are skipped. The unit is
normalised with refgraph's pint registry; node data stays plain (no pint objects).
"""

from __future__ import annotations

import bisect
import itertools
import math
import sys
from functools import cache
from typing import Any, NamedTuple

from spacy.language import Language
from spacy.tokens import Doc

from ..casing import lower
from ..memo import WordMemo
from ..model import NodeKind
from ..resources import load_word_list
from ..units import counted_units, lookup_unit, normalise, unit_words
from .lemmas import approx_lemma
from .numbers import (
    CURRENCY_PREFIX,
    SCALE_AFTER_CURRENCY,
    SPELLED_SCALES,
    Num,
    after_name,
    is_label_number,
    is_year,
    lexicon,
    not_a_quantity_at,
    parse_number,
)
from .records import add_attrs, ensure_group, raw_records_of
from .text import common_verbs, norm, stopwords
from .view import ALPHA, NUM, PUNCT, SPACE, DocView, view

SPAN_KEY = "rg_quantities"

def _span_text(v: DocView, start: int, end: int) -> str:
    """``doc[start:end].text``."""
    return v.text[v.starts[start]:v.ends[end - 1]] if end > start else ""


def _match_phrase_before(v: DocView, end: int, lo: int,
                         index: dict[str, list[tuple[tuple[str, ...], str]]]
                         ) -> tuple[int, str] | None:
    if end <= lo:
        return None
    lowers = v.lowers
    for words, bound in index.get(lowers[end - 1], ()):
        s = end - len(words)
        if s >= lo and tuple(lowers[s:end]) == words:
            if s > 0 and v.words[s][:1] in "<>" and v.words[s - 1][-1:] in "-=<" and \
                    not v.ws[s - 1]:
                return None  # "-> 30", "=> 2": an arrow, not a bound
            return s, bound
    return None


def _match_phrase_after(v: DocView, start: int, hi: int,
                        index: dict[str, list[tuple[tuple[str, ...], str]]]
                        ) -> tuple[int, str] | None:
    if start >= hi:
        return None
    lowers = v.lowers
    for words, bound in index.get(lowers[start], ()):
        end = start + len(words)
        if end <= hi and tuple(lowers[start:end]) == words:
            return end, bound
    return None


_POWER_BEFORE = {"sq": 2, "sq.": 2, "square": 2, "cubic": 3, "cu": 3, "cu.": 3}
_POWER_AFTER = {"squared": 2, "cubed": 3, "²": 2, "³": 3}


def _unit_at(v: DocView, j: int, hi: int) -> tuple[str, int] | None:
    """Longest unit starting at token j: (pint expression, end token index); a power written
    as a word before or after it is read too ("sq mi", "cubic metres", "km squared")."""
    if j >= hi:
        return None
    lowers = v.lowers
    power = _POWER_BEFORE.get(lowers[j])
    if power and j + 1 < hi:
        found = _unit_at(v, j + 1, hi)
        if found is not None and "**" not in found[0] and "/" not in found[0]:
            return f"{found[0]} ** {power}", found[1]
    found = _plain_unit_at(v, j, hi)
    if found is not None and found[1] < hi:
        after = _POWER_AFTER.get(lowers[found[1]])
        if after and "**" not in found[0] and "/" not in found[0]:
            return f"{found[0]} ** {after}", found[1] + 1
    return found


@cache
def _unit_phrase_starts() -> frozenset[str]:
    """Every text before a space in a unit word form: what a token must be for a phrase of
    tokens joined by spaces, starting with it, to be a unit ("nautical" of "nautical mile")."""
    return frozenset(form[:k] for form in unit_words() for k, c in enumerate(form) if c == " ")


@cache
def _word_units() -> frozenset[str]:
    """The pint expressions the lexicon's word forms stand for ("second", "minute")."""
    return frozenset(unit_words().values())


def _plain_unit_at(v: DocView, j: int, hi: int) -> tuple[str, int] | None:
    if j >= hi:
        return None
    lowers, ws = v.lowers, v.ws
    # Only a word that some multi-word unit starts with can begin one ("nautical mile").
    phrase = lowers[j] in _unit_phrase_starts()
    # Tokens written without spaces between them: "km/h", "°C", "light-years" (a space after
    # the first token rules out both joins).
    glued = not ws[j]
    if phrase or glued:
        words = unit_words()
        for n in (3, 2):
            if j + n > hi:
                continue
            if phrase:
                joined = " ".join(lowers[j:j + n])
                if joined in words:
                    return words[joined], j + n
            if glued and (n == 2 or not ws[j + 1]):
                hit = lookup_unit("".join(v.words[j:j + n]))
                if hit:
                    return hit, j + n
    text = v.words[j]
    if v.flags(j) & PUNCT and text not in ("%", "°", "‰"):
        return None
    hit = lookup_unit(text)
    if hit is None and text.endswith(".") and len(text) > 1:
        hit = lookup_unit(text[:-1])  # "2 s." at a sentence end: the period is not the unit
    if hit:
        return hit, j + 1
    return None


def _compound(v: DocView, unit: str, j: int, hi: int) -> tuple[str, int]:
    """Extend "req" + "/s" or "miles" + "per hour" into a compound unit."""
    if j + 1 >= hi:
        return unit, j
    lex = lexicon()
    word = v.lowers[j]
    if word in ("/", "per"):
        nxt = _unit_at(v, j + 1, hi)
        if nxt is not None and "/" not in nxt[0]:
            return f"{unit} / {nxt[0]}", nxt[1]
    if word in lex["per"] and word not in ("/", "per"):
        nxt = _unit_at(v, j + 1, hi)
        if nxt is not None and nxt[0] in ("second", "minute", "hour", "day", "week", "month",
                                          "year"):
            return f"{unit} / {nxt[0]}", nxt[1]
    return unit, j


class _Spans(NamedTuple):
    """Sorted character spans with the running maximum of their ends: O(log n) membership.
    (A tuple: one is built per doc, and a frozen dataclass costs more to build.)"""

    starts: list[int]
    max_ends: list[int]

    def covers(self, idx: int) -> bool:
        k = bisect.bisect_right(self.starts, idx)
        return k > 0 and self.max_ends[k - 1] > idx


_EXCLUDED_KINDS = frozenset({NodeKind.IDENTIFIER.value, NodeKind.HANDLE.value})


_NO_SPANS = _Spans([], [])  # never changed: covers() only reads


def _excluded(doc: Doc) -> _Spans:
    """Character spans of identifiers and handles: their digits are not quantities."""
    spans = sorted([(r[1], r[2]) for r in raw_records_of(doc, _EXCLUDED_KINDS)])
    if not spans:
        return _NO_SPANS
    starts = [s for s, _ in spans]
    max_ends = list(itertools.accumulate((e for _, e in spans), max))
    return _Spans(starts, max_ends)


def _measured(doc: Doc, v: DocView, first: int, num_tok: int, unit_end: int,
              accurate: bool, lo: int) -> int | None:
    """What the quantity measures, when the text says so ("the timeout is 30 s" -> timeout):
    a token index. ``lo`` is where ``v.window(first)`` starts."""
    rule = _measured_by_rule(v, first, num_tok, unit_end, lo)
    if rule is not None or not accurate:
        return rule
    tok = doc[num_tok]
    head = tok.head if tok.dep_ in ("nummod", "quantmod", "compound") else tok
    if head.dep_ == "compound" and head.head.i >= unit_end:
        return int(head.head.i)
    if head.dep_ in ("attr", "dobj", "pobj", "npadvmod") and head.i != head.head.i:
        gov = head.head
        if gov.dep_ == "prep" and gov.head.pos_ in ("NOUN", "PROPN"):
            return int(gov.head.i)
        for child in gov.children:
            if child.dep_ in ("nsubj", "nsubjpass") and child.pos_ in ("NOUN", "PROPN"):
                return int(child.i)
    return None


def _measured_by_rule(v: DocView, first: int, num_tok: int, unit_end: int,
                      sent_start: int) -> int | None:
    """ "X is 30 s", "X: 30 s", "X=3", "a budget of 5 GB", "a 30-second timeout"."""
    links = lexicon()["measured_links"]
    words, lowers = v.words, v.lowers
    k = first - 1
    skipped = 0
    while k >= sent_start and skipped <= 3:
        text = words[k]
        if text == "`":
            k -= 1
            continue
        low = lowers[k]
        if low in links or text in ("=", ":", "the", "a", "an"):
            k -= 1
            skipped += 1
            continue
        if skipped == 0 or v.flags(k) & (PUNCT | SPACE | NUM):
            break  # "... budget 30" with no link word is a list, not a measurement
        if low in stopwords() or low in common_verbs() or (len(text) > 5 and low.endswith("ed")):
            break
        return k
    if unit_end < len(words) and unit_end > num_tok + 1 and words[num_tok + 1] == "-":
        low = lowers[unit_end]
        if v.flags(unit_end) & ALPHA and low not in stopwords() and low not in common_verbs():
            return unit_end
    return None


def _counts(doc: Doc, v: DocView, num: Num, accurate: bool) -> bool:
    """Whether a spelled "one" counts a noun ("one replica", "one failing test") rather than
    standing for one ("the one that failed", "no one", "one of them")."""
    if num.end != num.start + 1:
        return False
    if accurate:
        return bool(doc[num.start].dep_ == "nummod")
    if num.start > 0 and v.low(num.start - 1) in ("no", "any", "every", "some", "each",
                                                  "this", "that", "which", "the"):
        return False
    if num.end >= len(v.starts):
        return False
    low = v.low(num.end)
    return bool(v.flags(num.end) & ALPHA) and low not in stopwords() and \
        low not in common_verbs() and not low.endswith(("ly", "ed"))


def _counted_noun(v: DocView, k: int) -> str:
    """The lemma of the plural noun a unitless number counts ("63,250,000 calls" -> "call",
    "30 daily folders" -> "folder"), from the word after it or the one after that; "" when
    there is no plural noun (a stopword, a verb
    form: "3 passed", "2 of them")."""
    if k >= len(v.words) or not k or not v.flags(k) & ALPHA or not v.ws[k - 1]:
        return ""
    low = v.low(k)
    if not low.endswith("s") and k + 1 < len(v.words) and v.ws[k] and v.flags(k + 1) & ALPHA \
            and low not in stopwords():
        low = v.low(k + 1)  # "30 daily folders": one word between
    if len(low) < 4 or not low.endswith("s") or low.endswith("ss") or low in stopwords():
        return ""
    return approx_lemma(low)


def _finite(x: float) -> float:
    """``x``, or the largest float of its sign when a unit conversion overflowed."""
    return x if math.isfinite(x) else math.copysign(sys.float_info.max, x)


def _measured_word(text: str) -> str:
    if "_" in text or any(c.isupper() for c in text[1:]):
        return text  # an identifier keeps its case
    return norm(text)


_key_word = WordMemo(_measured_word)


class QuantityExtractor:
    """spaCy component: see the module docstring."""

    def __init__(self, nlp: Language, name: str, *, use_dependencies: bool) -> None:
        self.name = name
        self.use_dependencies = use_dependencies

    def __call__(self, doc: Doc) -> Doc:
        ensure_group(doc, SPAN_KEY)
        v = view(doc, refresh=True)  # sentence bounds may be new since the last component
        text = v.text
        lex = lexicon()
        if lex["spelled_ascii_re"] is not None and v.lower and text.isascii():
            found = lex["spelled_ascii_re"].finditer(v.lower)  # the same offsets
        else:
            found = lex["spelled_re"].finditer(text)
        first = next(found, None)
        if first is None:
            return doc  # no digit and no number word: nothing to read
        excluded = _excluded(doc)
        accurate = self.use_dependencies and doc.has_annotation("DEP")
        done = -1  # tokens before this index are consumed
        starts = v.starts
        lowers = v.lowers
        # Candidates come from a regex on the text: walking every token would cost more than
        # all the rules together.
        for m in itertools.chain((first,), found):
            i = max(0, bisect.bisect_right(starts, m.start()) - 1)  # v.token_at, inlined
            if i <= done:
                continue
            for k in (i - 1, i) if i > 0 and lowers[i - 1] == "a" else (i,):
                if k <= done:
                    continue
                # All four tests are pure: the cheap ones first (most that fail, fail here).
                if excluded.starts and excluded.covers(starts[k]):
                    continue
                num = parse_number(v, k)
                if num is None or (not num.spelled and is_label_number(v, k)) or \
                        not_a_quantity_at(text, starts[k]):
                    continue
                done = self._emit(doc, v, num, accurate, excluded) - 1
                break
            if i > done:
                done = i
        return doc

    def _emit(self, doc: Doc, v: DocView, num: Num, accurate: bool, excluded: _Spans) -> int:
        """Read the quantity around ``num``, record it, return the token index after it."""
        r = _Reading(v, num, *v.window(num.start))
        r.currency_before()
        r.scale()
        r.unit_after()
        r.negative()
        if num.spelled and r.unit is None and r.value == 1 and \
                not _counts(doc, v, num, accurate):
            return num.end  # "one" alone: a pronoun far more often than a count
        r.range(excluded)
        r.shared_unit()
        if r.unit is None and not num.spelled and is_year(v, num, r.lo) and (
                r.high is None or (r.high.is_integer() and 1000 <= r.high <= 2100)):
            return max(num.end, r.end_tok)  # "in 2019", "between 2014 and 2017": dates
        if r.unit is None and r.high is None and after_name(v, num.start, r.lo):
            return num.end  # "iPhone 12", "S&P 500", "Python 3": part of a name
        r.bounds()
        end = max(r.end_tok, num.end)
        if not math.isfinite(r.value) or (r.high is not None and not math.isfinite(r.high)):
            return end  # scaled past a float's range: no usable magnitude
        start_char, end_char = r.char_span()
        # The window of the first token is the number's unless a word before it was read.
        lo = r.lo if r.first_tok == num.start else v.window(r.first_tok)[0]
        attrs = r.attrs(_measured(doc, v, r.first_tok, num.start, r.end_tok, accurate, lo))
        add_attrs(doc, SPAN_KEY, NodeKind.QUANTITY, start_char, end_char, attrs, "QUANTITY")
        return end


class _Reading:
    """One quantity being read outward from its number: each step may widen the token range
    [first_tok, end_tok) and fill in the unit, scale, range or bound."""

    # One is made per number read: slots make it cheaper to build and to read.
    __slots__ = ("bound", "end_tok", "first_tok", "glued", "hi", "high", "j", "lex", "lo",
                 "num", "start_char", "trim", "unit", "unit_text", "v", "value")

    def __init__(self, v: DocView, num: Num, lo: int, hi: int) -> None:
        self.v, self.num, self.lo, self.hi = v, num, lo, hi
        self.lex = lexicon()
        self.value = num.value
        self.high: float | None = num.high
        self.unit: str | None = None
        self.unit_text = ""
        self.first_tok = num.start
        self.start_char = v.starts[num.start]
        self.j = num.end  # next token to read after the number (and its scale word)
        self.end_tok = num.end
        self.glued = num.glued_unit
        self.bound = num.bound
        self.trim = 0  # characters at the end of the last token that are not the quantity's
        if num.currency:  # "HK$7", "AUD1.5"
            self.unit = num.currency
            self.unit_text = v.tok(num.start).rstrip("0123456789.,")

    def currency_before(self) -> None:
        """ "$5", "USD 20", "€3.5m": a currency written before the number."""
        v, num = self.v, self.num
        if num.start <= self.lo or self.unit is not None:
            return
        p = num.start - 1
        prev = v.words[p]
        cur = CURRENCY_PREFIX.get(prev) or CURRENCY_PREFIX.get(v.lowers[p]) \
            if (prev in CURRENCY_PREFIX or prev.isupper()) else None
        if cur:
            self.unit, self.unit_text = cur, prev
            self.first_tok = p
            self.start_char = v.starts[p]

    def scale(self) -> None:
        """ "20 million", "5k", "$3.5bn"; "the 1960s" is a decade, not seconds."""
        v, num, j = self.v, self.num, self.j
        scale_words: dict[str, float] = self.lex["scale"]
        if self.glued:
            low = lower(self.glued)
            if self.unit and low.rstrip(".") in SCALE_AFTER_CURRENCY:
                self.value *= SCALE_AFTER_CURRENCY[low.rstrip(".")]
                self.trim = len(self.glued) - len(self.glued.rstrip("."))  # "$2.1T." ends a
                self.glued = ""  # sentence: its full stop is no part of the quantity
            elif self.glued in ("k", "K"):
                self.value *= 1e3
                self.glued = ""
            elif self.glued == "s" and self.value.is_integer() and 1500 <= self.value < 2100 \
                    and self.value % 10 == 0:
                self.glued = ""
        elif j < self.hi and v.lowers[j] in scale_words and v.flags(j) & ALPHA and (
                (not num.spelled and (len(v.words[j]) > 2 or self.unit is not None
                                      # "63.25M": a capital scale letter glued to the number
                                      or (v.words[j] in _GLUED_SCALES and j > 0
                                          and not v.ws[j - 1])
                                      # "3 bn", "2 MM": spaced, still a scale
                                      or (v.words[j] in _SPACED_SCALES and (
                                          j + 1 >= self.hi or not v.words[j + 1][:1].isupper()))))
                or (num.spelled and v.lowers[j] in SPELLED_SCALES)):
            self.value *= scale_words[v.low(j)]
            j += 1
            # "4 hundred million": each further scale word is larger than the one before
            while j < self.hi and v.low(j) in SPELLED_SCALES and \
                    scale_words[v.low(j)] > scale_words[v.low(j - 1)]:
                self.value *= scale_words[v.low(j)]
                j += 1
            self.j = j
        self.end_tok = self.j

    def unit_after(self) -> None:
        """The unit after the number (glued or separate), unless a currency came first."""
        v, j, hi = self.v, self.j, self.hi
        if self.glued:
            hit = lookup_unit(self.glued) or lookup_unit(self.glued.rstrip(".,;:"))
            if hit and self.unit is None:
                self.unit, self.unit_text = hit, self.glued
            self.end_tok = self.num.end
        elif self.unit is None:
            words, lowers = v.words, v.lowers
            if self.num.vague and j + 1 < hi and lowers[j] == "of":
                j += 1  # "hundreds of miles"
            found = _unit_at(v, j, hi)
            skip = 0
            if found is None and j + 1 < hi and words[j] == "-" and \
                    not v.ws[j - 1] and not v.ws[j]:
                found = _unit_at(v, j + 1, hi)  # "a 30-second timeout"
                if found is not None and found[0] not in _word_units():
                    found = None
                skip = 1
            elif found is None and j + 1 < hi and lowers[j] in self.lex["unit_adjectives"]:
                found = _unit_at(v, j + 1, hi)  # "5 business days", "3 full minutes"
                skip = 1
            if found is not None:
                u0 = j + skip if words[j] == "-" else j
                self.unit, self.end_tok = _compound(v, found[0], found[1], hi)
                self.unit_text = _span_text(v, u0, self.end_tok)
            elif j < hi and words[j] == "%":
                self.unit, self.unit_text, self.end_tok = "percent", "%", j + 1
            elif j < hi and not v.ws[j - 1] and self._inch_mark(words[j]):
                self.unit, self.unit_text, self.end_tok = "inch", words[j], j + 1

        elif self.unit_text and self.end_tok == j and (
                self.num.currency or self.unit_text == v.tok(self.first_tok)):
            self.unit, self.end_tok = _compound(v, self.unit, j, hi)  # "$15.4/hour"
            if self.end_tok > j:
                self.unit_text = f"{self.unit_text} {_span_text(v, j, self.end_tok)}"

    def _inch_mark(self, mark: str) -> bool:
        """ '8"' and '8″' are inches, unless the '"' closes a quotation ('set it to "8"')."""
        if mark == "″":
            return True
        if mark != '"':
            return False
        v = self.v
        start = v.starts[self.num.start]
        text = v.text
        sent_start = v.starts[self.lo]
        before = text[start - 1] if start > 0 else " "
        return before.isspace() and text.count('"', sent_start, start) % 2 == 0

    def negative(self) -> None:
        """ "minus 5", "negative 3", "minus-5 yards"."""
        v, start, lo = self.v, self.num.start, self.lo
        if start <= lo:
            return
        before = v.lowers[start - 1]
        if before in ("minus", "negative") or (
                start > lo + 1 and before == "-" and v.lowers[start - 2] == "minus"):
            self.value = -self.value
            self.first_tok = start - (1 if before != "-" else 2)
            self.start_char = v.starts[self.first_tok]

    def range(self, excluded: _Spans) -> None:
        """ "2-4 s", "2 to 4 seconds", "between 2 and 4"; "from 44 ml to 50 mg" is two."""
        v, lex, hi = self.v, self.lex, self.hi
        k = self.end_tok if self.high is None else hi
        joiner = v.lowers[k] if k + 1 < hi else ""
        if joiner not in lex["range_joiners"]:
            return
        opener = self.num.start > self.lo and \
            v.low(self.first_tok - 1) in lex["range_openers"]
        if not (joiner in ("-", "–", "—", "to", "through") or opener):
            return  # "2 and 4", "2 or 3" join a range only after "between" or "from"
        # The tests are pure: parsing first spares the window scan when no number follows.
        nxt = v.starts[k + 1]
        other = None if excluded.covers(nxt) else parse_number(v, k + 1)
        if other is None or not_a_quantity_at(v.text, nxt):
            return
        scale_words: dict[str, float] = lex["scale"]
        hv = other.value
        e2 = other.end
        if e2 < hi and not other.spelled and v.low(e2) in scale_words \
                and len(v.tok(e2)) > 2:
            hv *= scale_words[v.low(e2)]
            e2 += 1
        u2 = _unit_at(v, e2, hi) if not other.glued_unit else None
        if u2 is None and not other.glued_unit and e2 + 1 < hi and v.tok(e2) == "-" and \
                not v.ws[e2 - 1] and not v.ws[e2]:
            u2 = _unit_at(v, e2 + 1, hi)  # "5- to 10-minute"
            if u2 is not None and u2[0] in _word_units():
                e2 += 1
            else:
                u2 = None
        if u2 is not None and self.unit is not None and u2[0] != self.unit:
            return
        if u2 is None and not other.glued_unit and self.unit is not None and not self.num.currency \
                and self.first_tok == self.num.start and joiner not in ("-", "–", "—"):
            return  # "rose 0.7 percent to 6,327.80": a change and a level, not a range
        if u2 is not None:
            unit2, e3 = _compound(v, u2[0], u2[1], hi)
            if self.unit is None:
                self.unit, self.unit_text = unit2, _span_text(v, e2, e3)
            e2 = e3
        elif other.glued_unit and self.unit is None:
            hit = lookup_unit(other.glued_unit)
            if hit:
                self.unit, self.unit_text = hit, other.glued_unit
        if hv >= self.value:
            self.high = hv
            self.end_tok = e2

    def shared_unit(self) -> None:
        """ "45 or 50 mg", "7- or 8-inch", "2, 4 and 8 GB", "81 of 102 GB": a unitless number
        takes the unit of the coordinated number that follows it (each stays its own
        quantity)."""
        v, hi = self.v, self.hi
        if self.unit is not None or self.high is not None:
            return
        k = self.end_tok
        lowers = v.lowers
        if k < hi and lowers[k] == "-" and not v.ws[k - 1]:
            k += 1  # "7- or 8-inch": a suspended hyphen
        for _ in range(8):  # "2, 4, 6 and 8 GB": a short list at most
            if k + 1 >= hi or lowers[k] not in (",", "and", "or", "&", "of", "out"):
                return
            if lowers[k] == "out" and k + 1 < hi and lowers[k + 1] == "of":
                k += 1  # "81 out of 102 GB"
            k += 1
            if v.low(k) in ("and", "or") and v.tok(k - 1) == ",":
                k += 1
            other = parse_number(v, k) if k < hi else None
            if other is None or other.spelled != self.num.spelled or other.currency:
                return
            nxt = _Reading(v, other, self.lo, hi)
            nxt.scale()
            nxt.unit_after()
            if nxt.unit is not None:
                self.unit, self.unit_text = nxt.unit, nxt.unit_text
                return
            k = nxt.end_tok
            if k < hi and v.tok(k) == "-" and not v.ws[k - 1]:
                k += 1

    def bounds(self) -> None:
        """Bounds before ("more than 40", "<= 2") or after ("40 or more") the number."""
        v, lex, lo, hi = self.v, self.lex, self.lo, self.hi
        b = _match_phrase_before(v, self.first_tok, lo, lex["before_phrases"])
        if b is None and self.first_tok > lo and \
                v.low(self.first_tok - 1) in lex["range_openers"]:
            b = (self.first_tok - 1, "=") if self.high is not None else None
        if b is not None:
            self.first_tok, self.bound = b
            self.start_char = v.starts[self.first_tok]
            return
        end = self.end_tok
        a = _match_phrase_after(v, end, hi, lex["after_phrases"])
        if a is None or (v.tok(end) == "+" and v.ws[end]
                         and end + 1 < hi and v.flags(end + 1) & NUM):
            return
        self.end_tok, self.bound = a
        if self.unit is None:  # "40 or more replicas"
            found = _unit_at(v, self.end_tok, hi)
            if found is not None:
                u0 = self.end_tok
                self.unit, self.end_tok = _compound(v, found[0], found[1], hi)
                self.unit_text = _span_text(v, u0, self.end_tok)

    def char_span(self) -> tuple[int, int]:
        """Exact character offsets; a sentence's full stop after a unit ("2 s.") is left out."""
        v = self.v
        end_char = v.ends[self.end_tok - 1]
        if self.unit_text.endswith(".") and lookup_unit(self.unit_text) is None and \
                v.text[end_char - 1] == ".":
            end_char -= 1
            self.unit_text = self.unit_text[:-1]
        glued = self.glued
        if glued and self.end_tok == self.num.end and self.unit_text and \
                not self.unit_text.endswith(glued):
            end_char = self.num.glued_at + len(glued)
        if self.end_tok == self.num.end:
            end_char -= self.trim
        return self.start_char, end_char

    def attrs(self, measured: int | None) -> dict[str, Any]:
        """Plain node data: magnitudes as floats, the unit normalised by pint."""
        value, high, unit = self.value, self.high, self.unit
        attrs: dict[str, Any] = {"magnitude": float(value), "bound": self.bound,
                                 "spelled": self.num.spelled}
        if self.num.total is not None:
            attrs["total"] = float(self.num.total)
        if high is not None:
            attrs["magnitude_high"] = float(high)
        if unit:
            normd = normalise(value, unit)
            if normd is not None and not math.isnan(normd.base_magnitude):
                # "1e308 km" is finite but its metres are not: the unit stays and the base
                # value saturates at the largest float (node data are never inf).
                attrs.update(unit=normd.unit, unit_text=self.unit_text,
                             base_magnitude=_finite(normd.base_magnitude),
                             base_unit=normd.base_unit)
                if normd.base_unit in counted_units():
                    attrs["counted"] = True  # "5,461 rows": a count, not a measurement
                if high is not None:
                    nh = normalise(high, unit)
                    if nh is not None and not math.isnan(nh.base_magnitude):
                        attrs["base_magnitude_high"] = _finite(nh.base_magnitude)
        if "unit" not in attrs:
            attrs["base_magnitude"] = float(value)
            noun = _counted_noun(self.v, self.end_tok) if value != 1 else ""
            if noun:
                attrs["noun"] = noun  # "63,250,000 calls": what is counted, as a lemma
        if measured is not None:
            v = self.v
            attrs["measured"] = _key_word(v.tok(measured))
            attrs["measured_start"] = v.starts[measured]
            attrs["measured_end"] = v.ends[measured]
            if "unit" not in attrs and lower(str(attrs["measured"])) in _dimensioned():
                attrs["needs_unit"] = True
        return attrs


_GLUED_SCALES = frozenset({"M", "B", "K", "k", "bn", "mn", "MM"})
# Scale letters that mean a scale even apart from the number ("K" is also kelvin, "B" bytes,
# and "2.31 M" a molarity)
_SPACED_SCALES = frozenset({"MM", "bn", "mn"})


@cache
def _dimensioned() -> frozenset[str]:
    """Things measured in a unit (``quantities.json``): a bare number for one is unitless."""
    return load_word_list("quantities.json", "dimensioned_terms")


@Language.factory(
    "refgraph_quantities",
    default_config={"use_dependencies": True},
    assigns=["doc.spans", "doc._.rg_records"],
    requires=["doc._.rg_records"],
)
def make_quantities(nlp: Language, name: str, use_dependencies: bool) -> QuantityExtractor:
    return QuantityExtractor(nlp, name, use_dependencies=use_dependencies)
