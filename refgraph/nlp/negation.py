"""``refgraph_negation``: negation cues with their scope, and conditionals with the polarity of
their antecedent and consequent.

Cues come from ``models/lexicon/negation.json`` (words and phrases, plus affixal negations such as
*un*able and care*less*). Scope is dependency-based when the pipeline has a parser (the cue's
governing predicate and its arguments, without subordinate clauses) and clause-based otherwise
(from the last clause boundary before the cue to the next one after it).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from functools import cache
from typing import Any

from spacy.language import Language
from spacy.tokens import Doc, Span, Token

from ..casing import lower
from ..model import NodeKind, Scalar
from ..resources import load_json
from .lexicon import longest_matches, phrase_matcher
from .records import add_attrs, ensure_group
from .text import (
    CLAUSE_PUNCT,
    at_clause_start,
    char_range,
    clause_bounds,
    clause_openers,
    common_verbs,
    trim,
)
from .view import PUNCT, SPACE, DocView, view

SPAN_KEY = "rg_negations"
COND_KEY = "rg_conditionals"

_AFFIX_CANDIDATE = re.compile(
    r"\b(?:(?:un|in|im|ir|il|dis)[a-z]{3,}|[a-z]{3,}less(?:ly|ness)?)\b", re.IGNORECASE)
# Where a match of _AFFIX_CANDIDATE can start: a word opening with a prefix and three more
# letters (the prefix's first letter in any case form the IGNORECASE regex accepts, then the
# regex's own case-insensitive pieces), or the first letter of a word holding "less". The
# prefix letters are common word starts ("in", "is", "do"): looking past them here, in C,
# keeps most of them out of the Python loop that tries the full regex.
_PREFIX_START = re.compile(
    "[UuIiDd\u0130\u0131](?<!\\w.)(?=(?i:(?<=u)n|(?<=i)[nmrl]|(?<=d)is)(?i:[a-z]{3}))")
# _PREFIX_START on the lower-cased form of an ASCII text (same offsets; a word character is
# [a-z0-9_] there, and the letters need no case folding): a third faster. It consumes the
# prefix and the three letters, which hold no other word's start.
_PREFIX_START_ASCII = re.compile("[uid](?<![a-z0-9_].)(?:(?<=u)n|(?<=i)[nmrl]|(?<=d)is)[a-z]{3}")
_START = re.Match.start
_LESS = re.compile("less", re.IGNORECASE)
_LESS_LOWER = re.compile("less")
_CI_LETTER = re.compile("[a-z]", re.IGNORECASE)
_LESS_END = re.compile(r"less(?:ly|ness)?$")  # compiled once: re.search looks it up per call
_HARD = frozenset({";", ":", "--", "—", "–"})
_CLAUSAL = frozenset({"advcl", "conj", "parataxis", "relcl", "ccomp", "csubj", "acl"})
_DROP = frozenset({"mark", "cc", "punct"})
_SUBJ_OBJ = frozenset({"nsubj", "nsubjpass", "dobj", "attr", "dative", "oprd", "appos"})


@cache
def _lex() -> dict[str, Any]:
    data: dict[str, Any] = load_json("lexicon", "negation.json")
    return data


@cache
def _affix_lists() -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """The lexicon's affix word lists as sets: a list is searched word by word on each test."""
    lex = _lex()
    return (frozenset(lex["affix_words"]), frozenset(lex["un_exceptions"]),
            frozenset(lex["less_exceptions"]))


def affix_cue(word: str) -> tuple[int, int] | None:
    """Offsets of the negative affix inside ``word`` ("unable" -> (0, 2)), or None."""
    affix_words, un_exceptions, less_exceptions = _affix_lists()
    low = lower(word)
    if low in affix_words:
        for prefix in ("non", "dis", "un", "in", "im", "ir", "il"):
            if low.startswith(prefix):
                return 0, len(prefix)
    if low.startswith("un") and len(low) >= 6 and low not in un_exceptions \
            and not low.startswith("under") and not (low.startswith("uni")
                                                     and not low.startswith("unin")):
        return 0, 2
    m = _LESS_END.search(low)
    if m and len(low) >= 7 and low not in less_exceptions:
        return m.start(), m.start() + 4
    return None


_AUX = frozenset({"do", "does", "did", "is", "are", "was", "were", "can", "could", "will",
                  "would", "should", "have", "has", "had", "shall", "must", "may", "might"})
_HAVE_BE = frozenset({"have", "has", "had", "having", "be", "is", "are", "was", "were", "'s",
                      "been", "'ve"})
_SUBORDINATORS = frozenset({"before", "after", "until", "till", "while", "when", "whenever",
                           "because", "since", "unless", "if", "although", "though", "whereas"})
_CELL = frozenset({"|", "│", "¦"})
_CODE_LITERALS = frozenset({"None", "NONE"})
_VALUE_BEFORE = frozenset({":", "=", "|", "│", "¦", "/", "(", "[", "or", "->", "=>", "→"})
_INTERJECTIONS = frozenset({"actually", "well", "oh", "uh", "um", "umm", "hmm", "hm", "ah",
                            "wait", "okay", "ok", "er", "erm", "nah"})
_PRON = frozenset({"i", "you", "he", "she", "it", "we", "they", "there", "that", "this"})


def _affix_candidates(text: str, lowered: str = "") -> list[re.Match[str]]:
    """``_AFFIX_CANDIDATE.finditer(text)``, trying the regex only where a match can start.

    Tried at every character, the case-insensitive alternation cost more than the rest of the
    component; the matches are whole words, so the regex is run at each possible word start.
    ``lowered`` is ``text.lower()`` when the caller holds it, else "".
    """
    if lowered and text.isascii():
        starts = set(map(_START, _PREFIX_START_ASCII.finditer(lowered)))
    else:
        starts = set(map(_START, _PREFIX_START.finditer(text)))
    for m in _less(text, lowered):
        k = m.start()
        while k > 0 and _CI_LETTER.match(text, k - 1, k):
            k -= 1
        starts.add(k)
    matches: list[re.Match[str]] = []  # a list, not a generator: most docs have none
    end = 0
    for k in sorted(starts):
        if k < end:
            continue
        found = _AFFIX_CANDIDATE.match(text, k)
        if found:
            end = found.end()
            matches.append(found)
    return matches


def _less(text: str, lowered: str = "") -> Iterator[re.Match[str]]:
    """``_LESS.finditer(text)``: a case-insensitive literal is tried at every character, a plain
    one is searched for fast, so it looks for "less" in the lower-cased text where that finds
    the same: each character lower-cases to one (the offsets hold), and only "l"/"L", "e"/"E"
    and "s"/"S" lower-case to the letters of "less", as IGNORECASE takes them, but for the long
    s ("ſ"), which IGNORECASE takes for "s" and lower() keeps. ``lowered`` is ``text.lower()``
    when the caller holds it (a view's), else ""."""
    low = lowered or lower(text)
    if len(low) == len(text) and "\u017f" not in text:
        return _LESS_LOWER.finditer(low) if "less" in low else iter(())
    return _LESS.finditer(text)


def value_no(v: DocView, i: int) -> bool:
    """Whether "no" at token ``i`` is a value or an interjection, not a negation: a table cell
    ("| STRING | no |"), a field value ("nullable: no", "yes or no"), or a discourse "no"
    ("actually no, let me check", "oh no."), or one of a pair of answers ("a Yes/No
    question"). A bare answer ("No, it is cold.") still negates."""
    if (i > 0 and v.tok(i - 1) == "/") or (i + 1 < len(v.starts) and v.tok(i + 1) == "/"):
        return True
    if i + 1 < len(v.starts):
        if v.tok(i + 1) in _CELL:
            return True
        if not v.flags(i + 1) & (PUNCT | SPACE):
            return False  # "no rows", "no longer": it governs what follows
    k = i - 1
    while k >= 0 and v.flags(k) & SPACE:
        k -= 1
    if k < 0:
        return False
    return v.tok(k) in _VALUE_BEFORE or v.low(k) in _INTERJECTIONS


def _rhetorical(v: DocView, start: int, end: int) -> bool:
    """Tag and rhetorical questions ("does it not?", "Don't you see?") do not negate."""
    if lower(v.text[v.starts[start]:v.ends[end - 1]]) not in ("not", "n't"):
        return False
    lo, hi = v.window(start)
    last = hi - 1
    while last > lo and v.flags(last) & SPACE:
        last -= 1
    if v.tok(last) != "?":
        return False
    i = start
    n = len(v.starts)
    if i >= 2 and v.low(i - 1) in _PRON and v.low(i - 2) in _AUX and \
            i + 1 < n and v.tok(i + 1) in ("?", ","):
        return True  # the tag of "..., does it not?"
    return i >= 1 and i - 1 == lo and v.low(i - 1) in _AUX \
        and i + 1 < n and v.low(i + 1) in _PRON  # "Don't you see?"


def _dep_scope(cue: Token, sent: Span) -> tuple[int, int] | None:
    """Token range of the scope from the parse: the governing predicate's clause."""
    anchor = cue if cue.dep_ == "ROOT" else cue.head
    if not sent.start <= anchor.i < sent.end:
        return None  # the governor is outside the window: use the clause rule
    if anchor.pos_ in ("NOUN", "PROPN", "PRON", "NUM") and anchor.dep_ in _SUBJ_OBJ:
        anchor = anchor.head
    if anchor.dep_ == "pobj":
        anchor = anchor.head.head
    if anchor.dep_ == "prep":
        anchor = anchor.head
    keep: list[int] = []
    stack = [anchor]
    while stack:
        tok = stack.pop()
        keep.append(tok.i)
        for child in tok.children:
            if child.dep_ in _DROP and child.head.i == anchor.i:
                continue
            if child.dep_ in _CLAUSAL and child.head.i == anchor.i and child.pos_ in (
                    "VERB", "AUX") and child.i != cue.i:
                continue
            if sent.start <= child.i < sent.end:
                stack.append(child)  # stay inside the window: a huge tree is walked once per cue
    # A scope never crosses a hard clause boundary (";", ":", a dash), whatever the parse says.
    lo, hi = cue.i, cue.i + 1
    while lo > sent.start and cue.doc[lo - 1].text not in _HARD:
        lo -= 1
    while hi < sent.end and cue.doc[hi].text not in _HARD:
        hi += 1
    keep = [i for i in keep if lo <= i < hi]
    if not keep:
        return None
    return min(keep), max(keep) + 1


class NegationTagger:
    """spaCy component: see the module docstring."""

    def __init__(self, nlp: Language, name: str, *, use_dependencies: bool) -> None:
        self.name = name
        self.use_dependencies = use_dependencies
        lex = _lex()
        self.cues = phrase_matcher(nlp, {**lex["cues"], **{p: "pseudo" for p in lex["pseudo"]},
                                         **{p: "adverbial" for p in lex["adverbial_pseudo"]}})
        self.conditionals = phrase_matcher(nlp, lex["conditionals"])
        self.ambiguous = frozenset(lex["ambiguous_conditionals"])

    def __call__(self, doc: Doc) -> Doc:
        ensure_group(doc, SPAN_KEY)
        ensure_group(doc, COND_KEY)
        v = view(doc, refresh=True)  # sentence bounds may be new since the last component
        accurate = self.use_dependencies and doc.has_annotation("DEP")
        text = v.text
        n = len(v.starts)
        negs: list[tuple[int, int]] = []  # cue char ranges, for conditional polarity
        for start, end, kind in longest_matches(self.cues, doc, v):
            if kind == "pseudo" or _rhetorical(v, start, end):
                continue
            if end - start == 1 and v.low(start) == "no" and value_no(v, start):
                continue
            if end - start == 1 and v.tok(start) in _CODE_LITERALS and start > 0 and \
                    not v.is_sent_start(start):
                continue  # "self.key_field = None": a value in code, not a negation
            if kind == "adverbial":
                prev = v.low(start - 1) if start > 0 else ""
                if prev not in _HAVE_BE:
                    continue  # "he was no doubt there": a sentence adverb
                kind = "syntactic"
                end = start + 1
            if kind == "exception" and negs and negs[-1][0] >= v.starts[v.window(start)[0]]:
                continue  # "nothing ... except X" restates the negation, adds none
            if kind == "lexical" and end < n and v.tok(end) == "-":
                continue  # "absent-minded"
            cs, ce = v.starts[start], v.ends[end - 1]
            cue = text[cs:ce]
            if lower(cue) == "no" and end < n and v.low(end) in (".", ",", "!"):
                kind = "syntactic"  # a bare "No." answer still negates
            self._emit(doc, v, start, end, cs, ce, kind, cue, accurate)
            negs.append((cs, ce))
        for m in _affix_candidates(text, v.lower):
            aff = affix_cue(m.group())
            if aff is None:
                continue
            # The word is letters only, so both its ends are inside tokens (as
            # doc.char_span(..., alignment_mode="expand") finds them).
            ts, te = v.token_at(m.start()), v.token_at(m.end() - 1) + 1
            low = lower(m.group())
            if low.startswith("un") and (
                    doc[ts].tag_ in ("VB", "VBD", "VBZ", "VBP", "VBG") if accurate
                    else low.endswith("ing")):
                continue  # "unroll", "undoing": reversal, not negation
            s, e = m.start() + aff[0], m.start() + aff[1]
            self._emit(doc, v, ts, te, s, e, "affix", m.group()[aff[0]:aff[1]], accurate,
                       word=m.group())
            negs.append((s, e))
        self._conditionals(doc, v, negs, accurate)
        return doc

    def _emit(self, doc: Doc, v: DocView, ts: int, te: int, cs: int, ce: int, kind: str,
              cue: str, accurate: bool, word: str | None = None) -> None:
        lo, hi = v.window(ts)
        rng = _dep_scope(doc[ts], doc[lo:hi]) if accurate else None
        if rng is None:
            rng = clause_bounds(v, lo, hi, ts)
            rng = (rng[0], max(rng[1], te))
        if te < hi and rng[1] <= te + 1 and v.low(te) in _SUBORDINATORS:
            # "not before the window ends", "not at all while they have an escalation": the cue
            # negates the clause it opens, so the scope runs to that clause's end.
            openers = clause_openers()
            k = te + 1
            while k < hi and v.tok(k) not in CLAUSE_PUNCT and v.low(k) not in openers:
                k += 1
            rng = (rng[0], max(rng[1], k))
        s, e = trim(v, *rng)
        if s >= e:
            s, e = ts, te
        scope_start, scope_end = char_range(v, s, e)
        attrs: dict[str, Scalar] = {"cue": lower(cue), "cue_kind": kind,
                                    "scope_start": scope_start, "scope_end": scope_end}
        if word is not None:
            attrs["word"] = word
        add_attrs(doc, SPAN_KEY, NodeKind.NEGATION, cs, ce, attrs, "NEG")

    def _conditionals(self, doc: Doc, v: DocView, negs: list[tuple[int, int]],
                      accurate: bool) -> None:
        cue_starts: list[int] | None = None  # sorted on first use: most docs emit nothing
        text = v.text
        for start, end, kind in longest_matches(self.conditionals, doc, v):
            cs, ce = v.starts[start], v.ends[end - 1]
            marker = lower(text[cs:ce])
            if marker in self.ambiguous and not _introduces_clause(doc, v, start, end, accurate):
                continue
            lo, hi = v.window(start)
            ante, cons = _parts(doc, v, start, end, lo, hi, accurate)
            if ante is None or cons is None:
                continue
            a0, a1 = char_range(v, *ante)
            c0, c1 = char_range(v, *cons)
            if cue_starts is None:
                cue_starts = sorted([s for s, _ in negs])
            a_neg = _count(cue_starts, a0, a1) + (1 if kind == "unless" else 0)
            c_neg = _count(cue_starts, c0, c1)
            add_attrs(doc, COND_KEY, NodeKind.CONDITIONAL, cs, ce, {
                "marker": marker, "cond_kind": kind,
                "antecedent_start": a0, "antecedent_end": a1,
                "consequent_start": c0, "consequent_end": c1,
                "antecedent_polarity": "negative" if a_neg % 2 else "positive",
                "consequent_polarity": "negative" if c_neg % 2 else "positive"}, "COND")


def _count(starts: list[int], lo: int, hi: int) -> int:
    """How many of the sorted ``starts`` fall in [lo, hi)."""
    return bisect.bisect_left(starts, hi) - bisect.bisect_left(starts, lo)


def _introduces_clause(doc: Doc, v: DocView, start: int, end: int, accurate: bool) -> bool:
    """'before tests pass' opens a clause; 'before noon' does not."""
    if accurate:
        first = doc[start]
        return first.dep_ == "mark" or (first.dep_ == "advmod" and first.head.dep_ == "advcl")
    verbs = common_verbs()
    for k in range(end, min(len(v.starts), end + 6)):
        if v.flags(k) & PUNCT:
            return False
        low = v.low(k)
        if low in verbs or v.tok(k).endswith("ed") or (low.endswith("s") and k > end):
            return True
    return False


def _parts(doc: Doc, v: DocView, marker_start: int, marker_end: int, lo: int, hi: int,
           accurate: bool) -> tuple[tuple[int, int] | None, tuple[int, int] | None]:
    """Token ranges (antecedent, consequent) of the conditional whose marker is the tokens
    [marker_start, marker_end), in the sentence window [lo, hi)."""
    sent_start, sent_end = lo, hi
    if accurate and doc[marker_start].dep_ == "mark":
        clause = doc[marker_start].head
        # The subtree's edges, clipped to the window (walking the subtree is O(n) per cue).
        lo = max(clause.left_edge.i, sent_start)
        hi = min(clause.right_edge.i + 1, sent_end)
        ante = trim(v, marker_end, hi)
    else:
        hi = marker_end
        while hi < sent_end and v.tok(hi) not in (",", ";", ".", "!", "?", ":") \
                and v.low(hi) != "then":
            hi += 1
        lo = marker_start
        ante = trim(v, marker_end, hi)
    after_break = _after_break(v, sent_start, marker_start)
    if after_break or at_clause_start(v, sent_start, marker_start):
        # "If A, B", and "P; if A, B": the consequent follows the antecedent (up to the next
        # ";" when a ";" or ":" opened the conditional's clause).
        k = hi
        while k < sent_end and (v.flags(k) & PUNCT or v.low(k) == "then"):
            k += 1
        end = k
        while after_break and end < sent_end and v.tok(end) != ";":
            end += 1
        cons = trim(v, k, end if after_break else sent_end)
    else:
        cons = trim(v, sent_start, lo)
        if cons[0] >= cons[1]:
            cons = trim(v, hi, sent_end)
    if ante[0] >= ante[1] or cons[0] >= cons[1]:
        return None, None
    return ante, cons


def _after_break(v: DocView, lo: int, i: int) -> bool:
    """Whether a ";" or ":" right before token ``i`` (spaces apart) opens its clause."""
    k = i - 1
    while k > lo and v.flags(k) & SPACE:
        k -= 1
    return k >= lo and v.tok(k) in (";", ":")


@Language.factory(
    "refgraph_negation",
    default_config={"use_dependencies": True},
    assigns=["doc.spans", "doc._.rg_records"],
)
def make_negation(nlp: Language, name: str, use_dependencies: bool) -> NegationTagger:
    return NegationTagger(nlp, name, use_dependencies=use_dependencies)
