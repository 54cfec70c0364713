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

from ..model import NodeKind
from ..resources import load_json
from .lexicon import longest_matches, phrase_matcher
from .records import add, ensure_group
from .text import (
    CLAUSE_PUNCT,
    at_clause_start,
    char_range,
    clause_bounds,
    clause_openers,
    common_verbs,
    trim,
)
from .view import sentence_window, view

SPAN_KEY = "rg_negations"
COND_KEY = "rg_conditionals"

_AFFIX_CANDIDATE = re.compile(
    r"\b(?:(?:un|in|im|ir|il|dis)[a-z]{3,}|[a-z]{3,}less(?:ly|ness)?)\b", re.IGNORECASE)
# Where a match of _AFFIX_CANDIDATE can start: a word opening with a prefix letter (any case
# form the IGNORECASE regex accepts), or the first letter of a word holding "less".
_PREFIX_START = re.compile("[UuIiDd\u0130\u0131](?<!\\w.)")
_LESS = re.compile("less", re.IGNORECASE)
_CI_LETTER = re.compile("[a-z]", re.IGNORECASE)
_HARD = frozenset({";", ":", "--", "—", "–"})
_CLAUSAL = frozenset({"advcl", "conj", "parataxis", "relcl", "ccomp", "csubj", "acl"})
_DROP = frozenset({"mark", "cc", "punct"})
_SUBJ_OBJ = frozenset({"nsubj", "nsubjpass", "dobj", "attr", "dative", "oprd", "appos"})


@cache
def _lex() -> dict[str, Any]:
    data: dict[str, Any] = load_json("lexicon", "negation.json")
    return data


def affix_cue(word: str) -> tuple[int, int] | None:
    """Offsets of the negative affix inside ``word`` ("unable" -> (0, 2)), or None."""
    lex = _lex()
    low = word.lower()
    if low in lex["affix_words"]:
        for prefix in ("non", "dis", "un", "in", "im", "ir", "il"):
            if low.startswith(prefix):
                return 0, len(prefix)
    if low.startswith("un") and len(low) >= 6 and low not in lex["un_exceptions"] \
            and not low.startswith("under") and not (low.startswith("uni")
                                                     and not low.startswith("unin")):
        return 0, 2
    m = re.search(r"less(?:ly|ness)?$", low)
    if m and len(low) >= 7 and low not in lex["less_exceptions"]:
        return m.start(), m.start() + 4
    return None


_AUX = frozenset({"do", "does", "did", "is", "are", "was", "were", "can", "could", "will",
                  "would", "should", "have", "has", "had", "shall", "must", "may", "might"})
_HAVE_BE = frozenset({"have", "has", "had", "having", "be", "is", "are", "was", "were", "'s",
                      "been", "'ve"})
_SUBORDINATORS = frozenset({"before", "after", "until", "till", "while", "when", "whenever",
                           "because", "since", "unless", "if", "although", "though", "whereas"})
_CELL = frozenset({"|", "│", "¦"})
_VALUE_BEFORE = frozenset({":", "=", "|", "│", "¦", "/", "(", "[", "or", "->", "=>", "→"})
_INTERJECTIONS = frozenset({"actually", "well", "oh", "uh", "um", "umm", "hmm", "hm", "ah",
                            "wait", "okay", "ok", "er", "erm", "nah"})
_PRON = frozenset({"i", "you", "he", "she", "it", "we", "they", "there", "that", "this"})


def _affix_candidates(text: str) -> Iterator[re.Match[str]]:
    """``_AFFIX_CANDIDATE.finditer(text)``, trying the regex only where a match can start.

    Tried at every character, the case-insensitive alternation cost more than the rest of the
    component; the matches are whole words, so the regex is run at each possible word start.
    """
    starts = {m.start() for m in _PREFIX_START.finditer(text)}
    for m in _LESS.finditer(text):
        k = m.start()
        while k > 0 and _CI_LETTER.match(text, k - 1, k):
            k -= 1
        starts.add(k)
    end = 0
    for k in sorted(starts):
        if k < end:
            continue
        found = _AFFIX_CANDIDATE.match(text, k)
        if found:
            end = found.end()
            yield found


def value_no(doc: Doc, i: int) -> bool:
    """Whether "no" at token ``i`` is a value or an interjection, not a negation: a table cell
    ("| STRING | no |"), a field value ("nullable: no", "yes or no"), or a discourse "no"
    ("actually no, let me check", "oh no."). A bare answer ("No, it is cold.") still negates."""
    nxt = doc[i + 1] if i + 1 < len(doc) else None
    if nxt is not None:
        if nxt.text in _CELL:
            return True
        if not (nxt.is_punct or nxt.is_space):
            return False  # "no rows", "no longer": it governs what follows
    k = i - 1
    while k >= 0 and doc[k].is_space:
        k -= 1
    if k < 0:
        return False
    prev = doc[k]
    return prev.text in _VALUE_BEFORE or prev.lower_ in _INTERJECTIONS


def _rhetorical(doc: Doc, span: Span) -> bool:
    """Tag and rhetorical questions ("does it not?", "Don't you see?") do not negate."""
    if span.text.lower() not in ("not", "n't"):
        return False
    sent = sentence_window(doc, span.start)
    last = sent.end - 1
    while last > sent.start and doc[last].is_space:
        last -= 1
    if doc[last].text != "?":
        return False
    i = span.start
    if i >= 2 and doc[i - 1].lower_ in _PRON and doc[i - 2].lower_ in _AUX and \
            i + 1 < len(doc) and doc[i + 1].text in ("?", ","):
        return True  # the tag of "..., does it not?"
    return i >= 1 and doc[i - 1].i == sent.start and doc[i - 1].lower_ in _AUX \
        and i + 1 < len(doc) and doc[i + 1].lower_ in _PRON  # "Don't you see?"


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
        view(doc, refresh=True)  # sentence bounds may be new since the last component
        accurate = self.use_dependencies and doc.has_annotation("DEP")
        negs: list[tuple[int, int]] = []  # cue char ranges, for conditional polarity
        for span in longest_matches(self.cues, doc):
            kind = span.label_
            if kind == "pseudo" or _rhetorical(doc, span):
                continue
            if span.end - span.start == 1 and doc[span.start].lower_ == "no" and \
                    value_no(doc, span.start):
                continue
            if kind == "adverbial":
                prev = doc[span.start - 1].lower_ if span.start > 0 else ""
                if prev not in _HAVE_BE:
                    continue  # "he was no doubt there": a sentence adverb
                kind = "syntactic"
                span = doc[span.start:span.start + 1]
            if kind == "exception" and negs and \
                    negs[-1][0] >= doc[sentence_window(doc, span.start).start].idx:
                continue  # "nothing ... except X" restates the negation, adds none
            if kind == "lexical" and span.end < len(doc) and doc[span.end].text == "-":
                continue  # "absent-minded"
            if span.text.lower() == "no" and span.end < len(doc) and doc[span.end].lower_ in (
                    ".", ",", "!"):
                kind = "syntactic"  # a bare "No." answer still negates
            self._emit(doc, span.start, span.end, span.start_char, span.end_char, kind,
                       span.text, accurate)
            negs.append((span.start_char, span.end_char))
        for m in _affix_candidates(view(doc).text):
            aff = affix_cue(m.group())
            if aff is None:
                continue
            tok_span = doc.char_span(m.start(), m.end(), alignment_mode="expand")
            if tok_span is None:
                continue
            tok = doc[tok_span.start]
            if m.group().lower().startswith("un") and (
                    tok.tag_ in ("VB", "VBD", "VBZ", "VBP", "VBG") if accurate
                    else m.group().lower().endswith("ing")):
                continue  # "unroll", "undoing": reversal, not negation
            s, e = m.start() + aff[0], m.start() + aff[1]
            self._emit(doc, tok_span.start, tok_span.end, s, e, "affix", m.group()[aff[0]:aff[1]],
                       accurate, word=m.group())
            negs.append((s, e))
        self._conditionals(doc, negs, accurate)
        return doc

    def _emit(self, doc: Doc, ts: int, te: int, cs: int, ce: int, kind: str, cue: str,
              accurate: bool, word: str | None = None) -> None:
        sent = sentence_window(doc, ts)
        rng = _dep_scope(doc[ts], sent) if accurate else None
        if rng is None:
            rng = clause_bounds(doc, sent, ts)
            rng = (rng[0], max(rng[1], te))
        if te < sent.end and rng[1] <= te + 1 and doc[te].lower_ in _SUBORDINATORS:
            # "not before the window ends", "not at all while they have an escalation": the cue
            # negates the clause it opens, so the scope runs to that clause's end.
            k = te + 1
            while k < sent.end and doc[k].text not in CLAUSE_PUNCT and \
                    doc[k].lower_ not in clause_openers():
                k += 1
            rng = (rng[0], max(rng[1], k))
        s, e = trim(doc, *rng)
        if s >= e:
            s, e = ts, te
        scope_start, scope_end = char_range(doc, s, e)
        add(doc, SPAN_KEY, NodeKind.NEGATION, cs, ce, label="NEG", cue=cue.lower(),
            cue_kind=kind, scope_start=scope_start, scope_end=scope_end, word=word)

    def _conditionals(self, doc: Doc, negs: list[tuple[int, int]], accurate: bool) -> None:
        cue_starts = sorted(s for s, _ in negs)
        for span in longest_matches(self.conditionals, doc):
            marker = span.text.lower()
            first = doc[span.start]
            if marker in self.ambiguous and not _introduces_clause(doc, span, accurate):
                continue
            sent = sentence_window(doc, first.i)
            ante, cons = _parts(doc, span, sent, accurate)
            if ante is None or cons is None:
                continue
            a0, a1 = char_range(doc, *ante)
            c0, c1 = char_range(doc, *cons)
            kind = span.label_
            a_neg = _count(cue_starts, a0, a1) + (1 if kind == "unless" else 0)
            c_neg = _count(cue_starts, c0, c1)
            add(doc, COND_KEY, NodeKind.CONDITIONAL, span.start_char, span.end_char,
                label="COND", marker=marker, cond_kind=kind,
                antecedent_start=a0, antecedent_end=a1, consequent_start=c0, consequent_end=c1,
                antecedent_polarity="negative" if a_neg % 2 else "positive",
                consequent_polarity="negative" if c_neg % 2 else "positive")


def _count(starts: list[int], lo: int, hi: int) -> int:
    """How many of the sorted ``starts`` fall in [lo, hi)."""
    return bisect.bisect_left(starts, hi) - bisect.bisect_left(starts, lo)


def _introduces_clause(doc: Doc, span: Span, accurate: bool) -> bool:
    """'before tests pass' opens a clause; 'before noon' does not."""
    if accurate:
        first = doc[span.start]
        return first.dep_ == "mark" or (first.dep_ == "advmod" and first.head.dep_ == "advcl")
    for tok in doc[span.end: min(len(doc), span.end + 6)]:
        if tok.is_punct:
            return False
        if tok.lower_ in common_verbs() or tok.text.endswith("ed") or (
                tok.lower_.endswith("s") and tok.i > span.end):
            return True
    return False


def _parts(doc: Doc, span: Span, sent: Span, accurate: bool
           ) -> tuple[tuple[int, int] | None, tuple[int, int] | None]:
    """Token ranges (antecedent, consequent) of the conditional opened by ``span``."""
    marker_start, marker_end = span.start, span.end
    if accurate and doc[marker_start].dep_ == "mark":
        clause = doc[marker_start].head
        # The subtree's edges, clipped to the window (walking the subtree is O(n) per cue).
        lo = max(clause.left_edge.i, sent.start)
        hi = min(clause.right_edge.i + 1, sent.end)
        ante = trim(doc, marker_end, hi)
    else:
        hi = marker_end
        while hi < sent.end and doc[hi].text not in (",", ";", ".", "!", "?", ":") \
                and doc[hi].lower_ != "then":
            hi += 1
        lo = marker_start
        ante = trim(doc, marker_end, hi)
    if at_clause_start(doc, sent, marker_start):
        # "If A, B": the consequent follows the antecedent.
        k = hi
        while k < sent.end and (doc[k].is_punct or doc[k].lower_ == "then"):
            k += 1
        cons = trim(doc, k, sent.end)
    else:
        cons = trim(doc, sent.start, lo)
        if cons[0] >= cons[1]:
            cons = trim(doc, hi, sent.end)
    if ante[0] >= ante[1] or cons[0] >= cons[1]:
        return None, None
    return ante, cons


@Language.factory(
    "refgraph_negation",
    default_config={"use_dependencies": True},
    assigns=["doc.spans", "doc._.rg_records"],
)
def make_negation(nlp: Language, name: str, use_dependencies: bool) -> NegationTagger:
    return NegationTagger(nlp, name, use_dependencies=use_dependencies)
