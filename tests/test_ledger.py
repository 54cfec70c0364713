"""The ledger: revisions and removed payloads in SQLite, readable back, crash-safe."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from refgraph import ContextBuffer, InputError, Ledger, Patch
from refgraph.buffer import sha256_text


def test_every_revision_and_removed_payload_is_kept(tmp_path: Path) -> None:
    buf = ContextBuffer("a\nb\nc")
    with Ledger(tmp_path / "ctx.db") as ledger:
        ledger.attach(buf)
        buf.append("tool: 42")
        buf.apply(Patch.splice(1, 2, [], base=buf.sha256, intent="prune",
                               justification="b is stale"))
        hist = ledger.history()
        assert [(e.revision, e.source) for e in hist] == [(0, "init"), (1, "append"),
                                                          (2, "patch")]
        assert hist[2].intent == "prune"
        assert hist[2].justification == "b is stale"
        (start, end, new, sha), = hist[2].edits
        assert (start, end, new) == (1, 2, [])
        assert sha == sha256_text("b")
        assert ledger.get(sha) == "b"
        assert ledger.get(sha[:8]) == "b"
        assert ledger.reconstruct() == buf.text
        assert ledger.reconstruct(revision=1) == "a\nb\nc\ntool: 42"
    with Ledger(tmp_path / "ctx.db") as again:  # persisted
        assert again.get(sha) == "b"
        assert len(again.history("main")) == 3
        mode = sqlite3.connect(tmp_path / "ctx.db").execute("PRAGMA journal_mode").fetchone()
        assert mode == ("wal",)


def test_get_refuses_bad_and_unknown_keys() -> None:
    with Ledger(":memory:") as ledger:
        sha = ledger.put("payload")
        assert ledger.put("payload") == sha  # stored once
        with pytest.raises(KeyError):
            ledger.get("0" * 12)
        with pytest.raises(InputError):
            ledger.get("xyz")
        assert sha in ledger
        assert "f" * 64 not in ledger


def test_not_a_database_is_input_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(InputError, match="not a usable ledger"):
        Ledger(bad)
    with pytest.raises(InputError, match="does not exist"):
        Ledger(tmp_path / "missing" / "x.db")


_WRITER = textwrap.dedent("""
    import sys
    from refgraph import ContextBuffer, Ledger
    buf = ContextBuffer("start")
    ledger = Ledger(sys.argv[1])
    ledger.attach(buf)
    i = 0
    while True:
        i += 1
        rev = buf.append("tool result %d " % i + "x" * 2000)
        print(rev, flush=True)  # acknowledged only after the commit returned
""")


def test_a_killed_writer_loses_no_committed_record(tmp_path: Path) -> None:
    db = tmp_path / "crash.db"
    proc = subprocess.Popen([sys.executable, "-c", _WRITER, str(db)], stdout=subprocess.PIPE,
                            text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert proc.stdout is not None
    acked = []
    deadline = time.monotonic() + 60
    while len(acked) < 40 and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        acked.append(int(line))
    proc.send_signal(signal.SIGKILL)  # mid-write, most likely
    proc.wait()
    assert len(acked) >= 40, "the writer did not start"
    with Ledger(db) as ledger:
        assert sqlite3.connect(db).execute("PRAGMA integrity_check").fetchone() == ("ok",)
        revs = [e.revision for e in ledger.history()]
        assert revs == list(range(len(revs)))  # no gap, no half record
        assert set(acked) <= set(revs)
        text = ledger.reconstruct()
        assert text.split("\n")[len(acked)].startswith(f"tool result {len(acked)} ")


def test_a_record_that_fails_leaves_the_buffer_unchanged(tmp_path: Path) -> None:
    from refgraph.errors import LedgerError

    db = tmp_path / "locked.db"
    ledger = Ledger(db, timeout=0.1)
    buf = ContextBuffer("a\nb")
    ledger.attach(buf)
    other = sqlite3.connect(db, timeout=0.1, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another writer holds the file
    with pytest.raises(LedgerError, match="cannot record"):
        buf.edit(0, 0, ["tool: 1"])
    assert buf.text == "a\nb"
    assert buf.revision == 0
    with pytest.raises(LedgerError, match="cannot record"):
        ledger.put("a payload")  # every write, not only a revision's
    other.execute("ROLLBACK")
    buf.edit(0, 0, ["tool: 1"])
    assert ledger.reconstruct() == buf.text


def test_attaching_a_new_buffer_to_an_old_file_starts_a_new_record(tmp_path: Path) -> None:
    db = tmp_path / "ctx.db"
    with Ledger(db) as ledger:
        buf1 = ContextBuffer("a\nb")
        ledger.attach(buf1)
        buf1.edit(0, 1, ["A"])
    with Ledger(db) as ledger:
        buf2 = ContextBuffer("x\ny\nz")
        ledger.attach(buf2)
        buf2.edit(2, 3, ["Z"])
        assert ledger.reconstruct() == buf2.text
        assert ledger.reconstruct(revision=0) == "x\ny\nz"


def test_reconstruct_refuses_a_gap(tmp_path: Path) -> None:
    db = tmp_path / "gap.db"
    with Ledger(db) as ledger:
        buf = ContextBuffer("a")
        ledger.attach(buf)
        buf.append("b")
        buf.append("c")
    sqlite3.connect(db).execute("DELETE FROM revisions WHERE revision = 1").connection.commit()
    with Ledger(db) as ledger, pytest.raises(ValueError, match="gap"):
        ledger.reconstruct()
