"""Numbers in text: digits, spelled numbers, fractions, scientific notation, and the digit
strings that are not quantities at all (dates, clock times, versions, addresses, codes, years,
names such as "Python 3").

The quantity component (``quantities.py``) reads units, bounds and ranges around what this
module parses; the lexicons are ``models/lexicon/quantities.json`` and
``models/patterns/not_quantities.json``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from ..casing import lower
from ..resources import load_json
from ..units import lookup_unit
from .view import DocView

NUMBER = re.compile(
    r"^[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][+-]?\d{1,3})?$|^[+-]?\.\d+$")
TIMES_TEN = re.compile(r"^(\d+(?:\.\d+)?)(?:×10\^?|[xX]10\^)([−-]?\d{1,3})$")
TIMES_TEN_HEAD = re.compile(r"^(?:(\d+(?:\.\d+)?)[×xX])?(\d+)$")  # "3x10" / "2" before "^", "8"
EXPONENT = re.compile(r"[−-]?\d{1,3}")
PLUS_MINUS = re.compile(r"^([+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)±(?:\d+(?:\.\d+)?)$")
NAME_WORD = re.compile(r"^(?=[A-Za-z])[A-Za-z&]*[A-Z][A-Za-z&]*$")  # a capital anywhere: "iPhone"
MINUS_WORD = re.compile(r"^(?:minus|negative)-(?=[\d.])", re.IGNORECASE)  # "minus-130"
FRACTION = re.compile(r"^(\d{1,3})/(\d{1,3})$")
RANGE_TOKEN = re.compile(r"^(\d+(?:\.\d+)?)[–—](\d+(?:\.\d+)?)$")
NUMBER_GLUED = re.compile(r"^([+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)([A-Za-z%°µμ$€£″]+\S*)$")
CURRENCY_PREFIX = {"$": "USD", "US$": "USD", "$US": "USD", "€": "EUR", "£": "GBP", "¥": "JPY",
                   "₹": "INR", "A$": "AUD", "AU$": "AUD", "$A": "AUD", "C$": "CAD", "CA$": "CAD",
                   "NZ$": "NZD", "HK$": "HKD", "S$": "SGD", "R$": "BRL", "RM": "MYR", "Rs": "INR",
                   "Rs.": "INR", "₩": "KRW", "₽": "RUB", "₪": "ILS",
                   "usd": "USD", "eur": "EUR", "gbp": "GBP", "jpy": "JPY", "chf": "CHF",
                   "cad": "CAD", "aud": "AUD", "inr": "INR", "cny": "CNY", "rmb": "CNY",
                   "nzd": "NZD", "hkd": "HKD", "sgd": "SGD", "brl": "BRL", "myr": "MYR",
                   "sek": "SEK", "nok": "NOK", "dkk": "DKK", "krw": "KRW", "zar": "ZAR",
                   "mxn": "MXN", "rub": "RUB", "ils": "ILS"}
CURRENCY_GLUED = re.compile(
    r"^([A-Z]{1,3}\$|\$[A-Z]{1,2}|[A-Z]{2,3}|Rs\.?)((?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)$")
_CURRENCY_FIRST = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ$")  # where CURRENCY_GLUED can begin
SPELLED_SCALES = frozenset({"thousand", "million", "billion", "trillion"})
SCALE_AFTER_CURRENCY = {"k": 1e3, "m": 1e6, "mn": 1e6, "mln": 1e6, "b": 1e9, "bn": 1e9, "t": 1e12,
                         "tn": 1e12}


@cache
def lexicon() -> dict[str, Any]:
    data: dict[str, Any] = load_json("lexicon", "quantities.json")
    units = load_json("lexicon", "units.json")
    # The word lists are only ever asked for membership, once per number or more.
    for key in ("range_joiners", "range_openers", "measured_links", "label_nouns", "year_before",
                "unit_adjectives", "not_names", "glued_letter_units"):
        data[key] = frozenset(data[key])
    data["scale"] = units["scale"]
    data["per"] = set(units["per"])
    # Bound phrases indexed by the word next to the number, longest first, so a number costs
    # one dict lookup on each side instead of a scan of every phrase.
    data["before_phrases"] = _index(data["bounds_before"], last=True)
    data["before_words"] = frozenset(w for p in data["bounds_before"] for w in p.split())
    data["after_phrases"] = _index(data["bounds_after"], last=False)
    words = [*data["spelled"], *data["vague"]]
    # Digit runs, or number words as whole words (the longest first). The words are a trie
    # and a lookahead on every candidate's first character lets the engine skip ahead: an
    # alternation of every word tried at each character was a third of the component.
    first = "".join(sorted({w[0] for w in words}))
    data["spelled_re"] = re.compile(
        rf"(?=[0-9{_FRACTION_CHARS}{re.escape(first)}])"
        rf"(?:[0-9{_FRACTION_CHARS}]+|\b(?:{_trie(words)})\b)", re.IGNORECASE)
    # The same on the lower-cased text of an ASCII doc, case-sensitively (twice as fast): there
    # ignoring case is lower-casing, as only non-ASCII letters ("K", "ſ", "ı") fold otherwise.
    lowered = [lower(w) for w in words]
    first = "".join(sorted({w[0] for w in lowered}))
    data["spelled_ascii_re"] = re.compile(
        rf"(?=[0-9{_FRACTION_CHARS}{re.escape(first)}])"
        rf"(?:[0-9{_FRACTION_CHARS}]+|\b(?:{_trie(lowered)})\b)"
    ) if all(w.isascii() for w in words) else None
    return data


_FRACTION_CHARS = "½¼¾⅓⅔⅕⅛⅜⅝⅞"


def _trie(words: list[str]) -> str:
    """A regex matching exactly ``words``, factored by common prefixes; at each branch the
    longer continuation is tried first (as a longest-first alternation would)."""
    root: dict[str, Any] = {}
    for word in words:
        node = root
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict[str, Any]) -> str:
        alts = [re.escape(ch) + emit(sub) for ch, sub in sorted(node.items()) if ch]
        if not alts:
            return ""
        if len(alts) == 1 and "" not in node:
            return alts[0]
        body = "(?:" + "|".join(alts) + ")"
        return body + "?" if "" in node else body

    return emit(root)


def _index(phrases: dict[str, str], *, last: bool) -> dict[str, list[tuple[tuple[str, ...], str]]]:
    index: dict[str, list[tuple[tuple[str, ...], str]]] = {}
    for phrase, bound in phrases.items():
        whole = tuple(phrase.split())
        # "approx." is one token or two ("approx" "."), as the tokenizer's exceptions decide:
        # an abbreviation is indexed both ways.
        split = tuple(t for w in whole for t in (
            (w[:-1], ".") if len(w) > 1 and w.endswith(".") and w[:-1].isalpha() else (w,)))
        for words in {whole, split}:
            index.setdefault(words[-1] if last else words[0], []).append((words, bound))
    for items in index.values():
        items.sort(key=lambda wb: -len(wb[0]))
    return index


@cache
def _not_quantity_re() -> re.Pattern[str]:
    """All not-a-quantity patterns as one alternation (file order decides ties)."""
    parts = []
    for p in load_json("patterns", "not_quantities.json")["patterns"]:
        cased = not p.startswith("(?i)")
        body = p if cased else p[4:]
        if body.startswith(r"\b\d"):
            # Where the lookahead below lets a match begin, "\b\d" is "\d": before a word
            # character the lookahead has checked the boundary, and at a "#" \d fails either
            # way. Without the "\b" the engine skips the pattern at a letter in one test.
            body = body[2:]
        parts.append(f"(?:{body})" if cased else f"(?i:{body})")
    # Every pattern starts at the start of a word or at a "#": checking that once per
    # character, before trying each pattern, halves the scan (the matches are the same).
    return re.compile(_MATCH_START + "(?:" + "|".join(parts) + ")")


_MATCH_START = r"(?=(?<!\w)\w|#)"  # where a not-a-quantity match can begin


@cache
def _not_quantity_upto() -> re.Pattern[str]:
    """:func:`_not_quantity_re` at positions with _WINDOW characters before the end of the
    search (``.{n}`` under DOTALL is one step): a search stops trying them past that point."""
    return re.compile(f"(?=(?s:.{{{_WINDOW}}}))" + _not_quantity_re().pattern)


_CLEAN_BEFORE = frozenset(" \t\n(\"'[$€£¥~<>=")
_CLEAN_AFTER = frozenset(" \t\n,;)\"']!?%")
_MONTHS = frozenset({"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct",
                     "nov", "dec"})
_MONTH_NAMES = _MONTHS | {"sept", "january", "february", "march", "april", "june", "july",
                          "august", "september", "october", "november", "december"}
_LABELS = frozenset({"r", "rev", "pr", "issue", "ticket"})  # as in not_quantities.json
_CLOCK = frozenset({"am", "pm", "a.m", "p.m"})
_WINDOW = 40  # characters on each side of a number that a date, version or address can span


@dataclass(slots=True)
class Num:
    value: float
    start: int  # first token index
    end: int  # one past the last token index
    spelled: bool = False
    glued_unit: str = ""  # unit text glued to the digits ("30s", "5GB")
    glued_at: int = 0  # char offset where the glued unit starts
    high: float | None = None  # "3.5–4.0" written as one token
    bound: str = "="  # "~" after a tolerance ("5.2 ± 0.1"), ">=" for "hundreds of"
    vague: bool = False  # "hundreds of", "tens of thousands of": a unit may follow "of"
    currency: str = ""  # a currency glued before the digits: "HK$7", "AUD1.5"
    total: float | None = None  # "208/212": 208 of a total of 212


def parse_number(v: DocView, i: int) -> Num | None:
    """The number written at token ``i`` (and the tokens it takes), or None."""
    words = v.words
    text = words[i]
    n = len(words)
    lex = lexicon()
    if text[:1] == "0" and text[1:2].isdecimal():
        return None  # "007", "0401", "06F6": a code or a clock time
    sign = 1.0
    minus = MINUS_WORD.match(text) if text[:1] in "mMnN" else None  # "minus", "negative"
    if minus:  # "minus-130" is one token
        sign, text = -1.0, text[minus.end():]
    if NUMBER.match(text) and not (i + 1 < n and not v.ws[i] and words[i + 1] == "^"):
        value = sign * float(text.replace(",", ""))
        if not math.isfinite(value):
            return None  # "1e400"
        end = i + 1
        # "2½", "3 ½", "2 1/2", "two and a half"
        nxt = words[end] if end < n else ""
        fractions: dict[str, float] = lex["fractions"]
        if nxt in fractions:
            value += fractions[nxt]
            end += 1
        elif text.isdigit():
            fraction = FRACTION.match(nxt) if nxt[:1].isdecimal() else None
            if fraction is not None:
                num, den = fraction.groups()
                if 0 < int(num) < int(den):
                    value += int(num) / int(den)
                    end += 1
            elif end < n and v.lowers[end] in ("and", "&"):  # what _and_a_fraction needs
                value, end = _and_a_fraction(v, end, value)
        if end < n and words[end] in _TOLERANCE_START:
            end, approx = _tolerance(v, end)
            return Num(value, i, end, bound="~" if approx else "=")
        return Num(value, i, end)
    if text.endswith("-") and NUMBER.match(text[:-1]) and i + 1 < n and \
            v.low(i + 1) in ("or", "and", "to"):
        return Num(sign * float(text[:-1].replace(",", "")), i, i + 1)  # "7- or 8-inch"
    # Each pattern below needs a character of its own: testing for it first spares most
    # tokens (words, glued units) a string of regex calls.
    pm = PLUS_MINUS.match(text) if "±" in text else None
    if pm:  # "2,000.45±0.01"
        return Num(sign * float(pm.group(1).replace(",", "")), i, i + 1, bound="~")
    cur = _glued_currency(v, i)
    if cur is not None:
        return cur
    rng = RANGE_TOKEN.match(text) if "–" in text or "—" in text else None
    if rng and float(rng.group(2)) > float(rng.group(1)):
        return Num(float(rng.group(1)), i, i + 1, high=float(rng.group(2)))
    frac = FRACTION.match(text) if "/" in text else None
    if frac and int(frac.group(2)) > 0:
        part, whole = int(frac.group(1)), int(frac.group(2))
        if whole >= 10 and part <= whole:
            return Num(part, i, i + 1, total=whole)  # "208/212 passed": a count of a total
        return Num(part / whole, i, i + 1)  # "3/4": a fraction
    if text in lex["fractions"]:
        return Num(lex["fractions"][text], i, i + 1)
    if i + 2 < n and words[i + 1] == "^" and not v.ws[i] and not v.ws[i + 1]:
        head = TIMES_TEN_HEAD.match(text)
        if head and EXPONENT.fullmatch(words[i + 2]):
            # "3x10", "^", "8" / "2", "^", "10" / "8x2", "^", "10" as the tokenizer splits them
            return _power(head.group(1) or "1", head.group(2), words[i + 2], i, i + 3)
    sci = TIMES_TEN.match(text) if "10" in text else None
    if sci:  # "2.48×10−5", "3x10^8"
        return _power(sci.group(1), "10", sci.group(2), i, i + 1)
    glued = NUMBER_GLUED.match(text)
    if glued:
        num, rest = glued.groups()
        if rest[:1] in lex["fractions"]:
            return Num(float(num.replace(",", "")) + lex["fractions"][rest[:1]], i, i + 1)
        if rest[:1] in "xX×" and rest[1:2].isdigit():
            return None  # "1920x1080", "4x1000": a dimension pair, not one quantity
        if len(rest) == 1 and rest.isupper() and "." not in num and "," not in num and \
                rest not in lex["glued_letter_units"] and rest not in lex["scale"]:
            return None  # "12A", "3B": a seat, a grade, a cell; "12V" is volts
        if len(rest) >= 2 and rest.isalpha() and lookup_unit(rest) is None \
                and lower(rest) not in SCALE_AFTER_CURRENCY and rest not in lex["scale"] \
                and (rest.isupper() or any(c in "aeiouy" for c in lower(rest))):
            # "860BOX", "2FA", "49ers", "4chan": a product, code or name, not a measurement;
            # a cluster without a vowel ("1cds") is more likely a unit symbol not known here
            return None
        return Num(float(num.replace(",", "")), i, i + 1, glued_unit=rest,
                    glued_at=v.starts[i] + len(num))
    return parse_spelled(v, i)


def _power(mantissa: str, base: str, exponent: str, start: int, end: int) -> Num | None:
    """ "3x10^8", "2^10", "8x2^10": a mantissa times a power; None past a float's range."""
    exp = int(exponent.replace("−", "-"))
    b = float(base)
    if b <= 0 or abs(exp * math.log10(b)) > 300:
        return None  # beyond a float: not a measurement anyone can compare
    return Num(float(mantissa) * b ** exp, start, end)


def _and_a_fraction(v: DocView, end: int, value: float) -> tuple[float, int]:
    """ "two and a half", "3 and a quarter": a whole number and a spelled fraction."""
    if end + 2 < len(v.starts) and v.low(end) in ("and", "&") and \
            v.low(end + 1) in ("a", "an", "one"):
        word = v.low(end + 2)
        den = lexicon()["denominators"].get(word)
        if den and not word.endswith("s"):
            return value + 1 / den, end + 3
    return value, end


_TOLERANCE_START = frozenset({"±", "+/-", "+"})  # the first token of a tolerance


def _tolerance(v: DocView, end: int) -> tuple[int, bool]:
    """Skip a tolerance after a number: "5.2 ± 0.1", "3.0 +/- 0.2" (the value stays central)."""
    k = end
    n = len(v.starts)
    word = v.tok(k) if k < n else ""
    if word in ("±", "+/-"):
        k += 1
    elif k + 1 < n and word == "+" and v.tok(k + 1) == "/-":
        k += 2
    else:
        return end, False
    if k < n and NUMBER.match(v.tok(k)):
        return k + 1, True
    return end, False


def _glued_currency(v: DocView, i: int) -> Num | None:
    """ "HK$7", "AUD1.5", "RM79", and "US20" right after "$": a currency glued to the digits."""
    text = v.tok(i)
    if text[:1] not in _CURRENCY_FIRST:
        return None
    m = CURRENCY_GLUED.match(text)
    if m is None:
        return None
    code = m.group(1)
    if i > 0 and v.tok(i - 1) == "$" and not v.ws[i - 1] and code.isalpha():
        code = f"${code}"  # "$US20" is split as "$", "US20"
    unit = CURRENCY_PREFIX.get(code) or (
        CURRENCY_PREFIX.get(lower(code)) if len(code) == 3 and code.isalpha() else None)
    if unit is None:
        return None
    return Num(float(m.group(2).replace(",", "")), i, i + 1, currency=unit)


def _parse_vague(v: DocView, i: int) -> Num | None:
    """ "hundreds of users", "tens of thousands of rows": at least the named power."""
    vague: dict[str, float] = lexicon()["vague"]
    value = 1.0
    j = i
    while j + 1 < len(v.starts) and v.low(j) in vague and v.low(j + 1) == "of" and \
            (j == i or vague[v.low(j)] > vague[v.low(j - 2)]):
        value *= vague[v.low(j)]
        j += 2
    if j == i:
        return None
    return Num(value, i, j - 1, spelled=True, bound=">=", vague=True)


def parse_spelled(v: DocView, i: int) -> Num | None:
    """A spelled number at token ``i`` ("forty-two", "a dozen", "hundreds of"), or None."""
    lex = lexicon()
    first = v.low(i)
    if first in lex["vague"]:
        return _parse_vague(v, i)
    spelled: dict[str, float] = lex["spelled"]
    mult: dict[str, float] = lex["multipliers"]
    n = len(v.starts)
    if first == "a" and i + 1 < n and f"a {v.low(i + 1)}" in spelled:
        return Num(spelled[f"a {v.low(i + 1)}"], i, i + 2, spelled=True)
    if first not in spelled or first in mult or first == "half":
        return None
    total = 0.0
    current = 0.0
    j = i
    while j < n:
        w = v.low(j)
        if w == "-" and j + 1 < n and v.low(j + 1) in spelled and j > i:
            j += 1
            continue
        if w in ("and", "&") and j > i and j + 1 < n and v.low(j + 1) in spelled \
                and v.low(j + 1) not in mult:
            j += 1
            continue
        if w == "," and total >= 1000 and current == 0 and j + 1 < n:
            # "three million, two hundred and forty": a group smaller than the last multiplier
            rest = parse_spelled(v, j + 1)
            if rest is not None and 0 < rest.value < _last_multiplier(v, i, j) \
                    and rest.value.is_integer():
                return Num(total + rest.value, i, rest.end, spelled=True)
            break
        if w not in spelled or w in ("half", "dozen"):
            break
        worth = spelled[w]
        if w in mult:
            if w == "hundred":
                current = (current or 1) * worth
            else:
                total += (current or 1) * worth
                current = 0.0
        else:
            current += worth
        j += 1
    while j > i and v.low(j - 1) in ("-", "and"):
        j -= 1
    value = total + current
    k = j + 1 if j < n and v.tok(j) == "-" else j
    den = lex["denominators"].get(v.low(k)) if k < n else None
    if den is not None and total == 0 and current < 20:
        return Num(current / den, i, k + 1, spelled=True)
    if total == 0 and current < 1000:
        value, j = _and_a_fraction(v, j, value)
    # A lone "one" is nearly always a pronoun ("the one that failed"): keep it only with a unit.
    return Num(value, i, j, spelled=True)


def _last_multiplier(v: DocView, i: int, j: int) -> float:
    mult: dict[str, float] = lexicon()["multipliers"]
    return min((mult[v.low(k)] for k in range(i, j) if v.low(k) in mult), default=0.0)


def not_a_quantity_at(text: str, idx: int) -> bool:
    """Whether the number at ``idx`` is part of a date, time, version, address or hash.

    The patterns only ever span a number's own word and its neighbours ("Nov 3, 2026",
    "10:02:11", "v1.2.3"), so they run on a short window around it: a pass of every pattern
    over the whole text cost more than the rest of the component.
    """
    n = len(text)
    j = idx
    while j < n and text[j].isdigit():
        j += 1
    before = text[idx - 1] if idx else " "
    after = text[j] if j < n else " "
    if before in _CLEAN_BEFORE and after in _CLEAN_AFTER:
        # A free-standing integer: only a month name or am/pm next to it can make it a date
        # or a time; skip the (slow) pattern scan otherwise.
        prev_words = [lower(w) for w in text[max(0, idx - 24):idx].split()[-2:]]
        after_words = text[j:j + 12].split(None, 1)
        next_word = lower(after_words[0]).rstrip(".,") if after_words else ""
        if next_word[:3] not in _MONTHS and next_word not in _CLOCK and \
                not (prev_words and (prev_words[-1] in _LABELS or prev_words[-1][:3] in _MONTHS
                                     or prev_words[0][:3] in _MONTHS)):
            return False
    # What ``finditer(text, idx - _WINDOW, idx + _WINDOW)`` would find first over idx, without
    # scanning far past idx, each match resuming the scan at its end as finditer does.
    hi = min(n, idx + _WINDOW)
    at = max(0, idx - _WINDOW)
    # With _WINDOW characters after idx, the search tries only positions up to idx (see
    # _not_quantity_upto); near the end of the text it may find a match past idx, and stops.
    search = (_not_quantity_upto() if hi - idx == _WINDOW else _not_quantity_re()).search
    while (m := search(text, at, hi)) is not None:
        if m.start() > idx:
            return False
        if m.end() > idx:
            # A match made only of digits excludes nothing (the hex pattern matches "1234567").
            return not m.group().isdigit()
        if m.end() == m.start():
            return _covered_by_scan(text, idx)  # an empty match: finditer's rules decide
        at = m.end()
    return False


def _covered_by_scan(text: str, idx: int) -> bool:
    """The plain scan of the window that :func:`not_a_quantity_at` stands for."""
    lo, hi = max(0, idx - _WINDOW), min(len(text), idx + _WINDOW)
    for m in _not_quantity_re().finditer(text, lo, hi):
        if m.start() <= idx < m.end():
            return not m.group().isdigit()
        if m.start() > idx:
            break
    return False


def is_year(v: DocView, num: Num, sent_lo: int) -> bool:
    """A bare 4-digit year after a temporal word or a month: "in 2019", "April 2018"."""
    text = v.tok(num.start)
    if num.end != num.start + 1 or not text.isdigit() or len(text) != 4:
        return False
    if not 1800 <= int(text) <= 2100 or num.start == sent_lo:
        return False
    return v.low(num.start - 1) in lexicon()["year_before"]


def after_name(v: DocView, i: int, sent_lo: int) -> bool:
    """ "iPhone 12", "Game 7", "Python 3", "S&P 500", "HTTP 500": an integer right after a
    word with a capital letter (a name, model or code), other than a unit, a currency or a
    bound word ("MAX 5")."""
    if i == sent_lo or not v.tok(i).isdigit():
        return False
    word = v.tok(i - 1)
    if NAME_WORD.match(word) is None or v.is_sent_start(i - 1) or word in CURRENCY_PREFIX:
        return False
    low = lower(word)
    lex = lexicon()
    return (low not in CURRENCY_PREFIX and lookup_unit(word) is None
            and low not in lex["before_words"] and low not in lex["not_names"]
            and bool(v.ws[i - 1]))


def is_month_name(word: str) -> bool:
    """A month's name or abbreviation ("Mar", "March"): the head of a date, not of a thing."""
    return lower(word).rstrip(".") in _MONTH_NAMES


def is_label_number(v: DocView, i: int) -> bool:
    """ "Incident 4471", "ticket #88213", "step 3 of": a number that names, not measures."""
    if i == 0 or not v.tok(i).isdigit():
        return False
    prev = v.low(i - 1)
    return prev == "#" or prev in lexicon()["label_nouns"]
