"""The ledger: every committed revision's edits and every removed payload, in SQLite.

One file per context (WAL journal, ``synchronous=FULL``); each revision is written in one
transaction, so a process killed mid-write loses no committed record and leaves no half of one.
Payloads are stored once per sha256 (of the removed lines joined by ``"\\n"``), so a pruned block
can be read back by its full hash or a unique prefix of it: ``ledger.get(sha)``.
``":memory:"`` is for tests only: it survives nothing.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .buffer import ContextBuffer, Revision, sha256_text
from .errors import InputError, LedgerError

_SCHEMA = """
CREATE TABLE IF NOT EXISTS payloads (
    sha256 TEXT PRIMARY KEY,
    text   TEXT NOT NULL,
    words  INTEGER NOT NULL,
    time   REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS revisions (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    buffer    TEXT NOT NULL,
    revision  INTEGER NOT NULL,
    sha256    TEXT NOT NULL,
    source    TEXT NOT NULL,
    edits     TEXT NOT NULL,   -- JSON: [[start, end, new_lines, removed_sha256 | null], ...]
    intent    TEXT,
    justification TEXT,
    time      REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS revisions_by_buffer ON revisions (buffer, revision);
CREATE TABLE IF NOT EXISTS decisions (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    guard     TEXT NOT NULL,
    call      INTEGER NOT NULL,  -- the guarded call this attempt belongs to (1, 2, ...)
    attempt   INTEGER NOT NULL,  -- 1 for the first compaction, 2.. for retries
    verdict   TEXT NOT NULL,
    action    TEXT NOT NULL,     -- accept, keep, retry or raise
    before_sha TEXT NOT NULL,    -- payloads: both sides are stored, so nothing is lost
    after_sha TEXT NOT NULL,
    codes     TEXT NOT NULL,     -- JSON list
    report    TEXT NOT NULL,     -- JSON: Report.to_dict()
    time      REAL NOT NULL
);
"""


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    """One recorded revision."""

    buffer: str
    revision: int
    sha256: str
    source: str
    edits: list[tuple[int, int, list[str], str | None]]
    intent: str | None
    justification: str | None
    time: float


@dataclass(frozen=True, slots=True)
class Decision:
    """One check a :func:`refgraph.guard` made: what the compaction got and what was done.

    ``action`` is ``accept`` (its result was returned), ``keep`` (the original was returned),
    ``retry`` (compact was called again with the findings) or ``raise``. ``before_sha`` and
    ``after_sha`` are payload keys: ``ledger.get(d.after_sha)`` is the compaction's text.
    """

    guard: str
    call: int
    attempt: int
    verdict: str
    action: str
    before_sha: str
    after_sha: str
    codes: list[str]
    report: dict[str, Any]
    time: float


def payload_sha(lines: tuple[str, ...] | list[str]) -> str:
    """The key of a removed payload: sha256 of its lines joined by newlines."""
    return sha256_text("\n".join(lines))


class Ledger:
    """An embedded SQLite store of revisions and removed payloads. Thread-safe."""

    def __init__(self, path: str | Path, *, timeout: float = 5.0) -> None:
        """Open (or create) the ledger at ``path``; ``timeout`` is how long a write waits for
        another writer of the same file before it fails with ``LedgerError``."""
        self.path = str(path)
        if self.path != ":memory:":
            parent = Path(self.path).resolve().parent
            if not parent.is_dir():
                raise InputError(f"ledger directory {parent} does not exist")
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(self.path, timeout=timeout, check_same_thread=False,
                                       isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise InputError(f"{self.path} is not a usable ledger: {exc}") from None

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # writing ------------------------------------------------------------------------------------
    def put(self, text: str) -> str:
        """Store a payload; returns its sha256 (storing the same text twice keeps one row)."""
        sha = sha256_text(text)
        with self._tx():
            self._put(sha, text)
        return sha

    @contextmanager
    def _tx(self) -> Iterator[None]:
        """One write transaction under the lock: all of it is committed, or none of it. A
        database that cannot take it (locked, disk full) is a LedgerError, for every write."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    yield
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise
                self._db.execute("COMMIT")
            except sqlite3.Error as exc:
                raise LedgerError(f"ledger {self.path}: cannot record: {exc}") from exc

    def _put(self, sha: str, text: str) -> None:
        self._db.execute("INSERT OR IGNORE INTO payloads VALUES (?, ?, ?, ?)",
                         (sha, text, len(text.split()), time.time()))

    def record(self, rev: Revision, buffer_id: str = "main", *,
               initial_text: str | None = None) -> None:
        """Store one revision and the payloads its edits removed, in one transaction."""
        edits: list[list[Any]] = []
        payloads: list[tuple[str, str]] = []
        for d, old in zip(rev.edits, rev.removed, strict=True):
            sha = None
            if old:
                text = "\n".join(old)
                sha = sha256_text(text)  # = payload_sha(old), without joining twice
                payloads.append((sha, text))
            edits.append([d.start, d.end, list(d.new_lines), sha])
        if initial_text is not None:
            payloads.append((rev.sha256, initial_text))
        patch = rev.patch
        with self._tx():
            for sha, text in payloads:
                self._put(sha, text)
            self._db.execute(
                "INSERT INTO revisions (buffer, revision, sha256, source, edits, intent, "
                "justification, time) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (buffer_id, rev.number, rev.sha256, rev.source, json.dumps(edits),
                 patch.intent if patch else None, patch.justification if patch else None,
                 rev.time))

    def record_decision(self, guard: str, *, call: int, attempt: int, verdict: str,
                        action: str, before: str, after: str, codes: list[str],
                        report: dict[str, Any]) -> Decision:
        """Store one guard decision and both texts it judged, in one transaction."""
        d = Decision(guard, call, attempt, verdict, action, sha256_text(before),
                     sha256_text(after), list(codes), report, time.time())
        with self._tx():
            self._put(d.before_sha, before)
            self._put(d.after_sha, after)
            self._db.execute(
                "INSERT INTO decisions (guard, call, attempt, verdict, action, before_sha, "
                "after_sha, codes, report, time) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (d.guard, d.call, d.attempt, d.verdict, d.action, d.before_sha, d.after_sha,
                 json.dumps(d.codes), json.dumps(d.report, ensure_ascii=False), d.time))
        return d

    def attach(self, buffer: ContextBuffer, buffer_id: str = "main") -> None:
        """Record every revision ``buffer`` writes from now on, before it is written (a record
        that fails leaves the buffer unchanged). Unless the ledger's last record of
        ``buffer_id`` is this buffer's live revision, the live text is recorded whole first
        (an ``init`` record): later revisions replay onto it."""
        with buffer.lock:
            past = self.history(buffer_id)
            last = buffer.history()[-1]
            if not past or (past[-1].sha256, past[-1].revision) != (last.sha256, last.number):
                self.record(replace(last, edits=(), removed=(), source="init", patch=None),
                            buffer_id, initial_text=buffer.text)
            buffer.subscribe(lambda rev, _buf: self.record(rev, buffer_id), before_write=True)

    # reading ------------------------------------------------------------------------------------
    def get(self, sha: str) -> str:
        """The payload whose sha256 is ``sha`` or starts with it (at least 8 hex digits)."""
        if not (isinstance(sha, str) and 8 <= len(sha) <= 64
                and all(c in "0123456789abcdef" for c in sha)):
            raise InputError("a payload key is 8 to 64 lowercase hex digits")
        with self._lock:
            rows = self._db.execute("SELECT sha256, text FROM payloads WHERE sha256 >= ? AND "
                                    "sha256 < ? LIMIT 2", (sha, sha + "g")).fetchall()
        if not rows:
            raise KeyError(sha)
        if len(rows) > 1:
            raise InputError(f"payload key {sha} is ambiguous: give more digits")
        return str(rows[0][1])

    def __contains__(self, sha: object) -> bool:
        try:
            self.get(str(sha))
        except (KeyError, InputError):
            return False
        return True

    def history(self, buffer_id: str | None = None) -> list[LedgerEntry]:
        """Every recorded revision, oldest first (of one buffer when ``buffer_id`` is given)."""
        q = ("SELECT buffer, revision, sha256, source, edits, intent, justification, time "
             "FROM revisions")
        args: tuple[str, ...] = ()
        if buffer_id is not None:
            q += " WHERE buffer = ?"
            args = (buffer_id,)
        with self._lock:
            rows = self._db.execute(q + " ORDER BY id", args).fetchall()
        return [LedgerEntry(b, r, s, src, [(e[0], e[1], e[2], e[3]) for e in json.loads(ed)],
                            i, j, t) for b, r, s, src, ed, i, j, t in rows]

    def decisions(self, guard: str | None = None) -> list[Decision]:
        """Every recorded guard decision, oldest first (of one guard when ``guard`` is given)."""
        q = ("SELECT guard, call, attempt, verdict, action, before_sha, after_sha, codes, "
             "report, time FROM decisions")
        args: tuple[str, ...] = ()
        if guard is not None:
            q += " WHERE guard = ?"
            args = (guard,)
        with self._lock:
            rows = self._db.execute(q + " ORDER BY id", args).fetchall()
        return [Decision(g, c, a, v, act, b, af, json.loads(cs), json.loads(r), t)
                for g, c, a, v, act, b, af, cs, r, t in rows]

    def reconstruct(self, buffer_id: str = "main", revision: int | None = None) -> str:
        """The text of a recorded revision (default: the last), replayed from the latest
        ``init`` record at or before it. Each replayed text must hash to what was recorded:
        a gap or a mismatch raises ``ValueError`` rather than return a wrong text."""
        entries = self.history(buffer_id)
        inits = [k for k, e in enumerate(entries) if e.source == "init"
                 and (revision is None or e.revision <= revision)]
        if not inits:
            raise KeyError(f"no initial revision recorded for {buffer_id!r}")
        first = entries[inits[-1]]
        lines = self.get(first.sha256).split("\n")
        number = first.revision
        for e in entries[inits[-1] + 1:]:
            if revision is not None and e.revision > revision:
                break
            if e.revision != number + 1:
                raise ValueError(f"ledger gap: r{number} is followed by r{e.revision}")
            for start, end, new, _sha in e.edits:
                lines[start:end] = new
            if payload_sha(lines) != e.sha256:
                raise ValueError(f"ledger mismatch: replaying r{e.revision} gives another text")
            number = e.revision
        if revision is not None and number != revision:
            raise KeyError(f"r{revision} is not recorded for {buffer_id!r}")
        return "\n".join(lines)
