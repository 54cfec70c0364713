"""Hostile input and faults: bounded input, outputs that are never lost silently, non-UTF-8
standard output, threads sharing one analyzer, bidi controls in the review."""

from __future__ import annotations

import json
import os
import random
import stat
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import refgraph
from refgraph.analyze import MAX_PER_CODE
from refgraph.errors import InputError
from refgraph.io import LineSink, for_stdout, read_text, write_output
from refgraph.render import review_html

ROOT = Path(__file__).resolve().parent.parent


def _cli(*args: str, stdin: bytes | None = None, env: dict[str, str] | None = None,
         cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "refgraph", *args], input=stdin,
                          capture_output=True, timeout=120, check=False, cwd=cwd,
                          env={**os.environ, **(env or {})})


# --- bounded input --------------------------------------------------------------------------

def test_analyzer_refuses_text_over_max_chars() -> None:
    az = refgraph.Analyzer("fast", max_chars=20)
    az.analyze("short.", "short.")
    with pytest.raises(InputError, match="more than the limit of 20"):
        az.analyze("x" * 21, "short.")
    with pytest.raises(InputError, match="after is 21 characters"):
        az.analyze("short.", "y" * 21)
    with pytest.raises(InputError, match="limit"):
        az.lint("z" * 21)
    with pytest.raises(InputError, match="max_chars must be a positive integer"):
        refgraph.Analyzer("fast", max_chars=0)


def test_build_graph_refuses_text_over_max_chars() -> None:
    with pytest.raises(InputError, match="limit of 5"):
        refgraph.build_graph("123456", mode="fast", max_chars=5)


def test_read_text_stops_at_the_limit_on_a_device() -> None:
    with pytest.raises(InputError, match="more than 1,000 characters"):
        read_text("/dev/zero", max_chars=1000)


def test_cli_refuses_an_endless_device_and_stdin(tmp_path: Path) -> None:
    small = tmp_path / "a.txt"
    small.write_text("The timeout is 30 seconds.\n")
    for args, stdin in ((("check", "--mode", "fast", "/dev/zero", str(small)), None),
                        (("lint", "--mode", "fast", "--max-chars", "1000", "-"), b"a" * 5000)):
        proc = _cli(*args, stdin=stdin)
        assert proc.returncode == 2
        err = proc.stderr.decode().strip().splitlines()
        assert err[-1].startswith("refgraph: error:")
        assert "limit" in err[-1]
        assert b"Traceback" not in proc.stderr


def test_max_chars_from_the_configuration(tmp_path: Path) -> None:
    (tmp_path / "refgraph.toml").write_text("mode = \"fast\"\nmax-chars = 10\n")
    (tmp_path / "a.txt").write_text("The timeout is 30 seconds.\n")
    proc = _cli("lint", "a.txt", cwd=tmp_path)
    assert proc.returncode == 2
    assert b"limit of 10" in proc.stderr
    (tmp_path / "refgraph.toml").write_text("max-chars = -1\n")
    proc = _cli("lint", "a.txt", cwd=tmp_path)
    assert proc.returncode == 2
    assert b"max-chars must be a positive integer" in proc.stderr


# --- outputs --------------------------------------------------------------------------------

def test_write_output_replaces_a_file_atomically_keeping_its_mode(tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    out.write_text("old")
    out.chmod(0o640)
    write_output(out, b"new", "-o out.txt")
    assert out.read_text() == "new"
    assert stat.S_IMODE(out.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]  # no temporary left


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "out.txt"
    out.write_text("old")

    def full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(InputError, match="No space left on device"):
        write_output(out, b"new", "-o out.txt")
    assert out.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_write_output_errors_are_one_line(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such directory"):
        write_output(tmp_path / "missing" / "x.txt", b"x", "--html x")
    with pytest.raises(InputError, match="is a directory"):
        write_output(tmp_path, b"x", "--html x")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux)")
def test_a_device_is_written_in_place_and_its_errors_reported(tmp_path: Path) -> None:
    live = tmp_path / "live.txt"
    live.write_text("a\n")
    patch = tmp_path / "p.diff"
    patch.write_text("@@ -1 +1 @@\n-a\n+b\n")
    proc = _cli("apply", str(live), str(patch), "--base", str(live), "-o", "/dev/full")
    assert proc.returncode == 2
    assert proc.stderr.decode().strip().endswith("cannot write: No space left on device")
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)  # never replaced by a regular file
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(json.dumps({"id": "p1", "before": "a.", "after": "a."}) + "\n")
    proc = _cli("batch", str(pairs), "--mode", "fast", "--out", "/dev/full")
    assert proc.returncode == 2
    assert b"No space left on device" in proc.stderr
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_a_fifo_is_written_in_place(tmp_path: Path) -> None:
    fifo = tmp_path / "review.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    write_output(fifo, b"<!DOCTYPE html>", "--html review.fifo")
    reader.join(10)
    assert got == [b"<!DOCTYPE html>"]
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_line_sink_truncates_to_the_last_whole_line_on_a_failed_write(tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    sink = LineSink(out)
    sink.write('{"id": "a"}')

    class Full:
        closed = False

        def write(self, data: bytes) -> int:
            os.write(fd, data[:3])  # part of the line reaches the disk, then the disk is full
            raise OSError(28, "No space left on device")

        def close(self) -> None:
            self.closed = True

    fd = os.open(out, os.O_WRONLY | os.O_APPEND)
    real = sink.f
    sink.f = Full()  # type: ignore[assignment]
    with pytest.raises(InputError, match="No space left"):
        sink.write('{"id": "b"}')
    os.close(fd)
    real.close()
    assert out.read_text() == '{"id": "a"}\n'


def test_line_sink_removes_a_file_it_created_and_could_not_fill(tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    sink = LineSink(out)

    class Full:
        closed = False

        def write(self, data: bytes) -> int:
            raise OSError(28, "No space left on device")

        def close(self) -> None:
            self.closed = True

    real = sink.f
    sink.f = Full()  # type: ignore[assignment]
    with pytest.raises(InputError):
        sink.write("{}")
    real.close()
    assert not out.exists()


# --- standard output that is not UTF-8 -------------------------------------------------------

def test_for_stdout_escapes_what_the_encoding_lacks(monkeypatch: pytest.MonkeyPatch) -> None:
    class Ascii:
        encoding = "ascii"

    monkeypatch.setattr(sys, "stdout", Ascii())
    assert for_stdout('{"q": "Zoë 😀"}', is_json=True) == '{"q": "Zo\\u00eb \\ud83d\\ude00"}'
    assert json.loads(for_stdout('{"q": "Zoë 😀"}', is_json=True)) == {"q": "Zoë 😀"}
    assert for_stdout("Zoë") == "Zo\\xeb"
    assert for_stdout("plain") == "plain"


def test_cli_output_on_an_ascii_stdout(tmp_path: Path) -> None:
    before = tmp_path / "b.txt"
    before.write_text("Zoë: keep the room at 21 °C. “Café” is open.\n")
    after = tmp_path / "a.txt"
    after.write_text("Zoë: keep the room at 21.\n")
    env = {"PYTHONIOENCODING": "ascii"}
    for fmt in ("json", "sarif"):
        proc = _cli("check", "--mode", "fast", "--format", fmt, str(before), str(after), env=env)
        assert proc.returncode == 1, proc.stderr
        data = json.loads(proc.stdout.decode("ascii"))
        assert "21 °C" in json.dumps(data, ensure_ascii=False)
    proc = _cli("check", "--mode", "fast", str(before), str(after), env=env)
    assert proc.returncode == 1
    assert b"Traceback" not in proc.stderr
    proc = _cli("graph", "--mode", "fast", "--format", "json", str(before), env=env)
    assert proc.returncode == 0, proc.stderr
    texts = [n.get("text", "") for n in json.loads(proc.stdout.decode("ascii"))["nodes"]]
    assert any("Zoë" in t for t in texts)
    proc = _cli("graph", "--mode", "fast", str(before), env=env)
    assert proc.returncode == 0
    assert b"Zo\\xeb" in proc.stdout


# --- threads --------------------------------------------------------------------------------

def _texts(seed: int) -> list[tuple[str, str]]:
    r = random.Random(seed)
    out = []
    for _ in range(12):
        b = "\n\n".join(f"Step {r.randint(0, 40)}: the timeout is {r.randint(1, 90)} seconds."
                       for _ in range(12))  # twelve blocks a parse, three times the cache
        out.append((b, b[: len(b) // 2] + " The timeout is 5."))
    return out


def _in_threads(work: dict[int, Any], run: Callable[[Any], Any]) -> dict[int, Any]:
    """``run(work[k])`` for every k, each in a thread of its own, all at once; no thread may
    raise."""
    got: dict[int, Any] = {}
    errors: list[BaseException] = []

    def one(k: int) -> None:
        try:
            got[k] = run(work[k])
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=one, args=(k,)) for k in work]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert errors == []
    return got


def test_threads_sharing_one_analyzer_with_a_small_cache() -> None:
    az = refgraph.Analyzer("fast")
    az.parser.cache_size = 4  # evictions all the time: what raised KeyError between threads
    work = {k: _texts(k) for k in range(8)}
    got = _in_threads(work, lambda pairs: [az.analyze(b, a).codes for b, a in pairs])
    alone = refgraph.Analyzer("fast")
    assert got == {k: [alone.analyze(b, a).codes for b, a in work[k]] for k in work}


def test_threads_sharing_one_parser_with_a_small_cache() -> None:
    parser = refgraph.Parser("fast", cache_size=4)
    work = {k: [b for b, _ in _texts(k)] for k in range(8)}
    got = _in_threads(work, lambda texts: [
        refgraph.build_graph(t, parser=parser).number_of_nodes() for t in texts])
    assert got == {k: [refgraph.build_graph(t, mode="fast").number_of_nodes() for t in work[k]]
                   for k in work}


def test_one_threads_parse_does_not_hold_up_anothers() -> None:
    """The lock guards the cache, not the parse: while one thread is mid-parse (inside its
    progress callback), another parses a text of its own to the end."""
    from refgraph.blocks import split_blocks

    parser = refgraph.Parser("fast")
    long_text = "\n\n".join(f"Paragraph {i}: the job {i} took 30 seconds." for i in range(200))
    other: list[int] = []

    def meanwhile() -> None:
        other.append(len(parser.parse(split_blocks("Another text, parsed meanwhile."))))

    def progress(done: int, total: int) -> None:
        if done < total and not other:
            t = threading.Thread(target=meanwhile)
            t.start()
            t.join(30)  # with the parse serialised, this waits for itself: a timeout

    parsed = parser.parse(split_blocks(long_text), progress=progress)
    assert other == [1]
    assert len(parsed) == 200


def test_findings_over_the_cap_are_counted_in_one_more() -> None:
    n = MAX_PER_CODE + 30
    before = "\n".join(f"- The timeout of service s{i} is 30 seconds." for i in range(n))
    after = "\n".join(f"- The timeout of service s{i} is 30." for i in range(n))
    report = refgraph.Analyzer("fast").analyze(before, after)
    assert [f.code for f in report.findings].count("RG201") == MAX_PER_CODE + 1
    last = report.findings[-1]
    assert last.message.startswith(f"30 more RG201 findings are not listed (at most "
                                   f"{MAX_PER_CODE} per code)")
    assert last.severity == "error"
    assert report.verdict == "reject"
    for e in last.evidence:  # the proof of one of those not listed
        text = before if e.side == "before" else after
        assert text[e.start:e.end] == e.quote


def test_capped_keeps_the_surest_and_each_code_apart() -> None:
    from refgraph.analyze import capped
    from refgraph.findings import Finding

    def f(code: str, conf: float, severity: str = "warning") -> Finding:
        return Finding(code, "x", severity, f"{code} at {conf}", "h", (), conf)  # type: ignore[arg-type]

    found = [f("RG201", 0.7), f("RG201", 0.9), f("RG201", 0.8, "error"), f("RG301", 0.5)]
    assert capped(found, cap=3) == found
    out = capped(found, cap=1)
    assert [(x.code, x.message.split(";")[0]) for x in out] == [
        ("RG201", "RG201 at 0.9"), ("RG301", "RG301 at 0.5"),
        ("RG201", "2 more RG201 findings are not listed (at most 1 per code)")]
    assert out[-1].confidence == 0.8  # the surest of the rest
    assert out[-1].severity == "error"  # the most severe of the rest


# --- the review -----------------------------------------------------------------------------

def test_review_shows_bidi_controls_instead_of_applying_them() -> None:
    before = "Access is denied\u202e unless admin \u2066x\u2069.\n"
    report = refgraph.analyze(before, "Access is allowed.\n", mode="fast")
    page = review_html(report)
    for c in ("\u202e", "\u2066", "\u2069"):
        assert c not in page
    assert "[U+202E]" in page
    assert "[U+2066]" in page


# --- deadline -------------------------------------------------------------------------------

def test_a_passed_deadline_stops_parsing_and_says_so() -> None:
    az = refgraph.Analyzer("fast")
    before = "\n\n".join(f"Step {i}: the timeout is {i} seconds." for i in range(400))
    report = az.analyze(before, "The timeout is 30.", deadline=0)
    assert not report.complete
    assert "while parsing before" in report.incomplete
    assert report.verdict == "apply-with-log"
    assert report.findings == []
    data = report.to_dict()
    assert data["complete"] is False
    assert data["incomplete"] == report.incomplete
    assert "incomplete: the deadline of 0 s passed" in report.format_text()
    # the blocks parsed before it passed stay cached: a later call without one completes
    full = az.analyze(before, "The timeout is 30.")
    assert full.complete
    assert full.incomplete == ""
    assert full.to_dict()["complete"] is True


def test_a_deadline_between_rules_keeps_what_was_found() -> None:
    az = refgraph.Analyzer("fast")
    az.analyze("The timeout is 30 seconds.", "The timeout is 30.")  # both graphs cached
    report = az.analyze("The timeout is 30 seconds.", "The timeout is 30.", deadline=0)
    assert not report.complete
    assert "rules not run: RG" in report.incomplete
    assert report.verdict == "apply-with-log"  # unchecked is never a clean apply
    with pytest.raises(InputError, match="deadline must be"):
        az.analyze("a", "b", deadline=-1)


def test_a_generous_deadline_changes_nothing() -> None:
    az = refgraph.Analyzer("fast")
    a = az.analyze("The timeout is 30 seconds.", "The timeout is 30.", deadline=600)
    assert a.complete
    assert a.codes == ["RG201"]
    assert a.verdict == "reject"
