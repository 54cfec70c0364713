"""``refgraph_entities``: noun-phrase and named-entity mentions with a disambiguating key.

The key is the head plus its qualifiers, so "the primary replica of shard A" and "the primary
replica of shard B" get different keys (``replica[of=shard a;primary]`` and
``replica[of=shard b;primary]``) and "Sam (billing)" differs from "Sam (support)". Accurate mode
reads noun chunks and named entities from the parse; fast mode chunks after determiners and over
capitalised words.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from itertools import chain, repeat
from operator import sub

from spacy.language import Language
from spacy.tokens import Doc, Span

from ..casing import lower
from ..memo import WordMemo
from ..model import NodeKind, Scalar
from ..resources import load_word_list
from .lemmas import is_verb_form
from .lexicon import phrase_matcher
from .numbers import is_label_number, is_month_name
from .records import add_attrs, ensure_group, raw_records_of
from .text import (
    DETERMINERS,
    ascii_classes,
    class_table,
    common_verbs,
    grammar_words,
    looks_verbal,
    norm,
    stopwords,
)
from .view import ALPHA, NUM, PUNCT, SPACE, DocView, view

SPAN_KEY = "rg_mentions"
_DETS = frozenset({"the", "a", "an", "each", "every", "our", "your", "its", "their", "his", "her",
                   "my", "this", "that", "these", "those", "both", "all", "any", "some", "no",
                   "another", "either", "neither"})
_QUALIFYING_PREPS = frozenset({"of", "for", "in", "on", "from", "at"})
_CHUNK_OPENER = re.compile(
    r"(?i:\b(?:" + "|".join(sorted(_DETS, key=len, reverse=True)) + r")\b)|\b[A-Z]")
# The capital half of _CHUNK_OPENER with the character class first, so the regex engine skips
# ahead to capitals instead of testing a word boundary at every character.
_CAPITAL = re.compile(r"[A-Z](?<!\w.)")
_START = re.Match.start
_END = re.Match.end
_SPACE_CAPITAL = re.compile(b" A")  # in the class bytes: a capital after a non-word character
# Letters that match an ASCII letter of a determiner only case-insensitively ("İts"): a text
# holding one takes the full regex, which is what defines the candidates.
_CASE_ODD = re.compile("[\u0130\u0131\u017f\u212a]")
# On ASCII text, _CAPITAL's matches are the capitals after a non-word character (or at 0): a
# space then "A" once capitals read "A", other word characters "a" and the rest " ".
_CAPITAL_CLASSES = class_table({"A": "[A-Z]", "a": r"\w"})
# Quantities, identifiers and handles are referents of their own kinds; a hedge ("the bucket
# on node-7 likely failed") qualifies the claim, never the name.
_OWN_KINDS = frozenset({NodeKind.QUANTITY.value, NodeKind.IDENTIFIER.value,
                        NodeKind.HANDLE.value, NodeKind.HEDGE.value})
_NUMERIC_ENTS = frozenset({"DATE", "TIME", "MONEY", "PERCENT", "QUANTITY", "CARDINAL",
                           "ORDINAL"})


def _joined(qualifiers: list[str]) -> str:
    """The qualifiers of a key, sorted and ";"-joined: a mention's key is ``head[q1;q2]``, or
    just ``head`` when this is empty."""
    return ";".join(sorted(set(filter(None, qualifiers)))) if qualifiers else ""


def _word(text: str) -> str:
    """A token's word in a key: identifiers and acronyms as written, else normalised."""
    return text if ("_" in text or (text.isupper() and len(text) > 1)) else norm(text)


def _is_label(t: str) -> bool:
    """A token that names one of several: "A" in "shard A", "2" in "node 2", "eu-west-1"."""
    return (len(t) <= 3 and (t.isupper() or t.isdigit())) or any(c.isdigit() for c in t)


def _is_plural(word: str) -> bool:
    """A plural noun as written: normalising it drops its plural ending ("lines" ->
    "line"), and it is not a name or an acronym."""
    return word[:1].islower() and word.endswith("s") and norm(word) != word


# Both are asked about the same words over and over: their answers by word.
_w = WordMemo(_word)
_label_token = WordMemo(_is_label)
_plural = WordMemo(_is_plural)
# Negation cues that quantify a noun phrase as empty ("no untagged S3").
_NO_DETERMINERS = load_word_list("negation.json", "determiners")


def _is_word(char: str) -> bool:
    """What ``\\w`` matches in a str pattern."""
    return char.isalnum() or char == "_"


def _opens_clause(v: DocView, i: int) -> bool:
    """Sentence start, or after a bullet marker, colon or turn label: capitals mean nothing."""
    if i == 0 or v.is_sent_start(i):
        return True
    prev = v.tok(i - 1)
    return bool(v.flags(i - 1) & SPACE) or prev in ("-", "*", "+", "•", ":", ">", "#", "##",
                                                   "###", "(", '"', "“") \
        or prev.endswith((".", ":"))


def _code_name(word: str) -> bool:
    """ "Q3", "EC2", "S3": a capital, then letters and digits, both."""
    return 2 <= len(word) <= 8 and word.isalnum() and word[:1].isupper() and \
        any(c.isdigit() for c in word)


def _named_by_form(v: DocView, i: int) -> bool:
    """A capitalised word that opens a clause and still reads as a name: quoted whole
    ('called "Main"') or qualified by a parenthetical ("Main (Dublin, ...)")."""
    n = len(v.starts)
    if i + 1 >= n:
        return False
    nxt = v.tok(i + 1)
    return nxt == "(" or (nxt in ('"', "”") and i > 0 and v.tok(i - 1) in ('"', "“"))


_PAREN_MAX = 4  # words of a parenthetical that qualify a name
_PAREN_REACH = 12  # tokens searched for its closing bracket


def _parenthetical(v: DocView, end: int) -> tuple[str, int]:
    """ "Sam (billing)" -> ("(billing)", index after ")"); of a longer aside, its first part
    ("Main (Dublin, location id 61440)" -> "(dublin)"), which is what tells it apart."""
    n = len(v.starts)
    if end < n and v.tok(end) == "(":
        k = end + 1
        while k < n and k < end + _PAREN_REACH and v.tok(k) != ")":
            k += 1
        if k < n and v.tok(k) == ")" and k > end + 1:
            part = end + 1
            while part < k and v.tok(part) not in (",", ";"):
                part += 1
            if part - (end + 1) <= _PAREN_MAX and part > end + 1:
                return "(" + " ".join(norm(v.tok(t)) for t in range(end + 1, part)) + ")", \
                    k + 1
    return "", end


class EntityTagger:
    """spaCy component: see the module docstring."""

    def __init__(self, nlp: Language, name: str, *, use_parser: bool) -> None:
        self.name = name
        self.use_parser = use_parser
        self.determiners = phrase_matcher(nlp, {d: "det" for d in _DETS})
        # Every determiner is one token (as with spaCy's English tokenizer): the tokens holding
        # one are then the index's first-word hits.
        self.single_dets = self.determiners.single_tokens()

    def __call__(self, doc: Doc) -> Doc:
        ensure_group(doc, SPAN_KEY)
        v = view(doc, refresh=True)  # sentence bounds may be new since the last component
        blocked: set[int] = set()  # tokens no mention may take (see _OWN_KINDS)
        starts = v.starts
        for _, start, end, _ in raw_records_of(doc, _OWN_KINDS):
            if end > start:
                # v.token_at(start) .. v.token_at(end - 1), inlined: one per record. Token
                # starts are sorted, so the last is searched from the first; most records are
                # one token.
                first = bisect_right(starts, start)
                if first:
                    last = bisect_right(starts, end - 1, first)
                    if last == first:
                        blocked.add(first - 1)
                    else:
                        blocked.update(range(first - 1, last))
                else:  # before the first token: not from refgraph's components
                    blocked.update(range(0, max(1, bisect_right(starts, end - 1))))
        if self.use_parser and doc.has_annotation("DEP"):
            self._from_parse(doc, v, blocked)
        else:
            self._from_rules(doc, v, blocked)
        return doc

    # accurate mode ---------------------------------------------------------------------------
    def _from_parse(self, doc: Doc, v: DocView, blocked: set[int]) -> None:
        taken = set(blocked)
        ents = {t.i: e for e in doc.ents for t in e}
        for chunk in doc.noun_chunks:
            root = chunk.root
            if root.pos_ in ("PRON", "PUNCT", "SYM") or root.like_num or root.i in taken \
                    or not any(c.isalnum() for c in root.text):
                continue
            if _label_token(root.text) and root.i > chunk.start and doc[root.i - 1].pos_ in (
                    "NOUN", "PROPN"):
                root = doc[root.i - 1]  # "shard A": the head is "shard", "A" names which one
            quals = [_w(t.text) for t in chunk if t.i != root.i and t.i not in blocked and
                     t.lower_ not in grammar_words("discourse_words") and (
                (t.dep_ in ("compound", "amod", "nmod", "nummod", "poss") and not t.is_stop)
                or (t.i > root.i and _label_token(t.text))
                # "Shard A primary replica": a capital label after a noun, whatever the parse
                or (t.i > chunk.start and t.text.isupper() and _label_token(t.text)
                    and doc[t.i - 1].pos_ in ("NOUN", "PROPN")))]
            if root.i + 1 < chunk.end:  # "shard A": a label after the head
                quals.extend(_w(t.text) for t in doc[root.i + 1: chunk.end]
                             if _label_token(t.text))
            end = chunk.end
            if end < len(doc) and end not in blocked and doc[end].text.isdigit() and \
                    doc[end].head.i == root.i:
                quals.append(doc[end].text)  # "port 8080": the number names which one
                end += 1
            for child in root.rights:
                if child.dep_ == "prep" and child.lower_ in _QUALIFYING_PREPS:
                    obj = next((c for c in child.children if c.dep_ == "pobj"), None)
                    if obj is not None:
                        words = [_w(t.text) for t in obj.subtree
                                 if (not t.is_stop or _label_token(t.text))
                                 and not t.is_punct and t.dep_ != "det"]
                        if words:
                            quals.append(f"{child.lower_}={' '.join(words[:4])}")
                            end = max(end, max(t.i for t in obj.subtree) + 1)
                    break
            paren, pend = _parenthetical(v, end)
            if paren:
                quals.append(paren)
            label = ents[root.i].label_ if root.i in ents else ""
            start = chunk.start
            while start < root.i and (doc[start].dep_ == "det" or start in blocked
                                      or doc[start].lower_ in ("at", "most", "least")):
                start += 1
            self._emit(doc, v, start, pend if paren else end, _w(root.text), quals, label,
                       plural=root.tag_ in ("NNS", "NNPS") and _plural(lower(root.text)))
            taken.update(range(chunk.start, pend if paren else end))
        for ent in doc.ents:
            if ent.label_ in _NUMERIC_ENTS or any(t.i in taken for t in ent):
                continue
            if ent.start > 0 and doc[ent.start - 1].text == "(":
                continue
            first = ent.start
            while first < ent.end - 1 and doc[first].lower_ in grammar_words("discourse_words"):
                first += 1  # "Alright Sam", "Hey Sam": a greeting is no part of the name
            paren, pend = _parenthetical(v, ent.end)
            self._emit(doc, v, first, pend if paren else ent.end,
                       " ".join(norm(t.text) for t in doc[first:ent.end]), [paren],
                       ent.label_)

    # fast mode -------------------------------------------------------------------------------
    def _from_rules(self, doc: Doc, v: DocView, blocked: set[int]) -> None:
        # Only determiners and capitalised words can open a chunk: find them with a regex
        # instead of looking at every word.
        candidates = self._openers(doc, v)
        done = -1
        covered: set[int] = set()
        for i in candidates:
            if i <= done or i in blocked:
                continue
            done = self._chunk_from(doc, v, i, blocked) - 1
            covered.update(range(i, done + 1))
        # "on port 8080", "shard 3": a label noun and the number that names which one, as
        # accurate mode's parse makes it (port[8080])
        for k in range(1, len(v.starts)):
            if v.flags(k) & NUM and k not in covered and k - 1 not in covered and \
                    k not in blocked and k - 1 not in blocked and is_label_number(v, k) and \
                    v.flags(k - 1) & ALPHA:
                self._emit(doc, v, k - 1, k + 1, _w(v.words[k - 1]), [_w(v.words[k])], "")

    def _openers(self, doc: Doc, v: DocView) -> list[int]:
        """Tokens holding a match of _CHUNK_OPENER, in order.

        The same tokens as the regex gives, found faster: capitals by _CAPITAL, determiners by
        a phrase matcher over the tokens (a case-insensitive alternation tried at every
        character was a third of the component), kept only where the regex's word
        boundaries hold on both sides.
        """
        text = v.text
        classes = ascii_classes(text, _CAPITAL_CLASSES)  # ASCII: none of the odd letters
        if classes is None and _CASE_ODD.search(text):
            return [v.token_at(m.start()) for m in _CHUNK_OPENER.finditer(text)]
        starts, ends = v.starts, v.ends
        capitals: Iterable[int]
        if classes is not None:
            # the capitals after a space class byte (a match's end is the capital's end)
            capitals = map(_END, _SPACE_CAPITAL.finditer(classes))
            if classes[:1] == b"A":
                capitals = chain((1,), capitals)
            # bisect_right(starts, end - 1) = bisect_left(starts, end) for int offsets
            found = set(map(bisect_left, repeat(starts), capitals))
        else:
            found = set(map(bisect_right, repeat(starts), map(_START, _CAPITAL.finditer(text))))
        # found holds token index + 1 of each capital's token (bisect_right(starts, at) - 1,
        # at least 0); the determiners are added the same way
        if 0 in found:
            found.discard(0)
            found.add(1)
        size = len(text)
        first = self.determiners.first_word_starts(doc, v) if self.single_dets else [
            i for _, i, _ in self.determiners.matches(doc, v)]
        if classes is not None:  # a word character is a non-space class byte
            for i in first:
                a = starts[i]
                b = ends[i]
                if (a == 0 or classes[a - 1] == 32) and (b == size or classes[b] == 32):
                    found.add(i + 1)
        else:
            for i in first:
                a = starts[i]
                b = ends[i]
                if (a == 0 or not _is_word(text[a - 1])) and (
                        b == size or not _is_word(text[b])):
                    found.add(i + 1)
        return list(map(sub, sorted(found), repeat(1)))

    def _chunk_from(self, doc: Doc, v: DocView, i: int, blocked: set[int]) -> int:
        """Emit the chunk opened at token ``i``, if any; return the index after it."""
        n = len(v.starts)
        low = v.lowers[i]
        if low in _DETS and i + 1 < n:
            j = i + 1
            while j < n and j in blocked and j < i + 6:
                j += 1  # "a 10% credit": the quantity is its own node, the noun follows
            end = self._chunk_end(v, j, blocked)
            if end > j:
                return self._emit_chunk(doc, v, j, end, blocked)
        elif v.words[i][:1].isupper() and (v.flags(i) & ALPHA or _code_name(v.words[i])) \
                and low not in stopwords() and low not in grammar_words("discourse_words") \
                and not looks_verbal(low) and (
                not _opens_clause(v, i) or (i + 1 < n and v.tok(i + 1)[:1].isupper()
                                            and v.flags(i + 1) & ALPHA)
                or _named_by_form(v, i)):
            end = i + 1
            while end < n and end < i + 4 and v.tok(end)[:1].isupper() \
                    and v.flags(end) & ALPHA and end not in blocked:
                end += 1
            return self._emit_chunk(doc, v, i, end, blocked, proper=True)
        return i + 1

    @staticmethod
    def _chunk_end(v: DocView, start: int, blocked: set[int]) -> int:
        n = len(v.starts)
        stop = stopwords()
        verbs = common_verbs()
        lowers = v.lowers
        j = start
        while j < n and j < start + 4:
            if j in blocked:
                break
            low = lowers[j]
            flags = v.flags(j)
            if flags & NUM or low in stop:
                break
            if not flags & ALPHA:  # _wordlike: else a letter, then a digit somewhere
                text = v.words[j]
                if not (text[:1].isalpha() and any(c.isdigit() for c in text)):
                    break
            if j > start and (low in verbs or (len(low) > 5 and low.endswith("ed")) or (
                    # "table lists every shard": an -s word before a determiner is a verb;
                    # "service listens on": a verb's -s form before a preposition is one
                    low.endswith("s") and not low.endswith("ss") and j + 1 < n
                    and (lowers[j + 1] in DETERMINERS or (
                        lowers[j + 1] in _QUALIFYING_PREPS and is_verb_form(low))))):
                break
            j += 1
        return j

    def _emit_chunk(self, doc: Doc, v: DocView, start: int, end: int, blocked: set[int],
                    proper: bool = False) -> int:
        words, lowers = v.words, v.lowers
        n = len(words)
        head_i = end - 1
        quals = [_w(words[t]) for t in range(start, head_i)] if head_i > start else []
        nxt = end
        if nxt < n and _label_token(words[nxt]) and words[nxt][:1] not in "(-":
            quals.append(_w(words[nxt]))
            nxt += 1
        if nxt + 1 < n and lowers[nxt] in _QUALIFYING_PREPS:
            k = nxt + 1
            if lowers[k] in _DETS:
                k += 1
            ce = self._chunk_end(v, k, blocked)
            if ce > k:
                named = [_w(words[t]) for t in range(k, ce)]
                if ce < n and _label_token(words[ce]):
                    named.append(_w(words[ce]))
                    ce += 1
                quals.append(f"{lowers[nxt]}={' '.join(named)}")
                nxt = ce
        if nxt < n and words[nxt] == "(":  # else _parenthetical finds nothing
            paren, pend = _parenthetical(v, nxt)
            if paren:
                quals.append(paren)
                nxt = pend
        self._emit(doc, v, start, nxt, _w(words[head_i]), quals, "PROPER" if proper else "",
                   plural=_plural(words[head_i]))
        return nxt

    @staticmethod
    def _emit(doc: Doc, v: DocView, start: int, end: int, head: str, quals: list[str],
              label: str, *, plural: bool = False) -> None:
        if end > start:
            start_char, end_char = v.starts[start], v.ends[end - 1]
        else:
            span: Span = doc[start:end]
            start_char, end_char = span.start_char, span.end_char
        # The attributes add() would keep, in its order, without packing and filtering
        # keyword arguments (one record per mention).
        attrs: dict[str, Scalar] = {"head": head}
        joined = _joined(quals)
        if joined:
            attrs["qualifiers"] = joined
        attrs["key"] = f"{head}[{joined}]" if joined else head
        if label in ("", "PROPER") and is_month_name(head):
            label = "DATE"  # "Tue 4 Mar 2025", which the recognizer (or fast mode) missed
        if label:
            attrs["ent_label"] = label
        if plural:
            attrs["plural"] = True  # "the replicas", "lines 14-16": several at once
        first = start
        while first < end - 1 and v.flags(first) & (PUNCT | NUM):
            first += 1  # "(3) no untagged S3": a parse may open the chunk at a list number
        if _NO_DETERMINERS & {v.low(k) for k in (start - 1, first) if 0 <= k < len(v.starts)}:
            attrs["none"] = True  # "no untagged S3 buckets": a mention of nothing that exists
        add_attrs(doc, SPAN_KEY, NodeKind.MENTION, start_char, end_char, attrs, "MENTION")


@Language.factory("refgraph_entities", default_config={"use_parser": True},
                  assigns=["doc.spans", "doc._.rg_records"])
def make_entities(nlp: Language, name: str, use_parser: bool) -> EntityTagger:
    return EntityTagger(nlp, name, use_parser=use_parser)
