"""Shared state under threads, processes and kills: one ledger file, many writers, no loss.

CI runs small counts; ``REFGRAPH_STRESS=1`` runs the counts the reliability issue asks for
(100 kills; more patches per writer).
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

from refgraph import (
    Analyzer,
    ContextBuffer,
    EditConflict,
    Gate,
    GateRejected,
    Ledger,
    Patch,
)
from refgraph.errors import LedgerError

STRESS = os.environ.get("REFGRAPH_STRESS", "") not in ("", "0")
KILLS = 100 if STRESS else 8
PATCHES = 40 if STRESS else 6  # per writer
ROOT = Path(__file__).resolve().parent.parent


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(ROOT)}


# One child: its own buffer and Gate on the shared ledger file, printing each revision once the
# gate (and so the ledger) acknowledged it.
_CHILD = textwrap.dedent("""
    import sys
    from refgraph import ContextBuffer, Gate, Ledger, Patch
    db, name, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with Ledger(db, timeout=60) as ledger:
        buf = ContextBuffer(f"user: keep the {name} notes.\\nassistant: note 0 of {name}.")
        gate = Gate(buf, ledger=ledger, mode="fast", buffer_id=name)
        for i in range(1, n + 1):
            buf.append(f"tool[{name}_{i}]: result {i} of {name}")
            print(buf.revision, flush=True)
            rev = gate.submit(Patch.replace(f"assistant: note {i - 1} of {name}.",
                                            f"assistant: note {i} of {name}.", base=buf.sha256))
            print(rev.revision, flush=True)
""")


def _contiguous(ledger: Ledger, buffer_id: str) -> list[int]:
    revs = [e.revision for e in ledger.history(buffer_id)]
    assert revs == list(range(len(revs))), f"{buffer_id}: a gap or a duplicate revision"
    return revs


def test_threads_and_processes_share_one_gate_and_ledger_file(tmp_path: Path) -> None:
    db = tmp_path / "shared.db"
    children = [subprocess.Popen([sys.executable, "-c", _CHILD, str(db), f"proc{k}",
                                  str(PATCHES)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True, env=_env()) for k in range(4)]
    lines = ["user: deploy the billing service.", "assistant: running the tests first."]
    lines += [f"assistant: slot {k} waits for work." for k in range(8)]
    buf = ContextBuffer("\n".join(lines))
    errors: list[BaseException] = []
    acked: list[int] = []
    with Ledger(db, timeout=60) as ledger:
        gate = Gate(buf, ledger=ledger, analyzer=Analyzer("fast"))

        def writer(k: int) -> None:
            for i in range(PATCHES):
                try:
                    snap = buf.snapshot()
                    old = next(x for x in snap.text.split("\n")
                               if x.startswith(f"assistant: slot {k} "))
                    rev = gate.submit(Patch.replace(old, f"assistant: slot {k} ran job {i}.",
                                                    base=snap.sha256))
                    acked.append(rev.revision)
                    buf.append(f"tool[t{k}_{i}]: job {i} of slot {k} finished")
                except (EditConflict, GateRejected, LedgerError) as exc:  # documented ones
                    errors.append(exc)

        threads = [threading.Thread(target=writer, args=(k,)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        outs = [c.communicate(timeout=600) for c in children]
        assert [c.returncode for c in children] == [0] * 4, [e for _, e in outs]
        assert [getattr(e, "codes", e) for e in errors] == []  # nothing was refused
        # Every patch and every tool result is in the text, none twice.
        text = buf.text.split("\n")
        for k in range(8):
            assert f"assistant: slot {k} ran job {PATCHES - 1}." in text
            assert sum(x.startswith(f"assistant: slot {k} ") for x in text) == 1
            assert {f"tool[t{k}_{i}]: job {i} of slot {k} finished"
                    for i in range(PATCHES)} <= set(text)
        assert len(set(acked)) == len(acked) == 8 * PATCHES
        revs = _contiguous(ledger, "main")
        assert revs[-1] == buf.revision == 16 * PATCHES
        assert set(acked) <= set(revs)
        assert ledger.reconstruct() == buf.text
        for k, (out, _) in enumerate(outs):
            name = f"proc{k}"
            child_acked = [int(x) for x in out.split()]
            assert child_acked == list(range(1, 2 * PATCHES + 1))
            assert _contiguous(ledger, name)[-1] == 2 * PATCHES
            assert f"assistant: note {PATCHES} of {name}." in ledger.reconstruct(name)


# A writer that appends until it is killed, printing each revision after its commit returned.
_APPENDER = textwrap.dedent("""
    import sys
    from refgraph import ContextBuffer, Ledger
    db, name = sys.argv[1], sys.argv[2]
    with Ledger(db, timeout=60) as ledger:
        buf = ContextBuffer(f"start of {name}")
        ledger.attach(buf, name)
        i = 0
        while True:
            i += 1
            print(buf.append(f"{name} result {i} " + "x" * 3000), flush=True)
""")


def test_repeated_kills_during_ledger_writes_lose_no_acknowledged_record(
        tmp_path: Path) -> None:
    db = tmp_path / "kills.db"
    lost = 0
    for kill in range(KILLS):
        name = f"run{kill}"
        proc = subprocess.Popen([sys.executable, "-c", _APPENDER, str(db), name],
                                stdout=subprocess.PIPE, text=True, env=_env())
        assert proc.stdout is not None
        acked: list[int] = []
        want = 5 + kill % 7  # kill at a different point of the write each time
        deadline = time.monotonic() + 60
        while len(acked) < want and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            acked.append(int(line))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
        assert len(acked) == want, f"kill {kill}: the writer did not start"
        # The file opens after every kill, is consistent, and holds every acknowledged record.
        assert sqlite3.connect(db).execute("PRAGMA integrity_check").fetchone() == ("ok",)
        with Ledger(db) as ledger:
            revs = _contiguous(ledger, name)
            lost += len(set(acked) - set(revs))
            text = ledger.reconstruct(name).split("\n")
            assert text[0] == f"start of {name}"
            assert all(x.startswith(f"{name} result {i + 1} ") for i, x in enumerate(text[1:]))
    assert lost == 0
