"""Line edits and how a patch's edits move through edits recorded since its base.

Pure functions over plain data (no buffer, no locks). Positions are 0-based line indexes; an edit
replaces lines ``[start, end)`` with ``new_lines`` (``start == end`` is a pure insertion before
line ``start``). The rules (docs/contracts.md section 6):

* a recorded edit entirely before a hunk (``end <= hunk.start``), or a pure insertion exactly at
  the hunk's start, shifts the hunk by its size change;
* an edit at or after the hunk's end does not move it;
* anything else conflicts: the edit changed a line the hunk removes or replaces, or inserted
  strictly inside them. A pure-insertion hunk conflicts only when an edit replaced a range
  strictly containing its position.

Context lines are not part of a hunk here; the caller checks them against the base.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class LineEdit:
    """Replace lines ``[start, end)`` with ``new_lines``."""

    start: int
    end: int
    new_lines: tuple[str, ...]

    @property
    def delta(self) -> int:
        """How many lines the edit adds (negative: removes)."""
        return len(self.new_lines) - (self.end - self.start)

    @property
    def is_insertion(self) -> bool:
        return self.start == self.end


class Conflict(Exception):
    """Hunk ``hunk`` of a patch collides with recorded edit ``edit`` (indexes into the inputs)."""

    def __init__(self, hunk: int, edit: int) -> None:
        super().__init__(hunk, edit)
        self.hunk, self.edit = hunk, edit


def check_disjoint(hunks: Sequence[LineEdit]) -> None:
    """Raise ``ValueError`` unless ``hunks`` are sorted, in range order, and do not overlap.

    Two pure insertions at one position are refused too: their order would be a guess.
    """
    for h in hunks:
        if not 0 <= h.start <= h.end:
            raise ValueError(f"bad line range {h.start}:{h.end}")
    for p, q in itertools.pairwise(hunks):
        if q.start < p.end or (q.start == p.start and p.is_insertion and q.is_insertion):
            raise ValueError(f"hunks overlap or are out of order at lines {p.start}:{p.end} "
                             f"and {q.start}:{q.end}")


def _through(h: LineEdit, d: LineEdit) -> LineEdit | None:
    """``h`` moved through recorded edit ``d``; None when they conflict."""
    a, b, s, e = h.start, h.end, d.start, d.end
    if a < b:
        if d.is_insertion:
            if a < s < b:
                return None
            before = s <= a
        else:
            if s < b and e > a:
                return None
            before = e <= a
    else:
        if not d.is_insertion and s < a < e:
            return None
        before = e <= a
    return LineEdit(a + d.delta, b + d.delta, h.new_lines) if before else h


def conflicts(h: LineEdit, d: LineEdit) -> bool:
    """True when edit ``d`` changes a line ``h`` replaces or inserts strictly inside them."""
    return _through(h, d) is None


def rebase(hunks: Sequence[LineEdit], edits: Sequence[LineEdit]) -> list[LineEdit]:
    """``hunks`` (in base coordinates) moved through ``edits`` (applied one after another).

    Raises :class:`Conflict` naming the first hunk and edit that collide.

    >>> rebase([LineEdit(5, 6, ("x",))], [LineEdit(0, 0, ("new", "lines"))])
    [LineEdit(start=7, end=8, new_lines=('x',))]
    """
    out = list(hunks)
    for k, d in enumerate(edits):
        for i, h in enumerate(out):
            moved = _through(h, d)
            if moved is None:
                raise Conflict(i, k)
            out[i] = moved
    return out


def apply_hunks(lines: Sequence[str], hunks: Sequence[LineEdit]) -> list[str]:
    """``lines`` with disjoint ``hunks`` (all in ``lines``' coordinates) applied."""
    out: list[str] = []
    pos = 0
    for h in hunks:
        out.extend(lines[pos:h.start])
        out.extend(h.new_lines)
        pos = h.end
    out.extend(lines[pos:])
    return out


def sequential(hunks: Sequence[LineEdit]) -> tuple[LineEdit, ...]:
    """Disjoint hunks as edits that can be applied one after another (bottom-up order, so each
    edit's positions are unaffected by the ones applied before it)."""
    return tuple(reversed(hunks))


def replay(lines: Sequence[str], edits: Sequence[LineEdit]) -> list[str]:
    """``lines`` with ``edits`` applied one after another, each in the coordinates it sees."""
    out = list(lines)
    for d in edits:
        if not 0 <= d.start <= d.end <= len(out):
            raise ValueError(f"edit {d.start}:{d.end} outside {len(out)} lines")
        out[d.start:d.end] = d.new_lines
    return out


def _after_hunk(h: LineEdit, d: LineEdit) -> bool:
    """True when recorded edit ``d`` lies after hunk ``h`` (so ``h`` shifts ``d``)."""
    if h.start < h.end:
        return d.start >= h.end
    return d.start > h.start or (d.start == h.start and not d.is_insertion)


def other_route(base: Sequence[str], hunks: Sequence[LineEdit],
                edits: Sequence[LineEdit]) -> list[str]:
    """The patched base with the recorded edits replayed on top: the other way round the square.

    A rebased apply computes ``live + rebase(hunks, edits)``; this computes ``(base + hunks)`` then
    each recorded edit moved past the hunks. The two must agree; the buffer checks that they do
    before it writes, so a bug in either route cannot write a wrong buffer silently.
    """
    out = apply_hunks(base, hunks)
    stage = list(hunks)
    for d in edits:
        shift = sum(h.delta for h in stage if _after_hunk(h, d))
        out[d.start + shift:d.end + shift] = d.new_lines
        stage = [m for h in stage if (m := _through(h, d)) is not None]
        if len(stage) != len(hunks):
            raise Conflict(-1, -1)
    return out


def map_range(start: int, end: int, edits: Sequence[LineEdit]) -> tuple[int, int]:
    """A tracked region ``[start, end)`` through ``edits``: it grows or shrinks with edits inside
    it, an insertion at its start lands before it, one at its end after it. Never conflicts
    (protected regions and declared spans must follow every edit, not refuse one)."""
    a, b = start, end
    for d in edits:
        s, e, delta = d.start, d.end, d.delta
        if a == b and d.is_insertion and s == a:
            continue  # an empty region stays where it was
        na = a + delta if e <= a else (s if s < a < e else a)
        if d.is_insertion and s == b:
            nb = b  # an insertion at the end lands after the region
        elif e <= b:
            nb = b + delta
        elif s < b:
            nb = s + len(d.new_lines)  # the edit overlaps the region's last lines
        else:
            nb = b
        a, b = na, max(na, nb)
    return a, b
