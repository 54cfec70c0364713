"""``refgraph_identifiers``: identifiers (and whether each occurrence defines or uses them) and
handles that let a reader re-fetch a fact (paths, URLs, tool-call ids, store keys, commits).

Regular expressions on the raw text, not tokens: the tokenizer splits ``src/app/main.py`` and
``MAX_RETRIES=3`` in ways that depend on the pipeline, and offsets must be exact.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from spacy.language import Language
from spacy.tokens import Doc

from ..casing import lower
from ..model import NodeKind, Scalar
from ..resources import load_json
from .records import add_attrs, ensure_group
from .view import view

SPAN_KEY = "rg_identifiers"
HANDLE_KEY = "rg_handles"


@dataclass(frozen=True, slots=True)
class _Pattern:
    kind: str
    regex: re.Pattern[str]
    group: int
    gate: re.Pattern[str] | None  # the pattern cannot match a text this cheap regex does not match
    needs: str  # a literal every match holds ("" if none): ``in`` is cheaper than any regex
    # Or, instead of a gate, where matches can start (see _Scan.starts): an anchor every match
    # holds, the run of ``back`` characters before it, and an optional lead character.
    anchor: _Anchor | None
    slot: int  # patterns with the same gate or anchor share a slot: it is worked out once


@dataclass(frozen=True, slots=True)
class _Anchor:
    find: re.Pattern[str]
    back: re.Pattern[str]  # a run of the class, matched on the reversed text
    lead: str


@cache
def _patterns() -> tuple[list[_Pattern], list[_Pattern], frozenset[str]]:
    data = load_json("patterns", "identifiers.json")
    slots: dict[tuple[str, ...], int] = {}

    def compile_one(it: dict[str, str]) -> _Pattern:
        regex = re.compile(it["regex"])
        group = int(it.get("group", 0))
        if "anchor" in it:
            key = (it["anchor"], it["back"], it.get("lead", ""))
            anchor = _Anchor(re.compile(key[0]), re.compile(f"(?:{key[1]})*"), key[2])
            slot = slots.setdefault(key, len(slots))
            return _Pattern(it["kind"], regex, group, None, it.get("needs", ""), anchor, slot)
        slot = slots.setdefault((it["gate"],), len(slots))
        return _Pattern(it["kind"], regex, group, re.compile(it["gate"]),
                        it.get("needs", _literal(it["gate"])), None, slot)

    handles = [compile_one(it) for it in data["handles"]]
    idents = [compile_one(it) for it in data["identifiers"]]
    return handles, idents, frozenset(data["not_dotted"])


_CLASS = re.compile(r"\[(?:\\.|[^\]\\])*\](?:\{\d+(?:,\d*)?\})?")


def _literal(gate: str) -> str:
    """The literal a gate made of character classes around plain characters must contain:
    ``"[a-z]_[A-Za-z0-9]"`` -> ``"_"``, ``"://"`` -> ``"://"``; "" for any other gate."""
    plain = [p for p in _CLASS.sub("\0", gate).split("\0") if p]
    if len(plain) != 1 or re.search(r"\\\w", plain[0]):  # \b, \d ...: not a character
        return ""
    if any(c in re.sub(r"\\.", "", plain[0]) for c in "\\.^$*+?{}[]|()"):
        return ""
    return re.sub(r"\\(.)", r"\1", plain[0])


@cache
def _define_res() -> tuple[re.Pattern[str], re.Pattern[str]]:
    data = load_json("patterns", "identifiers.json")
    before = "|".join(re.escape(w) for w in sorted(data["define_before"], key=len, reverse=True))
    after = "|".join(re.escape(w) for w in sorted(data["define_after"], key=len, reverse=True))
    return (
        re.compile(rf"(?:^|[\s(])(?:{before})\s+[`'\"]?$", re.IGNORECASE),
        # One regex for what may follow a definition, tried once: "X=3", "X := 3", "X: 5 GB",
        # "X is 3" (a value right after the copula), or a defining phrase in any case.
        re.compile(r"""^(?:[`'"]?\s*(?::=|=(?!=)|:(?!:)\s*\S|\s+(?:is|are|was|=)\s+(?:now\s+)?"""
                   rf"""[-+$"'`\d])|(?i:[`'"]?\s*(?:{after})\b))"""),
    )


def _labelled(text: str, end: int) -> bool:
    """Whether the identifier ending at ``end`` is a line's label ("m.chen: 3 failures"),
    which names a value in a listing rather than binding a setting ("X=3", "X is 3")."""
    rest = text[end:end + 3].lstrip("`'\"")
    return rest[:1] == ":" and rest[1:2] != "="


def _role(text: str, start: int, end: int) -> str:
    before_re, after_re = _define_res()
    # Look at most _CONTEXT characters either side: on a 300,000-character line a search for
    # the line's ends per identifier would be quadratic.
    lo = max(0, start - _CONTEXT)
    line_start = max(text.rfind("\n", lo, start) + 1, lo)
    hi = min(len(text), end + _CONTEXT)
    line_end = text.find("\n", end, hi)
    after = text[end: line_end if line_end >= 0 else hi]
    before = text[line_start:start]
    if after_re.match(after) and not (_label_form(after) and not _LINE_LEAD.match(before)):
        return "define"
    if before_re.search(before, _define_word_from(before)):
        return "define"
    # JSON and YAML keys: "key": value / key: value at the start of a line
    if before.strip() in ("", '"', "'", "-", "- ", '{"', "{") and after.startswith(('":', "':")):
        return "define"
    return "use"


_CONTEXT = 120
# What may stand before a label on its line: indentation, a bullet or number, a quote, bold.
# "Idle analysis for ADHOC_L: auto_suspend = 3,600 s" is a heading about ADHOC_L, not its value.
_LINE_LEAD = re.compile(r"[\s>*+#|`'\"_-]*(?:\d{1,3}[.)][\s*_`'\"]*)?\Z")


def _label_form(after: str) -> bool:
    """Whether what follows the name is a colon and a value ("X: 5 GB"), not "=" or "is"."""
    rest = after.lstrip("`'\"").lstrip()
    return rest[:1] == ":" and rest[1:2] not in ("=", ":")


def _define_word_from(before: str) -> int:
    """Where a match of the "defined as"-before pattern can start in ``before``: it ends with
    a word from the list, whitespace and an optional quote, so it starts at most the longest
    word and one character before the trailing whitespace (a search of the whole line before
    every identifier was a tenth of the component)."""
    k = len(before)
    if k and before[k - 1] in "`'\"":
        k -= 1
    while k and before[k - 1].isspace():
        k -= 1
    return max(0, k - _longest_define_before() - 1)


@cache
def _longest_define_before() -> int:
    words: list[str] = load_json("patterns", "identifiers.json")["define_before"]
    return max(map(len, words), default=0)


class _Taken:
    """Disjoint character ranges already claimed, sorted, with O(log n) overlap tests."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []

    def overlaps(self, s: int, e: int) -> bool:
        k = bisect.bisect_right(self.starts, s)
        # Ranges are disjoint, so only the neighbours of the insertion point can overlap.
        return (k > 0 and self.ends[k - 1] > s) or (k < len(self.starts) and self.starts[k] < e)

    def add(self, s: int, e: int) -> None:
        k = bisect.bisect_right(self.starts, s)
        self.starts.insert(k, s)
        self.ends.insert(k, e)


_RANGE = re.compile(r"\s*(?:[-–—]|\.\.|to|through)\s*([A-Za-z]+_)?(\d+)\b")


def _range_end(text: str, e: int, value: str) -> str:
    """The last id of a range of tool-call ids that starts with ``value`` at ``text[:e]``
    ("call_2–call_8", "call_2-8"), or ""."""
    head = value.rstrip("0123456789")
    if head == value or not head.endswith("_"):
        return ""
    m = _RANGE.match(text, e)
    if m is None or (m.group(1) and m.group(1) != head):
        return ""
    first, last = int(value[len(head):]), int(m.group(2))
    return f"{head}{last}" if first < last <= first + _MAX_RANGE else ""


_MAX_RANGE = 200  # ids a range may span: a typo's "call_2-2000" covers nothing


class IdentifierExtractor:
    """spaCy component: see the module docstring."""

    def __init__(self, nlp: Language, name: str) -> None:
        self.name = name

    def __call__(self, doc: Doc) -> Doc:
        ensure_group(doc, SPAN_KEY)
        ensure_group(doc, HANDLE_KEY)
        text = view(doc, refresh=True).text
        handles, idents, not_dotted = _patterns()
        taken = _Taken()
        scan = _Scan(text)
        for pat in handles:
            for m in scan.matches(pat):
                s, e = m.span(pat.group)
                value = text[s:e].rstrip(".,;:")
                e = s + len(value)
                if e - s < 2 or taken.overlaps(s, e):
                    continue
                if pat.kind == "path" and not _path_like(value):
                    continue
                if pat.kind == "commit" and (value.isdigit() or value.isalpha()):
                    continue  # a hash mixes digits and letters
                taken.add(s, e)
                attrs: dict[str, Scalar] = {"handle_kind": pat.kind, "value": value,
                                            "words": _words_of(value)}
                if _cites(text, s, e, pat.kind):
                    attrs["cited"] = True
                if pat.kind == "tool_call":
                    last = _range_end(text, e, value)
                    if last:
                        attrs["through"] = last  # "call_2–call_8": the calls between too
                add_attrs(doc, HANDLE_KEY, NodeKind.HANDLE, s, e, attrs, pat.kind.upper())
        for pat in idents:
            for m in scan.matches(pat):
                s, e = m.span(pat.group)
                name = text[s:e].strip()
                if not name or taken.overlaps(s, e):
                    continue
                if pat.kind == "dotted" and (name.split(".")[0] in not_dotted
                                             or all(len(p) <= 2 for p in name.split("."))
                                             or _is_number_like(name)):
                    continue
                code = name
                if pat.kind == "code":
                    if _is_number_like(name.strip()):
                        continue  # `345`: a number in backticks is a number
                    taken.add(m.start(), m.end())
                    name = _code_name(name)
                else:
                    taken.add(s, e)
                role = _role(text, s, e if pat.kind != "code" else m.end())
                ident: dict[str, Scalar] = {"name": name, "ident_kind": pat.kind,
                                            "role": role}
                if role == "define" and _labelled(text, e if pat.kind != "code" else m.end()):
                    ident["labelled"] = True  # "m.chen: 3 failures": a listing's label
                if pat.kind == "code":
                    ident["words"] = _words_of(code)  # `return int(value)`: its names
                    files = _files_of(code)
                    if files:
                        ident["files"] = files
                add_attrs(doc, SPAN_KEY, NodeKind.IDENTIFIER, s, e, ident, "IDENT")
        return doc


class _Scan:
    """One text's matches per pattern, as ``pattern.regex.finditer(text)`` gives them, with the
    gates and anchor positions that patterns share worked out once."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.rev = ""  # the text reversed, made on first use
        self.slots: dict[int, bool | list[int]] = {}  # by _Pattern.slot: gate hit, or starts

    def matches(self, pat: _Pattern) -> Iterator[re.Match[str]]:
        text = self.text
        if pat.needs and pat.needs not in text:
            return iter(())
        known = self.slots.get(pat.slot)
        if pat.anchor is not None:
            if known is None:
                known = self.slots[pat.slot] = self.starts(pat.anchor)
            assert isinstance(known, list)
            return _matches_from(pat.regex, text, known) if known else iter(())
        if known is None:
            assert pat.gate is not None
            known = self.slots[pat.slot] = pat.gate.search(text) is not None
        return pat.regex.finditer(text) if known else iter(())

    def starts(self, anchor: _Anchor) -> list[int]:
        """Sorted positions where a match can start: before each anchor, the start of the run
        of ``back`` characters that ends there, and the lead character before that run."""
        text = self.text
        n = len(text)
        out: list[int] = []
        prev = run = 0  # the last anchor's position and where its run started
        for m in anchor.find.finditer(text):
            u = m.start()
            # An anchor is one character (lookarounds aside), so a run that reaches the previous
            # anchor continues its run; tests/nlp/test_identifier_patterns.py checks every
            # anchored pattern against its plain regex.
            assert m.end() == u + 1, anchor.find.pattern
            if not self.rev:
                self.rev = text[::-1]
            # Only back to the last anchor: a run that reaches it continues its run (anchors
            # inside one long run must not each rescan it).
            back = anchor.back.match(self.rev, n - u, n - prev)
            assert back is not None  # a starred class matches, if only the empty string
            k = back.end() - (n - u)
            run = run if k == u - prev else u - k
            prev = u
            if anchor.lead and run and text[run - 1] in anchor.lead and (
                    not out or out[-1] < run - 1):
                out.append(run - 1)
            if not out or out[-1] < run:
                out.append(run)
        return out


def _matches_from(regex: re.Pattern[str], text: str, starts: list[int]
                  ) -> Iterator[re.Match[str]]:
    """``regex.finditer(text)`` when every match starts at one of the sorted ``starts``: the
    leftmost match at or after the previous one's end starts at the first of them where the
    regex matches (none of the patterns matches an empty string)."""
    end = 0
    for s in starts:
        if s >= end:
            m = regex.match(text, s)  # sees the text before s, as finditer does
            if m is not None:
                end = m.end()
                yield m


_CITE_REACH = 240  # characters back from a handle that can open its parenthesis or label it
_CITE_AFTER = re.compile(r"""[`'"]?\s*(?:->|=>|→|:\s|\))""")


def _cites(text: str, s: int, e: int, kind: str) -> bool:
    """Whether the handle at ``text[s:e]`` names the source of what is around it: it stands in
    parentheses ("(call_22)", "(full table: data/od.csv)"), labels what follows ("call_7:
    ...", "GET /x -> 200"), or opens a tool's line ("call_72 GET /v1/charges")."""
    # The line up to the handle, at most _CITE_REACH characters of it: a 100,000-character
    # line of handles must not be rescanned for each one.
    line_start = max(text.rfind("\n", max(0, s - _CITE_REACH), s) + 1, s - _CITE_REACH)
    before = text[line_start:s]
    if before.count("(") > before.count(")") or before.count("[") > before.count("]"):
        return True
    if _CITE_AFTER.match(text, e):
        return True
    lead = lower(before.strip().strip("\"'{[:,"))
    if lead == "":
        return kind == "tool_call"  # "call_72 GET ...": a call opening a tool's line
    return lead in ("agent", "tool", "source", "from", "see", "via", "per") or \
        lead.endswith(("source:", "from", "see", "via", "output of", "result of"))


_NAME_WORD = re.compile(r"0[xX][0-9A-Fa-f]+|\d+(?:\.\d+)?|[^\W_]\w*")  # "0x10" is one number


def _words_of(code: str) -> str:
    """The names and numbers inside a code span or handle, lower-cased, space-separated."""
    return " ".join(lower(w) for w in _NAME_WORD.findall(code) if len(w) > 1 or w.isdigit())


def _files_of(code: str) -> str:
    """The file names a command in a code span reads, whole, space-separated (`strings
    disk.img | grep flag` -> disk.img: what running it again re-reads)."""
    return " ".join(f for t in code.split()[1:] if (f := t.strip("'\"`,;()[]{}<>|"))
                    and f[:1].isalnum() and "(" not in t and _EXTENSION_AT_END.search(f)
                    and not _is_number_like(f))


def _path_like(value: str) -> bool:
    """"src/app.py", "/etc/hosts", "~/x", "a/b/c" are paths; "req/s" and "and/or" are not."""
    if value.startswith(("/", "~", "./", "../")) or value.count("/") >= 2:
        return True
    last = value.rsplit("/", 1)[-1]
    return _EXTENSION_AT_END.search(last) is not None


_EXTENSION_AT_END = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,7}$")
_CODE_HEAD_END = re.compile(r"[\s=(:,]")


def _is_number_like(name: str) -> bool:
    return all(part.isdigit() for part in name.split("."))


def _code_name(code: str) -> str:
    """The name a backticked span refers to: `deploy`, `deploy()` and `deploy --prod` -> deploy."""
    code = code.strip()
    cut = _CODE_HEAD_END.search(code)  # where re.split(..., maxsplit=1) would cut
    head = code[:cut.start()] if cut is not None else code
    return head or code


@Language.factory(
    "refgraph_identifiers",
    default_config={},
    assigns=["doc.spans", "doc._.rg_records"],
)
def make_identifiers(nlp: Language, name: str) -> IdentifierExtractor:
    return IdentifierExtractor(nlp, name)
