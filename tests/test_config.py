"""Configuration files, --policy, fingerprints, baselines, --statistics and --exit-zero."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import refgraph
from refgraph.baseline import baseline_dict, read_baseline, without_baseline
from refgraph.cli import main
from refgraph.config import Config, find_config, load_config, parse_policy
from refgraph.errors import InputError

BEFORE = "The timeout is 30 seconds.\nDo not deploy on Fridays.\n"
AFTER = "The timeout is 30.\nDeploy on Fridays.\n"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "before.md").write_text(BEFORE)
    (tmp_path / "after.md").write_text(AFTER)
    (tmp_path / "deep" / "er").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "deep" / "er")
    return tmp_path


def test_pyproject_table_is_found_upward_and_applied(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.refgraph]\nmode = "fast"\n'
        'policy = { RG201 = "warning", RG301 = "off" }\n')
    assert find_config() == project / "pyproject.toml"
    code, out, _ = run(capsys, "check", "../../before.md", "../../after.md",
                       "--format", "json")
    data = json.loads(out)
    assert data["mode"] == "fast"
    assert [(f["code"], f["severity"]) for f in data["findings"]] == [("RG201", "warning")]
    assert code == 0


def test_refgraph_toml_wins_over_pyproject_in_the_same_folder(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.refgraph]\nmode = "accurate"\n')
    (project / "refgraph.toml").write_text('mode = "fast"\nignore = ["RG3"]\n')
    cfg = load_config()
    assert cfg.path == project / "refgraph.toml"
    assert (cfg.mode, cfg.ignore) == ("fast", ("RG3",))


def test_a_pyproject_without_the_table_is_passed_over(project: Path) -> None:
    (project / "deep" / "pyproject.toml").write_text('[project]\nname = "x"\n')
    (project / "refgraph.toml").write_text('min-confidence = 0.8\n')
    assert load_config() == Config(min_confidence=0.8, path=project / "refgraph.toml")


def test_cli_options_override_the_file_and_isolated_ignores_it(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "refgraph.toml").write_text('mode = "fast"\nselect = ["RG3"]\n')
    code, out, _ = run(capsys, "check", "../../before.md", "../../after.md",
                       "--format", "json")
    assert [f["code"] for f in json.loads(out)["findings"]] == ["RG301"]
    code, out, _ = run(capsys, "check", "../../before.md", "../../after.md", "--format",
                       "json", "--select", "RG2", "--policy", "RG201=info")
    assert [(f["code"], f["severity"]) for f in json.loads(out)["findings"]] == \
        [("RG201", "info")]
    assert code == 0
    code, out, _ = run(capsys, "check", "../../before.md", "../../after.md", "--format",
                       "json", "--isolated", "--mode", "fast")
    assert sorted(f["code"] for f in json.loads(out)["findings"]) == ["RG201", "RG301"]
    assert code == 1


def test_explicit_config_file(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = project / "elsewhere.toml"
    cfg.write_text('mode = "fast"\npolicy = { RG201 = "off", RG301 = "off" }\n')
    code, out, _ = run(capsys, "check", "../../before.md", "../../after.md",
                       "--config", str(cfg))
    assert code == 0
    assert "verdict: apply" in out


@pytest.mark.parametrize(("content", "message"), [
    ('modes = "fast"\n', "unknown key 'modes'"),
    ('mode = "turbo"\n', "mode must be"),
    ('min-confidence = 2\n', "min-confidence must be"),
    ('select = ["XX9"]\n', "no code or prefix"),
    ('policy = { RG999 = "off" }\n', "unknown code 'RG999'"),
    ('policy = { RG201 = "loud" }\n', "must be error, warning, info or off"),
    ('mode = \n', "not valid TOML"),
])
def test_bad_configuration_is_one_line_and_exit_2(
        project: Path, capsys: pytest.CaptureFixture[str], content: str, message: str) -> None:
    (project / "refgraph.toml").write_text(content)
    code, out, err = run(capsys, "check", "../../before.md", "../../after.md")
    assert code == 2
    assert out == ""
    assert message in err
    assert "refgraph.toml" in err
    assert len(err.strip().splitlines()) == 1


def test_bad_cli_combinations(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for argv, message in [(["--write-baseline"], "needs --baseline"),
                          (["--isolated", "--config", "x.toml"], "cannot be used with"),
                          (["--config", "missing.toml"], "no such file"),
                          (["--policy", "RG201"], "is not CODE=SEVERITY"),
                          (["--baseline", "none.json"], "create it with --write-baseline")]:
        code, _, err = run(capsys, "check", "../../before.md", "../../after.md", "--mode",
                           "fast", *argv)
        assert code == 2, argv
        assert message in err


def test_fingerprints_survive_unrelated_edits() -> None:
    a = refgraph.analyze("The timeout is 30 seconds.", "The timeout is 30.", mode="fast")
    b = refgraph.analyze("# Notes\n\nIntro.\nThe timeout is  30 seconds.",
                         "# Notes\nThe timeout is 30.\nMore text here.", mode="fast")
    assert a.findings[0].fingerprint == b.findings[0].fingerprint
    c = refgraph.analyze("The timeout is 45 seconds.", "The timeout is 45.", mode="fast")
    assert c.findings[0].fingerprint != a.findings[0].fingerprint
    assert a.to_dict()["findings"][0]["fingerprint"] == a.findings[0].fingerprint


def test_baseline_round_trip(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "check", "../../before.md", "../../after.md", "--mode", "fast",
                       "--select", "RG2", "--baseline", "base.json", "--write-baseline")
    assert code == 0
    assert "wrote 1 finding to base.json" in err
    assert len(read_baseline("base.json")) == 1
    # the accepted finding is not reported again; a new one is
    code, out, _ = run(capsys, "check", "../../before.md", "../../after.md", "--mode", "fast",
                       "--baseline", "base.json", "--format", "json")
    data = json.loads(out)
    assert [f["code"] for f in data["findings"]] == ["RG301"]
    assert data["stats"]["baselined"] == 1
    assert code == 1


def test_without_baseline_recomputes_the_verdict() -> None:
    r = refgraph.analyze("The timeout is 30 seconds.", "The timeout is 30.", mode="fast")
    fps = frozenset(row["fingerprint"] for row in baseline_dict(r.findings)["findings"])
    clean = without_baseline(r, fps)
    assert (r.verdict, clean.verdict, clean.findings) == ("reject", "apply", [])


def test_a_broken_baseline_is_an_input_error(tmp_path: Path) -> None:
    p = tmp_path / "b.json"
    p.write_text('{"schema": "other"}')
    with pytest.raises(InputError, match=r"not a refgraph\.baseline/1 file"):
        read_baseline(p)


def test_statistics_and_exit_zero(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "check", "../../before.md", "../../after.md", "--mode", "fast",
                       "--statistics")
    assert code == 1
    assert out.split() == ["1", "RG201", "dropped-unit", "1", "RG301", "inverted-polarity"]
    code, out, _ = run(capsys, "check", "../../before.md", "../../after.md", "--mode", "fast",
                       "--statistics", "--format", "json", "--exit-zero")
    assert code == 0
    assert {r["code"]: r["count"] for r in json.loads(out)} == {"RG201": 1, "RG301": 1}


def test_lint_reads_the_configuration(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "notes.md").write_text("The timeout is 30.\n")
    code, out, _ = run(capsys, "lint", "../../notes.md", "--mode", "fast")
    assert code == 1
    assert "RG601" in out
    (project / "refgraph.toml").write_text('policy = { RG601 = "off" }\n')
    code, out, _ = run(capsys, "lint", "../../notes.md", "--mode", "fast")
    assert code == 0


def test_parse_policy_accepts_both_spellings() -> None:
    assert parse_policy("rg304=warning, RG104=off", "x") == {"RG304": "warning", "RG104": "off"}
    assert parse_policy({"RG304": "info"}, "x") == {"RG304": "info"}
    assert Config(mode="fast", policy={"RG304": "off"}).analyzer().policy["RG304"] == "off"
