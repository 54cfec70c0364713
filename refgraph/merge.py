"""The file form of the guarded apply: a diff authored against BASE, applied to LIVE.

With no recorded history between the two, positions cannot be rebased through edits, so each
hunk is placed where its preimage (context + removed lines, as in BASE) occurs in LIVE, and only
when that place is unique. Two independent witnesses must agree on it: the preimage search, and
a line alignment of BASE to LIVE (difflib) that must carry the hunk's own BASE lines to exactly
that place. A copy of the block elsewhere (exact, a near copy, or one right beside it: the
original may be the one that was edited since), a block moved or rewritten since: refused, never
guessed (:class:`~refgraph.AmbiguousAnchor`, RG402).
"""

from __future__ import annotations

import difflib
import itertools
from collections import Counter
from collections.abc import Sequence

from .errors import AmbiguousAnchor, InputError
from .patch import Hunk, Patch, parse_unified_diff
from .rebase import LineEdit, apply_hunks, check_disjoint

_SHA0 = "0" * 64


def _find_all(hay: Sequence[str], needle: Sequence[str]) -> list[int]:
    n = len(needle)
    if n == 0:
        return []
    first = needle[0]
    return [i for i in range(len(hay) - n + 1)
            if hay[i] == first and list(hay[i:i + n]) == list(needle)]


def _base_to_live(base: Sequence[str], live: Sequence[str]) -> dict[int, int]:
    """Base line index -> live line index, for the lines a line alignment keeps."""
    out: dict[int, int] = {}
    sm = difflib.SequenceMatcher(None, list(base), list(live), autojunk=False)
    for a, b, size in sm.get_matching_blocks():
        for k in range(size):
            out[a + k] = b + k
    return out


def three_way_apply(base_text: str, live_text: str, diff_text: str) -> str:
    """``live_text`` with ``diff_text`` (authored against ``base_text``) applied, or a refusal.

    >>> three_way_apply("a\\nb\\nc", "new\\na\\nb\\nc", "@@ -1,3 +1,3 @@\\n a\\n-b\\n+B\\n c\\n")
    'new\\na\\nB\\nc'
    """
    for name, value in (("base", base_text), ("live", live_text)):
        if not isinstance(value, str):
            raise InputError(f"{name} must be a str")
    base = base_text.split("\n")
    live = live_text.split("\n")
    # One resolver for both forms: the hunks' lines and context must read as BASE does.
    hunks = Patch(_SHA0, tuple(parse_unified_diff(diff_text))).resolve(base, "BASE")
    if base == live:
        return "\n".join(apply_hunks(live, [h.edit for h in hunks]))
    mapping: dict[int, int] | None = None
    from_base: dict[int, int] = {}  # LIVE line -> BASE line: the mapping the other way round
    placed: list[LineEdit] = []
    for k, h in enumerate(hunks, 1):
        pre = (*h.context_before, *(h.old_lines or ()), *h.context_after)
        if not pre:
            raise AmbiguousAnchor(f"hunk {k} (line {h.start + 1} of BASE) inserts lines with no "
                                  "context to anchor them in LIVE; re-author the patch with "
                                  "context lines (diff -u) or against LIVE")
        at = _find_all(live, pre)
        if len(at) != 1:
            where = "nowhere" if not at else f"at {len(at)} places (lines " + ", ".join(
                str(i + 1) for i in at[:5]) + ")"
            raise AmbiguousAnchor(f"hunk {k} (line {h.start + 1} of BASE): its lines occur "
                                  f"{where} in LIVE; re-author the patch against LIVE")
        start = at[0] + len(h.context_before)
        if mapping is None:
            mapping = _base_to_live(base, live)
            from_base = {v: k for k, v in mapping.items()}
        if not _carried(h, start, mapping, len(base), len(live)):
            raise AmbiguousAnchor(f"hunk {k} (line {h.start + 1} of BASE): its lines occur once "
                                  "in LIVE, but not where BASE's own lines (and, for a short hunk, "
                                  "their neighbours) went; LIVE may hold a copy of them: re-author "
                                  "the patch against LIVE")
        if _copy_next_door(live, pre, at[0]):
            raise AmbiguousAnchor(f"hunk {k} (line {h.start + 1} of BASE): the lines next to its "
                                  "match repeat its own first or last lines, so a copy may stand "
                                  "next to an edited original; re-author the patch against LIVE")
        lo = h.start - len(h.context_before)
        near = _near_copy(live, pre, at[0], from_base, range(lo, lo + len(pre)))
        if near is not None:
            raise AmbiguousAnchor(f"hunk {k} (line {h.start + 1} of BASE): its lines occur once "
                                  f"in LIVE, but LIVE line {near + 1} holds a near copy of them; "
                                  "either could be the one the patch was written for: re-author "
                                  "the patch against LIVE")
        placed.append(LineEdit(start, start + len(h.old_lines or ()), h.new_lines))
    try:
        check_disjoint(placed)
    except ValueError:
        raise AmbiguousAnchor("the hunks land overlapping or out of order in LIVE; re-author "
                              "the patch against LIVE") from None
    return "\n".join(apply_hunks(live, placed))


def _near_copy(live: Sequence[str], pre: Sequence[str], at: int,
               from_base: dict[int, int], own: range) -> int | None:
    """Where else LIVE holds the preimage with at most a third of its lines changed, dropped or
    pushed apart by inserted lines (at least one), or None. Without history, an exact copy and an
    edited original cannot be told apart: the one that still matches may be the copy. A near copy
    that is an unchanged run of BASE lines other than the hunk's own (``from_base``: LIVE line ->
    BASE line) was there when the patch was written: no doubt."""
    n = len(pre)
    need = n - max(1, n // 3)
    if need < 1:
        return None
    want = Counter(pre)
    width = n + 2  # room for a couple of lines inserted inside the original since
    # How many of LIVE's first k lines are lines of the preimage: a window with fewer than
    # ``need`` of them cannot hold a near copy, found in O(1) per window.
    members = list(itertools.accumulate((line in want for line in live), initial=0))
    for i in range(max(0, len(live) - width) + 1):
        if at - width < i < at + n:
            continue  # a window over the match itself
        if members[min(i + width, len(live))] - members[i] < need:
            continue
        window = live[i:i + width]
        if sum((Counter(window) & want).values()) < need:
            continue  # cheap filter before the alignment
        first = from_base.get(i)
        if first is not None and not (first < own.stop and first + n > own.start) and all(
                from_base.get(i + k) == first + k for k in range(min(n, len(live) - i))):
            continue  # a run BASE itself had, untouched, and not the hunk's own lines
        sm = difflib.SequenceMatcher(None, list(pre), list(window), autojunk=False)
        if sum(b.size for b in sm.get_matching_blocks()) >= need:
            return i
    return None


def _copy_next_door(live: Sequence[str], pre: Sequence[str], at: int) -> bool:
    """True when the lines just after the match start like the preimage, or the lines just
    before it end like it: a block copied in right beside its original, which an edit then
    damaged, leaves the untouched copy as the only whole match."""
    m = min(2, len(pre))
    if m == 0:
        return False
    after = list(live[at + len(pre):at + len(pre) + m])
    before = list(live[max(0, at - m):at])
    return after == list(pre[:m]) or before == list(pre[-m:])


def _carried(h: Hunk, start: int, mapping: dict[int, int], n_base: int, n_live: int) -> bool:
    """True when the alignment takes the hunk's BASE lines, and BASE's lines right around them,
    to where the search found them. The neighbours matter for a short preimage (a diff without
    context): one line alone can be carried to a re-injected copy of itself."""
    old = h.old_lines or ()
    lo = h.start - len(h.context_before)
    n = len(h.context_before) + len(old) + len(h.context_after)
    at = start - len(h.context_before)
    if not all(mapping.get(lo + k) == at + k for k in range(n)):
        return False
    if n >= 3:
        return True
    before_ok = mapping.get(lo - 1) == at - 1 if lo > 0 else at == 0
    after_ok = mapping.get(lo + n) == at + n if lo + n < n_base else at + n == n_live
    return before_ok and after_ok
