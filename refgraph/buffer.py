"""The agent's live context as lines with revisions; every change is a recorded edit.

``ContextBuffer(text)``: lines are ``text.split("\\n")`` and ``.text`` is ``"\\n".join(lines)``,
so text round-trips exactly. Each write makes a new revision and records its edits (with the
lines they replaced, so any earlier revision can be rebuilt). A patch is applied against the
revision it names: exactly when that is the live one, by rebasing its positions through the
recorded edits when it is older (:mod:`refgraph.rebase`), never by searching for text.

All writes, and the binding check that precedes each, happen under one lock.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from .errors import EditConflict, InputError, StaleBase
from .patch import Hunk, Patch, _check_lines
from .rebase import Conflict, LineEdit, apply_hunks, other_route, rebase, replay, sequential


def sha256_text(text: str) -> str:
    """Hex sha256 of ``text`` in UTF-8: what a patch's ``base`` names."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What a model is shown: the text, its revision and its sha256."""

    text: str
    revision: int
    sha256: str


@dataclass(frozen=True, slots=True)
class Revision:
    """One committed write: its edits (applied in order) and the lines each replaced."""

    number: int
    sha256: str
    edits: tuple[LineEdit, ...]
    removed: tuple[tuple[str, ...], ...]  # per edit, the lines it replaced
    source: str  # "init" | "edit" | "append" | "patch"
    time: float
    patch: Patch | None = None


@dataclass(frozen=True, slots=True)
class Candidate:
    """A patch resolved and rebased onto the live revision, not yet written."""

    patch: Patch
    base_revision: int
    live_revision: int
    hunks: tuple[Hunk, ...]  # in base coordinates, checked against the base
    edits: tuple[LineEdit, ...]  # the same hunks, rebased to live coordinates
    lines: tuple[str, ...]  # the live lines with the patch applied

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


Listener = Callable[[Revision, "ContextBuffer"], None]


class ContextBuffer:
    """A revisioned, thread-safe context. See the module docstring.

    >>> buf = ContextBuffer("a\\nb\\nc")
    >>> r17 = buf.snapshot()
    >>> buf.append("tool: 42")       # a tool result lands: r1
    1
    >>> buf.apply(Patch.replace("b", "B", base=r17.sha256))
    2
    >>> buf.text
    'a\\nB\\nc\\ntool: 42'
    """

    def __init__(self, text: str = "") -> None:
        if not isinstance(text, str):
            raise InputError("ContextBuffer takes a str")
        self.lock = threading.RLock()
        self._lines: list[str] = text.split("\n")
        sha = sha256_text(text)
        self._history: list[Revision] = [Revision(0, sha, (), (), "init", time.time())]
        self._by_sha: dict[str, int] = {sha: 0}
        self._listeners: list[Listener] = []
        self._recorders: list[Listener] = []

    # reading ------------------------------------------------------------------------------------
    @property
    def revision(self) -> int:
        return len(self._history) - 1

    @property
    def sha256(self) -> str:
        return self._history[-1].sha256

    @property
    def lines(self) -> tuple[str, ...]:
        return tuple(self._lines)

    @property
    def text(self) -> str:
        return "\n".join(self._lines)

    def snapshot(self) -> Snapshot:
        with self.lock:
            return Snapshot(self.text, self.revision, self.sha256)

    def history(self) -> tuple[Revision, ...]:
        """Every revision so far, oldest first (revision 0 is the initial text)."""
        return tuple(self._history)

    def revision_of(self, sha: str) -> int | None:
        """The latest revision whose text has sha256 ``sha``, or None."""
        return self._by_sha.get(sha)

    def lines_at(self, revision: int) -> list[str]:
        """The lines of an earlier ``revision``, rebuilt by undoing the edits since."""
        with self.lock:
            if not (isinstance(revision, int) and 0 <= revision <= self.revision):
                raise InputError(f"no revision {revision} (live is r{self.revision})")
            lines = list(self._lines)
            for rev in reversed(self._history[revision + 1:]):
                _undo(lines, rev)
            return lines

    def edits_since(self, revision: int) -> list[LineEdit]:
        """Every edit recorded after ``revision``, in order."""
        return [d for rev in self._history[revision + 1:] for d in rev.edits]

    def subscribe(self, listener: Listener, *, before_write: bool = False) -> None:
        """Call ``listener(revision, buffer)`` on every write, under the buffer's lock.

        ``before_write=True`` (a ledger): called with the revision about to be committed; if
        it raises, the write is undone and the error propagates, so a record and the buffer
        never disagree. Otherwise it is called after the write.
        """
        with self.lock:
            (self._recorders if before_write else self._listeners).append(listener)

    # writing ------------------------------------------------------------------------------------
    def edit(self, start_line: int, end_line: int, new_lines: Iterable[str]) -> int:
        """Replace lines ``[start_line, end_line)`` (0-based) of the live revision."""
        new = _check_lines(new_lines)
        with self.lock:
            if not (isinstance(start_line, int) and isinstance(end_line, int)
                    and 0 <= start_line <= end_line <= len(self._lines)):
                raise InputError(f"line range {start_line}:{end_line} is not within the "
                                 f"{len(self._lines)} lines of r{self.revision}")
            return self._write((LineEdit(start_line, end_line, new),), "edit")

    def append(self, text: str) -> int:
        """Add ``text.split("\\n")`` as new lines at the end (a tool result arriving)."""
        if not isinstance(text, str):
            raise InputError("append takes a str")
        with self.lock:
            n = len(self._lines)
            return self._write((LineEdit(n, n, tuple(text.split("\n"))),), "append")

    def apply(self, patch: Patch) -> int:
        """Apply ``patch`` and return the new revision, or raise a ``RewriteRejected``.

        Base == live: applied exactly. Base older: rebased through the recorded edits.
        Unknown base: :class:`~refgraph.StaleBase`.
        """
        with self.lock:
            return self.commit(self.prepare(patch))

    def prepare(self, patch: Patch) -> Candidate:
        """Resolve and rebase ``patch`` onto the live revision without writing anything."""
        if not isinstance(patch, Patch):
            raise InputError("apply takes a refgraph.Patch")
        with self.lock:
            live = self.revision
            base = self._by_sha.get(patch.base)
            if base is None:
                raise StaleBase(f"the patch's base {patch.base[:12]} is no revision of this "
                                f"buffer; re-author it against r{live} "
                                f"(sha256 {self.sha256[:12]})", live_revision=live)
            base_lines = self.lines_at(base)
            hunks = patch.resolve(base_lines, f"r{base}")
            recorded = self.edits_since(base)
            plain = [h.edit for h in hunks]
            try:
                moved = rebase(plain, recorded)
            except Conflict as c:
                raise self._conflict(hunks[c.hunk], base, c.edit) from None
            lines = apply_hunks(self._lines, moved)
            # The other way round the square, computed separately: if the two disagree, one of
            # them is wrong, and nothing is written.
            if lines != other_route(base_lines, plain, recorded):
                raise EditConflict(f"rebase from r{base} failed its self-check; nothing was "
                                   f"written: re-author against r{live}", live_revision=live)
            return Candidate(patch, base, live, hunks, tuple(moved), tuple(lines))

    def commit(self, cand: Candidate) -> int:
        """Write a prepared candidate, if the live revision has not moved since it was prepared.

        Raises :class:`~refgraph.StaleBase` when it has (prepare it again).
        """
        with self.lock:
            if cand.live_revision != self.revision:
                raise StaleBase(f"the live revision moved from r{cand.live_revision} to "
                                f"r{self.revision} after the patch was prepared; prepare it "
                                "again", live_revision=self.revision)
            return self._write(sequential(cand.edits), "patch", cand.patch)

    # internals ----------------------------------------------------------------------------------
    def _write(self, edits: Sequence[LineEdit], source: str, patch: Patch | None = None) -> int:
        removed = []
        edits = list(edits)
        lines = self._lines
        for k, d in enumerate(edits):
            removed.append(tuple(lines[d.start:d.end]))
            lines[d.start:d.end] = d.new_lines
            if not lines:
                # Every line deleted: the text is "", whose lines are [""] (as for
                # ContextBuffer("")); the recorded edit says so, so replaying it agrees.
                lines.append("")
                edits[k] = d = LineEdit(d.start, d.end, ("",))
        sha = sha256_text("\n".join(lines))
        rev = Revision(len(self._history), sha, tuple(edits), tuple(removed), source,
                       time.time(), patch)
        try:
            for recorder in self._recorders:
                recorder(rev, self)
        except BaseException:
            _undo(lines, rev)  # a record that failed: the buffer stays as it was
            raise
        self._history.append(rev)
        self._by_sha[sha] = rev.number  # a hash several revisions share means the latest
        for listener in self._listeners:
            listener(rev, self)
        return rev.number

    def _conflict(self, hunk: Hunk, base: int, k: int) -> EditConflict:
        # Which revision made the colliding edit: walk the history to the k-th edit since base.
        n = 0
        for rev in self._history[base + 1:]:
            if k < n + len(rev.edits):
                d = rev.edits[k - n]
                what = (f"inserted lines before line {d.start + 1}" if d.is_insertion
                        else f"changed {_lines(d.start, d.end)}")
                return EditConflict(
                    f"r{rev.number} {what} (numbered as in r{rev.number - 1}), where this patch "
                    f"replaces {_lines(hunk.start, hunk.end)} of r{base}; re-read "
                    f"r{self.revision} and re-author the patch against it",
                    live_revision=self.revision)
            n += len(rev.edits)
        return EditConflict(f"the patch conflicts with an edit since r{base}; re-author against "
                            f"r{self.revision}", live_revision=self.revision)


def _undo(lines: list[str], rev: Revision) -> None:
    """Turn ``lines`` (in place) back into the revision before ``rev``."""
    for d, old in zip(reversed(rev.edits), reversed(rev.removed), strict=True):
        lines[d.start:d.start + len(d.new_lines)] = old


def _lines(start: int, end: int) -> str:
    """1-based, human: "line 5", "lines 5-7", "the point before line 5"."""
    if end <= start:
        return f"the point before line {start + 1}"
    return f"line {start + 1}" if end == start + 1 else f"lines {start + 1}-{end}"


def replay_text(text: str, edits: Sequence[LineEdit]) -> str:
    """``text`` with ``edits`` replayed one after another (for tests and benchmarks)."""
    return "\n".join(replay(text.split("\n"), edits))
