"""Patches: edits bound to the sha256 of the revision they were authored against.

Three ways to author one (docs/contracts.md section 6):

* :meth:`Patch.from_unified_diff`: one or more hunks, line numbers in the base;
* :meth:`Patch.replace`: str_replace style, ``old`` must occur exactly once in the base text;
* :meth:`Patch.splice`: replace lines ``[start_line, end_line)`` of the base.

A patch is resolved against its base's lines by the buffer (:meth:`Patch.resolve`): each change
becomes a :class:`Hunk`, the smallest line range it removes or replaces plus the context lines
the author saw around it, which must match the base exactly (no fuzz).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias

from .errors import AmbiguousAnchor, InputError
from .rebase import LineEdit, check_disjoint

PatchIntent: TypeAlias = Literal["rewrite", "summarize", "prune"]
INTENTS: tuple[PatchIntent, ...] = ("rewrite", "summarize", "prune")
_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_NO_EOL = "\\ "  # "\\ No newline at end of file", in whatever language diff printed it


@dataclass(frozen=True, slots=True)
class Hunk:
    """Replace base lines ``[start, end)`` (which must read ``old_lines``) with ``new_lines``.

    ``context_before``/``context_after`` are the lines the author saw just above and below; they
    are checked against the base, never against the live buffer.
    """

    start: int
    end: int
    old_lines: tuple[str, ...] | None  # None: a splice, whose lines are read from the base
    new_lines: tuple[str, ...]
    context_before: tuple[str, ...] = ()
    context_after: tuple[str, ...] = ()
    at_eof: bool = False  # a no-newline marker says the hunk's last line ends the file

    @property
    def edit(self) -> LineEdit:
        return LineEdit(self.start, self.end, self.new_lines)


@dataclass(frozen=True, slots=True)
class Patch:
    """A change to a :class:`~refgraph.ContextBuffer`, bound to its base revision's sha256."""

    base: str
    hunks: tuple[Hunk, ...] = ()
    replace_pair: tuple[str, str] | None = None
    intent: PatchIntent = "rewrite"
    declared_span: tuple[int, int] | None = None  # (start_line, end_line) in the base
    justification: str | None = None

    def __post_init__(self) -> None:
        if not (isinstance(self.base, str) and re.fullmatch(r"[0-9a-f]{64}", self.base)):
            raise InputError("base must be the hex sha256 of the revision the patch was "
                             "authored against (snapshot().sha256)")
        if self.intent not in INTENTS:
            raise InputError(f"unknown intent {self.intent!r}: use one of {', '.join(INTENTS)}")
        if self.declared_span is not None:
            s = self.declared_span
            if not (isinstance(s, tuple | list) and len(s) == 2
                    and all(isinstance(x, int) and not isinstance(x, bool) for x in s)
                    and 0 <= s[0] <= s[1]):
                raise InputError("declared_span must be a (start_line, end_line) pair of ints")
            object.__setattr__(self, "declared_span", (int(s[0]), int(s[1])))
        try:
            check_disjoint([h.edit for h in self.hunks])
        except ValueError as exc:
            raise InputError(str(exc)) from None

    # constructors -------------------------------------------------------------------------------
    @classmethod
    def from_unified_diff(cls, diff_text: str, *, base: str, intent: PatchIntent = "rewrite",
                          declared_span: tuple[int, int] | None = None,
                          justification: str | None = None) -> Patch:
        """Parse a unified diff of one file (``---``/``+++`` headers optional).

        Each hunk is split into its runs of removed/added lines, so a line of context between
        two changes is context, not something the patch claims.

        >>> sha = "0" * 64
        >>> p = Patch.from_unified_diff("@@ -2,3 +2,3 @@\\n b\\n-c\\n+C\\n d\\n", base=sha)
        >>> [(h.start, h.end, h.new_lines) for h in p.hunks]
        [(2, 3, ('C',))]
        """
        return cls(base, tuple(parse_unified_diff(diff_text)), None, intent, declared_span,
                   justification)

    @classmethod
    def replace(cls, old: str, new: str, *, base: str, intent: PatchIntent = "rewrite",
                declared_span: tuple[int, int] | None = None,
                justification: str | None = None) -> Patch:
        """Replace the one occurrence of ``old`` in the base text with ``new``."""
        if not isinstance(old, str) or not isinstance(new, str) or not old:
            raise InputError("replace needs a non-empty `old` string and a `new` string")
        return cls(base, (), (old, new), intent, declared_span, justification)

    @classmethod
    def splice(cls, start_line: int, end_line: int, new_lines: Iterable[str], *, base: str,
               intent: PatchIntent = "rewrite", declared_span: tuple[int, int] | None = None,
               justification: str | None = None) -> Patch:
        """Replace base lines ``[start_line, end_line)`` with ``new_lines``.

        The lines it replaces are read from the base when the patch is resolved.
        """
        new = _check_lines(new_lines)
        if not (isinstance(start_line, int) and isinstance(end_line, int)
                and 0 <= start_line <= end_line):
            raise InputError(f"bad line range {start_line}:{end_line}")
        return cls(base, (Hunk(start_line, end_line, None, new),), None, intent,
                   declared_span, justification)

    # resolution ---------------------------------------------------------------------------------
    def resolve(self, base_lines: Sequence[str], label: str = "the base") -> tuple[Hunk, ...]:
        """The hunks against the base's lines, each checked to match them exactly.

        Raises :class:`~refgraph.AmbiguousAnchor` when ``old`` is found 0 or 2+ times, or when a
        hunk's lines or context do not read as the base does at the stated place.
        """
        n = len(base_lines)
        if self.replace_pair is not None:
            return (_replace_hunk("\n".join(base_lines), *self.replace_pair, label),)
        out = []
        for k, h in enumerate(self.hunks, 1):
            if h.end > n:
                raise AmbiguousAnchor(f"hunk {k} names lines {h.start + 1}-{h.end} but {label} "
                                      f"has {n}; the patch was not authored against it")
            if h.old_lines is None:
                h = Hunk(h.start, h.end, tuple(base_lines[h.start:h.end]), h.new_lines)
            cb, ca = h.context_before, h.context_after
            ok = (tuple(base_lines[h.start:h.end]) == h.old_lines
                  and h.start >= len(cb) and tuple(base_lines[h.start - len(cb):h.start]) == cb
                  and tuple(base_lines[h.end:h.end + len(ca)]) == ca
                  and (not h.at_eof or h.end + len(ca) == n))
            if not ok:
                raise AmbiguousAnchor(
                    f"hunk {k} does not match {label} at line {h.start + 1}: its lines or "
                    "context read differently there; re-author the patch against the live "
                    "revision's text")
            out.append(h)
        return tuple(out)


def _check_lines(lines: Iterable[str]) -> tuple[str, ...]:
    if isinstance(lines, str):
        raise InputError("new_lines must be a list of lines, not one string")
    try:
        out = tuple(lines)
    except TypeError:
        raise InputError("new_lines must be a list of lines") from None
    if not all(isinstance(x, str) and "\n" not in x for x in out):
        raise InputError("new_lines must be strings without newline characters")
    return out


def _occurrences(text: str, old: str) -> list[int]:
    out, i = [], text.find(old)
    while i >= 0:
        out.append(i)
        i = text.find(old, i + 1)  # overlapping occurrences count: each is a possible place
    return out


def _replace_hunk(text: str, old: str, new: str, label: str) -> Hunk:
    at = _occurrences(text, old)
    if len(at) != 1:
        where = "nowhere" if not at else f"{len(at)} times (lines " + ", ".join(
            str(text.count("\n", 0, i) + 1) for i in at[:5]) + ")"
        raise AmbiguousAnchor(f"`old` occurs {where} in {label}; it must occur exactly once: "
                              "quote more surrounding text")
    a = text.split("\n")
    b = (text[:at[0]] + new + text[at[0] + len(old):]).split("\n")
    # The hunk is the lines `old` touches, so it stays on the place the author quoted: trimming
    # unchanged lines by comparing the two texts could slide it onto a neighbouring copy.
    start, end = at[0], at[0] + len(old)
    l0 = text.count("\n", 0, start)
    l1 = text.count("\n", 0, end) + 1
    m1 = l1 + len(b) - len(a)
    # Only a line that `old` merely borders is dropped when it comes out unchanged: the line
    # whose newline `old` starts with, and the line `old` ends just before. At least one old
    # line stays: a pure insertion would rebase differently from the replacement written.
    if l1 - l0 > 1 and text[start] == "\n" and a[l0] == b[l0]:
        l0 += 1
    if l1 - l0 > 1 and m1 > l0 and text[end - 1] == "\n" and a[l1 - 1] == b[m1 - 1]:
        l1, m1 = l1 - 1, m1 - 1
    return Hunk(l0, l1, tuple(a[l0:l1]), tuple(b[l0:m1]))


def parse_unified_diff(diff_text: str) -> list[Hunk]:
    """The change runs of a one-file unified diff, in base coordinates (0-based)."""
    if not isinstance(diff_text, str):
        raise InputError("diff_text must be a string")
    lines = diff_text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    hunks: list[Hunk] = []
    i, files = 0, 0
    saw_hunk = False
    while i < len(lines):
        line = lines[i]
        if line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            files += 1
            if files > 1 or saw_hunk:
                raise InputError("the diff touches more than one file")
            i += 2
            continue
        m = _HEADER.match(line)
        if not m:
            if saw_hunk and line.strip():
                raise InputError(f"diff line {i + 1} is not part of a hunk: {line[:60]!r}")
            i += 1
            continue
        saw_hunk = True
        i = _read_hunk(lines, i, m, hunks)
    if not saw_hunk:
        raise InputError("no hunk (`@@ -a,b +c,d @@`) found in the diff")
    return hunks


def _read_hunk(lines: list[str], i: int, m: re.Match[str], out: list[Hunk]) -> int:
    old_start, old_len = int(m.group(1)), int(m.group(2) or "1")
    new_len = int(m.group(4) or "1")
    pos = old_start - 1 if old_len else old_start  # 0-based line the hunk starts at
    body: list[tuple[str, str]] = []
    n_old = n_new = 0
    i += 1
    while i < len(lines) and (n_old < old_len or n_new < new_len
                              or lines[i].startswith(_NO_EOL)):
        line = lines[i]
        if line.startswith(_NO_EOL):
            if not body:
                raise InputError(f"diff line {i + 1}: a no-newline marker with no line before")
            body[-1] = (body[-1][0] + "!", body[-1][1])
            i += 1
            continue
        tag, text = (line[:1], line[1:]) if line else (" ", "")
        if tag not in " -+":
            raise InputError(f"diff line {i + 1}: expected ' ', '-' or '+', got {line[:40]!r}")
        n_old += tag != "+"
        n_new += tag != "-"
        body.append((tag, text))
        i += 1
    if n_old != old_len or n_new != new_len:
        raise InputError(f"hunk at {m.group(0)!r} has {n_old} old and {n_new} new lines, not "
                         f"{old_len} and {new_len}")
    _split_runs(body, pos, out)
    return i


def _split_runs(body: list[tuple[str, str]], pos: int, out: list[Hunk]) -> None:
    """Cut a hunk's body into runs of -/+ lines, each with the context lines around it.

    Tags are ``' '``, ``'-'``, ``'+'``, with ``'!'`` appended when a no-newline marker follows.
    """
    k = 0
    while k < len(body):
        if body[k][0][0] == " ":
            k, pos = k + 1, pos + 1
            continue
        j = k
        while j < len(body) and body[j][0][0] != " ":
            j += 1
        run = body[k:j]
        old = [t for tag, t in run if tag[0] == "-"]
        new = [t for tag, t in run if tag[0] == "+"]
        n_removed = len(old)
        # Lines are text.split("\n"): a file that ends in a newline has a final empty line, which
        # a diff never shows. The no-newline marker says which side lacks it.
        old_noeol = any(tag == "-!" for tag, _ in run)
        new_noeol = any(tag == "+!" for tag, _ in run)
        if new_noeol and not old_noeol:
            old.append("")
        elif old_noeol and not new_noeol:
            new.append("")
        c0 = k
        while c0 > 0 and body[c0 - 1][0][0] == " ":
            c0 -= 1
        c1 = j
        while c1 < len(body) and body[c1][0][0] == " ":
            c1 += 1
        # A marker on a removed or trailing context line says where BASE ends: checked.
        eof = old_noeol or new_noeol or any(tag == " !" for tag, _ in body[j:c1])
        out.append(Hunk(pos, pos + len(old), tuple(old), tuple(new),
                        tuple(t for _, t in body[c0:k]), tuple(t for _, t in body[j:c1]),
                        at_eof=eof))
        pos += n_removed
        k = j
