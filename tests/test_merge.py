"""The file form: three_way_apply(base, live, diff) and `refgraph apply`."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from refgraph import AmbiguousAnchor, InputError, three_way_apply
from refgraph.cli import main

BASE = "\n".join(["# notes", "timeout: 30 s", "region: eu-west", "retries: 3", "owner: ana",
                  "status: green", "next: deploy", ""])


def udiff(a: str, b: str, n: int = 3) -> str:
    return "\n".join(difflib.unified_diff(a.split("\n"), b.split("\n"), "a/ctx", "b/ctx",
                                          lineterm="", n=n)) + "\n"


PATCH = udiff(BASE, BASE.replace("retries: 3", "retries: 5"))


def test_same_text_applies_at_the_stated_place() -> None:
    assert three_way_apply(BASE, BASE, PATCH) == BASE.replace("retries: 3", "retries: 5")


def test_drift_elsewhere_is_merged() -> None:
    live = "tool: 200 OK\n" + BASE + "tool: appended\n"
    assert three_way_apply(BASE, live, PATCH) == live.replace("retries: 3", "retries: 5")


def test_copied_block_makes_the_anchor_ambiguous() -> None:
    live = BASE + BASE  # a re-injected copy of the whole block
    with pytest.raises(AmbiguousAnchor, match="at 2 places"):
        three_way_apply(BASE, live, PATCH)


def test_rewritten_hunk_is_refused() -> None:
    live = BASE.replace("retries: 3", "retries: 4")
    with pytest.raises(AmbiguousAnchor, match="nowhere"):
        three_way_apply(BASE, live, PATCH)


def test_a_unique_copy_where_the_original_was_removed_is_refused() -> None:
    """LIVE lost the original block and holds a copy elsewhere: a text search would patch the
    copy; the alignment of BASE to LIVE says the copy is not where BASE's lines went."""
    lines = BASE.split("\n")
    block = lines[1:5]
    live_lines = ["intro"] * 3 + [lines[0]] + ["summary of settings"] + [lines[5]] \
        + ["appendix:"] + block
    with pytest.raises(AmbiguousAnchor):
        three_way_apply(BASE, "\n".join(live_lines), PATCH)


def test_diff_not_against_base_is_refused() -> None:
    with pytest.raises(AmbiguousAnchor, match="does not match BASE"):
        three_way_apply(BASE.replace("owner: ana", "owner: bo"), BASE, PATCH)


def test_bad_diff_is_input_error() -> None:
    with pytest.raises(InputError):
        three_way_apply(BASE, BASE, "not a diff")


# the CLI --------------------------------------------------------------------------------------


def _files(tmp_path: Path, live: str) -> tuple[str, str, str]:
    (tmp_path / "base.md").write_text(BASE)
    (tmp_path / "live.md").write_text(live)
    (tmp_path / "p.diff").write_text(PATCH)
    return str(tmp_path / "live.md"), str(tmp_path / "p.diff"), str(tmp_path / "base.md")


def test_cli_apply_writes_the_merge(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    live, patch, base = _files(tmp_path, "new first line\n" + BASE)
    out = tmp_path / "out.md"
    assert main(["apply", live, patch, "--base", base, "-o", str(out)]) == 0
    assert out.read_text() == "new first line\n" + BASE.replace("retries: 3", "retries: 5")
    assert main(["apply", live, patch, "--base", base]) == 0
    assert capsys.readouterr().out == out.read_text()


def test_cli_apply_rejects_with_code(tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    live, patch, base = _files(tmp_path, BASE + BASE)
    out = tmp_path / "out.md"
    assert main(["apply", live, patch, "--base", base, "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("refgraph: rejected: RG402 ")
    assert err.count("\n") == 1
    assert not out.exists()  # nothing written


@pytest.mark.parametrize("which", ["live", "patch", "base"])
def test_cli_apply_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                             which: str) -> None:
    live, patch, base = _files(tmp_path, BASE)
    args = {"live": live, "patch": patch, "base": base}
    args[which] = str(tmp_path / "missing")
    assert main(["apply", args["live"], args["patch"], "--base", args["base"]]) == 2
    err = capsys.readouterr().err
    assert err.startswith("refgraph: error: ")
    assert err.count("\n") == 1


def test_cli_apply_malformed_patch_is_bad_input(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    live, patch, base = _files(tmp_path, BASE)
    Path(patch).write_text("hello\n")
    assert main(["apply", live, patch, "--base", base]) == 2
    assert "no hunk" in capsys.readouterr().err


def test_cli_apply_check_refuses_a_corrupting_patch(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    live, patch, base = _files(tmp_path, BASE)
    Path(patch).write_text(udiff(BASE, BASE.replace("timeout: 30 s", "timeout: 30")))
    out = tmp_path / "out.md"
    args = ["apply", live, patch, "--base", base, "-o", str(out), "--mode", "fast"]
    assert main(args) == 0  # without --check it only merges
    out.unlink()
    assert main([*args, "--check"]) == 1
    err = capsys.readouterr().err
    assert "RG201 dropped-unit" in err
    assert err.rstrip().endswith("blocking findings RG201; nothing was written")
    assert not out.exists()
    Path(patch).write_text(udiff(BASE, BASE.replace("next: deploy", "next step: deploy")))
    assert main([*args, "--check"]) == 0
    assert out.read_text() == BASE.replace("next: deploy", "next step: deploy")


def test_cli_apply_stdout_is_the_exact_utf8_text(tmp_path: Path) -> None:
    """An ASCII terminal must not change the merged text (no backslash escapes)."""
    import os
    import subprocess
    import sys

    base = BASE.replace("owner: ana", "owner: zoë (café team)")
    (tmp_path / "base.md").write_text(base, encoding="utf-8")
    (tmp_path / "live.md").write_text("tool: ✓ done\n" + base, encoding="utf-8")
    (tmp_path / "p.diff").write_text(udiff(base, base.replace("retries: 3", "retries: 5")),
                                     encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "refgraph", "apply", "live.md", "p.diff",
                          "--base", "base.md"], cwd=tmp_path, capture_output=True,
                         env={**os.environ, "PYTHONIOENCODING": "ascii"}, check=False)
    assert run.returncode == 0, run.stderr
    expected = "tool: ✓ done\n" + base.replace("retries: 3", "retries: 5")
    assert run.stdout.decode("utf-8") == expected


def test_short_preimage_is_refused_when_its_neighbours_moved() -> None:
    """A diff without context (-U0) on a line that a tool also re-injected below: the original
    was edited, the copy is untouched; without history the copy must not be patched."""
    base = "a\nstatus: pending\nb"
    live = "a\nstatus: pending (edited by tool)\nb\nstatus: pending"
    with pytest.raises(AmbiguousAnchor, match="their neighbours"):
        three_way_apply(base, live, "@@ -2 +2 @@\n-status: pending\n+status: done\n")
    assert three_way_apply(base, "x\n" + base, "@@ -2 +2 @@\n-status: pending\n+status: done\n") \
        == "x\na\nstatus: done\nb"


def test_a_copy_beside_an_edited_original_is_refused() -> None:
    """A block re-injected right above its original, then an edit that removes the original's
    second half: the one whole match is the copy. (Found on seed 2 of the apply benchmark.)"""
    base = "\n".join(["intro", "log: health check passed", "```", "", "user: ok, go ahead.", "",
                      "assistant: Done.", "outro"])
    diff = udiff(base, base.replace("```\n\nuser: ok", "```\n\nnote: added\nuser: ok"))
    lines = base.split("\n")
    live = lines[:1] + lines[1:7] + lines[1:4] + lines[7:]  # copy above, original loses its end
    with pytest.raises(AmbiguousAnchor):
        three_way_apply(base, "\n".join(live), diff)


def test_a_new_near_copy_of_the_hunk_is_refused() -> None:
    # LIVE gained a copy of the hunk's lines with one of them edited: the exact match may be
    # the copy and the edited one the original, so the file form cannot tell where to patch.
    lines = BASE.split("\n")
    copy = [*lines[1:3], "retries: 4", *lines[4:7]]
    live = "\n".join([*lines[:-1], "", "appendix:", *copy, ""])
    with pytest.raises(AmbiguousAnchor, match="near copy"):
        three_way_apply(BASE, live, PATCH)
