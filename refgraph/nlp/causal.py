"""``refgraph_causal``: causal and inferential connectives with premise and conclusion spans.

"A, therefore B" and "A leads to B" put the premise first; "B because A" and "B is caused by A"
put it last; "Because A, B" opens with the premise. A conclusion that opens a sentence
("Therefore, B.") takes its premise from the sentence before, which the graph builder links.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from spacy.language import Language
from spacy.tokens import Doc, Span

from ..model import NodeKind
from ..resources import load_json
from .lexicon import longest_matches, phrase_matcher
from .records import add, ensure_group
from .references import demonstrative_after_so
from .text import char_range, trim
from .view import sentence_window, view

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
        view(doc, refresh=True)  # sentence bounds may be new since the last component
        parsed = doc.has_annotation("DEP")  # once per doc: it scans every token
        for span in longest_matches(self.matcher, doc):
            if span.text.lower() == "so that" and demonstrative_after_so(doc, span.start + 1):
                # "..., so that retry budget leaves 3 attempts": "so", then "that retry budget"
                span = Span(doc, span.start, span.start + 1, label=span.label_)
            sent = sentence_window(doc, span.start)
            if not self._accept(doc, span, sent, parsed):
                continue
            self._emit(doc, span, sent)
        return doc

    @staticmethod
    def _accept(doc: Doc, span: Span, sent: Span, parsed: bool) -> bool:
        word = span.text.lower()
        nxt = doc[span.end] if span.end < sent.end else None
        if word == "so":
            prev = doc[span.start - 1] if span.start > sent.start else None
            if nxt is None or (nxt.is_punct and nxt.text != ","):
                return False
            if nxt.lower_ in _NOT_AFTER_SO and not (
                    nxt.lower_ == "that" and demonstrative_after_so(doc, nxt.i)):
                return False
            return prev is None or prev.text in (",", ";", "—", "-") or prev.lower_ == "and"
        if word == "since":
            if nxt is None or nxt.like_num or nxt.lower_ in _TEMPORAL_AFTER_SINCE:
                return False
            if parsed and doc[span.start].dep_ != "mark":
                return False
        return True

    @staticmethod
    def _emit(doc: Doc, span: Span, sent: Span) -> None:
        direction = span.label_
        at_start = span.start <= sent.start + 1 and all(
            t.is_punct or t.is_space for t in doc[sent.start:span.start])
        premise: tuple[int, int] | None
        if direction == "forward":
            conclusion = trim(doc, span.end, sent.end)
            # At a sentence start the premise is the previous sentence: the graph links it.
            premise = None if at_start else trim(doc, sent.start, span.start)
        elif at_start:
            k = span.end
            while k < sent.end and doc[k].text not in _BREAK:
                k += 1
            premise = trim(doc, span.end, k)
            conclusion = trim(doc, k, sent.end)
        else:
            premise = trim(doc, span.end, sent.end)
            conclusion = trim(doc, sent.start, span.start)
        if conclusion[0] >= conclusion[1] or (premise is not None and premise[0] >= premise[1]):
            return
        c0, c1 = char_range(doc, *conclusion)
        attrs: dict[str, Any] = {"connective": span.text.lower(), "direction": direction,
                                 "conclusion_start": c0, "conclusion_end": c1}
        if premise is None:
            attrs["premise_scope"] = "previous"
            attrs["order"] = "premise-first"
        else:
            p0, p1 = char_range(doc, *premise)
            attrs.update(premise_start=p0, premise_end=p1, premise_scope="sentence",
                         order="premise-first" if p0 < c0 else "conclusion-first")
        add(doc, SPAN_KEY, NodeKind.CAUSAL, span.start_char, span.end_char, label="CAUSAL",
            **attrs)


@Language.factory("refgraph_causal", default_config={},
                  assigns=["doc.spans", "doc._.rg_records"])
def make_causal(nlp: Language, name: str) -> CausalTagger:
    return CausalTagger(nlp, name)
