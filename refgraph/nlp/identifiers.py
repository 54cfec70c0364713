"""``refgraph_identifiers``: identifiers (and whether each occurrence defines or uses them) and
handles that let a reader re-fetch a fact (paths, URLs, tool-call ids, store keys, commits).

Regular expressions on the raw text, not tokens: the tokenizer splits ``src/app/main.py`` and
``MAX_RETRIES=3`` in ways that depend on the pipeline, and offsets must be exact.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from spacy.language import Language
from spacy.tokens import Doc

from ..model import NodeKind
from ..resources import load_json
from .records import add, ensure_group
from .view import view

SPAN_KEY = "rg_identifiers"
HANDLE_KEY = "rg_handles"


@dataclass(frozen=True, slots=True)
class _Pattern:
    kind: str
    regex: re.Pattern[str]
    group: int
    requires: str  # the pattern cannot match a text without this substring


@cache
def _patterns() -> tuple[list[_Pattern], list[_Pattern], frozenset[str]]:
    data = load_json("patterns", "identifiers.json")

    def compile_all(items: list[dict[str, object]]) -> list[_Pattern]:
        return [_Pattern(str(it["kind"]), re.compile(str(it["regex"])),
                         int(str(it.get("group", 0))), str(it.get("requires", "")))
                for it in items]

    return compile_all(data["handles"]), compile_all(data["identifiers"]), frozenset(
        data["not_dotted"])


@cache
def _define_res() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    data = load_json("patterns", "identifiers.json")
    before = "|".join(re.escape(w) for w in sorted(data["define_before"], key=len, reverse=True))
    after = "|".join(re.escape(w) for w in sorted(data["define_after"], key=len, reverse=True))
    return (
        re.compile(rf"(?:^|[\s(])(?:{before})\s+[`'\"]?$", re.IGNORECASE),
        re.compile(rf"^[`'\"]?\s*(?:{after})\b", re.IGNORECASE),
        # "X=3", "X := 3", "X: 5 GB", "X is 3" (a value right after the copula)
        re.compile(r"""^[`'"]?\s*(?::=|=(?!=)|:(?!:)\s*\S|\s+(?:is|are|was|=)\s+(?:now\s+)?[-+$"'`\d])"""),
    )


def _role(text: str, start: int, end: int) -> str:
    before_re, after_re, assign_re = _define_res()
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    after = text[end: line_end if line_end >= 0 else len(text)]
    before = text[line_start:start]
    if assign_re.match(after) or after_re.match(after) or before_re.search(before):
        return "define"
    # JSON and YAML keys: "key": value / key: value at the start of a line
    if before.strip() in ("", '"', "'", "-", "- ", '{"', "{") and after.startswith(('":', "':")):
        return "define"
    return "use"


def _overlaps(taken: list[tuple[int, int]], s: int, e: int) -> bool:
    return any(s < te and ts < e for ts, te in taken)


class IdentifierExtractor:
    """spaCy component: see the module docstring."""

    def __init__(self, nlp: Language, name: str) -> None:
        self.name = name

    def __call__(self, doc: Doc) -> Doc:
        ensure_group(doc, SPAN_KEY)
        ensure_group(doc, HANDLE_KEY)
        text = view(doc).text
        handles, idents, not_dotted = _patterns()
        taken: list[tuple[int, int]] = []
        for pat in handles:
            if pat.requires not in text:
                continue
            for m in pat.regex.finditer(text):
                s, e = m.span(pat.group)
                value = text[s:e].rstrip(".,;:")
                e = s + len(value)
                if e - s < 2 or _overlaps(taken, s, e):
                    continue
                if pat.kind == "path" and not _path_like(value):
                    continue
                if pat.kind == "commit" and (value.isdigit() or value.isalpha()):
                    continue  # a hash mixes digits and letters
                taken.append((s, e))
                add(doc, HANDLE_KEY, NodeKind.HANDLE, s, e, label=pat.kind.upper(),
                    handle_kind=pat.kind, value=value)
        for pat in idents:
            if pat.requires not in text:
                continue
            for m in pat.regex.finditer(text):
                s, e = m.span(pat.group)
                name = text[s:e].strip()
                if not name or _overlaps(taken, s, e):
                    continue
                if pat.kind == "dotted" and (name.split(".")[0] in not_dotted
                                             or all(len(p) <= 2 for p in name.split("."))
                                             or _is_number_like(name)):
                    continue
                if pat.kind == "code":
                    taken.append((m.start(), m.end()))
                    name = _code_name(name)
                else:
                    taken.append((s, e))
                add(doc, SPAN_KEY, NodeKind.IDENTIFIER, s, e, label="IDENT",
                    name=name, ident_kind=pat.kind, role=_role(text, s, e if pat.kind != "code"
                                                               else m.end()))
        return doc


def _path_like(value: str) -> bool:
    """"src/app.py", "/etc/hosts", "~/x", "a/b/c" are paths; "req/s" and "and/or" are not."""
    if value.startswith(("/", "~", "./", "../")) or value.count("/") >= 2:
        return True
    last = value.rsplit("/", 1)[-1]
    return bool(re.search(r"\.[A-Za-z][A-Za-z0-9]{0,7}$", last))


def _is_number_like(name: str) -> bool:
    return all(part.isdigit() for part in name.split("."))


def _code_name(code: str) -> str:
    """The name a backticked span refers to: `deploy`, `deploy()` and `deploy --prod` -> deploy."""
    head = re.split(r"[\s=(:,]", code.strip(), maxsplit=1)[0]
    return head or code.strip()


@Language.factory(
    "refgraph_identifiers",
    default_config={},
    assigns=["doc.spans", "doc._.rg_records"],
)
def make_identifiers(nlp: Language, name: str) -> IdentifierExtractor:
    return IdentifierExtractor(nlp, name)
