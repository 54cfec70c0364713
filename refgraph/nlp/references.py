"""``refgraph_references``: deictic and anaphoric references, each with the description a
reader uses to find its antecedent ("that retry budget" -> head ``budget``, modifier ``retry``).

Fixed phrases ("as noted", "the former") have no description; determiner phrases ("the above
constraint", "this table") take the noun phrase after them; pronouns are kept in accurate mode
only, where the tagger can tell "that" the pronoun from "that" the complementizer.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from spacy.language import Language
from spacy.tokens import Doc

from ..casing import lower
from ..model import NodeKind
from ..resources import load_json, load_word_list
from .lexicon import longest_matches, phrase_matcher
from .records import add, ensure_group
from .text import common_verbs, is_wordlike, looks_verbal, norm, stopwords, verb_by_context
from .view import ALPHA, PUNCT, DocView, view

SPAN_KEY = "rg_deictics"
_BEFORE_THAT = frozenset({
    "of", "in", "on", "for", "to", "from", "with", "by", "about", "under", "over", "into", "at",
    "past", "after", "before", "use", "apply", "increase", "raise", "lower", "keep", "exceed",
    "reuse", "respect", "follow", "check", "honor", "honour", "see", "per", "against", "change",
    "remove", "drop", "ignore", "fix", "re-run", "rerun", "retry", "skip", "and", "or", "like"})
_SINGULAR = frozenset({"that", "this"})
_NOT_VERB_S = ("ss", "us", "is", "ics", "'s", "news", "series", "species")
_BE = frozenset({"is", "was", "has", "had", "does", "did", "'s"})
_MODALS = load_word_list("grammar.json", "modals")
_DETERMINERS = frozenset({"the", "a", "an", "every", "each", "all", "this", "that", "these",
                          "those", "its", "their", "our", "your", "my", "his", "her", "no"})


@cache
def _lex() -> dict[str, Any]:
    data: dict[str, Any] = load_json("lexicon", "references.json")
    return data


@cache
def _time_nouns() -> frozenset[str]:
    """Heads that make "that time", "this week" a time expression, not a reference."""
    return frozenset(_lex()["time_nouns"])


@cache
def _mass_nouns() -> frozenset[str]:
    return frozenset(_lex()["mass_nouns"])


def _description(doc: Doc, v: DocView, start: int, accurate: bool, det: str = ""
                 ) -> tuple[int, str, str]:
    """(end token, head, modifiers) of the noun phrase starting at token ``start``.

    ``det`` is the word before it: after a singular demonstrative ("that", "this") the head is
    singular, so in fast mode an -s word after the first noun is the verb ("that retry budget
    leaves 3 attempts").
    """
    if accurate and start < len(doc):
        # The parse knows where the noun phrase ends: walk to its head noun.
        j = start
        last = -1
        while j < len(doc) and j < start + 5:
            t = doc[j]
            if t.pos_ in ("NOUN", "PROPN") or (t.pos_ in ("ADJ", "VERB") and t.tag_ in (
                    "JJ", "VBN", "VBG") and j + 1 < len(doc) and doc[j + 1].pos_ in (
                    "NOUN", "PROPN", "ADJ")) or t.text.startswith("`"):
                last = j
                j += 1
                continue
            if t.pos_ == "PUNCT" and t.text == "-" and last >= 0:
                j += 1
                continue
            break
        if last >= 0:
            return _split(v, start, last + 1)
        return start, "", ""
    return _fast_description(v, start, det)


def _fast_description(v: DocView, start: int, det: str) -> tuple[int, str, str]:
    """``_description`` without a parse."""
    bad_first = _not_after_determiner()
    singular = det in _SINGULAR
    n = len(v.starts)
    stop = stopwords()
    j = start
    while j < n and j < start + 4:
        low = v.low(j)
        if not is_wordlike(v, j) or low in stop or (j == start and low in bad_first):
            break
        if j == start and singular and _third_person(v, j) and low in common_verbs():
            break  # "this leaves 3 attempts": the pronoun, then its verb
        if j > start and _verb_after_noun(v, j, singular):
            break
        j += 1
    if j == start:
        return start, "", ""
    return _split(v, start, j)


@cache
def _not_after_determiner() -> frozenset[str]:
    return frozenset(_lex()["not_after_determiner"])


def _third_person(v: DocView, j: int) -> bool:
    """An -s form that is not a noun ending ("leaves", not "class", "status", "analysis")."""
    low = v.low(j)
    return bool(v.flags(j) & ALPHA) and v.tok(j).islower() and len(low) > 3 and \
        low.endswith("s") and not low.endswith(_NOT_VERB_S)


def _verb_after_noun(v: DocView, j: int, singular: bool) -> bool:
    """Fast mode: whether token ``j``, after a noun of the phrase, is (probably) its verb."""
    low = v.low(j)
    n = len(v.starts)
    if low in _MODALS or looks_verbal(low) or verb_by_context(v, j):
        return True
    if v.tok(j).islower() and len(low) >= 5 and low.endswith("ed") and not low.endswith("eed"):
        return True  # "that retry budget timed out", "those mirrors failed"
    if singular and _third_person(v, j):
        # "that retry budget leaves 3 attempts": a singular head takes an -s verb; before
        # another noun the -s word is a modifier ("that users table").
        if j + 1 >= n:
            return True
        nxt = v.low(j + 1)
        return not is_wordlike(v, j + 1) or nxt in stopwords() or nxt.endswith("ly")
    return j + 1 < n and v.low(j + 1) in _DETERMINERS  # "those retries hit the cap"


def _np_ends_clause(v: DocView, start: int) -> bool:
    """ "... caps that retry budget." : a noun phrase then the clause ends, so "that" is a
    determiner; a complementizer is followed by a subject and a verb."""
    end, head, _ = _fast_description(v, start, det="that")
    return bool(head) and (end >= len(v.starts) or bool(v.flags(end) & PUNCT))


def demonstrative_after_so(v: DocView, i: int) -> bool:
    """Whether "that" at token ``i``, after "so", is the demonstrative of a subject noun phrase
    ("so that retry budget leaves 3 attempts") rather than the purpose "so that" ("so that we
    can retry", "so that users see it", "so that data is fresh").

    The phrase after a purpose "that" is a clause with its own subject: a pronoun, a determiner
    phrase, a plural, a mass noun or a name. A singular count noun without a determiner cannot
    be a subject on its own, so "that" is its determiner. The same rule in both modes: the
    tagger reads "so that flag is set" and "so that data is fresh" alike.
    """
    end, head, _ = _fast_description(v, i + 1, det="that")
    if not head or end == i + 1:
        return False
    last = v.tok(end - 1)
    last_low = v.low(end - 1)
    if last.islower() and norm(last) != last_low:
        return False  # a plural head: "so that users can retry"
    if last_low in _mass_nouns():
        return False  # "so that data is fresh", "so that retry traffic drains"
    if end == i + 2 and not last.islower():
        return False  # a name: "so that Alice can review", "so that CI passes"
    if end >= len(v.starts) or v.flags(end) & PUNCT:
        return True
    nxt = v.low(end)
    return nxt in _MODALS or nxt in _BE or _verb_after_noun(v, end, True)


def _split(v: DocView, start: int, end: int) -> tuple[int, str, str]:
    words = [_word(v.tok(k)) for k in range(start, end) if v.tok(k) != "-"]
    return end, words[-1], " ".join(words[:-1])


def _word(text: str) -> str:
    return text if ("_" in text or text.isupper()) else norm(text)


_NOT_REFERENCE = "none"  # the label of an idiom that holds a determiner but points nowhere


class ReferenceTagger:
    """spaCy component: see the module docstring."""

    def __init__(self, nlp: Language, name: str, *, resolve_pronouns: bool) -> None:
        self.name = name
        self.resolve_pronouns = resolve_pronouns
        lex = _lex()
        self.phrases = phrase_matcher(nlp, {**lex["phrases"], **{
            d: f"det:{k}" for d, k in lex["determiners"].items()},
            **{p: _NOT_REFERENCE for p in lex["not_references"]}})
        self.pronouns = frozenset(lex["pronouns"])

    def __call__(self, doc: Doc) -> Doc:
        ensure_group(doc, SPAN_KEY)
        accurate = self.resolve_pronouns and doc.has_annotation("TAG")
        v = view(doc)
        text = v.text
        covered: set[int] = set()
        for start, end, label in longest_matches(self.phrases, doc, v):
            word = lower(text[v.starts[start]:v.ends[end - 1]])
            if label == _NOT_REFERENCE:
                continue  # "no such file": the longest match keeps "such" from pointing
            if label.startswith("det:"):
                kind = label[4:]
                after_so = word == "that" and start > 0 and v.low(start - 1) == "so"
                if after_so:
                    if not demonstrative_after_so(v, start):
                        continue  # the purpose "so that we can retry"
                elif accurate and word in ("that", "this", "these", "those") and (
                        doc[start].tag_ == "WDT" or (doc[start].dep_ == "mark" and start > 0
                        and doc[start - 1].pos_ in ("VERB", "AUX", "NOUN"))):
                    continue  # the complementizer or relative "that"
                elif accurate and word == "that" and start > 0 and \
                        doc[start - 1].pos_ == "VERB" and doc[start].dep_ == "det" and \
                        doc[start].head.dep_ in ("nsubj", "nsubjpass"):
                    continue  # "both agree that dance is ...": its noun is the subject of
                    # a clause of its own, so "that" opens the clause (tagged a determiner)
                elif not accurate and word == "that" and start > 0 and \
                        v.low(start - 1) not in _BEFORE_THAT and \
                        not v.flags(start - 1) & PUNCT and \
                        not _np_ends_clause(v, end):
                    continue  # probably the complementizer: "we know that retries fail"
                e, head, mods = _description(doc, v, end, accurate, det=word)
                if not head:
                    if word in ("this", "these", "those", "the above") or (
                            accurate and word == "that" and doc[start].pos_ == "PRON"
                            and doc[start].dep_ in ("nsubj", "nsubjpass", "dobj", "pobj")):
                        self._add(doc, v, start, end, "discourse", word, "", "")
                    elif word in ("the former", "the latter", "the same"):
                        self._add(doc, v, start, end, kind, word, "", "")
                    continue
                self._add(doc, v, start, e, kind, word, head, mods)
            else:
                self._add(doc, v, start, end, label, word, "", "")
            covered.update(range(start, end))
        if accurate:
            for tok in doc:
                if tok.i in covered or tok.pos_ != "PRON" or tok.lower_ not in self.pronouns:
                    continue
                if tok.lower_ == "it" and tok.dep_ == "expl":
                    continue
                self._add(doc, v, tok.i, tok.i + 1, "pronoun", tok.lower_, "", "")
        return doc

    @staticmethod
    def _add(doc: Doc, v: DocView, ts: int, te: int, kind: str, word: str, head: str,
             mods: str) -> None:
        description = f"{mods} {head}".strip()
        add(doc, SPAN_KEY, NodeKind.DEICTIC, v.starts[ts], v.ends[te - 1], label="DEIXIS",
            deictic_kind=kind, word=word, head=head or None, modifiers=mods or None,
            description=description or None,
            temporal=True if head and lower(head) in _time_nouns() else None)


@Language.factory("refgraph_references", default_config={"resolve_pronouns": True},
                  assigns=["doc.spans", "doc._.rg_records"])
def make_references(nlp: Language, name: str, resolve_pronouns: bool) -> ReferenceTagger:
    return ReferenceTagger(nlp, name, resolve_pronouns=resolve_pronouns)
