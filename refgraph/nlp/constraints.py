"""``refgraph_constraints``: prohibitions, obligations, preconditions and limits, each linked to
the action or thing it governs ("do not call `deploy` before tests pass" governs ``deploy``).

This is the "negative space" a prune tends to delete while the governed action survives, so the
record keeps both the cue and a normalised ``target`` (identifiers and content words of what is
governed) that a later comparison can look for.
"""

from __future__ import annotations

import bisect
from functools import cache
from typing import Any

from spacy.language import Language
from spacy.tokens import Doc, Span

from ..model import NodeKind
from ..resources import load_json
from .lexicon import longest_matches, phrase_matcher
from .negation import value_no
from .records import add, ensure_group, raw_records
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
from .view import sentence_window, view

SPAN_KEY = "rg_constraints"
_IMPERATIVE_ONLY = frozenset({"do not", "don't", "do n't", "never", "avoid", "ensure",
                              "make sure", "always", "be sure to", "refrain from"})
_SUBJECTS = frozenset({"you", "please"})
# Words that keep a "no" clause a prohibition even with a finite verb ("no pushes are allowed").
_PROHIBITING = frozenset({"may", "must", "should", "shall", "can", "will", "might", "could",
                          "would", "allowed", "permitted", "tolerated", "accepted", "ever"})
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
def _action_enders() -> frozenset[str]:
    """Words that end the governed action; a condition word ("before") stays part of it."""
    return clause_openers() - {"before", "after", "until", "unless"}


def _clause_start(doc: Doc, sent: Span, i: int) -> bool:
    """Whether token i starts a clause: an imperative ("Do not ...", "- never ...")."""
    k = i - 1
    while k >= sent.start and doc[k].lower_ in _SUBJECTS:
        k -= 1
    if k < sent.start:
        return True
    prev = doc[k]
    return prev.text in CLAUSE_PUNCT or prev.text in ("-", "*", "•", ">") or \
        prev.lower_ in ("and", "but", "then", "so") or prev.is_space


class ConstraintTagger:
    """spaCy component: see the module docstring."""

    def __init__(self, nlp: Language, name: str) -> None:
        self.name = name
        self.matcher = phrase_matcher(nlp, _lex())

    def __call__(self, doc: Doc) -> Doc:
        ensure_group(doc, SPAN_KEY)
        view(doc, refresh=True)  # sentence bounds may be new since the last component
        parsed = doc.has_annotation("DEP")  # once per doc: it scans every token
        raw = raw_records(doc)
        quantity_starts = sorted(s for kind, s, _, _ in raw if kind == NodeKind.QUANTITY)
        identifiers = sorted((s, e, str(a.get("name", ""))) for kind, s, e, a in raw
                             if kind == NodeKind.IDENTIFIER)
        id_starts = [s for s, _, _ in identifiers]
        for span in longest_matches(self.matcher, doc):
            kind = span.label_
            sent = sentence_window(doc, span.start)
            cue = span.text.lower()
            if cue in _IMPERATIVE_ONLY and not _clause_start(doc, sent, span.start):
                continue
            if kind.endswith("_weak"):
                base = kind[: -len("_weak")]
                imperative_no = base == "prohibition" and cue == "no" and _clause_start(
                    doc, sent, span.start) and _prohibiting_no(doc, sent, span, parsed)
                k = bisect.bisect_left(quantity_starts, sent.start_char)
                bounded = base == "limit" and k < len(quantity_starts) and \
                    quantity_starts[k] < sent.end_char
                if imperative_no or bounded:
                    kind = base
                else:
                    continue
            if kind == "precondition" and cue in ("before", "after", "until") and \
                    not _clause_follows(doc, span, parsed):
                continue
            gov, cond = _governed(doc, sent, span, kind)
            if gov is None:
                continue
            g0, g1 = char_range(doc, *gov)
            target = _target(doc, gov, identifiers, id_starts)
            attrs: dict[str, Any] = {"cue": cue, "constraint_kind": kind,
                                     "governed_start": g0, "governed_end": g1,
                                     "target": target or None}
            if cond is not None:
                attrs["condition_start"], attrs["condition_end"] = char_range(doc, *cond)
            add(doc, SPAN_KEY, NodeKind.CONSTRAINT, span.start_char, span.end_char,
                label=kind.upper(), **attrs)
        return doc


def _prohibiting_no(doc: Doc, sent: Span, span: Span, parsed: bool) -> bool:
    """Whether a clause-initial "no" prohibits ("No deploys on Fridays", "no retries after 3
    failures", "No service may call the DB") rather than reports a result ("No rows matched the
    filter", "No folder for 2025-03-17 is missing"): a report has a finite verb of its own; a
    prohibition has none, or a modal ("may", "should") or "allowed" that makes it one.

    Only the clause after the cue is read, up to a clause boundary or a subordinator ("no
    deploys after the freeze starts": "starts" belongs to the condition)."""
    if span.end >= len(doc) or not is_wordlike(doc[span.end]) or value_no(doc, span.start):
        return False  # "| no |", "nullable: no": nothing is governed
    finite = False
    k = span.end
    while k < sent.end:
        tok = doc[k]
        low = tok.lower_
        if tok.text in CLAUSE_PUNCT or low in clause_openers():
            break
        if low in _PROHIBITING or (parsed and tok.tag_ == "MD") or (
                low == "to" and k > span.end and doc[k - 1].lower_ in _BE_FINITE):
            return True  # "no one may deploy", "no pushes are allowed", "none are to run"
        if k > span.end and _finite(doc, k, parsed):
            finite = True  # the first word after "no" is its noun ("No deploys")
        k += 1
    return not finite


def _finite(doc: Doc, k: int, parsed: bool) -> bool:
    """Whether token ``k`` is a finite verb: the tagger's, else copulas, past tenses and -s
    forms from the verb list when no noun follows ("No rows matched the filter")."""
    tok = doc[k]
    low = tok.lower_
    if parsed:
        return tok.tag_ in ("VBD", "VBZ", "VBP") and tok.pos_ in ("VERB", "AUX")
    if low in _BE_FINITE or low in _STATIVE:
        return True
    nxt = doc[k + 1] if k + 1 < len(doc) else None
    before_noun = nxt is not None and nxt.is_alpha and nxt.text.islower() and \
        nxt.lower_ not in stopwords() and nxt.lower_ not in _PREPOSITIONS
    if before_noun or not tok.text.islower():
        return False  # "no cached results", "no unreviewed pushes": a modifier
    if low.endswith("ed") and not low.endswith("eed") and len(low) >= 5:
        return True  # "No rows matched the filter", "No tests failed."
    # "No rows match the filter", "No job runs.": a verb-list word before what a verb takes;
    # "no direct calls to main" keeps "calls" a noun.
    return low in common_verbs() and (nxt is None or nxt.is_punct or nxt.like_num or (
        nxt.lower_ in _DETERMINERS) or nxt.lower_.endswith("ly"))


def _clause_follows(doc: Doc, span: Span, parsed: bool) -> bool:
    tok = doc[span.start]
    if parsed:
        return tok.dep_ == "mark"
    nxt = doc[span.end: span.end + 5]
    return any(t.lower_.endswith(("s", "ed")) or t.lower_ in ("pass", "run", "finish", "land",
                                                              "complete", "is", "are")
               for t in nxt[1:]) and not any(t.like_num for t in nxt[:2])


def _governed(doc: Doc, sent: Span, span: Span, kind: str
              ) -> tuple[tuple[int, int] | None, tuple[int, int] | None]:
    """(governed token range, condition token range) for the constraint cue ``span``."""
    if kind == "precondition":
        cond_end = span.end
        while cond_end < sent.end and doc[cond_end].text not in (";", ".", "!", "?", ","):
            cond_end += 1
        cond = trim(doc, span.end, cond_end)
        if not at_clause_start(doc, sent, span.start):
            gov = trim(doc, sent.start, span.start)  # "deploy only after tests pass"
        else:
            gov = trim(doc, cond_end, sent.end)  # "Before deploying, run the tests"
        if gov[0] >= gov[1]:
            return None, None
        return gov, cond if cond[0] < cond[1] else None
    if kind == "limit":
        # "The batch size must not exceed 500": the limited thing is the subject before the cue,
        # within the same clause; "up to 5 GB of disk, up to 3 CPUs": each cue its own clause.
        lo = span.start
        while lo > sent.start and doc[lo - 1].text not in (",", ";", ":", "(", ")"):
            lo -= 1
        hi = span.end
        while hi < sent.end and doc[hi].text not in (",", ";", ".", "!", "?", ":", "(", ")"):
            hi += 1
        # The whole clause: the limited thing, the cue and the bound ("up to 5 GB" is one
        # quantity node that starts at the cue).
        gov = trim(doc, lo, hi)
        return (gov, None) if gov[0] < gov[1] else (None, None)
    end = span.end
    while end < sent.end and doc[end].text not in (";", ".", "!", "?", ",") and \
            doc[end].lower_ not in _action_enders():
        end += 1
    gov = trim(doc, span.end, end)
    return (gov, None) if gov[0] < gov[1] else (None, None)


def _target(doc: Doc, gov: tuple[int, int], identifiers: list[tuple[int, int, str]],
            id_starts: list[int]) -> str:
    """Identifiers and content words of the governed range, normalised, in order."""
    s, e = char_range(doc, *gov)
    lo, hi = bisect.bisect_left(id_starts, s), bisect.bisect_left(id_starts, e)
    words: list[str] = [name for (_, _, name) in identifiers[lo:hi]]
    for tok in doc[gov[0]:gov[1]]:
        if tok.is_alpha and tok.lower_ not in stopwords() and len(words) < 8:
            w = norm(tok.text)
            if w not in words and not any(w in name.lower() for name in words):
                words.append(w)
    return " ".join(words[:8])


@Language.factory("refgraph_constraints", default_config={},
                  assigns=["doc.spans", "doc._.rg_records"],
                  requires=["doc._.rg_records"])
def make_constraints(nlp: Language, name: str) -> ConstraintTagger:
    return ConstraintTagger(nlp, name)
