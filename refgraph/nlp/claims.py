"""``refgraph_claims``: one claim per clause, with what the clause asserts and about what.

A claim is the unit rewrites are checked on: a predicate (a lemma), its polarity (does the clause
assert or deny it), its modality and strength (hedged or not), its force (obligation,
prohibition, permission or advice), its mood (a question, an order or a statement), who it is
attributed to inside the text (a reporting or attitude frame: "Caroline said ...", "I think
..."), its content terms, and its arguments: the mentions, identifiers, handles, quantities and
references inside the clause. Relations the clause takes part in come out as *links* between
records (kind and offsets), which the graph builder turns into edges: ``arg`` (claim -> thing),
``negates`` / ``qualifies`` / ``governs`` (negation / hedge / constraint -> claim),
``conditions`` (consequent claim -> antecedent claim) and ``supports`` (premise claim ->
conclusion claim). Schema: ``docs/graph.md``.

Both modes cut clauses by the same rules (measured: parse-based clauses were less consistent
between a text and its rewrite than the rules are, and a rewrite is only checked by comparing
the two). A clause runs between hard punctuation (";", a dash, a colon after more than a short
label), clause openers ("because", "which", "if") and conjunctions after a comma. Accurate
mode then uses the parse inside a clause: its head is the verb the parse names (a VERB or AUX, or a
copula's ADJ), its subject and objects come from ``nsubj``/``dobj`` relations, and lemmas come from
the trained lemmatizer. Fast mode picks the best-placed word of the verb lexicon (after a
subject pronoun, an auxiliary, a modal, "to" or a negation; never after a determiner) and
lemmatizes with a documented approximation (``lemmas.approx_lemma``). So fast mode does not
split "A and B failed and C passed" without a comma, does not see relative clauses without
"which"/"who", and can take a noun for the verb when the verb is rare.

Polarity is the parity of the negation cues over the clause: syntactic cues ("not", "never",
"no"), a negative quantifier ("few", "hardly"), a negative affix on the predicate itself
("unreachable" = not reachable), a predicate of the antonym lexicon ("absent" = not present,
"failed" = did not pass) and a negative implicative ("failed to connect" = did not connect).
"without" and "except" negate a part of the clause, not the clause, and are not counted.
"""

from __future__ import annotations

import bisect
import itertools
import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from spacy.language import Language
from spacy.tokens import Doc

from ..blocks import MESSAGE_HEADER, SPEAKER_LABEL, TURN_LABEL
from ..casing import lower
from ..model import NodeKind, Scalar
from ..resources import load_json, load_word_list
from .lemmas import approx_lemma, key, verb_keys
from .records import add_attrs, ensure_group, raw_records
from .text import clause_openers, grammar_words, stopwords
from .view import ALPHA, NUM, PUNCT, SPACE, DocView, view

SPAN_KEY = "rg_claims"
LINKS_KEY = "rg_links"
MAX_TERMS = 32  # content terms kept per claim: a 5,000-word "sentence" stays one bounded claim
MAX_ARGS = 32

_CLAIM = NodeKind.CLAIM.value
_CONSTRAINT = NodeKind.CONSTRAINT.value
# plain strings: an enum's .value is a descriptor call in the hot loops
_CAUSAL = NodeKind.CAUSAL.value
_CONDITIONAL = NodeKind.CONDITIONAL.value
_DEICTIC = NodeKind.DEICTIC.value
_HANDLE = NodeKind.HANDLE.value
_HEDGE = NodeKind.HEDGE.value
_IDENTIFIER = NodeKind.IDENTIFIER.value
_MENTION = NodeKind.MENTION.value
_NEGATION = NodeKind.NEGATION.value
_QUANTITY = NodeKind.QUANTITY.value
_ARG_KINDS = frozenset({_MENTION, _IDENTIFIER,
                        _HANDLE, _QUANTITY,
                        _DEICTIC})
_HARD = frozenset({";", "—", "–", "--"})
_OPEN = frozenset({"(", "["})
_CLOSE = frozenset({")", "]"})
_EXPLAINS = frozenset({"i.e.", "e.g.", "namely"})
_LEADS = frozenset({"and", "but", "or", "so", "yet", "then", "also", ",", ";", ":", "-", "*",
                    "i.e.", "e.g."})
# One-word condition markers, as the negation component reads them ("not before the window
# ends" negates the condition)
_MARKERS = frozenset(k for k in load_json("lexicon", "negation.json")["conditionals"]
                     if " " not in k)
_CONTRASTS = frozenset({("rather", "than"), ("instead", "of"), ("other", "than")})
_VERBAL_POS = frozenset({"VERB", "AUX", "ADJ"})
_SUBJ_DEPS = frozenset({"nsubj", "nsubjpass", "csubj", "csubjpass", "expl"})
_OBJ_DEPS = frozenset({"dobj", "attr", "oprd", "dative", "pobj", "acomp", "obj", "iobj"})
# Openers that start a clause only when a component saw one there (a conditional or a causal
# record): "before noon" and "since 2019" are phrases, "before the tests pass" is a clause.
_IF_RECORDED = frozenset({"before", "after", "until", "till", "since", "so", "when", "once",
                          "as", "for"})
# Epistemic hedge classes (a claim's strength) and deontic ones (its force); "approximation"
# belongs to the quantity it qualifies, "will" is the future, not a hedge.
_EPISTEMIC = frozenset({"possibility", "likelihood", "evidential", "scope"})
_NOT_HEDGES = frozenset({"will", "some"})
_SKIPPED_CUES = frozenset({"without", "rather than", "instead of", "on the contrary",
                           "other than"})
_QUESTION_ENDS = frozenset({"?"})
# After "and"/"but", these open a second verb phrase: "keep X and do not deploy".
_VERB_OPENERS = frozenset({"do", "don't", "does", "did", "never", "then", "is", "are", "was",
                           "were", "will", "should", "must", "can", "may", "might", "has",
                           "have", "had", "also"})

# A link between two records of one doc: (src kind, src start, src end, edge kind, dst kind,
# dst start, dst end, attributes or None). ``src kind`` "prev" stands for the last claim
# before this doc (a "Therefore, ..." that opens a block rests on the block before).
Link = tuple[str, int, int, str, str, int, int, dict[str, Scalar] | None]


@cache
def _lex() -> dict[str, Any]:
    data: dict[str, Any] = load_json("lexicon", "predicates.json")
    return data


@cache
def _grammar() -> dict[str, Any]:
    data: dict[str, Any] = load_json("lexicon", "grammar.json")
    return data


@cache
def _words(name: str) -> frozenset[str]:
    return grammar_words(name)


@cache
def _negative_quantifiers() -> frozenset[str]:
    return load_word_list("negation.json", "negative_quantifiers")


@cache
def _light() -> frozenset[str]:
    """Keys of the auxiliaries' lemmas (be, have, do, get): predicates with no content."""
    return frozenset(key(approx_lemma(w)) for w in _words("auxiliaries"))


@cache
def _complements() -> frozenset[str]:
    """Words that are a predicate after a copula other than "be" ("went missing", "stays
    empty"): the antonyms and the synonym groups' members."""
    lex = _lex()
    return frozenset(lex["antonyms"]) | frozenset(lex["antonyms"].values()) | frozenset(
        w for group in lex["synonyms"] for w in group)


@cache
def _key_set(name: str) -> frozenset[str]:
    return frozenset(key(v) for v in _lex()[name])


@cache
def _phrasal() -> frozenset[str]:
    return load_word_list("predicates.json", "phrasal")


@cache
def _implicatives() -> dict[str, str]:
    return {key(k): str(v) for k, v in _lex()["implicatives"].items()}


@cache
def _classes() -> dict[str, tuple[str, bool]]:
    """Predicate key -> (its class key, whether the word denies the class). Antonyms first
    ("absent" -> (present, True)), then synonym groups (their first member is the class);
    a word in several groups takes the first."""
    out: dict[str, tuple[str, bool]] = {}
    syn: dict[str, str] = {}
    for group in _lex()["synonyms"]:
        head = key(group[0])
        for w in group:
            syn.setdefault(key(w), head)
    for word, base in _lex()["antonyms"].items():
        b = key(base)
        out.setdefault(key(word), (syn.get(b, b), True))
    for w, head in syn.items():
        out.setdefault(w, (head, False))
    return out


def predicate_class(pred_key: str) -> tuple[str, bool]:
    """The class key of a predicate key and whether the predicate denies it.

    >>> predicate_class(key("absent")), predicate_class(key("deleted"))
    (('present', True), ('keep', True))
    """
    return _classes().get(pred_key, (pred_key, False))


@dataclass(slots=True, eq=False)
class _Clause:
    tokens: list[int]
    head: int = -1  # the clause's head token (accurate: the verb the parse names), or -1
    pred: int = -1  # the token whose lemma is the predicate, or -1 (a verbless fragment)
    flip: bool = False  # a negative implicative over the predicate ("failed to connect")
    frame_of: int = -1  # a reporting/attitude frame: index of the clause it embeds
    frame: str = ""  # "report" or "attitude" for an embedded clause: how it is attributed
    reported_by: str = ""  # the frame's subject ("caroline", "i", "user")
    found_subject: str = ""  # the subject its arguments gave, once its claim was built
    subject: str = ""
    imperative: bool = False
    question: bool = False
    copular: bool = False  # the predicate is a copula's complement ("is missing")
    weak: bool = False  # the predicate may be a noun: its antonym sense is not used
    frame_clause: _Clause | None = None  # the frame that embeds this clause
    sentence: int = -1  # index of its sentence in the doc
    subject_args: list[list[Any]] = field(default_factory=list)  # set once its args are known
    was_negative: bool = False  # set once its polarity is known (a frame's, for its inner)
    hedged: tuple[float, str] = (1.0, "")  # its strength and modality, once known
    args: list[tuple[str, int, int, dict[str, Any]]] = field(default_factory=list)


class ClaimTagger:
    """spaCy component: see the module docstring."""

    def __init__(self, nlp: Language, name: str, *, use_dependencies: bool) -> None:
        self.name = name
        self.use_dependencies = use_dependencies

    def __call__(self, doc: Doc) -> Doc:
        ensure_group(doc, SPAN_KEY)
        links: list[Link] = doc.user_data.setdefault(LINKS_KEY, [])
        v = view(doc, refresh=True)
        n = len(v.starts)
        if not n:
            return doc
        accurate = self.use_dependencies and doc.has_annotation("DEP")
        recs = [r for r in raw_records(doc) if r[0] != _CLAIM]
        first = _after_label(v)
        atomic = _atomic(v, recs)
        clauses: list[_Clause] = []
        bounds = [*v.sent_starts, n]
        openers = _opener_starts(v, recs)  # once per doc: per sentence it was quadratic
        for k in range(len(v.sent_starts)):
            s, e = max(bounds[k], first), bounds[k + 1]
            if s >= e:
                continue
            found = _rule_clauses(v, s, e, openers, atomic,
                                  doc if accurate else None)
            if _is_question(v, s, e):
                for c in found:
                    c.question, c.imperative = True, False
            for c in found:
                c.sentence = k
            clauses.extend(found)
        _Builder(doc, v, recs, clauses, links, accurate, atomic, first).emit()
        return doc


# ------------------------------------------------------------------------------------------
# clause segmentation


def _after_label(v: DocView) -> int:
    """The first token after a leading speaker label ("user:", "tool[call_7]:",
    "Caroline [D1:3]:"), else 0: a label is not part of any claim."""
    m = TURN_LABEL.match(v.text)
    if m is None and v.text[:1] == "[":
        m = MESSAGE_HEADER.match(v.text)  # "[Tomasz K., 4 Dec 09:12]" on the first line
    if m is None:
        m = SPEAKER_LABEL.match(v.text)
        if m is None or not m.group("id"):
            return 0  # "Timeout: 30 s" is a claim, "Caroline [D1:3]:" a label
    return v.token_at(m.end()) + (1 if v.starts[v.token_at(m.end())] < m.end() else 0)


def _atomic(v: DocView, recs: list[list[Any]]) -> frozenset[int]:
    """Tokens inside identifiers and handles (`terraform apply`, src/fields.py): a name is
    an argument, never a clause or a predicate of its own."""
    kinds = (_IDENTIFIER, _HANDLE)
    out: set[int] = set()
    for r in recs:
        if r[0] in kinds and r[2] > r[1]:
            out.update(range(v.token_at(r[1]), v.token_at(r[2] - 1) + 1))
    return frozenset(out)


def _opener_starts(v: DocView, recs: list[list[Any]]) -> frozenset[int]:
    """Tokens where a conditional or causal record starts (for _IF_RECORDED), and where a
    hedge follows a comma (", probably by mistake" qualifies an aside, not the clause)."""
    kinds = (_CONDITIONAL, _CAUSAL)
    out = {v.token_at(r[1]) for r in recs if r[0] in kinds}
    for r in recs:
        if r[0] == _CONDITIONAL and int(r[3]["consequent_start"]) > int(r[3]["antecedent_start"]):
            i = v.token_at(int(r[3]["consequent_start"]))
            j = v.token_at(int(r[3]["consequent_end"]))
            if j < len(v.words) and v.starts[j] < int(r[3]["consequent_end"]):
                j += 1  # the token after the consequent
            ends = j >= len(v.words) or v.words[j] in (".", "!", "?", ";") or \
                not v.words[j].strip()
            plain = "," not in v.words[i:j]
            if i > 0 and v.words[i - 1] == "," and ends and plain:
                out.add(-i - 1)  # "When the flag is found, run `submit`.": the order is a
                # claim of its own, conditioned on the clause before the comma (only when it
                # closes the sentence in one piece: "..., say line 583, don't ..." holds an
                # aside, and which of its clauses the condition governs is not told)
        if r[0] == _HEDGE:
            i = v.token_at(r[1])
            if i > 0 and v.words[i - 1] == ",":
                out.add(-i - 1)  # marked apart from the openers: a cut before the hedge
    return frozenset(out)


def _is_question(v: DocView, s: int, e: int) -> bool:
    k = e - 1
    while k > s and v.flags(k) & SPACE:
        k -= 1
    return v.tok(k) in _QUESTION_ENDS


def _rule_clauses(v: DocView, s: int, e: int, recorded: frozenset[int],
                  atomic: frozenset[int], doc: Doc | None = None) -> list[_Clause]:
    """Clauses of the sentence [s, e): cut by rule (see the module docstring), each with its
    predicate, from the parse when ``doc`` has one (accurate mode), else by rule."""
    cuts = [*_cuts(v, s, e, recorded, atomic, hard_only=False), e]
    out: list[_Clause] = []
    for a, b in itertools.pairwise(cuts):
        toks = [i for i in range(a, b) if not v.flags(i) & SPACE]
        if toks:
            out.extend(_split_frame(v, _Clause(toks), atomic, doc))
    return _topics(v, out)


def _length(v: DocView, toks: list[int]) -> int:
    """How many words and numbers ``toks`` holds: "**Ethics**:" is one, as "Ethics:" is."""
    return sum(1 for i in toks if not v.flags(i) & PUNCT)


def _topics(v: DocView, clauses: list[_Clause]) -> list[_Clause]:
    """Merge a topic label into the clause it heads: in "Held records: disclosed" or
    "Status: started 19:05" the words before the colon are the subject of a clause that has
    none of its own (its verb comes first, or only a number before it: "CI: 208/212 passed"),
    not a claim of their own. A label with a negation ("No failover: ..."), an auxiliary or a
    verb after its first word ("Deploy failed: ...") says something itself and stays a
    clause."""
    label_max = int(_grammar()["label_max_tokens"])
    negatives = _words("negative_starts")
    verbal = _words("auxiliaries") | _words("modals")  # "The format is public:" is a clause
    out: list[_Clause] = []
    k = 0
    while k < len(clauses):
        c = clauses[k]
        nxt = clauses[k + 1] if k + 1 < len(clauses) else None
        words = [i for i in c.tokens if v.flags(i) & ALPHA]
        if nxt is not None and v.words[c.tokens[-1]] == ":" and c.frame_of < 0 and \
                nxt.frame_of < 0 and 0 < _length(v, c.tokens) <= label_max and words and \
                not any(v.lowers[i] in negatives or v.lowers[i] in verbal for i in c.tokens) and \
                (c.pred < 0 or c.pred == c.tokens[0] or c.weak) and \
                nxt.pred >= 0 and not nxt.subject and all(
                    v.flags(i) & (NUM | PUNCT) or v.lowers[i] in negatives
                    for i in nxt.tokens[:nxt.tokens.index(nxt.pred)]):
            # ("Ethics: not required": the value's own negation does not make it a clause
            # with a subject of its own)
            nxt.tokens = [*c.tokens, *nxt.tokens]
            nxt.subject = v.lowers[words[-1]]
            nxt.imperative = False  # "Status: started 19:05" reports, it does not order
            out.append(nxt)
            k += 2
            continue
        out.append(c)
        k += 1
    return out


def _cuts(v: DocView, s: int, e: int, recorded: frozenset[int], atomic: frozenset[int], *,
          hard_only: bool) -> list[int]:
    """Token indexes where clauses of the sentence [s, e) start (``s`` first).

    ``hard_only``: only the boundaries a dependency parse does not reliably see (new lines of
    a listing, ";", a colon before a verb, a clausal parenthetical, ", not ...", "i.e."),
    which accurate mode adds to the parse's clauses; else every rule of fast mode.
    """
    words, lowers = v.words, v.lowers
    openers = clause_openers()
    coords = _words("coordinators")
    subjects = _words("subject_pronouns")
    negatives = _words("negative_starts")
    label_max = int(_grammar()["label_max_tokens"])
    cuts = [s]
    last = s
    for k in range(s + 1, e):
        prev, low = words[k - 1], lowers[k]
        before = lowers[k - 1]
        if _line_break(v, k, s):
            if k > last:
                cuts.append(k)
                last = k
            continue
        if before in negatives or (k >= 2 and (lowers[k - 2], before) in _CONTRASTS):
            continue  # "not yet", "not until", "rather than where": the cue opens it
        cut = False
        if prev in _HARD:
            cut = True
        elif words[k] in _OPEN or prev in _OPEN:
            # A parenthetical "(not in staging)" is a claim of its own; "(call_403)" and
            # "(2 GiB)" belong to the clause they annotate.
            cut = _clausal_parenthetical(v, k if words[k] in _OPEN else k - 1, e, atomic)
        elif words[k] in _CLOSE or prev in _CLOSE:
            cut = _clausal_parenthetical(v, _opening(v, k, s), e, atomic)
        elif prev == ":":
            # "Timeout: 30 s" is one claim; "No failover: the runbook says never to
            # promote" two: a colon cuts when a verb follows it or the label is long.
            # "The format is public: change ..." is a clause before its colon, no label
            # ("Tokens seen: 4.19M" is one).
            cut = k - 1 - last > label_max or _verb_ahead(v, k, e, atomic) or any(
                lowers[i] in _words("auxiliaries") or lowers[i] in _words("modals")
                for i in range(last, k - 1))
        elif prev == "," and (low in negatives or low in _EXPLAINS or
                              _subject_then_verb(v, k, e, atomic)):
            cut = True  # "..., never to another card", "..., i.e. ...", "..., the latter must"
        elif hard_only:
            pass
        elif low in openers and (low not in _IF_RECORDED or k in recorded):
            cut = True
        elif low in coords and (prev in (",", ";") or (
                k + 1 < e and low != "or" and (lowers[k + 1] in subjects
                                               or lowers[k + 1] in _VERB_OPENERS
                                               or lowers[k + 1] in negatives
                                               or words[k + 1][:1].isupper()
                                               or _counted_verb(v, k + 1, e)
                                               or _second_past_verb(v, last, k)))):
            cut = True  # "209 passed and 3 were skipped": a number, then its verb
        elif prev == "," and _base_verb(v, k) and not any(
                _verbal(v, i) or lowers[i] in _words("auxiliaries") or
                lowers[i] in _words("modals") for i in range(last, k - 1)):
            cut = True  # "no python -c, create files instead": a fragment, then an order
        elif prev == ",":
            cut = -k - 1 in recorded or (low in subjects and low not in ("that", "this", "it",
                                                                        "one")) or \
                (k not in atomic and _verbal(v, k)) or (
                    _counted_verb(v, k, e)) or (  # "2 failed, 41 passed"
                    low in ("it", "that", "this") and k + 1 < e and
                    lowers[k + 1] in _words("auxiliaries")) or (  # "..., that's the limit"
                    k >= 2 and lowers[k - 2] in negatives)  # "if not, pause ..."
        if cut and k > last:
            cuts.append(k)
            last = k
    return cuts


def _contrasted(v: DocView, c: _Clause) -> bool:
    """Whether a clause opens with a contrast or follows a semicolon: a frame before it does
    not reach it ("I think it is stale, but the TTL is right")."""
    first = c.tokens[0]
    return v.lowers[first] in _words("contrasts") or (first > 0 and v.words[first - 1] == ";") \
        or v.words[first] == ";"


def _counted_verb(v: DocView, k: int, e: int) -> bool:
    """A number at ``k`` followed by a verb or an auxiliary: "3 were skipped", "41 passed"."""
    return bool(v.flags(k) & NUM) and k + 1 < e and (
        _verbal(v, k + 1) or v.lowers[k + 1] in _words("auxiliaries"))


def _line_break(v: DocView, k: int, s: int) -> bool:
    """Whether a new line of a listing or a tool's output starts at token ``k``: after a
    newline, when the next line does not continue a sentence (it starts with a capital, a
    digit or a symbol, the line before ended in punctuation or opens with a label and a
    colon), or at a rule of dashes."""
    w = v.words[k]
    if _RULE.fullmatch(w) or _RULE.fullmatch(v.words[k - 1]):
        return True
    j = k - 1
    while j >= s and v.flags(j) & SPACE:
        if "\n" in v.words[j]:
            break
        j -= 1
    else:
        return False
    if j < s or not v.flags(j) & SPACE or "\n" not in v.words[j] or v.flags(k) & SPACE:
        return False
    prev = j - 1
    if not w[:1].islower() or (prev >= s and bool(v.flags(prev) & PUNCT)):
        return True
    # "timeout: 30 s" then "note 2": lines of a listing of labelled values
    line = prev
    while line > s and not (v.flags(line - 1) & SPACE and "\n" in v.words[line - 1]):
        line -= 1
    return any(v.words[i] == ":" for i in range(line, min(prev, line + 4) + 1))


_RULE = re.compile(r"[-=_*~#]{3,}")


def _opening(v: DocView, k: int, s: int) -> int:
    """The bracket that the closing one at or before ``k`` closes (or -1)."""
    depth = 0
    for i in range(k, s - 1, -1):
        if v.words[i] in _CLOSE:
            depth += 1
        elif v.words[i] in _OPEN:
            depth -= 1
            if depth <= 0:
                return i
    return -1


def _clausal_parenthetical(v: DocView, k: int, e: int, atomic: frozenset[int]) -> bool:
    """Whether the parenthetical opened at token ``k`` says something of its own: it holds
    a negation or a verb."""
    if k < 0:
        return False
    negatives = _words("negative_starts")
    for i in range(k + 1, min(e, k + 40)):
        if v.words[i] in _CLOSE:
            return False
        if i in atomic:
            continue
        if v.lowers[i] in negatives or _verbal(v, i) or (
                v.flags(i) & ALPHA and v.lowers[i] in _words("auxiliaries")):
            return True
        if i == k + 1 and _order_verb(v, i, e):
            return True  # "(write a script and run it)": an order of its own
    return False


def _base_form(low: str) -> bool:
    """A lexicon verb in its base form ("create", "run")."""
    return approx_lemma(low) == low and key(low) in verb_keys()


def _past_form(low: str) -> bool:
    """A lexicon verb's -ed form ("searched", "matched")."""
    return low.endswith("ed") and key(approx_lemma(low)) in verb_keys()


def _base_verb(v: DocView, i: int) -> bool:
    """A lexicon verb in its base form, written lower-case."""
    return bool(v.flags(i) & ALPHA) and v.words[i][:1].islower() and _base_form(v.lowers[i])


def _order_verb(v: DocView, i: int, e: int) -> bool:
    """A verb's base form followed by a determiner or a pronoun: "write a script", "run
    it"."""
    return bool(v.flags(i) & ALPHA) and _base_form(v.lowers[i]) and i + 1 < e and (
        v.lowers[i + 1] in _words("determiners") or
        v.lowers[i + 1] in ("it", "them", "this", "that"))


def _subject_then_verb(v: DocView, k: int, e: int, atomic: frozenset[int]) -> bool:
    """ "..., the latter must not rise": after a comma, a short noun phrase and then a modal
    or an auxiliary open a clause of their own."""
    dets = _words("determiners")
    if v.lowers[k] not in dets:
        return False
    for i in range(k + 1, min(e, k + 4)):
        low = v.lowers[i]
        if low in _words("modals") or (low in _words("auxiliaries") and i > k + 1):
            return True
        if not v.flags(i) & ALPHA or low in dets:
            return False
    return False


def _verbal(v: DocView, k: int) -> bool:
    """A word that starts a verb phrase right after a comma ("fails on CI, passes
    locally"): a verb of the lexicon inflected as a verb, or an auxiliary or modal."""
    low = v.lowers[k]
    if low in _words("auxiliaries") or low in _words("modals"):
        return True
    if not v.flags(k) & ALPHA or v.words[k][:1].isupper():
        return False
    lemma = approx_lemma(low)
    return lemma != low and key(lemma) in verb_keys() and low.endswith(("s", "ed"))


def _verb_ahead(v: DocView, k: int, e: int, atomic: frozenset[int]) -> bool:
    """Whether a verb stands between token ``k`` and the next hard boundary."""
    for i in range(k, min(e, k + 12)):
        if v.words[i] in _HARD or v.words[i] == ":":
            return False
        if i in atomic or not v.flags(i) & ALPHA:
            continue
        low = v.lowers[i]
        if low in _words("auxiliaries") or low in _words("modals"):
            return True
        if key(approx_lemma(low)) in verb_keys() and approx_lemma(low) != low:
            return True
    return False


def _split_frame(v: DocView, c: _Clause, atomic: frozenset[int] = frozenset(),
                 doc: Doc | None = None) -> list[_Clause]:
    """Split a reporting or attitude frame ("I think", "Caroline told Melanie that") off the
    clause it embeds, then find each part's predicate."""
    toks = c.tokens
    lowers = v.lowers
    frames = _key_set("reporting") | _key_set("attitude") | _key_set("volition")
    for pos, i in enumerate(toks[:-2]):
        if i in atomic or not v.flags(i) & ALPHA or lowers[i] in stopwords() or lowers[i] in \
                _words("auxiliaries") or key(approx_lemma(lowers[i])) not in frames:
            continue
        # "in the hope that the server runs it", "the fear that ...": a noun of the frame
        nominal = pos > 0 and lowers[toks[pos - 1]] in _words("determiners") and \
            lowers[toks[pos + 1]] == "that"
        if not nominal and ((doc is not None and doc[i].pos_ != "VERB") or (
                doc is None and not _verb_position(v, toks, pos))):
            continue
        rest = toks[pos + 1:]
        comps = _words("complementizers")
        cut = -1
        for j, t in enumerate(rest[:4]):
            if lowers[t] in comps:
                cut = j + 1
                break
        if cut < 0:
            # "thinks the cache is stale", "told Melanie she ...": the embedded clause starts
            # after the verb, or, for a verb that takes one, after one addressee word; it
            # must have a verb of its own.
            takes = key(approx_lemma(lowers[i])) in _key_set("addressee_verbs")
            skip = 1 if takes and rest and (
                lowers[rest[0]] in ("me", "him", "her", "us", "them", "you")
                or v.words[rest[0]][:1].isupper()) else 0
            cut = skip
            if not cut and doc is not None and rest and doc[rest[0]].pos_ == "ADJ":
                continue  # "feel free to rerun it", "seems fine": a copula, not a frame
            first = rest[cut] if cut < len(rest) else -1
            if first >= 0 and not cut and lowers[first] != "to" and not (
                    lowers[first] in _words("determiners") or
                    lowers[first] in _words("subject_pronouns") or
                    v.words[first][:1].isupper() or v.flags(first) & NUM):
                continue  # "suspects cold caches": an object, no clause of its own (one
                # with no "that" opens with its subject: "thinks the cache is stale")
        inner = _Clause(rest[cut:])
        _predicate(v, inner, atomic, doc)
        if inner.pred < 0 or len(inner.tokens) < 2:
            continue
        k = key(approx_lemma(lowers[i]))
        frame = _Clause(toks[:pos + 1 + cut], frame_of=1)
        _predicate(v, frame, atomic, doc)
        frame.head = frame.pred = i
        inner.frame = "report" if k in _key_set("reporting") else \
            "attitude" if k in _key_set("attitude") else "volition"
        inner.reported_by = frame.subject
        inner.frame_clause = frame
        return [frame, *_split_frame(v, inner, atomic, doc)]
    _predicate(v, c, atomic, doc)
    return [c]


def _predicate(v: DocView, c: _Clause, atomic: frozenset[int], doc: Doc | None) -> None:
    """The clause's predicate by rule (both modes: see the module docstring); with a parse,
    its subject is the parse's."""
    _rule_predicate(v, c, atomic)
    if doc is not None and c.head >= 0:
        subj = next((ch for ch in doc[c.head].children if ch.dep_ in _SUBJ_DEPS
                     and ch.i in set(c.tokens)), None)
        if subj is not None:
            c.subject = subj.lower_


def _second_past_verb(v: DocView, last: int, k: int) -> bool:
    """Whether "and" at token ``k`` joins a second past-tense verb to a clause that has one
    ("searched 11 documents and matched none"): two verb phrases, two claims."""
    return k + 1 < len(v.lowers) and _past_form(v.lowers[k + 1]) and any(
        _past_form(v.lowers[i]) for i in range(last, k))


def _verb_position(v: DocView, toks: list[int], pos: int) -> bool:
    """Whether the word at ``toks[pos]`` stands where a verb does: after a subject (a pronoun,
    a capitalised name), an auxiliary, a modal, "to" or a negation, or with past-tense
    morphology ("said", "mentioned"), and never after a determiner ("the report")."""
    lowers, words = v.lowers, v.words
    low = lowers[toks[pos]]
    prev = lowers[toks[pos - 1]] if pos else ""
    if prev in _words("determiners"):
        return False
    if prev in _words("auxiliaries") or prev in _words("modals") or prev in (
            "to", "not", "n't", "never", "also", "then", "just", "and"):
        return True
    if prev in _words("subject_pronouns") or (pos and words[toks[pos - 1]][:1].isupper()):
        return True
    if pos >= 2 and lowers[toks[pos - 2]] in _words("determiners") and \
            v.flags(toks[pos - 1]) & ALPHA and approx_lemma(low) != low:
        return True  # "the user thinks", "the team suspects": after its noun phrase
    if not pos and low.endswith("s") and approx_lemma(low) != low:
        return True  # a note's subjectless "thinks the unit cost is optimistic"
    return approx_lemma(low) != low and not low.endswith("s")


def _rule_predicate(v: DocView, c: _Clause, atomic: frozenset[int] = frozenset()) -> None:
    """The predicate of a rule clause: the best-placed verb-like word or a copula's
    complement (see the module docstring), else none. Also its subject and mood."""
    verbs = verb_keys()
    aux = _words("auxiliaries")
    modals = _words("modals")
    dets = _words("determiners")
    preps = _words("prepositions")
    noun_openers = _words("noun_openers")
    copulas = _words("copulas")
    complements = _complements()
    subjects = _words("subject_pronouns")
    negatives = _words("negative_starts")
    stop = stopwords()
    lowers, words = v.lowers, v.words
    best, best_score = -1, -99
    be_at = have_at = -1
    toks = c.tokens
    complement = -1
    for pos, i in enumerate(toks):
        low = lowers[i]
        if not v.flags(i) & ALPHA or i in atomic:
            continue
        if pos >= 4 and words[toks[pos - 1]] == "-" and words[toks[pos - 3]] == "-":
            continue  # "a nice-to-have", "up-to-date": a compound word, no verb
        copula = approx_lemma(low) in copulas and pos + 1 < len(toks) and \
            lowers[toks[pos + 1]] in complements
        if low == "am" and pos and v.flags(toks[pos - 1]) & NUM:
            continue  # "8am": a time
        if low in aux or low in modals or copula:
            if low in _HAVE and have_at < 0:
                have_at = i  # "has no NI number": the verb when nothing else is one
            if (low in aux and approx_lemma(low) == "be") or copula:
                be_at = i
                # "is absent", "was not required": the complement is the predicate
                k = pos + 1
                while k < len(toks) and (lowers[toks[k]] in _BE_ADVERBS or
                                         lowers[toks[k]] in _hedge_words()):
                    k += 1
                if k < len(toks) and v.flags(toks[k]) & ALPHA and lowers[toks[k]] not in stop \
                        and lowers[toks[k]] not in dets and complement < 0:
                    complement = toks[k]
            continue
        if low in stop:
            continue
        lemma_key = key(approx_lemma(low))
        verbal = lemma_key in verbs or (len(low) > 4 and low.endswith(("ed", "ing")))
        if not verbal and i != complement:
            continue
        back = pos - 1
        if back >= 1 and words[toks[back]] == "-" and len(lowers[toks[back - 1]]) <= 3:
            back -= 2  # "re-run", "pre-build": the prefix is part of the verb
        prev = lowers[toks[back]] if back >= 0 else ""
        score = 1
        if i == complement:
            score += 4
        elif prev in aux or prev in modals or prev in ("not", "n't", "never", "longer") or (
                prev == "to" and approx_lemma(low) == low) or (
                prev in subjects and prev != "that"):
            score += 3  # "to deploy" is a verb, "to staging" a noun
        elif prev in dets or prev in preps or prev in noun_openers or (
                pos > 1 and words[toks[pos - 1]][:1].isupper()) or (
                pos > 1 and lowers[toks[pos - 2]] in dets and v.flags(toks[pos - 1]) & ALPHA
                and lowers[toks[pos - 1]] not in aux and lowers[toks[pos - 1]] not in modals
                and not low.endswith(("s", "ed"))):
            score -= 3  # "the report", "for orders", "the nightly export": a noun
        elif pos and v.flags(toks[pos - 1]) & NUM and low.endswith("s") and \
                not low.endswith("ss"):
            score -= 3  # "63,250,000 calls": the noun a number counts
        elif pos > 1 and (low.endswith("s") or low.endswith("ed")) and any(
                lowers[t] in dets and lowers[t] not in negatives
                for t in toks[max(0, pos - 3):pos - 1]) and not (
                pos + 1 < len(toks) and _base_verb(v, toks[pos + 1])):
            # "The nightly export fails": the verb after its noun phrase ("No ungranted locks
            # on pg-primary" is a noun phrase; in "the checkout tests fail" the verb follows)
            score += 1
        elif pos > 1 and approx_lemma(low) == low and lowers[toks[pos - 1]].endswith("s") and \
                v.flags(toks[pos - 1]) & ALPHA and any(
                    lowers[t] in dets for t in toks[max(0, pos - 4):pos - 1]):
            score += 2  # "the checkout tests fail": a verb after its plural subject
        elif pos and v.flags(toks[pos - 1]) & NUM and pos + 1 < len(toks) and \
                v.flags(toks[pos + 1]) & ALPHA and lowers[toks[pos + 1]] not in stop:
            score -= 3  # "0 ungranted locks", "3 failed tests": it modifies the noun
        if pos == 0 and approx_lemma(low) == low:
            score += 2  # "Call deploy ...": an order
        if back == pos - 1 and pos > 1 and words[toks[pos - 1]] == "-" and \
                not v.ws[toks[pos - 2]]:
            score -= 2  # "under-replicated partitions", "well-tested": a compound modifier
        if low.endswith("ed"):
            score += 1  # an -s word is as often a plural noun as a verb: no bonus
        if score > best_score:
            best, best_score = i, score
    if best >= 0 and best_score > -1:
        c.head = c.pred = best
        c.copular = best == complement
        # A verb-looking word with nothing verbal around it may be a noun ("0 ungranted
        # locks"): its lexicon sense (an antonym, an implicative) is not trusted.
        nxt = [i for i in toks if i > best][:1]
        noun_like = not nxt or lowers[nxt[0]] in preps or bool(v.flags(nxt[0]) & PUNCT)
        c.weak = best_score <= 1 and best != complement and noun_like
        sign = _implicatives().get(key(approx_lemma(lowers[best])))
        bpos = toks.index(best)
        if sign is None and bpos >= 2 and lowers[toks[bpos - 1]] == "to":
            # "The worker failed to connect": the complement scored above its verb
            sign = _implicatives().get(key(approx_lemma(lowers[toks[bpos - 2]])))
            if sign == "-":
                c.flip = True
            sign = None
        if sign in ("-", "+"):
            after = [i for i in toks if i > best]
            if len(after) >= 2 and lowers[after[0]] == "to":
                complement_verb = after[1]
                if key(approx_lemma(lowers[complement_verb])) in verbs:
                    c.pred = complement_verb
                    c.flip = sign == "-"
    elif be_at >= 0 or have_at >= 0:
        c.head = c.pred = be_at if be_at >= 0 else have_at
    if c.head >= 0:
        for i in reversed([i for i in toks if i < c.head]):
            low = lowers[i]
            if i + 1 < len(words) and lowers[i + 1] in ("'s", "’s"):
                continue  # "for Sam's support": a possessor, not who acts
            if i > 0 and lowers[i - 1] in preps:
                continue  # "gratitude for Sam": an object of a preposition
            if low in subjects or low in _words("role_nouns") or (
                    words[i][:1].isupper() and low not in dets
                    and low not in _words("discourse_words")
                    and low not in _words("auxiliaries")):  # "Do not ...": no subject
                c.subject = low
                break
        first = next((i for i in toks if v.flags(i) & ALPHA), toks[0])  # past "- ", "1."
        lead = lowers[first]
        c.imperative = (c.head == first and approx_lemma(lead) == lead) or (
            lead in ("do", "don't", "never", "please", "always") and c.head in toks[1:5]
            and not any(lowers[i] in subjects for i in toks[:toks.index(c.head)]))


@cache
def _denied_ability() -> frozenset[str]:
    return load_word_list("modality.json", "denied_ability")


@cache
def _hedge_words() -> frozenset[str]:
    """The one-word hedges of ``modality.json`` ("probably", "likely"): "was probably caused"
    has "caused" as its complement, not the hedge."""
    terms: dict[str, Any] = load_json("lexicon", "modality.json")["terms"]
    return frozenset(t for t in terms if " " not in t and t.isalpha())


_HAVE = frozenset({"has", "have", "had"})
_BE_ADVERBS = frozenset({"not", "n't", "never", "also", "still", "now", "already", "very",
                         "really", "no", "longer", "so", "quite", "too", "always", "usually"})


# ------------------------------------------------------------------------------------------
# attributes and links


class _Builder:
    """Claim records and links for the clauses of one doc."""

    def __init__(self, doc: Doc, v: DocView, recs: list[list[Any]], clauses: list[_Clause],
                 links: list[Link], accurate: bool, atomic: frozenset[int],
                 first: int = 0) -> None:
        self.doc, self.v, self.recs, self.clauses = doc, v, recs, clauses
        self.first = first  # the first token after a turn's label
        self.links, self.accurate = links, accurate
        self.atomic = atomic  # tokens of identifiers and handles: arguments, not terms
        n = len(v.starts)
        self.owner = [-1] * n
        for ci, c in enumerate(clauses):
            for i in c.tokens:
                self.owner[i] = ci
        self.spans: list[tuple[int, int] | None] = [None] * len(clauses)
        self.emitted: set[tuple[int, int]] = set()  # spans already claimed (a lookup, not a scan)
        self.quotes = [k for k, w in enumerate(v.words) if w in _QUOTES]  # for _quoted
        self.connectives = {i for r in recs if r[0] == _CAUSAL
                            for i in range(v.token_at(r[1]), v.token_at(max(r[1], r[2] - 1)) + 1)}

    def clause_at(self, char: int) -> int:
        i = self.v.token_at(char)
        return self.owner[i] if i < len(self.owner) else -1

    def emit(self) -> None:
        v, doc = self.v, self.doc
        by_clause: dict[int, dict[str, list[list[Any]]]] = {}
        for r in self.recs:
            # A constraint belongs to the clause it governs ("before the tests pass, do not
            # deploy": the prohibition's clause), everything else to the clause it is in.
            at = int(r[3].get("governed_start", r[1])) if r[0] == _CONSTRAINT else r[1]
            ci = self.clause_at(at)
            if ci >= 0:
                by_clause.setdefault(ci, {}).setdefault(r[0], []).append(r)
        neg_quants = _negative_quantifiers()
        label_max = int(_grammar()["label_max_tokens"])
        # (sentence, strength, modality) of a hedged label ("Likely root cause:", "Root
        # cause (likely):"): the hedge scopes over the clause the label introduces
        label_hedge: tuple[int, float, str] | None = None
        framed: _Clause | None = None  # the last clause a frame embeds, in this sentence
        for ci, c in enumerate(self.clauses):
            if c.frame:
                framed = c
            elif framed is not None and framed.sentence == c.sentence and c.frame_of < 0 \
                    and not _contrasted(v, c):
                # "Hana thinks KJ-033 (the new apprentice) has no NI number", "I think the
                # input is modified and then compared": the frame holds to the sentence's end
                c.frame, c.reported_by = framed.frame, framed.reported_by
                c.frame_clause = framed.frame_clause
            else:
                framed = None
            toks = [i for i in c.tokens if not v.flags(i) & (PUNCT | SPACE)]
            if not toks:
                continue
            got = by_clause.get(ci, {})
            cue_toks: set[int] = set()
            negs = 0
            qualified_here = affixed = False
            pred_word = v.low(c.pred) if c.pred >= 0 else ""
            base_word = pred_word
            negated_by: list[list[Any]] = []
            bounds = [(q[1], q[2]) for q in got.get(_QUANTITY, ())]
            for r in got.get(_NEGATION, ()):
                a = r[3]
                if any(qs <= r[1] and r[2] <= qe for qs, qe in bounds):
                    continue  # "no more than 50": the quantity's bound says it
                cue_tok = v.token_at(r[1])
                cue_toks.update(range(cue_tok, v.token_at(max(r[1], r[2] - 1)) + 1))
                kind, cue = a.get("cue_kind"), a.get("cue")
                opens = cue_tok <= toks[0] + 1  # "rather than where ...": it negates the clause
                if kind in ("exception", "lexical") or (cue in _SKIPPED_CUES and not opens):
                    continue
                if cue == "without" and c.pred > cue_tok + 2:
                    qualified_here = True
                    continue  # "Without a DMP the application is ineligible": a part; only
                    # "without running the tests" negates the clause it opens
                nxt_tok = v.token_at(r[2]) if r[2] < len(v.text) else -1
                if nxt_tok > cue_tok and v.low(nxt_tok) in _MARKERS:
                    qualified_here = True
                    continue  # "not before the window ends": it negates the condition
                if cue == "not" and 0 <= c.pred < cue_tok and _number_next(v, cue_tok):
                    qualified_here = True
                    continue  # "use g = 9.8 m/s² not 10": it rules out the other value
                if cue in ("no", "none") and cue_tok > 0 and v.low(cue_tok - 1) in \
                        _words("prepositions"):
                    qualified_here = True
                    continue  # "with no mismatch" is "without mismatches": a part
                if kind == "affix":
                    if cue_tok != c.pred or r[1] != v.starts[cue_tok]:
                        continue  # a negative affix on some other word negates that word
                    base_word = pred_word[r[2] - r[1]:]
                    affixed = True
                negs += 1
                negated_by.append(r)
            for i in toks:
                if v.low(i) in neg_quants and (i == 0 or v.low(i - 1) not in ("a", "quite")):
                    negs += 1
                    cue_toks.add(i)
                    break
            level = c.pred >= 0 and key(self._lemma(c.pred)) in _key_set("levels")
            zero = False
            for r in got.get(_QUANTITY, ()):
                a = r[3]
                if a.get("magnitude") == 0 and a.get("bound") == "=" and (
                        "unit" in a or "noun" in a or level or (
                            c.pred >= 0 and r[1] < v.starts[c.pred])):
                    # "0 rows matched", "0 skipped", "partitions stayed at zero": what
                    # "none skipped", "there were none" say
                    negs += 1
                    zero = True
                    break
            pred_lemma = ""
            if c.pred >= 0:
                pred_lemma = self._lemma(c.pred) if base_word == pred_word else base_word
            pkey = key(pred_lemma) if pred_lemma else ""
            cls, denies = predicate_class(pkey) if pkey else ("", False)
            if denies and c.pred + 1 < len(v.lowers) and \
                    f"{pred_lemma} {v.lowers[c.pred + 1]}" in _phrasal():
                denies, cls = False, pkey  # "fail over to us-east-2" moves; it does not fail
            if c.weak or (self.accurate and c.pred >= 0 and doc[c.pred].pos_ not in _VERBAL_POS):
                denies = False  # "locks" the noun is no "unlock" denied
            negative = (negs + int(c.flip) + int(denies)) % 2 == 1
            c.was_negative = negative
            qualified = qualified_here or any(
                r[3].get("cue") in _SKIPPED_CUES or r[3].get("cue_kind") == "exception"
                for r in got.get(_NEGATION, ()))
            hedges = got.get(_HEDGE, [])
            strength, modality, force = 1.0, "", ""
            necessity_at = -1
            counterfactual = False
            for r in hedges:
                a = r[3]
                cue_toks.update(range(v.token_at(r[1]), v.token_at(max(r[1], r[2] - 1)) + 1))
                term, mclass = a.get("term"), a.get("modality")
                if v.token_at(r[1]) == c.pred and mclass == "necessity":
                    necessity_at = c.pred  # "need", "required": the duty is the predicate
                if term in _NOT_HEDGES or v.token_at(r[1]) == c.pred:
                    continue
                if self.accurate and c.pred >= 0 and self._aux_elsewhere(v.token_at(r[1]), c):
                    continue  # "which might be the flag, try to submit it": "might" is "be"'s
                if term in _denied_ability() and any(
                        v.token_at(n[1]) == v.token_at(r[2] - 1) + 1 for n in negated_by):
                    modality = modality or "ability"
                    continue  # "could not find": a failed search, reported as a fact
                if _counterfactual(v, v.token_at(max(r[1], r[2] - 1))):
                    counterfactual = True
                    continue  # "should have been charged": what ought to have happened
                if mclass in _EPISTEMIC and float(a["strength"]) < strength:
                    strength, modality = float(a["strength"]), str(mclass)
                elif mclass == "ability":
                    modality = modality or "ability"  # "you can run it": leave, not a hedge
                elif mclass == "necessity":
                    force = "obligation"
                    necessity_at = v.token_at(r[1])
                elif mclass == "advice" and term == "should" and _thing_subject(c):
                    # "this should fix the error", "it should pass": an expectation
                    if strength > _SHOULD_STRENGTH:
                        strength, modality = _SHOULD_STRENGTH, "likelihood"
                elif mclass == "advice" and force != "obligation":
                    force = "advice"
                elif mclass == "permission" and not force:
                    force = "permission"  # "you are allowed to restart it": leave, no duty
            if label_hedge is not None and label_hedge[0] == c.sentence and \
                    label_hedge[1] < strength:
                strength, modality = label_hedge[1], label_hedge[2]
            label_hedge = None
            if v.words[c.tokens[-1]] == ":" and len(toks) <= label_max + 3 and strength < 1.0:
                label_hedge = (c.sentence, strength, modality)
            believed = c.frame == "attitude" or (c.frame_of < 0 and pkey in _key_set("attitude"))
            if believed and strength > 0.6 and not force and not c.imperative:
                # "I think the cache is stale", "Dev thinks the cause is ...", "the assistant
                # suspects cold caches": a belief
                strength, modality = 0.6, "evidential"
            if c.frame_clause is not None and c.frame_clause.was_negative and strength > 0.5:
                # "we cannot say an effect is excluded", "I don't think it fits": a denied
                # frame leaves its clause open, neither asserted nor denied
                strength, modality = 0.5, "evidential"
            constraints = got.get(_CONSTRAINT, [])
            for r in constraints:
                kind = r[3].get("constraint_kind")
                if kind in ("prohibition", "obligation") and v.token_at(r[1]) != c.pred and \
                        not counterfactual:  # "no VAT should have been charged" is no rule
                    force = str(kind)
            if force and modality in ("possibility", "ability"):
                strength, modality = 1.0, ""  # "no run may use more than 64 GPUs": a rule
            # An order's force comes from its cues, not its predicate's sense: "close the
            # ticket" folds to "not open" for comparison but forbids nothing.
            cue_negative = (negs + int(c.flip)) % 2 == 1
            if cue_negative and necessity_at >= 0 and any(
                    v.token_at(r[1]) < necessity_at for r in negated_by):
                force = "exemption"  # "you don't need to", "not required to": no duty
            elif force in ("obligation", "advice", "permission") and cue_negative:
                force = "prohibition"  # "must not", "should not", "not allowed to"
            if c.imperative and cue_negative and not force:
                force = "prohibition"
            mood = "question" if c.question else "imperative" if c.imperative else \
                "counterfactual" if counterfactual else "declarative"
            args = [r for kind in _ARG_KINDS for r in got.get(kind, ())]
            args.sort(key=lambda r: (r[1], r[2]))
            args = args[:MAX_ARGS]
            own_subjects = [r for r in args if r[0] != _QUANTITY and
                            self._role(r, c) == "subj"]
            c.subject_args = own_subjects
            inherited: list[list[Any]] = []
            prev = self.clauses[ci - 1] if ci else None
            if not own_subjects and not c.subject and not c.imperative and prev is not None \
                    and prev.sentence == c.sentence and c.frame_clause is not prev and not any(
                        v.words[k] in _HARD or v.words[k] == ":"
                        for k in range(prev.tokens[-1], c.tokens[0] + 1)):
                # (a ";" between them starts another statement: "Chen owns CS comms; Sam
                # owns the config, not flipped before Dec 10"; so does a label's colon: in
                # "Dr. Raman (email, 09:12): 114-027 was re-drawn" Raman was not re-drawn)
                # "The edit was rejected but still applied": the second clause's subject is
                # the first one's (a coordinated verb phrase shares it)
                inherited = prev.subject_args
                c.subject_args = inherited
                c.subject = c.subject or prev.subject
                if prev.hedged[0] < strength and not force and not _contrasted(v, c) and \
                        v.lowers[c.tokens[0]] in _words("coordinators"):
                    # "the server may be executing the input and not displaying it": a
                    # hedge over the shared subject's clause holds for its second verb
                    strength, modality = prev.hedged
            c.hedged = (strength, modality)
            # A quantity is an argument, not content words: "30 minutes" and "10 min" must
            # not make two claims about the same wait look unalike.
            for r in got.get(_QUANTITY, ()):
                cue_toks.update(range(v.token_at(r[1]), v.token_at(max(r[1], r[2] - 1)) + 1))
            terms = self._terms(toks, cue_toks | self.atomic, c.pred, pkey)
            if not terms and not args and not negs:
                continue
            if c.frame_of >= 0 and all(self._role(r, c) == "subj" for r in args) \
                    and len(set(terms) - {pkey, key(subject_word(c))}) == 0:
                continue  # "I think", "she said": attribution of the next claim, no content
            span = toks
            while len(span) > 1 and (v.low(span[0]) in _LEADS or span[0] in self.connectives):
                span = span[1:]  # "and", "but", "Therefore": they join the claim, not in it
            s, e = v.starts[span[0]], v.ends[span[-1]]
            if (s, e) in self.emitted:
                continue
            self.spans[ci] = (s, e)
            self.emitted.add((s, e))
            attrs: dict[str, Scalar] = {
                "predicate": pred_lemma, "pred_key": cls, "polarity":
                "negative" if negative else "positive", "strength": strength}
            if modality:
                attrs["modality"] = modality
            if force:
                attrs["force"] = force
            attrs["mood"] = mood
            subject = self._subject(c, args)
            c.found_subject = subject
            if subject:
                attrs["subject"] = subject
            if c.frame:
                attrs["frame"] = c.frame
                # "Marta asked to cancel it": the frame's subject, as its arguments name it
                reporter = c.reported_by or (c.frame_clause.found_subject
                                             if c.frame_clause is not None else "")
                if reporter:
                    attrs["reported_by"] = reporter
            if c.pred >= 0:
                attrs["head_start"], attrs["head_end"] = v.starts[c.pred], v.ends[c.pred]
            lex_pred = pkey or ""
            if lex_pred in _key_set("finding") or cls in _key_set("finding") or zero:
                attrs["finding"] = True  # a count or a level of zero is an observation
            if lex_pred in _key_set("side_effect") and not c.weak and \
                    not self._nominal(c.pred):
                attrs["side_effect"] = True
            if pkey in _light():
                attrs["light"] = True  # "be", "have": the arguments carry the meaning
            if denies:
                attrs["denies"] = True  # the predicate is its class's antonym ("failed")
            if c.flip:
                attrs["implicative"] = True  # "failed to connect": its complement denied
            if affixed:
                attrs["affixed"] = True  # "unreachable": a negative affix on the predicate
            if any(v.low(i) in _words("exclusives") for i in toks):
                attrs["exclusive"] = True  # "only up to 3,000 req/s": says what is not
            if negs > 1:
                attrs["negations"] = negs
            if negative:
                # What makes it negative: a cue ("not", "no", "0 rows", "failed to"), or only
                # a predicate that denies its base ("failed" = did not pass).
                attrs["denial"] = "cue" if (negs + int(c.flip)) % 2 else "predicate"
                if denies and cls in _key_set("existence") and c.copular and \
                        not pred_word.endswith("ed"):
                    attrs["absence"] = True  # "is absent", "went missing": not there
            if qualified:
                attrs["qualified"] = True  # "without", "except": a part is negated
            if _code_like(v, toks, self.first):
                attrs["code"] = True  # a listing's line, parsed as prose: not a claim of text
            if _quoted(v, c.tokens, self.quotes):
                attrs["quoted"] = True
            if any(_embedded_question(v, k) for k in toks if k == span[0] or 0 <= k < c.pred):
                attrs["supposition"] = True  # "to see if we can reproduce it": asks
            attrs["terms"] = " ".join(terms)
            attrs["signature"] = _signature(cls, args + inherited)
            add_attrs(doc, SPAN_KEY, NodeKind.CLAIM, s, e, attrs, "CLAIM")
            for r in args:
                role = self._role(r, c)
                self.links.append((_CLAIM, s, e, "arg", r[0], r[1], r[2], {"role": role}))
            for r in inherited:
                self.links.append((_CLAIM, s, e, "arg", r[0], r[1], r[2],
                                   {"role": "subj", "inherited": True}))
            for r in negated_by:
                self.links.append((r[0], r[1], r[2], "negates", _CLAIM, s, e, None))
            for r in hedges:
                self.links.append((r[0], r[1], r[2], "qualifies", _CLAIM, s, e, None))
            for r in constraints:
                self.links.append((r[0], r[1], r[2], "governs", _CLAIM, s, e, None))
        self._relations()

    def _subject(self, c: _Clause, args: list[list[Any]]) -> str:
        """The clause's subject: the key of the named argument in subject position, else the
        subject word ("i", "she", "caroline")."""
        v = self.v
        head_char = v.starts[c.head] if c.head >= 0 else -1
        for r in args:
            if r[0] in (_MENTION, _IDENTIFIER) and (
                    head_char < 0 or r[1] < head_char) and self._role(r, c) == "subj":
                a = r[3]
                return str(a.get("key", a.get("name", "")))
        return c.subject

    def _lemma(self, i: int) -> str:
        if self.accurate:
            lemma = lower(self.doc[i].lemma_)
            if lemma:
                return lemma
        return approx_lemma(self.v.low(i))

    def _terms(self, toks: list[int], skip: set[int], pred: int, pkey: str) -> list[str]:
        v = self.v
        stop = stopwords()
        aux, modals = _words("auxiliaries"), _words("modals")
        discourse = _words("discourse_words")
        out: set[str] = set()
        if pkey and pkey not in _light():
            out.add(predicate_class(pkey)[0])  # "be", "have": no content of their own
        for i in toks:
            if i in skip or i == pred:
                continue
            low = v.low(i)
            label = len(low) <= 3 and (v.tok(i).isupper() or any(ch.isdigit() for ch in low))
            if (not label and (low in stop or low in aux or low in modals or low in discourse)
                    ) or not any(ch.isalnum() for ch in low):
                continue  # "A" of "shard A", "2" of "node 2": a label names which one
            if not (v.flags(i) & ALPHA or any(ch.isdigit() for ch in low)):
                continue
            k = low if label else key(self._lemma(i) if v.flags(i) & ALPHA else low)
            if k:
                out.add(k)  # as it is: synonym classes are for predicates ("email" the noun
                # is not "send")
            if len(out) >= MAX_TERMS:
                break
        return sorted(out)

    def _aux_elsewhere(self, i: int, c: _Clause) -> bool:
        """Whether token ``i`` is an auxiliary of another verb than the clause's predicate
        (the parse put two verbs in one clause)."""
        t, pred = self.doc[i], self.doc[c.pred]
        # "may be eligible": "may" is the copula's, and the copula governs the predicate
        return t.dep_ == "aux" and t.head.i != c.pred and pred.head.i != t.head.i and \
            t.head.pos_ in ("VERB", "AUX")

    def _nominal(self, i: int) -> bool:
        """Whether the predicate token reads as a noun: "orders" in "WHERE relname =
        'orders'" names a table; it places no order. Fast mode has no tagger: a plural-looking
        form ("orders", "releases") of a side-effect verb is taken as the noun. (A bare
        "POST /v1/refunds" stays an act, though the tagger calls it a proper noun.)"""
        if i < 0:
            return False
        if self.accurate:
            return self.doc[i].tag_ in ("NN", "NNS")  # "full charge cycles"; "POST" is NNP
        v = self.v
        low = v.lowers[i]
        if low.endswith("s") and not low.endswith("ss"):
            return True
        # "the refund", "800 full charge cycles": a determiner or a number just before it
        dets = _words("determiners")
        return any(v.lowers[k] in dets or v.flags(k) & NUM for k in range(max(0, i - 2), i))

    def _role(self, r: list[Any], c: _Clause) -> str:
        v = self.v
        i = v.token_at(r[1])
        if self.accurate:
            j = v.token_at(max(r[1], r[2] - 1))
            for t in self.doc[i:j + 1]:
                if t.dep_ in _SUBJ_DEPS:
                    return "subj"
                if t.dep_ in _OBJ_DEPS:
                    return "obj"
            return "other"
        if c.head < 0:
            return "other"
        return "subj" if i < c.head else "obj"

    def _relations(self) -> None:
        """``conditions`` and ``supports`` links from the doc's conditional and causal
        records, between the claims that hold their parts."""
        spans = self.spans
        links = self.links

        def claim_at(char: int) -> tuple[int, int] | None:
            ci = self.clause_at(char)
            return spans[ci] if ci >= 0 else None

        def part(a: dict[str, Any], name: str, at_connective: bool) -> tuple[int, int] | None:
            """The claim of a causal record's part ``name``: the one beside the connective
            (its span's last claim when the connective follows it), else its first."""
            start = int(a[f"{name}_start"])
            near = int(a[f"{name}_end"]) - 1 if at_connective else start
            return claim_at(near) or claim_at(start)

        for r in self.recs:
            kind, a = r[0], r[3]
            if kind == _CONDITIONAL:
                ante = claim_at(int(a["antecedent_start"]))
                if ante is None:
                    # "When you think you have found the flag, ...": the frame emits no
                    # claim; the antecedent is the claim inside its span
                    lo, hi = int(a["antecedent_start"]), int(a["antecedent_end"])
                    ante = next((sp for sp in spans if sp is not None and lo <= sp[0] < hi),
                                None)
                # the consequent's claim next to the antecedent: "The system lets you
                # request it, but it is dropped if you lack standing" conditions the drop
                after_it = int(a["antecedent_start"]) > int(a["consequent_start"])
                cons = claim_at(int(a["consequent_end"]) - 1 if after_it
                                else int(a["consequent_start"]))
                if cons is None:
                    # "Felix thinks it will count once evaluated": the frame emits no claim;
                    # the consequent is the claim inside its span
                    lo, hi = int(a["consequent_start"]), int(a["consequent_end"])
                    cons = next((sp for sp in spans if sp is not None and lo <= sp[0] < hi
                                 and sp != ante), None)
                if ante is None or cons is None or ante == cons:
                    continue
                attrs: dict[str, Scalar] = {"marker": str(a["marker"]),
                                            "cond_kind": str(a["cond_kind"])}
                links.append((_CLAIM, cons[0], cons[1], "conditions", _CLAIM, ante[0], ante[1],
                              attrs))
                # "If you run a command and it doesn't work, try another": every clause of
                # the antecedent is supposed, not asserted
                lo, hi = int(a["antecedent_start"]), int(a["antecedent_end"])
                for sp in spans:
                    if sp is not None and sp != ante and sp != cons and lo <= sp[0] < hi \
                            and sp[1] <= hi:
                        links.append((_CLAIM, cons[0], cons[1], "conditions", _CLAIM, sp[0],
                                      sp[1], dict(attrs)))
            elif kind == _CAUSAL:
                # Each part's claim next to the connective: in "Dana: both ship together
                # because the flags assume one version" the conclusion is the clause before
                # "because", not the speaker label its span opens with.
                has_prem = "premise_start" in a
                prem_first = has_prem and int(a["premise_start"]) < int(a["conclusion_start"])
                concl = part(a, "conclusion", has_prem and not prem_first)
                if concl is None:
                    continue
                conn: dict[str, Scalar] = {"connective": str(a["connective"])}
                prem = part(a, "premise", prem_first) if has_prem else None
                if prem == concl:
                    continue
                if prem is not None:
                    links.append((_CLAIM, prem[0], prem[1], "supports", _CLAIM, concl[0],
                                  concl[1], conn))
                    links.append((kind, r[1], r[2], "signals", _CLAIM, prem[0], prem[1],
                                  {"role": "premise"}))
                else:
                    # No premise in the sentence (it opens with the connective, or only a
                    # speaker label stands before it): the previous claim, in this doc, or
                    # else the last claim of the block before (the graph builder knows it).
                    prev = [sp for sp in spans if sp is not None and sp[1] <= r[1]]
                    if prev:
                        p = max(prev, key=lambda sp: sp[1])
                        links.append((_CLAIM, p[0], p[1], "supports", _CLAIM, concl[0],
                                      concl[1], conn))
                        links.append((kind, r[1], r[2], "signals", _CLAIM, p[0], p[1],
                                      {"role": "premise"}))
                    else:
                        links.append(("prev", 0, 0, "supports", _CLAIM, concl[0], concl[1],
                                      conn))
                links.append((kind, r[1], r[2], "signals", _CLAIM, concl[0], concl[1],
                              {"role": "conclusion"}))


def subject_word(c: _Clause) -> str:
    return c.subject.split("[", 1)[0]


_CODE_MARKS = frozenset({"=", "==", "!=", "->", "=>", "{", "}", "[", "]", "(", ")", "()", ";",
                         "+=", "-=", "<", ">", "<=", ">=", "::", "#", "|", "$", "%", "/", "*"})


def _code_like(v: DocView, toks: list[int], floor: int = 0) -> bool:
    """A clause that reads as code or a listing (a file view in a tool's output): many of
    its tokens are operators, brackets or numbers, or its line is a command at a shell or
    REPL prompt ("$ psql ... where not granted")."""
    if toks and _prompt_line(v, toks[0], floor):
        return True
    if len(toks) < 3:
        return False
    marks = sum(1.0 if v.words[i] in _CODE_MARKS else 0.5 if (
        v.flags(i) & NUM and not v.flags(i) & ALPHA) else 0.0 for i in toks)
    return marks >= 0.3 * len(toks) and any(v.words[i] in _CODE_MARKS for i in toks)


_PROMPTS = frozenset({"$", ">>>", "%"})
_PROMPT_REACH = 120  # tokens back to a line's start


def _prompt_line(v: DocView, i: int, floor: int = 0) -> bool:
    """Whether the line holding token ``i`` starts with a shell or REPL prompt, or with the
    line number of a file view ("17: return True"). The line starts no earlier than
    ``floor``: after a turn's label ("tool[call_1]: $ kubectl get pods")."""
    k = i
    while k > floor and i - k < _PROMPT_REACH and not (
            v.flags(k - 1) & SPACE and "\n" in v.words[k - 1]):
        k -= 1
    if k > floor and i - k >= _PROMPT_REACH:
        return False  # a long line: bounded, so a minified run stays linear
    while k < i and v.flags(k) & SPACE:
        k += 1
    if k + 1 < len(v.words) and v.words[k].isdigit() and v.words[k + 1] == ":" and \
            not v.ws[k]:
        return True  # "17:            return True": a numbered line of a file view
    return v.words[k] in _PROMPTS and k + 1 < len(v.words) and bool(v.ws[k])


def _number_next(v: DocView, i: int) -> bool:
    """Whether the word right after token ``i`` (spaces skipped) is a number."""
    k = i + 1
    while k < len(v.words) and v.flags(k) & SPACE:
        k += 1
    return k < len(v.words) and bool(v.flags(k) & NUM)


def _embedded_question(v: DocView, i: int) -> bool:
    """Whether the clause starting at token ``i`` is an embedded question: "whether ...",
    or "if ..." right after a verb ("see if", "check if"), which asks rather than asserts."""
    low = v.lowers[i]
    if low not in _words("embedded_questions"):
        return False
    if low == "whether":
        return True
    k = i - 1
    while k >= 0 and v.flags(k) & SPACE:
        k -= 1
    return k >= 0 and bool(v.flags(k) & ALPHA) and key(approx_lemma(v.lowers[k])) in verb_keys()


def _quoted(v: DocView, toks: list[int], quotes: list[int]) -> bool:
    """Whether the clause quotes a message (its words stand inside quotation marks opened in
    its sentence): 'declined with "do not honour"', an error string in a listing. What it
    says is what someone else wrote, not a claim of the text. ``quotes``: the doc's quotation
    mark tokens, in order (counted by bisection: a long sentence of many clauses stays
    linear)."""
    lo = v.sent_starts[max(0, bisect.bisect_right(v.sent_starts, toks[0]) - 1)]
    first = bisect.bisect_left(quotes, lo)
    inside = (bisect.bisect_left(quotes, toks[0]) - first) % 2 == 1
    return inside or any(v.words[k] in _QUOTES for k in toks)


_QUOTES = frozenset({'"', "“", "”", "«", "»"})


_SHOULD_STRENGTH = 0.7  # "should" read as an expectation
_THING_SUBJECTS = frozenset({"it", "this", "that", "which", "these", "those"})


def _thing_subject(c: _Clause) -> bool:
    """Whether the clause's subject is a pronoun for a thing, not someone who could be
    advised: "this should fix it", "it should pass" (an expectation) against "you should
    restart" (advice); "the draft should go to legal" is a rule, and stays advice."""
    return c.subject in _THING_SUBJECTS


def _counterfactual(v: DocView, i: int) -> bool:
    """A modal followed by "have" ("should have", "must not have"): a counterfactual, no
    hedge and no order."""
    n = len(v.starts)
    k = i + 1
    while k < n and v.low(k) in ("not", "n't", "never"):
        k += 1
    return k < n and v.low(k) in ("have", "'ve")


def _signature(cls: str, args: list[list[Any]]) -> str:
    """The claim's match key: its predicate class and the keys of its named arguments (a
    quantity by its unit, so a changed value keeps the signature)."""
    keys: set[str] = set()
    for r in args:
        kind, a = r[0], r[3]
        if kind == _MENTION:
            keys.add(f"e:{a.get('key', '')}")
        elif kind == _IDENTIFIER:
            keys.add(f"i:{a.get('name', '')}")
        elif kind == _HANDLE:
            keys.add(f"h:{a.get('value', '')}")
        elif kind == _QUANTITY:
            keys.add(f"q:{a.get('base_unit', '#')}")
    return "|".join([cls, *sorted(keys)])


@Language.factory("refgraph_claims", default_config={"use_dependencies": True},
                  assigns=["doc.spans", "doc._.rg_records"],
                  requires=["doc._.rg_records"])
def make_claims(nlp: Language, name: str, use_dependencies: bool) -> ClaimTagger:
    return ClaimTagger(nlp, name, use_dependencies=use_dependencies)
