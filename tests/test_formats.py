"""CI formats: SARIF 2.1.0 (validated against the official schema), GitHub annotations, JSON
lines, and the path/line/column every JSON evidence span carries."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

import refgraph
from refgraph.cli import main
from refgraph.formats import FINGERPRINT_KEY, github_annotations, json_lines, to_sarif

SCHEMA = json.loads((Path(__file__).parent / "data" / "sarif" / "sarif-schema-2.1.0.json")
                    .read_text(encoding="utf-8"))
BEFORE = "notes:\nThe request timeout is 30 seconds.\nRetries: 3, never more.\n"
AFTER = "notes:\nThe request timeout is 30.\nRetries: 3, never more.\n"
PATHS = {"before": "ctx/before.txt", "after": "ctx/after.txt"}


@pytest.fixture(scope="module")
def report() -> refgraph.Report:
    return refgraph.analyze(BEFORE, AFTER, mode="fast")


def test_json_evidence_has_path_line_and_column(report: refgraph.Report) -> None:
    (f,) = report.to_dict(paths=PATHS)["findings"]
    before, after = f["evidence"]
    assert (before["path"], before["line"], before["column"]) == ("ctx/before.txt", 2, 24)
    assert BEFORE.splitlines()[1][23:33] == "30 seconds" == before["quote"]
    assert (before["end_line"], before["end_column"]) == (2, 33)
    assert (after["path"], after["line"], after["column"]) == ("ctx/after.txt", 2, 24)
    # without paths the positions are still there, the path is not
    assert "path" not in report.to_dict()["findings"][0]["evidence"][0]


def test_sarif_is_valid_and_carries_rules_regions_and_fingerprints(
        report: refgraph.Report) -> None:
    log = to_sarif(report, PATHS)
    jsonschema.validate(log, SCHEMA)
    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert {r["id"] for r in rules} >= {"RG201", "RG400", "RG501"}
    (res,) = run["results"]
    assert res["ruleId"] == "RG201"
    assert rules[res["ruleIndex"]]["id"] == "RG201"
    assert res["level"] == "error"
    loc = res["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"] == "ctx/after.txt"  # the file the rewrite wrote
    assert (loc["region"]["startLine"], loc["region"]["startColumn"]) == (2, 24)
    assert loc["region"]["snippet"]["text"] == "30"
    related = res["relatedLocations"][0]["physicalLocation"]
    assert related["artifactLocation"]["uri"] == "ctx/before.txt"
    assert res["partialFingerprints"][FINGERPRINT_KEY] == report.findings[0].fingerprint


def test_sarif_of_a_clean_rewrite_and_of_a_message_list_is_valid() -> None:
    clean = refgraph.analyze(BEFORE, BEFORE, mode="fast")
    log = to_sarif(clean, PATHS)
    jsonschema.validate(log, SCHEMA)
    assert log["runs"][0]["results"] == []
    msgs = refgraph.analyze_messages([{"role": "user", "content": "The timeout is 30 seconds."}],
                                     [{"role": "user", "content": "The timeout is 30."}],
                                     mode="fast")
    jsonschema.validate(to_sarif(msgs, PATHS), SCHEMA)


def test_github_annotations_escape_what_the_workflow_syntax_reserves() -> None:
    before = "The window is 30 seconds: 100% of calls retry."
    rep = refgraph.analyze(before, "The window is 30: 100% of calls retry.", mode="fast")
    (line,) = github_annotations(rep, {"before": "b.txt", "after": "out,1:a.txt"})
    assert line.startswith("::error file=out%2C1%3Aa.txt,line=1,col=15,")
    assert ",title=RG201 dropped-unit::" in line
    assert "\n" not in line


def test_json_lines_one_finding_per_line(report: refgraph.Report) -> None:
    (line,) = json_lines(report, PATHS)
    d = json.loads(line)
    assert (d["code"], d["verdict"], d["evidence"][1]["path"]) == ("RG201", "reject",
                                                                  "ctx/after.txt")


@pytest.mark.parametrize("fmt", ["sarif", "github", "jsonl", "json"])
def test_cli_formats(tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    (tmp_path / "b.txt").write_text(BEFORE, encoding="utf-8")
    (tmp_path / "a.txt").write_text(AFTER, encoding="utf-8")
    code = main(["check", str(tmp_path / "b.txt"), str(tmp_path / "a.txt"), "--mode", "fast",
                 "--format", fmt])
    out = capsys.readouterr().out
    assert code == 1
    if fmt == "sarif":
        jsonschema.validate(json.loads(out), SCHEMA)
    elif fmt == "github":
        assert out.startswith(f"::error file={(tmp_path / 'a.txt').as_posix()},line=2,col=24")
    elif fmt == "jsonl":
        assert json.loads(out.splitlines()[0])["code"] == "RG201"
    else:
        assert json.loads(out)["findings"][0]["evidence"][0]["line"] == 2


def test_cli_github_and_jsonl_print_nothing_for_a_clean_rewrite(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "b.txt").write_text(BEFORE, encoding="utf-8")
    for fmt in ("github", "jsonl"):
        assert main(["check", str(tmp_path / "b.txt"), str(tmp_path / "b.txt"), "--mode", "fast",
                     "--format", fmt]) == 0
        assert capsys.readouterr().out == ""


def test_a_long_check_shows_parsing_progress_on_stderr(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = "".join(f"Step {k}: the worker {k} timeout is {k} seconds.\n\n" for k in range(1500))
    assert len(text) > 50_000
    (tmp_path / "b.txt").write_text(text, encoding="utf-8")
    (tmp_path / "a.txt").write_text(text.replace("timeout is 7 seconds", "timeout is 7"),
                                    encoding="utf-8")
    assert main(["check", str(tmp_path / "b.txt"), str(tmp_path / "a.txt"), "--mode", "fast",
                 "--isolated", "--format", "jsonl"]) == 1
    cap = capsys.readouterr()
    progress = [ln for ln in cap.err.splitlines() if ln.startswith("refgraph: parsing ")]
    assert progress[0].startswith("refgraph: parsing before: ")
    assert progress[-1].endswith(" blocks")
    assert json.loads(cap.out.splitlines()[0])["code"] == "RG201"
    # a short input shows none
    (tmp_path / "s.txt").write_text(BEFORE, encoding="utf-8")
    main(["check", str(tmp_path / "s.txt"), str(tmp_path / "s.txt"), "--mode", "fast",
          "--isolated"])
    assert "parsing" not in capsys.readouterr().err
