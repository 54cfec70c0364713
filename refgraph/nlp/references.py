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
from spacy.tokens import Doc, Token

from ..model import NodeKind
from ..resources import load_json
from .lexicon import longest_matches, phrase_matcher
from .records import add, ensure_group
from .text import common_verbs, is_wordlike, looks_verbal, norm, stopwords, verb_by_context

SPAN_KEY = "rg_deictics"
_BEFORE_THAT = frozenset({
    "of", "in", "on", "for", "to", "from", "with", "by", "about", "under", "over", "into", "at",
    "past", "after", "before", "use", "apply", "increase", "raise", "lower", "keep", "exceed",
    "reuse", "respect", "follow", "check", "honor", "honour", "see", "per", "against", "change",
    "remove", "drop", "ignore", "fix", "re-run", "rerun", "retry", "skip", "and", "or", "like"})
_SINGULAR = frozenset({"that", "this"})
_NOT_VERB_S = ("ss", "us", "is", "ics", "'s", "news", "series", "species")
_BE = frozenset({"is", "was", "has", "had", "does", "did", "'s"})
_MODALS = frozenset({"can", "could", "will", "would", "shall", "should", "may", "might", "must"})
_DETERMINERS = frozenset({"the", "a", "an", "every", "each", "all", "this", "that", "these",
                          "those", "its", "their", "our", "your", "my", "his", "her", "no"})


@cache
def _lex() -> dict[str, Any]:
    data: dict[str, Any] = load_json("lexicon", "references.json")
    return data


@cache
def _mass_nouns() -> frozenset[str]:
    return frozenset(_lex()["mass_nouns"])


def _description(doc: Doc, start: int, accurate: bool, det: str = "") -> tuple[int, str, str]:
    """(end token, head, modifiers) of the noun phrase starting at token ``start``.

    ``det`` is the word before it: after a singular demonstrative ("that", "this") the head is
    singular, so in fast mode an -s word after the first noun is the verb ("that retry budget
    leaves 3 attempts").
    """
    lex = _lex()
    bad_first = frozenset(lex["not_after_determiner"])
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
            return _split(doc, start, last + 1)
        return start, "", ""
    singular = det in _SINGULAR
    j = start
    while j < len(doc) and j < start + 4:
        t = doc[j]
        if not is_wordlike(t) or t.lower_ in stopwords() or (j == start and t.lower_ in bad_first):
            break
        if j == start and singular and _third_person(t) and t.lower_ in common_verbs():
            break  # "this leaves 3 attempts": the pronoun, then its verb
        if j > start and _verb_after_noun(doc, j, singular):
            break
        j += 1
    if j == start:
        return start, "", ""
    return _split(doc, start, j)


def _third_person(tok: Token) -> bool:
    """An -s form that is not a noun ending ("leaves", not "class", "status", "analysis")."""
    low = tok.lower_
    return tok.is_alpha and tok.text.islower() and len(low) > 3 and low.endswith("s") and \
        not low.endswith(_NOT_VERB_S)


def _verb_after_noun(doc: Doc, j: int, singular: bool) -> bool:
    """Fast mode: whether token ``j``, after a noun of the phrase, is (probably) its verb."""
    t = doc[j]
    low = t.lower_
    if low in _MODALS or looks_verbal(t, accurate=False) or verb_by_context(doc, j):
        return True
    if t.text.islower() and len(low) >= 5 and low.endswith("ed") and not low.endswith("eed"):
        return True  # "that retry budget timed out", "those mirrors failed"
    if singular and _third_person(t):
        # "that retry budget leaves 3 attempts": a singular head takes an -s verb; before
        # another noun the -s word is a modifier ("that users table").
        nxt = doc[j + 1] if j + 1 < len(doc) else None
        return nxt is None or not is_wordlike(nxt) or nxt.lower_ in stopwords() or \
            nxt.lower_.endswith("ly")
    return j + 1 < len(doc) and doc[j + 1].lower_ in _DETERMINERS  # "those retries hit the cap"


def _np_ends_clause(doc: Doc, start: int) -> bool:
    """ "... caps that retry budget." : a noun phrase then the clause ends, so "that" is a
    determiner; a complementizer is followed by a subject and a verb."""
    end, head, _ = _description(doc, start, accurate=False, det="that")
    return bool(head) and (end >= len(doc) or doc[end].is_punct)


def demonstrative_after_so(doc: Doc, i: int) -> bool:
    """Whether "that" at token ``i``, after "so", is the demonstrative of a subject noun phrase
    ("so that retry budget leaves 3 attempts") rather than the purpose "so that" ("so that we
    can retry", "so that users see it", "so that data is fresh").

    The phrase after a purpose "that" is a clause with its own subject: a pronoun, a determiner
    phrase, a plural, a mass noun or a name. A singular count noun without a determiner cannot
    be a subject on its own, so "that" is its determiner. The same rule in both modes: the
    tagger reads "so that flag is set" and "so that data is fresh" alike.
    """
    end, head, _ = _description(doc, i + 1, accurate=False, det="that")
    if not head or end == i + 1:
        return False
    last = doc[end - 1]
    if last.text.islower() and norm(last.text) != last.lower_:
        return False  # a plural head: "so that users can retry"
    if last.lower_ in _mass_nouns():
        return False  # "so that data is fresh", "so that retry traffic drains"
    if end == i + 2 and not last.text.islower():
        return False  # a name: "so that Alice can review", "so that CI passes"
    if end >= len(doc) or doc[end].is_punct:
        return True
    nxt = doc[end]
    return nxt.lower_ in _MODALS or nxt.lower_ in _BE or _verb_after_noun(doc, end, True)


def _split(doc: Doc, start: int, end: int) -> tuple[int, str, str]:
    words = [_word(doc[k]) for k in range(start, end) if doc[k].text != "-"]
    return end, words[-1], " ".join(words[:-1])


def _word(tok: Token) -> str:
    return tok.text if ("_" in tok.text or tok.text.isupper()) else norm(tok.text)


class ReferenceTagger:
    """spaCy component: see the module docstring."""

    def __init__(self, nlp: Language, name: str, *, resolve_pronouns: bool) -> None:
        self.name = name
        self.resolve_pronouns = resolve_pronouns
        lex = _lex()
        self.phrases = phrase_matcher(nlp, {**lex["phrases"], **{
            d: f"det:{k}" for d, k in lex["determiners"].items()}})
        self.pronouns = frozenset(lex["pronouns"])

    def __call__(self, doc: Doc) -> Doc:
        ensure_group(doc, SPAN_KEY)
        accurate = self.resolve_pronouns and doc.has_annotation("TAG")
        covered: set[int] = set()
        for span in longest_matches(self.phrases, doc):
            label = span.label_
            word = span.text.lower()
            if label.startswith("det:"):
                kind = label[4:]
                first = doc[span.start]
                after_so = word == "that" and span.start > 0 and doc[span.start - 1].lower_ == "so"
                if after_so:
                    if not demonstrative_after_so(doc, span.start):
                        continue  # the purpose "so that we can retry"
                elif accurate and word in ("that", "this", "these", "those") and (
                        first.tag_ == "WDT" or (first.dep_ == "mark" and span.start > 0
                        and doc[span.start - 1].pos_ in ("VERB", "AUX", "NOUN"))):
                    continue  # the complementizer or relative "that"
                elif not accurate and word == "that" and span.start > 0 and \
                        doc[span.start - 1].lower_ not in _BEFORE_THAT and \
                        not doc[span.start - 1].is_punct and \
                        not _np_ends_clause(doc, span.end):
                    continue  # probably the complementizer: "we know that retries fail"
                end, head, mods = _description(doc, span.end, accurate, det=word)
                if not head:
                    if word in ("this", "these", "those", "the above") or (
                            accurate and word == "that" and first.pos_ == "PRON"
                            and first.dep_ in ("nsubj", "nsubjpass", "dobj", "pobj")):
                        self._add(doc, span.start, span.end, "discourse", word, "", "")
                    elif word in ("the former", "the latter", "the same"):
                        self._add(doc, span.start, span.end, kind, word, "", "")
                    continue
                self._add(doc, span.start, end, kind, word, head, mods)
            else:
                self._add(doc, span.start, span.end, label, word, "", "")
            covered.update(range(span.start, span.end))
        if accurate:
            for tok in doc:
                if tok.i in covered or tok.pos_ != "PRON" or tok.lower_ not in self.pronouns:
                    continue
                if tok.lower_ == "it" and tok.dep_ == "expl":
                    continue
                self._add(doc, tok.i, tok.i + 1, "pronoun", tok.lower_, "", "")
        return doc

    @staticmethod
    def _add(doc: Doc, ts: int, te: int, kind: str, word: str, head: str, mods: str) -> None:
        s = doc[ts].idx
        e = doc[te - 1].idx + len(doc[te - 1].text)
        description = f"{mods} {head}".strip()
        add(doc, SPAN_KEY, NodeKind.DEICTIC, s, e, label="DEIXIS", deictic_kind=kind,
            word=word, head=head or None, modifiers=mods or None,
            description=description or None)


@Language.factory("refgraph_references", default_config={"resolve_pronouns": True},
                  assigns=["doc.spans", "doc._.rg_records"])
def make_references(nlp: Language, name: str, resolve_pronouns: bool) -> ReferenceTagger:
    return ReferenceTagger(nlp, name, resolve_pronouns=resolve_pronouns)
