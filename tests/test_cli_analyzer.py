"""The analyzer's commands: ``check``, ``lint``, ``rules``, ``rule``; exit codes and output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from refgraph.cli import main
from refgraph.rules import RULES, Rule

BEFORE = """\
# Notes
- The upstream gateway closes idle connections after 60 seconds.
- The request timeout is 30 seconds.
"""
CORRUPT = """\
# Notes
- The upstream gateway closes idle connections after 60 seconds.
- The request timeout is 30.
"""
SAFE = """\
# Notes
- Gateway drops idle connections after 1 minute.
- Request timeout: 30 s.
"""


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``main(argv)`` with its exit code, whether returned or raised by argparse."""
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 2
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path: Path, name: str, content: str | bytes) -> str:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return str(path)


def assert_one_line_error(err: str) -> None:
    assert err.startswith("refgraph: error: ")
    assert err.count("\n") == 1
    assert "Traceback" not in err


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    return {"before": write(tmp_path, "before.md", BEFORE),
            "corrupt": write(tmp_path, "after.md", CORRUPT),
            "safe": write(tmp_path, "safe.md", SAFE)}


# check ----------------------------------------------------------------------------------------


def test_check_safe_pair_exits_0(capsys: pytest.CaptureFixture[str], mode: str,
                                 files: dict[str, str]) -> None:
    code, out, err = run(capsys, "check", files["before"], files["safe"], "--mode", mode)
    assert code == 0, out
    assert err == ""
    assert "verdict: apply" in out


def test_check_corrupt_pair_exits_1(capsys: pytest.CaptureFixture[str], mode: str,
                                    files: dict[str, str]) -> None:
    code, out, err = run(capsys, "check", files["before"], files["corrupt"], "--mode", mode)
    assert code == 1
    assert err == ""
    assert "RG201" in out
    assert "dropped-unit" in out
    assert "lost its unit" in out  # the message
    # file:line:col of the evidence on both sides
    assert f"{files['before']}:3:" in out
    assert f"{files['corrupt']}:3:" in out
    assert "'30 seconds'" in out
    assert "fix:" in out
    assert out.rstrip().endswith("verdict: reject (1 error)")


def test_check_identical_files_exit_0(capsys: pytest.CaptureFixture[str],
                                      files: dict[str, str]) -> None:
    code, out, _ = run(capsys, "check", files["before"], files["before"], "--mode", "fast")
    assert code == 0
    assert "no findings" in out


def test_check_json(capsys: pytest.CaptureFixture[str], mode: str,
                    files: dict[str, str]) -> None:
    code, out, err = run(capsys, "check", files["before"], files["corrupt"], "--mode", mode,
                         "--format", "json", "--intent", "summarize")
    assert code == 1
    assert err == ""
    data = json.loads(out)
    assert data["schema"] == "refgraph.report/2"
    assert {"verdict", "intent", "mode", "findings", "stats"} <= set(data)
    assert data["verdict"] == "reject"
    assert data["intent"] == "summarize"
    assert data["mode"] == mode
    assert [f["code"] for f in data["findings"]] == ["RG201"]
    texts = {"before": BEFORE, "after": CORRUPT}
    for f in data["findings"]:
        for e in f["evidence"]:
            assert e["quote"] == texts[e["side"]][e["start"]:e["end"]]


def test_check_json_safe(capsys: pytest.CaptureFixture[str], files: dict[str, str]) -> None:
    code, out, _ = run(capsys, "check", files["before"], files["safe"], "--mode", "fast",
                       "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert data["verdict"] == "apply"
    assert data["findings"] == []


def test_check_select_and_ignore(capsys: pytest.CaptureFixture[str],
                                 files: dict[str, str]) -> None:
    argv = ("check", files["before"], files["corrupt"], "--mode", "fast")
    assert run(capsys, *argv, "--select", "RG2")[0] == 1
    assert run(capsys, *argv, "--select", "RG3,RG1")[0] == 0
    assert run(capsys, *argv, "--ignore", "RG201")[0] == 0
    code, out, _ = run(capsys, *argv, "--ignore", "RG3")
    assert code == 1
    assert "RG201" in out


def test_check_prune_intent_and_declared_span(capsys: pytest.CaptureFixture[str],
                                              tmp_path: Path) -> None:
    before = write(tmp_path, "b.txt", "Intro stays.\nSummarize this line please.\nOutro stays.")
    inside = write(tmp_path, "in.txt", "Intro stays.\nA summary.\nOutro stays.")
    outside = write(tmp_path, "out.txt", "Intro changed.\nA summary.\nOutro stays.")
    assert run(capsys, "check", before, inside, "--mode", "fast",
               "--declared-span", "13:40")[0] == 0
    code, out, _ = run(capsys, "check", before, outside, "--mode", "fast",
                       "--declared-span", "13:40")
    assert code == 1
    assert "RG405" in out
    code, out, _ = run(capsys, "check", before, before, "--mode", "fast", "--intent", "prune")
    assert code == 1
    assert "RG404" in out


def test_check_reads_stdin(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                           files: dict[str, str]) -> None:
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(BEFORE.encode("utf-8"))))
    code, out, _ = run(capsys, "check", "-", files["corrupt"], "--mode", "fast")
    assert code == 1
    assert "RG201" in out


@pytest.mark.parametrize(("case", "message"), [
    ("missing-before", "no such file"),
    ("missing-after", "no such file"),
    ("not-utf8", "not valid UTF-8"),
    ("binary", "binary"),
    ("directory", "directory"),
    ("span-syntax", "--declared-span"),
    ("span-range", "declared_span"),
    ("select", "no finding code matches"),
    ("ignore", "no finding code matches"),
    ("intent", "invalid choice"),
    ("mode", "invalid choice"),
    ("both-stdin", "standard input"),
])
def test_check_bad_input_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                 files: dict[str, str], case: str, message: str) -> None:
    b, a = files["before"], files["corrupt"]
    extra: list[str] = []
    if case == "missing-before":
        b = str(tmp_path / "nope.md")
    elif case == "missing-after":
        a = str(tmp_path / "nope.md")
    elif case == "not-utf8":
        a = write(tmp_path, "latin1.md", "caf\xe9 timeout 30".encode("latin-1"))
    elif case == "binary":
        b = write(tmp_path, "blob.bin", b"\x00\x01\x02\x03binary\x00")
    elif case == "directory":
        a = str(tmp_path)
    elif case == "span-syntax":
        extra = ["--declared-span", "five"]
    elif case == "span-range":
        extra = ["--declared-span", "0:100000"]
    elif case == "select":
        extra = ["--select", "RG9"]
    elif case == "ignore":
        extra = ["--ignore", "XX1"]
    elif case == "intent":
        extra = ["--intent", "compress"]
    elif case == "mode":
        extra = ["--mode", "turbo"]
    elif case == "both-stdin":
        b = a = "-"
    argv = ["check", b, a, *extra]
    if case != "mode":
        argv += ["--mode", "fast"]
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert_one_line_error(err)
    assert message in err


# lint -----------------------------------------------------------------------------------------


def test_lint_with_findings_exits_1(capsys: pytest.CaptureFixture[str], mode: str,
                                    tmp_path: Path) -> None:
    f = write(tmp_path, "memory.md", "# Memory\n\nRetry the upload up to MAX_RETRIES times.\n")
    code, out, err = run(capsys, "lint", f, "--mode", mode)
    assert code == 1
    assert err == ""
    assert "RG604" in out
    assert f"{f}:3:" in out
    assert "apply-with-log" in out


def test_lint_clean_exits_0(capsys: pytest.CaptureFixture[str], mode: str,
                            tmp_path: Path) -> None:
    f = write(tmp_path, "memory.md", "MAX_RETRIES=3\n\nRetry the upload up to MAX_RETRIES "
                                     "times, with a timeout of 30 seconds.\n")
    code, out, _ = run(capsys, "lint", f, "--mode", mode)
    assert code == 0, out
    assert "no findings" in out


def test_lint_json_and_select(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    f = write(tmp_path, "memory.md", "The request timeout is 30. Retry up to MAX_RETRIES times.")
    code, out, _ = run(capsys, "lint", f, "--mode", "fast", "--format", "json")
    assert code == 1
    data = json.loads(out)
    assert data["schema"] == "refgraph.report/2"
    assert data["intent"] == "lint"
    assert sorted(x["code"] for x in data["findings"]) == ["RG601", "RG604"]
    code, out, _ = run(capsys, "lint", f, "--mode", "fast", "--ignore", "RG6")
    assert code == 0


def test_lint_empty_file_exits_0(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert run(capsys, "lint", write(tmp_path, "e.md", ""), "--mode", "fast")[0] == 0


@pytest.mark.parametrize("content", [None, b"\xff\xfe\xfa"])
def test_lint_bad_input_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                content: bytes | None) -> None:
    path = str(tmp_path / "missing.md") if content is None else write(tmp_path, "x.md", content)
    code, out, err = run(capsys, "lint", path, "--mode", "fast")
    assert code == 2
    assert out == ""
    assert_one_line_error(err)


# rules / rule ---------------------------------------------------------------------------------


def test_rules_lists_every_code(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "rules")
    assert code == 0
    assert err == ""
    lines = out.splitlines()
    assert len(lines) == len(RULES)
    for rule, line in zip(RULES, lines, strict=True):
        assert line.startswith(rule.code)
        assert rule.name in line
        assert rule.severity in line


@pytest.mark.parametrize("arg", ["RG201", "rg201"])
def test_rule_prints_its_docs(capsys: pytest.CaptureFixture[str], arg: str) -> None:
    code, out, err = run(capsys, "rule", arg)
    assert code == 0
    assert err == ""
    assert out.startswith("RG201 dropped-unit")
    assert "What it detects" in out
    assert "Why it matters" in out
    assert "Fix:" in out


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_every_rule_has_a_page(capsys: pytest.CaptureFixture[str], rule: type[Rule]) -> None:
    code, out, _ = run(capsys, "rule", rule.code)
    assert code == 0
    assert rule.hint in out


@pytest.mark.parametrize("arg", ["RG999", "RG20", "nonsense"])
def test_unknown_rule_exits_2(capsys: pytest.CaptureFixture[str], arg: str) -> None:
    code, out, err = run(capsys, "rule", arg)
    assert code == 2
    assert out == ""
    assert_one_line_error(err)
    assert arg in err
