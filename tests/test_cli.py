"""The command line: output formats, exit codes, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from refgraph import __version__
from refgraph.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_version_and_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert __version__ in capsys.readouterr().out  # the exact line: tests/test_native.py
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    assert "graph" in capsys.readouterr().out


def test_graph_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "ctx.md"
    f.write_text("# Notes\n\nThe timeout is 30 seconds.\n", encoding="utf-8")
    code, out, err = run(capsys, "graph", str(f), "--mode", "fast")
    assert code == 0
    assert err == ""
    assert "3:16" in out
    assert "quantity" in out
    assert "unit=second" in out


def test_graph_json_and_graphml(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "ctx.txt"
    f.write_text("MAX_RETRIES=3", encoding="utf-8")
    code, out, _ = run(capsys, "graph", str(f), "--mode", "fast", "--format", "json")
    data = json.loads(out)
    assert code == 0
    assert any(n["kind"] == "identifier" for n in data["nodes"])
    code, out, _ = run(capsys, "graph", str(f), "--mode", "fast", "--format", "graphml")
    assert code == 0
    assert out.startswith("<graphml")
    assert "MAX_RETRIES" in out


def test_empty_file_gives_empty_graph(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "empty.txt"
    f.write_bytes(b"")
    code, out, _ = run(capsys, "graph", str(f), "--mode", "fast", "--format", "json")
    assert code == 0
    assert json.loads(out)["nodes"] == []


@pytest.mark.parametrize(("content", "message"), [
    (None, "no such file"),
    ("dir", "is a directory"),
    (b"\xff\xfe\xfa not utf8", "not valid UTF-8"),
    (b"\x00\x01\x02binary", "looks binary"),
])
def test_bad_input_is_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                      content: object, message: str) -> None:
    path = tmp_path / "input"
    if content == "dir":
        path.mkdir()
    elif isinstance(content, bytes):
        path.write_bytes(content)
    code, out, err = run(capsys, "graph", str(path), "--mode", "fast")
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1
    assert message in err
    assert err.startswith("refgraph: error:")


def test_demo_runs_on_bundled_examples(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "demo", "--mode", "fast")
    assert code == 0
    assert "coding_agent.md" in out
    assert "constraint" in out
    # the guarded apply on the bundled stale patches
    assert "add-constraint.diff (intent rewrite), authored against r0, live is r2" in out
    assert "ContextBuffer + Gate: rebased through 2 recorded edits, analyzed, committed r3" in out
    assert "ContextBuffer + Gate: rejected, nothing written: RG201" in out
    assert "merged; with --check: reject (RG201)" in out


def test_module_entry_point_reads_stdin() -> None:
    proc = subprocess.run([sys.executable, "-m", "refgraph", "graph", "-", "--mode", "fast"],
                          input=b"Do not call `deploy` before tests pass.", capture_output=True,
                          check=False, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert b"prohibition" in proc.stdout


def test_unreadable_path_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "graph", "a" * 5000, "--mode", "fast")
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1
    assert err.startswith("refgraph: error:")


def test_usage_errors_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["graph", "x.md", "--mode", "turbo"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "invalid choice" in err
    assert err.startswith("refgraph: error:")


def test_min_confidence_sets_what_the_verdict_weighs(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    before, after = tmp_path / "b.md", tmp_path / "a.md"
    before.write_text("The request timeout is 30 seconds.\n", encoding="utf-8")
    after.write_text("The request timeout is 30.\n", encoding="utf-8")
    code, out, _ = run(capsys, "check", str(before), str(after), "--mode", "fast")
    assert code == 1
    assert "RG201" in out
    code, out, _ = run(capsys, "check", str(before), str(after), "--mode", "fast",
                       "--min-confidence", "0.99", "--format", "json")
    assert code == 0
    assert json.loads(out)["findings"] == []
    with pytest.raises(SystemExit) as exc:
        main(["check", str(before), str(after), "--min-confidence", "2"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "from 0 to 1" in err
