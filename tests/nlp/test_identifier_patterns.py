"""The identifier component's fast pattern forms find exactly what the plain regexes find.

``models/patterns/identifiers.json`` writes patterns so Python's ``re`` can skip ahead (a literal
or rare character first), and tries some only where an anchor says a match can start. These
tests compare each against its plain form, as it was written before, on random strings built
from the characters and words the patterns care about.
"""

from __future__ import annotations

import random
import re

import pytest

from refgraph.nlp.identifiers import _patterns, _Scan

_EXT = ("py|pyi|js|ts|tsx|jsx|json|jsonl|yaml|yml|toml|ini|cfg|conf|md|rst|txt|csv|tsv|log|sql|"
        "sh|bash|rs|go|java|kt|c|h|cc|cpp|hpp|rb|php|html|css|xml|lock|parquet|db|sqlite|ipynb|"
        "env|pem|key|tf|proto|graphql|dockerfile|gz|zip|tar|pdf|png|jpg|svg|jpeg|gif|bmp|webp|mp3|mp4|"
        "m4v|mpeg|mpg|avi|mov|mkv|wav|flac|ogg|bin|elf|exe|dll|so|img|iso|pcap|pcapng|jar|whl|bz2|"
        "xz|tgz|7z|rar|docx|xlsx|pptx|enc|pyc|wasm")
# The plain forms, in the JSON's order (handles, then identifiers).
PLAIN = [
    r"\b(?:https?|ftp|s3|gs|file|ssh|git)://[^\s<>\"'`)\]]+",
    r"\b(?:ledger|store|cache|kv|mem|memory|artifact|artifacts|blob|key|redis|db|sha256|snapshot"
    r"|doc|docs|note|notes|trace|run|job|result|results):[A-Za-z0-9][\w./#-]*[A-Za-z0-9]",
    r"\b(?:call|toolu|tool|fc|run|req|msg|chatcmpl|resp)_"
    r"(?!(?:id|ids|name|names|type|count|args|result|results|status)\b)"
    r"[A-Za-z0-9]+(?:_[A-Za-z0-9]+)*\b",
    r"(?<![\w/.:@-])(?:~|\.{1,2})?/?(?:[\w.@-]+/)+[\w.@-]*[\w@-](?:\.[A-Za-z0-9]{1,8})?(?::\d+)?",
    r"(?<![\w/.\u2026-])[\w-]+(?:\.[\w-]+|\u2026)*\.(?:" + _EXT + r")\b",
    r"\b[0-9a-f]{7,40}\b",
    r"`([^`\n]{1,120})`",
    r"(?<![\w#&])#\d{2,7}\b|\b(?:PR|MR|INC|ENG|JIRA|SEV)[-\s#]?\d{1,7}\b"
    r"|\b[A-Z]{1,5}-\d{2,7}(?:-[A-Z0-9]{1,6})*\b",
    r"\$\{?[A-Za-z_][A-Za-z0-9_]*\}?",
    r"(?<![\w-])--[A-Za-z][\w-]*[A-Za-z0-9]",
    r"\b[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+(?:\(\))?(?![\w.]*[A-Za-z0-9_])",
    r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b",
    r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b",
    r"\b(?!(?:minus|plus|negative)-)[a-z][a-z0-9]*(?:-[a-z0-9]+)*-[0-9]+[a-z]?\b",
    r"\b[a-z]+[0-9]*(?:[A-Z][a-z0-9]+)+\b",
    r"\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+\b",
    r"\b[A-Za-z_][A-Za-z0-9_]*\(\)",
]
_PIECES = ["a", "b", "f", "z", "A", "B", "Z", "0", "7", "9", "_", ".", "/", "~", "-", "--", ":",
           "@", "`", "$", "{", "}", "(", ")", "()", " ", " ", "\n", "\t", "é", "É", "٣", "#",
           "call", "toolu", "tool", "run", "store", "key", "http", "://", "py", "pyi", "json",
           "c", "md", "deadbeef", "1234567", "abc", "Foo", "fooBar", "MAX_", "x_y", "..", "./",
           "~/", "src", "e.g", "v2", ".py", "_x", "ß", "\u0130", "'", '"', ",", ";", "PR",
           "INC", "SW-", "12", "us-east-2", "-3", "id", "call_id", "\u2026", "mpeg", ".so"]


def _strings(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(_PIECES) for _ in range(rng.randint(1, 30))) for _ in range(count)]


def _kept_commits(spans: list[tuple[int, int]], text: str) -> list[tuple[int, int]]:
    """The commit matches the component keeps (a hash mixes digits and letters): the pattern's
    gate only lets texts through that can hold one."""
    return [(s, e) for s, e in spans if not (text[s:e].isdigit() or text[s:e].isalpha())]


def _check(text: str) -> None:
    handles, idents, _ = _patterns()
    scan = _Scan(text)
    for pat, plain in zip(handles + idents, PLAIN, strict=True):
        want = [m.span() for m in re.finditer(plain, text)]
        got = [m.span() for m in scan.matches(pat)]
        if pat.kind == "commit":
            want, got = _kept_commits(want, text), _kept_commits(got, text)
        assert got == want, (pat.kind, text)
        assert [m.span(pat.group) for m in scan.matches(pat)] == [
            m.span(pat.group) for m in re.finditer(plain, text)] or pat.kind == "commit"


@pytest.mark.parametrize("seed", range(8))
def test_fast_forms_match_plain_regexes(seed: int) -> None:
    for text in _strings(2500, seed):
        _check(text)


@pytest.mark.parametrize("text", [
    "see src/app/main.py and ~/x/y, ../a/b:12 ~~foo/bar a~b/c /etc/hosts",
    "config.yaml a.b.c.py x.py.txt /a.py .env.py a-b.json.gz x.pyi",
    "call_abc_d tool_x toolu_1 fooBarBaz iPhone XMLHttpRequest MAX_RETRIES_2 snake_case_x",
    "deadbeef 1234567 abc1234 0123456789abcdef0123456789abcdef01234567ab a1b2c3d",
    "os.path.join() self.x e.g. i.e. v1.2.3 a.b_c.d " + "aB" * 300 + " " + "x_" * 300,
    "--flag a--b -–x --x- run:abc store:a/b#1 http://x.y/z",
])
def test_fast_forms_on_examples(text: str) -> None:
    _check(text)


def test_one_after_regex_is_the_assignment_or_the_defining_phrase() -> None:
    import json
    from pathlib import Path

    from refgraph.nlp.identifiers import _define_res

    data = json.loads((Path(__file__).parents[2] / "models" / "patterns" /
                       "identifiers.json").read_text())
    after = "|".join(re.escape(w) for w in sorted(data["define_after"], key=len, reverse=True))
    defining = re.compile(rf"^[`'\"]?\s*(?:{after})\b", re.IGNORECASE)
    assign = re.compile(
        r"""^[`'"]?\s*(?::=|=(?!=)|:(?!:)\s*\S|\s+(?:is|are|was|=)\s+(?:now\s+)?[-+$"'`\d])""")
    combined = _define_res()[1]
    pieces = ["`", "'", '"', " ", "  ", "\n", "\t", ":", "=", "==", ":=", "::", "is", "IS", "are",
              "was", "now", "NOW", "be", "Be", "bE", "beach", "means", "MEANS", "is defined as",
              "Is Set To", "defaults to", "default to", "stands for", "3", "-", "+", "$", "x",
              "\u0130s", "\u0131s", "\u017ftands for", "_", "."]
    rng = random.Random(5)
    for _ in range(20000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 6)))
        want = bool(assign.match(text) or defining.match(text))
        assert bool(combined.match(text)) == want, text
