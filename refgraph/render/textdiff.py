"""Which characters of ``before`` were removed, which of ``after`` added, and what moved.

A two-level difflib diff, like a code review tool: lines first (cheap on long contexts, where
most lines are untouched), then words inside each replaced stretch of lines. A removed stretch
whose text reappears as an added stretch elsewhere is a move, and the two halves point at each
other. Offsets index the original strings, so marks line up with finding evidence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Literal, TypeAlias

MarkKind: TypeAlias = Literal["removed", "added", "moved"]

_TOKEN = re.compile(r"\w+|\s+|[^\w\s]")
_WORD_DIFF_LIMIT = 4000  # tokens per side; beyond, a replaced stretch is marked whole
_MIN_MOVE = 12  # characters: shorter repeats ("the", "30") are coincidences, not moves


@dataclass(frozen=True, slots=True)
class Mark:
    """A marked range of one side; ``pair`` numbers a move (the same on both sides)."""

    start: int
    end: int
    kind: MarkKind
    pair: int = -1


def diff_marks(before: str, after: str) -> tuple[list[Mark], list[Mark]]:
    """Marks for ``before`` (removed or moved) and ``after`` (added or moved).

    >>> b, a = diff_marks("keep this. drop that.", "keep this. add more.")
    >>> [("before", m.kind, "keep this. drop that."[m.start:m.end]) for m in b]
    [('before', 'removed', 'drop that')]
    >>> [("after", m.kind, "keep this. add more."[m.start:m.end]) for m in a]
    [('after', 'added', 'add more')]
    """
    bl, al = _lines(before), _lines(after)
    removed: list[tuple[int, int]] = []
    added: list[tuple[int, int]] = []
    sm = SequenceMatcher(None, [t for t, _ in bl], [t for t, _ in al], autojunk=False)
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        b0, b1 = _extent(bl, i1, i2, len(before))
        a0, a1 = _extent(al, j1, j2, len(after))
        if op == "replace":
            r, a = _word_diff(before, b0, b1, after, a0, a1)
            removed += r
            added += a
        elif op == "delete":
            removed.append((b0, b1))
        elif op == "insert":
            added.append((a0, a1))
    return _pair_moves(before, _merge(before, removed), after, _merge(after, added))


def _lines(text: str) -> list[tuple[str, int]]:
    out, at = [], 0
    for line in text.splitlines(keepends=True):
        out.append((line, at))
        at += len(line)
    return out


def _extent(lines: list[tuple[str, int]], i: int, j: int, length: int) -> tuple[int, int]:
    start = lines[i][1] if i < len(lines) else length
    end = lines[j][1] if j < len(lines) else length
    return start, end


def _tokens(text: str, start: int, end: int) -> list[tuple[str, int]]:
    return [(m.group(), start + m.start()) for m in _TOKEN.finditer(text[start:end])]


def _word_diff(before: str, b0: int, b1: int, after: str, a0: int,
               a1: int) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    bt, at = _tokens(before, b0, b1), _tokens(after, a0, a1)
    if len(bt) > _WORD_DIFF_LIMIT or len(at) > _WORD_DIFF_LIMIT:
        return [(b0, b1)], [(a0, a1)]
    removed, added = [], []
    sm = SequenceMatcher(None, [t for t, _ in bt], [t for t, _ in at], autojunk=False)
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op in ("replace", "delete"):
            removed.append(_extent(bt, i1, i2, b1))
        if op in ("replace", "insert"):
            added.append(_extent(at, j1, j2, a1))
    return removed, added


def _merge(text: str, ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Join ranges separated by whitespace only, and trim whitespace at the ends."""
    out: list[tuple[int, int]] = []
    for s, e in sorted(ranges):
        if out and not text[out[-1][1]:s].strip():
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    trimmed = []
    for s, e in out:
        chunk = text[s:e]
        if chunk.strip():
            s2 = s + len(chunk) - len(chunk.lstrip())
            trimmed.append((s2, s2 + len(chunk.strip())))
    return trimmed


def _pair_moves(before: str, removed: list[tuple[int, int]], after: str,
                added: list[tuple[int, int]]) -> tuple[list[Mark], list[Mark]]:
    waiting: dict[str, list[int]] = {}
    for k, (s, e) in enumerate(added):
        waiting.setdefault(" ".join(after[s:e].split()), []).append(k)
    pairs: dict[int, int] = {}  # removed index -> added index
    for k, (s, e) in enumerate(removed):
        key = " ".join(before[s:e].split())
        if len(key) >= _MIN_MOVE and waiting.get(key):
            pairs[k] = waiting[key].pop(0)
    partner = {v: k for k, v in pairs.items()}
    b_marks = [Mark(s, e, "moved", k) if k in pairs else Mark(s, e, "removed")
               for k, (s, e) in enumerate(removed)]
    a_marks = [Mark(s, e, "moved", partner[k]) if k in partner else Mark(s, e, "added")
               for k, (s, e) in enumerate(added)]
    return b_marks, a_marks
