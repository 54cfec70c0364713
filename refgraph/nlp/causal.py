"""``refgraph_causal``: causal and inferential connectives with premise and conclusion spans.

"A, therefore B" and "A leads to B" put the premise first; "B because A" and "B is caused by A"
put it last; "Because A, B" opens with the premise. A conclusion that opens a sentence
("Therefore, B.") takes its premise from the sentence before, which the graph builder links.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from spacy.language import Language
from spacy.tokens import Doc

from ..casing import lower
from ..model import NodeKind
from ..resources import load_json
from .lexicon import longest_matches, phrase_matcher
from .records import add, ensure_group
from .references import demonstrative_after_so
from .text import char_range, trim
from .view import NUM, PUNCT, SPACE, DocView, view

SPAN_KEY = "rg_causal"
_NOT_AFTER_SO = frozenset({"many", "much", "far", "long", "few", "little", "that", "called",
                           "to", "as", "on", "forth", "good", "bad", "well", "too", "very"})
_TEMPORAL_AFTER_SINCE = frozenset({"then", "yesterday", "today", "monday", "tuesday", "wednesday",
                                   "thursday", "friday", "saturday", "sunday", "january",
                                   "february", "march", "april", "may", "june", "july", "august",
                                   "september", "october", "november", "december", "last",
                                   "the", "early", "late", "childhood", "birth"})
_BREAK = frozenset({",", ";", ":", ".", "!", "?"})


@cache
def _lex() -> dict[str, Any]:
    data: dict[str, Any] = load_json("lexicon", "causal.json")
    return data


class CausalTagger:
    """spaCy component: see the module docstring."""

    def __init__(self, nlp: Language, name: str) -> None:
        self.name = name
        lex = _lex()
        strict = set(lex["strict_backward"])
        labelled = {c: "forward" for c in lex["forward"]}
        labelled.update({c: "backward" for c in lex["backward"] if c not in strict - {"since"}})
        self.matcher = phrase_matcher(nlp, labelled)

    def __call__(self, doc: Doc) -> Doc:
        ensure_group(doc, SPAN_KEY)
        v = view(doc, refresh=True)  # sentence bounds may be new since the last component
        matches = longest_matches(self.matcher, doc, v)
        if not matches:
            return doc
        parsed = doc.has_annotation("DEP")  # once per doc: it scans every token
        text = v.text
        for start, end, direction in matches:
            word = lower(text[v.starts[start]:v.ends[end - 1]])
            if word == "so that" and demonstrative_after_so(v, start + 1):
                # "..., so that retry budget leaves 3 attempts": "so", then "that retry budget"
                end = start + 1
                word = lower(text[v.starts[start]:v.ends[start]])
            lo, hi = v.window(start)
            if not self._accept(doc, v, word, start, end, lo, hi, parsed):
                continue
            self._emit(doc, v, word, start, end, direction, lo, hi)
        return doc

    @staticmethod
    def _accept(doc: Doc, v: DocView, word: str, start: int, end: int, lo: int, hi: int,
                parsed: bool) -> bool:
        nxt = end if end < hi else -1
        if word == "so":
            if nxt < 0 or (v.flags(nxt) & PUNCT and v.tok(nxt) != ","):
                return False
            low = v.low(nxt)
            if low in _NOT_AFTER_SO and not (low == "that" and demonstrative_after_so(v, nxt)):
                return False
            return start <= lo or v.tok(start - 1) in (",", ";", "—", "-") or \
                v.low(start - 1) == "and"
        if word == "since":
            if nxt < 0 or v.flags(nxt) & NUM or v.low(nxt) in _TEMPORAL_AFTER_SINCE:
                return False
            if parsed and doc[start].dep_ != "mark":
                return False
        return True

    @staticmethod
    def _emit(doc: Doc, v: DocView, word: str, start: int, end: int, direction: str, lo: int,
              hi: int) -> None:
        at_start = start <= lo + 1 and all(v.flags(k) & (PUNCT | SPACE)
                                           for k in range(lo, start))
        premise: tuple[int, int] | None
        if direction == "forward":
            conclusion = trim(v, end, hi)
            # At a sentence start the premise is the previous sentence: the graph links it.
            premise = None if at_start else trim(v, lo, start)
        elif at_start:
            k = end
            while k < hi and v.tok(k) not in _BREAK:
                k += 1
            premise = trim(v, end, k)
            conclusion = trim(v, k, hi)
        else:
            premise = trim(v, end, hi)
            conclusion = trim(v, lo, start)
        if conclusion[0] >= conclusion[1] or (premise is not None and premise[0] >= premise[1]):
            return
        c0, c1 = char_range(v, *conclusion)
        attrs: dict[str, Any] = {"connective": word, "direction": direction,
                                 "conclusion_start": c0, "conclusion_end": c1}
        if premise is None:
            attrs["premise_scope"] = "previous"
            attrs["order"] = "premise-first"
        else:
            p0, p1 = char_range(v, *premise)
            attrs.update(premise_start=p0, premise_end=p1, premise_scope="sentence",
                         order="premise-first" if p0 < c0 else "conclusion-first")
        add(doc, SPAN_KEY, NodeKind.CAUSAL, v.starts[start], v.ends[end - 1], label="CAUSAL",
            **attrs)


@Language.factory("refgraph_causal", default_config={},
                  assigns=["doc.spans", "doc._.rg_records"])
def make_causal(nlp: Language, name: str) -> CausalTagger:
    return CausalTagger(nlp, name)
