"""Split a context into blocks: the units a rewrite keeps, drops or moves.

Pure text, no NLP, one pass over the lines, so it is linear in the input and its results are the
cache keys of the incremental parser. The block kinds and their boundaries are fixed in
``docs/contracts.md`` section 2.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum

from .casing import lower


class BlockKind(StrEnum):
    PARAGRAPH = "paragraph"
    HEADING = "heading"
    BULLET = "bullet"
    TURN = "turn"
    CODE = "code"
    JSON = "json"
    LOG = "log"


_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+\S")
# A chat turn's speaker label ("user:", "tool[call_17]:"); rules strip it from what a line says.
# "tool[call_1] run_tests: 212 passed" names the tool before the colon; "tool[call_2] POST
# /deploy -> 202" has no colon: a bracketed id ends the label.
TURN_LABEL = re.compile(
    r"\s*(?P<role>user|assistant|system|tool|human|observation|agent|ai|bot|function)"
    r"(?:\[(?P<id>[^\]\n]{1,80})\](?:[ \t]+(?P<tool>[A-Za-z_][\w.-]{0,40})(?=[ \t]*:))?)?"
    r"(?:[ \t]*:|(?<=\])(?=[ \t]))",
    re.IGNORECASE,
)
_TURN = re.compile("^" + TURN_LABEL.pattern, re.IGNORECASE)
# A named speaker's turn: "Caroline [D1:3]: ...", "Dr. Ana Ruiz: ..." (a bracketed id makes any
# such line a turn; without one, see _speakers).
# A name's words start with a capital, Latin letters with accents included ("Chloé", "Émile");
# a markdown chat writes the label bold ("**Hana:** ...").
_NAME_WORD = r"[A-ZÀ-ÖØ-Þ](?:[^\W\d_]|['.-]){0,30}"
SPEAKER_LABEL = re.compile(
    rf"\s*(?:\*\*)?(?P<name>{_NAME_WORD}(?: {_NAME_WORD}){{0,2}})"
    r"\s*(?:\[(?P<id>[^\]\n]{1,40})\])?\s*(?:\*\*)?:(?:\*\*)?(?=\s)")
_SPEAKER = re.compile("^" + SPEAKER_LABEL.pattern)
# A message header on a line of its own, the message below it: "[Tomasz Kowalczyk, 4 Dec
# 09:12]", "[Dana Whitfield (Support), 4 Dec 10:05]" (a ticket's or a chat export's layout).
MESSAGE_HEADER = re.compile(
    rf"\s*\[(?P<name>{_NAME_WORD}(?: {_NAME_WORD}){{0,2}})(?: \([^)\n]{{1,30}}\))?,[ \t]+"
    r"[^\]\n]{1,40}\][ \t\r]*$", re.MULTILINE)
_JSON = re.compile(r"^\s*[{\[]")
_LOG = re.compile(
    r"^\s*(?:\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}|\[?\d{2}:\d{2}:\d{2}|"
    r"\[?(?:TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL|CRITICAL)\b)"
)


@dataclass(frozen=True, slots=True)
class Block:
    """A block of the input: ``text == source[start:end]``."""

    kind: BlockKind
    start: int
    end: int
    text: str
    hash: str  # 16 hex digits of sha256(kind + NUL + text)
    id: str  # "b{hash}.{n}": n counts earlier blocks with the same hash
    role: str = ""  # for turns: user, assistant, tool, ...
    turn_id: str = ""  # for turns like tool[call_17]: the id in brackets
    message: int = -1  # the index of the message it is part of (refgraph.messages), else -1


@dataclass(frozen=True, slots=True)
class MessageSpan:
    """Where one message (or one tool call or result of it) lies in a rendered message list:
    ``text[start:end]`` is its label (``"tool[call_7]: "``) and content, and nothing inside it
    starts another turn. See :mod:`refgraph.messages`."""

    index: int  # the message's index in its list
    start: int
    end: int
    role: str
    turn_id: str = ""
    label: int = 0  # the length of its label: the content starts at start + label


def block_hash(kind: str, text: str) -> str:
    return hashlib.sha256(f"{kind}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _closes(line: str, fence: str) -> bool:
    stripped = line.strip()
    return stripped.startswith(fence) and not stripped.strip(fence[0])


# The kinds a line can start, in the order they are tested: the first that matches wins.
# "log" before "json": "[INFO] ok" is a log line, not a JSON array.
_LINE_KINDS = ((BlockKind.HEADING, _HEADING), (BlockKind.TURN, _TURN), (BlockKind.BULLET, _BULLET),
               (BlockKind.LOG, _LOG), (BlockKind.JSON, _JSON))
# All of them as one alternation tried at the line's start: the first alternative that matches
# is the first kind whose pattern matches, so one call classifies a line (most lines are
# plain text, which took five failed matches).
_LINE_KIND = re.compile("|".join(
    f"(?P<{kind.value}>(?i:{pattern.pattern}))" if pattern.flags & re.IGNORECASE
    else f"(?P<{kind.value}>{pattern.pattern})" for kind, pattern in _LINE_KINDS))


_KIND_OF_GROUP: dict[str | None, BlockKind] = {kind.value: kind for kind, _ in _LINE_KINDS}


def _line_kind(line: str) -> BlockKind | None:
    """The kind a line starts, or None for a plain text line."""
    m = _LINE_KIND.match(line)
    return None if m is None else _KIND_OF_GROUP[m.lastgroup]


def _lines(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each line, end excluding the newline."""
    pos = 0
    n = len(text)
    while pos <= n:
        nl = text.find("\n", pos)
        if nl < 0:
            yield pos, n
            return
        yield pos, nl
        pos = nl + 1


def _speakers(text: str) -> frozenset[str]:
    """Names that label speaker turns without a bracketed id: a transcript's, where at least
    two names each open two lines or more and such lines are at least half of the text's
    non-blank lines ("Alice: ...", "Bob: ..."). A note's "Status:" or "Next:" lines are not."""
    counts: dict[str, int] = {}
    lines = 0
    labelled = 0
    for ls, le in _lines(text):
        line = text[ls:le]
        if not line.strip():
            continue
        lines += 1
        m = _SPEAKER.match(line)
        if m and not m.group("id") and _line_kind(line) is None:
            labelled += 1
            counts[m.group("name")] = counts.get(m.group("name"), 0) + 1
    names = frozenset(n for n, c in counts.items() if c >= 2)
    if len(names) >= 2 and 2 * labelled >= lines:
        return names
    return frozenset()


# A chat log stamps each turn with its clock time: "[09:08] agent: ...", "[09:10] Marco
# Bellini: ..." (a bracket first would otherwise read as JSON, and the turn would join the
# tool output above it).
_STAMP = re.compile(r"\s*\[\d{1,2}:\d{2}(?::\d{2})?\][ \t]+")
# after a stamp, a name may carry its team: "[10:02] Marisol Vega (Recruiting): ..."
_STAMPED_NAME = re.compile(rf"(?P<name>{_NAME_WORD}(?: {_NAME_WORD}){{0,2}})"
                           r"(?: \([^)\n]{1,30}\))?[ \t]*:(?=\s)")


def _stamped_turn(line: str) -> re.Match[str] | None:
    m = _STAMP.match(line)
    if m is None:
        return None
    turn = TURN_LABEL.match(line, m.end())
    if turn is not None:
        return turn
    named = _STAMPED_NAME.match(line, m.end())
    # a name has lower-case letters: "[10:02] ERROR: disk full" is a log line
    if named is not None and any(c.islower() for c in named.group("name")):
        return named
    return None


def _speaker_turn(line: str, speakers: frozenset[str]) -> re.Match[str] | None:
    m = _SPEAKER.match(line)
    if m and (m.group("id") or m.group("name") in speakers):
        return m
    return MESSAGE_HEADER.match(line)  # its first line, at most: "$" ends it


def split_blocks(text: str, messages: Sequence[MessageSpan] | None = None) -> list[Block]:
    """Split ``text`` into blocks in document order.

    With ``messages`` (the spans of a rendered message list, :mod:`refgraph.messages`), each
    message is one turn block with the message's role and id: nothing inside it (a line that
    looks like a turn label, a heading, a fence, a blank line) splits it.
    """
    if messages is None:
        speakers = _speakers(text) if ":" in text else frozenset()
        return _blocks(text, [(k, s, e, None) for k, s, e in _spans(text, speakers)], speakers)
    for m in messages:
        if not (0 <= m.start <= m.end <= len(text)):
            raise ValueError(f"message span {m.start}:{m.end} is outside the text")
    return _blocks(text, [(BlockKind.TURN, m.start, m.end, m) for m in messages], frozenset())


def _spans(text: str, speakers: frozenset[str]) -> list[tuple[BlockKind, int, int]]:
    """The (kind, start, end) of each block of ``text``."""
    spans: list[tuple[BlockKind, int, int]] = []
    cur_kind: BlockKind | None = None
    cur_start = cur_end = 0
    in_fence = ""

    def close() -> None:
        nonlocal cur_kind
        if cur_kind is not None:
            spans.append((cur_kind, cur_start, cur_end))
        cur_kind = None

    for ls, le in _lines(text):
        line = text[ls:le]
        if in_fence:
            cur_end = le
            # A closing fence is the fence characters alone ("```python" opens, never closes).
            if _closes(line, in_fence):
                close()
                in_fence = ""
            continue
        fence = _FENCE.match(line)
        if fence:
            close()
            in_fence = fence.group(1)
            cur_kind, cur_start, cur_end = BlockKind.CODE, ls, le
            continue
        if not line.strip():
            # A blank line ends every block except a chat turn, which runs to the next turn.
            if cur_kind is not BlockKind.TURN:
                close()
            continue
        kind = _line_kind(line)
        if (kind is None and _speaker_turn(line, speakers)) or (
                kind is BlockKind.JSON and MESSAGE_HEADER.match(line)) or (
                kind in (None, BlockKind.JSON, BlockKind.LOG) and _stamped_turn(line)):
            kind = BlockKind.TURN
        if kind is None:
            if cur_kind in (None, BlockKind.HEADING, BlockKind.JSON, BlockKind.LOG):
                close()
                cur_kind, cur_start = BlockKind.PARAGRAPH, ls
            cur_end = le
            continue
        if kind in (BlockKind.JSON, BlockKind.LOG, BlockKind.BULLET) and cur_kind is BlockKind.TURN:
            cur_end = le  # a turn's body may hold bullets, JSON and logs
            continue
        close()
        cur_kind, cur_start, cur_end = kind, ls, le
        if kind is BlockKind.HEADING:
            close()
    close()
    return spans


def _blocks(text: str, spans: list[tuple[BlockKind, int, int, MessageSpan | None]],
            speakers: frozenset[str]) -> list[Block]:
    blocks: list[Block] = []
    seen: dict[str, int] = {}
    for kind, s, e, msg in spans:
        # Trailing blank lines inside a turn belong to the gap, not the turn.
        body = text[s:e].rstrip()
        e = s + len(body)
        h = block_hash(kind, body)
        n = seen.get(h, 0)
        seen[h] = n + 1
        role = turn_id = ""
        if msg is not None:  # every block of a message is the message's
            role, turn_id = msg.role, msg.turn_id
        elif kind is BlockKind.TURN:
            m = _TURN.match(body) or _speaker_turn(body, speakers) or _stamped_turn(body)
            if m:
                role = lower(m.group("role") if "role" in m.groupdict() else m.group("name"))
                turn_id = m.groupdict().get("id") or ""  # a message header has none
        blocks.append(Block(kind, s, e, body, h, f"b{h}.{n}", role, turn_id,
                            -1 if msg is None else msg.index))
    return blocks
