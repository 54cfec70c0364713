"""``refgraph_constraints``: prohibitions, obligations, preconditions and limits, each linked to
the action or thing it governs ("do not call `deploy` before tests pass" governs ``deploy``).

This is the "negative space" a prune tends to delete while the governed action survives, so the
record keeps both the cue and a normalised ``target`` (identifiers and content words of what is
governed) that a later comparison can look for.
"""

from __future__ import annotations

import bisect
from functools import cache

from spacy.language import Language
from spacy.tokens import Doc

from ..casing import lower
from ..model import NodeKind, Scalar
from ..resources import load_json, load_word_list
from .lexicon import longest_matches, phrase_matcher
from .negation import value_no
from .records import add_attrs, ensure_group, raw_records_of
from .text import (
    CLAUSE_PUNCT,
    at_clause_start,
    char_range,
    clause_openers,
    common_verbs,
    is_wordlike,
    norm,
    stopwords,
    trim,
)
from .view import ALPHA, NUM, PUNCT, SPACE, DocView, view

SPAN_KEY = "rg_constraints"
# Record kinds are plain strs in the records.
_QUANTITY = frozenset({NodeKind.QUANTITY.value})
_IDENTIFIER = frozenset({NodeKind.IDENTIFIER.value})
_NEGATION = frozenset({NodeKind.NEGATION.value})
_SUBJECTS = frozenset({"you", "please"})
# Words that keep a "no" clause a prohibition even with a finite verb ("no pushes are allowed").
_PROHIBITING = load_word_list("grammar.json", "modals") | load_word_list("constraints.json",
                                                                        "licenses")
_BE_FINITE = frozenset({"is", "are", "was", "were", "has", "have", "had", "does", "did", "'s",
                        "'re"})
_STATIVE = frozenset({"exist", "exists", "remain", "remains", "appear", "appears", "seem",
                      "seems", "occur", "occurs", "happen", "happens"})
_DETERMINERS = frozenset({"the", "a", "an", "this", "that", "these", "those", "its", "their",
                          "our", "your", "my", "any", "every", "each"})
_PREPOSITIONS = frozenset({"during", "across", "against", "along", "around", "behind",
                           "beside", "beyond", "despite", "inside", "outside", "toward",
                           "towards", "without", "within"})


@cache
def _lex() -> dict[str, str]:
    data: dict[str, str] = load_json("lexicon", "constraints.json")["cues"]
    return data


@cache
def _negation_words() -> frozenset[str]:
    """The one-word syntactic negation cues (``negation.json``): a prohibition cue holding one
    ("no", "never", "do not") prohibits only where the negation component kept that cue, not
    in a phrase it drops ("no worries", "never mind")."""
    cues = load_json("lexicon", "negation.json")["cues"]
    return frozenset(c for c, kind in cues.items() if kind == "syntactic" and " " not in c)


@cache
def _needs_addressee() -> frozenset[str]:
    """Cues that make a rule only after "you" (``constraints.json``)."""
    return load_word_list("constraints.json", "needs_addressee")


@cache
def _imperative_only() -> frozenset[str]:
    """Cues that make a rule only where they open a clause (``constraints.json``)."""
    return load_word_list("constraints.json", "imperative_only")


@cache
def _action_enders() -> frozenset[str]:
    """Words that end the governed action; a condition word ("before") stays part of it."""
    return clause_openers() - {"before", "after", "until", "unless"}


def _clause_start(v: DocView, lo: int, i: int) -> bool:
    """Whether token i starts a clause: an imperative ("Do not ...", "- never ...")."""
    k = i - 1
    while k >= lo and v.low(k) in _SUBJECTS:
        k -= 1
    if k < lo:
        return True
    prev = v.tok(k)
    return prev in CLAUSE_PUNCT or prev in ("-", "*", "•", ">") or \
        v.low(k) in ("and", "but", "then", "so") or bool(v.flags(k) & SPACE)


class ConstraintTagger:
    """spaCy component: see the module docstring."""

    def __init__(self, nlp: Language, name: str) -> None:
        self.name = name
        self.matcher = phrase_matcher(nlp, _lex())

    def __call__(self, doc: Doc) -> Doc:
        ensure_group(doc, SPAN_KEY)
        v = view(doc, refresh=True)  # sentence bounds may be new since the last component
        matches = longest_matches(self.matcher, doc, v)
        if not matches:
            return doc
        # Read on first use only, once per doc: has_annotation scans every token, and most
        # docs need neither it nor the records (a cue in them is rejected first).
        parsed: bool | None = None
        quantity_starts: list[int] | None = None
        identifiers: list[tuple[int, int, str]] | None = None
        id_starts: list[int] = []
        negations: list[int] | None = None
        negators = _negation_words()
        text = v.text
        for start, end, kind in matches:
            lo, hi = v.window(start)
            cs, ce = v.starts[start], v.ends[end - 1]
            cue = lower(text[cs:ce])
            if kind.startswith("prohibition") and any(
                    v.low(k) in negators for k in range(start, end)):
                if negations is None:
                    negations = sorted(r[1] for r in raw_records_of(doc, _NEGATION))
                k = bisect.bisect_left(negations, cs)
                if k == len(negations) or negations[k] >= ce:
                    continue  # the negation component dropped it: "no worries", "never mind"
            if cue in _imperative_only() and not _clause_start(v, lo, start):
                continue
            if cue in _needs_addressee() and not (start > lo and v.low(start - 1) == "you"):
                continue  # "Can't wait to see it!": the speaker's, no rule
            if kind.endswith(("_weak", "_licensed")):
                base = kind.rsplit("_", 1)[0]
                licensed = kind.endswith("_licensed")
                if base == "prohibition" and (cue == "no" or licensed) and \
                        _clause_start(v, lo, start):
                    if parsed is None:
                        parsed = doc.has_annotation("DEP")
                    if _prohibiting_no(doc, v, start, end, hi, parsed, licensed_only=licensed):
                        kind = base
                elif base == "limit":
                    if quantity_starts is None:
                        quantity_starts = _quantity_starts(doc)
                    k = bisect.bisect_left(quantity_starts, v.starts[lo])
                    if k < len(quantity_starts) and quantity_starts[k] < v.ends[hi - 1]:
                        kind = base
                if kind != base:
                    continue
            if kind == "precondition" and cue in ("before", "after", "until"):
                if parsed is None:
                    parsed = doc.has_annotation("DEP")
                if not _clause_follows(doc, v, start, end, parsed):
                    continue
            gov, cond = _governed(v, lo, hi, start, end, kind)
            if gov is None:
                continue
            g0, g1 = char_range(v, *gov)
            if identifiers is None:
                identifiers = _identifiers(doc)
                id_starts = [s for s, _, _ in identifiers]
            target = _target(v, gov, identifiers, id_starts)
            attrs: dict[str, Scalar] = {"cue": cue, "constraint_kind": kind,
                                        "governed_start": g0, "governed_end": g1}
            if target:
                attrs["target"] = target
            if cond is not None:
                attrs["condition_start"], attrs["condition_end"] = char_range(v, *cond)
            add_attrs(doc, SPAN_KEY, NodeKind.CONSTRAINT, cs, ce, attrs, kind.upper())
        return doc


def _quantity_starts(doc: Doc) -> list[int]:
    """Sorted start offsets of the doc's quantity records."""
    return sorted([r[1] for r in raw_records_of(doc, _QUANTITY)])


def _identifiers(doc: Doc) -> list[tuple[int, int, str]]:
    """(start, end, name) of the doc's identifier records, sorted."""
    return sorted([(s, e, str(a.get("name", "")))
                   for _, s, e, a in raw_records_of(doc, _IDENTIFIER)])


def _prohibiting_no(doc: Doc, v: DocView, start: int, end: int, hi: int, parsed: bool, *,
                    licensed_only: bool = False) -> bool:
    """Whether a clause-initial "no" prohibits ("No deploys on Fridays", "no retries after 3
    failures", "No service may call the DB") rather than reports a result ("No rows matched the
    filter", "No folder for 2025-03-17 is missing"): a report has a finite verb of its own; a
    prohibition has none, or a modal ("may", "should") or "allowed" that makes it one.

    Only the clause after the cue is read, up to a clause boundary or a subordinator ("no
    deploys after the freeze starts": "starts" belongs to the condition); ``hi`` ends the
    sentence window. With ``licensed_only`` (a negative quantifier: "nothing may expire"), only
    a modal or licensing word makes it one."""
    if end >= len(v.starts) or not is_wordlike(v, end) or value_no(v, start):
        return False  # "| no |", "nullable: no": nothing is governed
    openers = clause_openers()
    finite = False
    k = end
    while k < hi:
        low = v.low(k)
        if v.tok(k) in CLAUSE_PUNCT or low in openers:
            break
        if low in _PROHIBITING or (parsed and doc[k].tag_ == "MD") or (
                low == "to" and k > end and v.low(k - 1) in _BE_FINITE):
            return True  # "no one may deploy", "no pushes are allowed", "none are to run"
        if k > end and _finite(doc, v, k, parsed):
            finite = True  # the first word after "no" is its noun ("No deploys")
        k += 1
    return not finite and not licensed_only


def _finite(doc: Doc, v: DocView, k: int, parsed: bool) -> bool:
    """Whether token ``k`` is a finite verb: the tagger's, else copulas, past tenses and -s
    forms from the verb list when no noun follows ("No rows matched the filter")."""
    if parsed:
        tok = doc[k]
        return tok.tag_ in ("VBD", "VBZ", "VBP") and tok.pos_ in ("VERB", "AUX")
    low = v.low(k)
    if low in _BE_FINITE or low in _STATIVE:
        return True
    n = len(v.starts)
    nxt = k + 1 if k + 1 < n else -1
    before_noun = nxt >= 0 and bool(v.flags(nxt) & ALPHA) and v.tok(nxt).islower() and \
        v.low(nxt) not in stopwords() and v.low(nxt) not in _PREPOSITIONS
    if before_noun or not v.tok(k).islower():
        return False  # "no cached results", "no unreviewed pushes": a modifier
    if low.endswith("ed") and not low.endswith("eed") and len(low) >= 5:
        return True  # "No rows matched the filter", "No tests failed."
    # "No rows match the filter", "No job runs.": a verb-list word before what a verb takes;
    # "no direct calls to main" keeps "calls" a noun.
    return low in common_verbs() and (nxt < 0 or bool(v.flags(nxt) & (PUNCT | NUM)) or (
        v.low(nxt) in _DETERMINERS) or v.low(nxt).endswith("ly"))


def _clause_follows(doc: Doc, v: DocView, start: int, end: int, parsed: bool) -> bool:
    if parsed:
        return doc[start].dep_ == "mark"
    nxt = range(end, min(end + 5, len(v.starts)))
    return any(v.low(k).endswith(("s", "ed")) or v.low(k) in ("pass", "run", "finish", "land",
                                                              "complete", "is", "are")
               for k in nxt[1:]) and not any(v.flags(k) & NUM for k in nxt[:2])


def _governed(v: DocView, lo: int, hi: int, start: int, end: int, kind: str
              ) -> tuple[tuple[int, int] | None, tuple[int, int] | None]:
    """(governed token range, condition token range) for the constraint cue [start, end) in
    the sentence window [lo, hi)."""
    words = v.words
    if kind == "precondition":
        cond_end = end
        while cond_end < hi and words[cond_end] not in (";", ".", "!", "?", ","):
            cond_end += 1
        cond = trim(v, end, cond_end)
        # "Before deploying, run the tests" / "deploy only after tests pass"
        gov = trim(v, cond_end, hi) if at_clause_start(v, lo, start) else trim(v, lo, start)
        if gov[0] >= gov[1]:
            return None, None
        return gov, cond if cond[0] < cond[1] else None
    if kind == "limit":
        # "The batch size must not exceed 500": the limited thing is the subject before the cue,
        # within the same clause; "up to 5 GB of disk, up to 3 CPUs": each cue its own clause.
        a = start
        while a > lo and words[a - 1] not in (",", ";", ":", "(", ")"):
            a -= 1
        b = end
        while b < hi and words[b] not in (",", ";", ".", "!", "?", ":", "(", ")"):
            b += 1
        # The whole clause: the limited thing, the cue and the bound ("up to 5 GB" is one
        # quantity node that starts at the cue).
        gov = trim(v, a, b)
        return (gov, None) if gov[0] < gov[1] else (None, None)
    enders = _action_enders()
    lowers = v.lowers
    b = end
    while b < hi and words[b] not in (";", ".", "!", "?", ",") and lowers[b] not in enders:
        b += 1
    gov = trim(v, end, b)
    return (gov, None) if gov[0] < gov[1] else (None, None)


def _target(v: DocView, gov: tuple[int, int], identifiers: list[tuple[int, int, str]],
            id_starts: list[int]) -> str:
    """Identifiers and content words of the governed range, normalised, in order."""
    s, e = char_range(v, *gov)
    lo, hi = bisect.bisect_left(id_starts, s), bisect.bisect_left(id_starts, e)
    words: list[str] = [name for (_, _, name) in identifiers[lo:hi]]
    # Every taken word's lower(), joined by a character no word holds: whether a word is part
    # of one taken is then one search (a word with that character takes the slow test).
    lowered = [lower(name) for name in words]
    joined = "\0".join(lowered)
    stop = stopwords()
    lowers = v.lowers
    for k in range(gov[0], gov[1]):
        if len(words) >= 8:
            break  # nothing more is taken
        if lowers[k] not in stop and v.flags(k) & ALPHA:
            w = norm(v.words[k])
            if w in words:
                continue
            if "\0" not in w:
                if lowered and w in joined:
                    continue
            elif any(w in name for name in lowered):
                continue
            words.append(w)
            lowered.append(lower(w))
            joined = "\0".join(lowered)
    return " ".join(words[:8])


@Language.factory("refgraph_constraints", default_config={},
                  assigns=["doc.spans", "doc._.rg_records"],
                  requires=["doc._.rg_records"])
def make_constraints(nlp: Language, name: str) -> ConstraintTagger:
    return ConstraintTagger(nlp, name)
