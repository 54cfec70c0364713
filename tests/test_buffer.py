"""ContextBuffer and Patch: revisions, exact apply, rebase through recorded edits, rejections."""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import subprocess
import threading
from pathlib import Path

import pytest

import refgraph
from refgraph import (
    AmbiguousAnchor,
    ContextBuffer,
    EditConflict,
    Gate,
    InputError,
    Patch,
    RewriteRejected,
    StaleBase,
)
from refgraph.rules import RULES, Rule

GUARD_RULES = [r for r in RULES if r.guard]


def udiff(a: str, b: str, n: int = 3) -> str:
    return "\n".join(difflib.unified_diff(a.split("\n"), b.split("\n"), "a", "b", lineterm="",
                                          n=n)) + "\n"


CONTEXT = "\n".join([
    "system: you are a release agent",
    "user: ship v2 once tests pass",
    "tool[run_tests]: 41 passed",
    "assistant: tests are green",
    "tool[run_tests]: 41 passed",
    "assistant: next, deploy",
])


# the buffer -----------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "a", "a\n", "\n\n", "a\r\nb", "x\ny\nz\n"])
def test_text_round_trips_exactly(text: str) -> None:
    buf = ContextBuffer(text)
    assert buf.text == text
    assert buf.lines == tuple(text.split("\n"))
    assert buf.sha256 == hashlib.sha256(text.encode()).hexdigest()
    snap = buf.snapshot()
    assert (snap.text, snap.revision, snap.sha256) == (text, 0, buf.sha256)


def test_edits_and_appends_make_revisions() -> None:
    buf = ContextBuffer("a\nb\nc")
    assert buf.edit(1, 2, ["B", "B2"]) == 1
    assert buf.append("tool: 7") == 2
    assert buf.text == "a\nB\nB2\nc\ntool: 7"
    assert [r.source for r in buf.history()] == ["init", "edit", "append"]
    assert buf.lines_at(0) == ["a", "b", "c"]
    assert buf.lines_at(1) == ["a", "B", "B2", "c"]


def test_a_hash_several_revisions_share_means_the_latest() -> None:
    buf = ContextBuffer("a\nb")
    sha0 = buf.sha256
    buf.edit(0, 1, ["x"])
    buf.edit(0, 1, ["a"])  # back to the initial text: r2
    assert buf.revision_of(sha0) == 2
    buf.append("c")
    buf.apply(Patch.splice(1, 2, ["B"], base=sha0))
    assert buf.text == "a\nB\nc"


@pytest.mark.parametrize(("args", "message"), [
    ((2, 1, []), "line range"),
    ((0, 9, []), "line range"),
    ((0, 0, ["a\nb"]), "without newline"),
    ((0, 0, "ab"), "list of lines"),
])
def test_bad_edits_are_input_errors(args: tuple[int, int, object], message: str) -> None:
    buf = ContextBuffer("a\nb")
    with pytest.raises(InputError, match=message):
        buf.edit(*args)  # type: ignore[arg-type]
    assert buf.revision == 0


# exact apply ----------------------------------------------------------------------------------


def test_patch_at_live_revision_applies_exactly() -> None:
    buf = ContextBuffer(CONTEXT)
    new = CONTEXT.replace("assistant: tests are green", "assistant: tests are green (41)")
    rev = buf.apply(Patch.from_unified_diff(udiff(CONTEXT, new), base=buf.sha256))
    assert rev == 1
    assert buf.text == new


def test_replace_must_be_unique_in_the_base() -> None:
    buf = ContextBuffer(CONTEXT)
    with pytest.raises(AmbiguousAnchor, match="2 times"):
        buf.apply(Patch.replace("tool[run_tests]: 41 passed", "tests: green", base=buf.sha256))
    with pytest.raises(AmbiguousAnchor, match="nowhere"):
        buf.apply(Patch.replace("no such text", "x", base=buf.sha256))
    assert buf.revision == 0
    assert buf.text == CONTEXT


def test_replace_becomes_the_smallest_line_range() -> None:
    buf = ContextBuffer(CONTEXT)
    buf.apply(Patch.replace("once tests", "only once tests", base=buf.sha256))
    (rev,) = buf.history()[1:]
    assert [(d.start, d.end, d.new_lines) for d in rev.edits] == [
        (1, 2, ("user: ship v2 only once tests pass",))]


def test_diff_that_does_not_match_its_base_is_refused() -> None:
    buf = ContextBuffer(CONTEXT)
    other = CONTEXT.replace("tests are green", "tests are red")
    diff = udiff(other, other.replace("deploy", "roll out"))
    with pytest.raises(AmbiguousAnchor, match="does not match r0"):
        buf.apply(Patch.from_unified_diff(diff, base=buf.sha256))


def test_unknown_base_is_stale() -> None:
    buf = ContextBuffer(CONTEXT)
    foreign = hashlib.sha256(b"another context").hexdigest()
    with pytest.raises(StaleBase, match="re-author it against r0") as info:
        buf.apply(Patch.replace("deploy", "ship", base=foreign))
    assert info.value.code == "RG401"
    assert info.value.live_revision == 0


# rebase: the r17/r18 story --------------------------------------------------------------------


def test_stale_patch_is_rebased_by_position_not_by_text_search() -> None:
    """A block the patch edits is copied above it after the patch was authored: the rebased
    patch edits the original, which a text search would not know from the copy."""
    buf = ContextBuffer(CONTEXT)
    r0 = buf.snapshot()
    # The model summarizes the *second* test run (line 5 of r0)...
    patch = Patch.splice(4, 5, ["tool[run_tests]: 41 passed (re-run, same result)"], base=r0.sha256)
    # ...while a tool result identical to it lands at the top: r1.
    buf.edit(0, 0, ["tool[run_tests]: 41 passed"])
    buf.apply(patch)
    lines = buf.text.split("\n")
    assert lines[0] == "tool[run_tests]: 41 passed"  # the new copy is untouched
    assert lines[3] == "tool[run_tests]: 41 passed"  # the first run is untouched
    assert lines[5] == "tool[run_tests]: 41 passed (re-run, same result)"


def test_edits_touching_the_boundary_or_context_do_not_conflict() -> None:
    buf = ContextBuffer(CONTEXT)
    r0 = buf.snapshot()
    new = CONTEXT.replace("assistant: tests are green", "assistant: all 41 tests passed")
    patch = Patch.from_unified_diff(udiff(CONTEXT, new), base=r0.sha256)
    buf.edit(2, 3, ["tool[run_tests]: 41 passed in 3.2 s"])  # a context line, changed
    buf.edit(4, 4, ["note: inserted right after the hunk"])  # touches the boundary
    buf.append("tool: deploy queued")
    buf.apply(patch)
    assert buf.text.split("\n")[2:5] == ["tool[run_tests]: 41 passed in 3.2 s",
                                         "assistant: all 41 tests passed",
                                         "note: inserted right after the hunk"]


@pytest.mark.parametrize("drift", [
    (3, 4, ["assistant: tests are NOT green"]),  # changed a replaced line
    (3, 3, ["x"]),  # inserted at the start of the patch's line: fine, see below
])
def test_edit_inside_the_replaced_lines_conflicts(drift: tuple[int, int, list[str]]) -> None:
    buf = ContextBuffer(CONTEXT)
    r0 = buf.snapshot()
    new = CONTEXT.replace("tests are green\ntool[run_tests]: 41 passed",
                          "tests are green, twice")
    patch = Patch.from_unified_diff(udiff(CONTEXT, new), base=r0.sha256)
    buf.edit(*drift)
    if drift[0] == drift[1]:
        buf.apply(patch)  # an insertion at the hunk's first line lands above it
        assert "x\nassistant: tests are green, twice" in buf.text
        return
    with pytest.raises(EditConflict, match="r1 changed line 4 ") as info:
        buf.apply(patch)
    assert info.value.code == "RG403"
    assert "re-author the patch against it" in str(info.value)


def test_insertion_strictly_inside_the_replaced_lines_conflicts() -> None:
    buf = ContextBuffer(CONTEXT)
    r0 = buf.snapshot()
    patch = Patch.splice(2, 5, ["tool[run_tests]: 41 passed, twice"], base=r0.sha256)
    buf.edit(3, 3, ["user: wait, one test is flaky"])
    with pytest.raises(EditConflict):
        buf.apply(patch)
    assert "user: wait, one test is flaky" in buf.text  # nothing written


def test_multi_hunk_patch_applies_all_or_nothing() -> None:
    text = "\n".join(f"line {i}" for i in range(40))
    buf = ContextBuffer(text)
    r0 = buf.snapshot()
    new = text.replace("line 3\n", "line three\n").replace("line 30\n", "line thirty\n")
    patch = Patch.from_unified_diff(udiff(text, new), base=r0.sha256)
    assert len(patch.hunks) == 2
    buf.edit(30, 31, ["line 30 changed by a tool"])
    with pytest.raises(EditConflict):
        buf.apply(patch)
    assert "line three" not in buf.text
    buf2 = ContextBuffer(text)
    buf2.edit(10, 10, ["inserted between the hunks"])
    buf2.apply(Patch.from_unified_diff(udiff(text, new), base=r0.sha256))
    assert "line three" in buf2.text
    assert "line thirty" in buf2.text
    assert buf2.text.index("line three") < buf2.text.index("inserted between the hunks")


# unified diffs --------------------------------------------------------------------------------


def test_context_lines_between_changes_are_not_claimed() -> None:
    p = Patch.from_unified_diff("@@ -1,5 +1,5 @@\n-a\n+A\n b\n c\n-d\n+D\n e\n", base="0" * 64)
    assert [(h.start, h.end) for h in p.hunks] == [(0, 1), (3, 4)]


@pytest.mark.parametrize(("old", "new"), [
    ("a\nb\n", "a\nb"),
    ("a\nb", "a\nb\n"),
    ("a\nb", "a\nc"),
    ("a\nb\n", "a\nc\n"),
    ("", "x\n"),
    ("x\n", ""),
])
def test_gnu_diff_no_newline_markers(tmp_path: Path, old: str, new: str) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_text(old)
    b.write_text(new)
    diff = subprocess.run(["diff", "-u", str(a), str(b)], capture_output=True,
                          text=True).stdout
    buf = ContextBuffer(old)
    buf.apply(Patch.from_unified_diff(diff, base=buf.sha256))
    assert buf.text == new


@pytest.mark.parametrize(("diff", "message"), [
    ("", "no hunk"),
    ("@@ -1,2 +1,2 @@\n-a\n+b\n", "has 1 old"),
    ("@@ -1 +1 @@\n-a\n+b\n--- x\n+++ y\n@@ -1 +1 @@\n-a\n+b\n", "more than one file"),
    ("--- a\n+++ b\n--- c\n+++ d\n@@ -1 +1 @@\n-a\n+b\n", "more than one file"),
    ("@@ -1 +1 @@\n?a\n", "expected"),
])
def test_malformed_diffs_are_input_errors(diff: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        Patch.from_unified_diff(diff, base="0" * 64)


@pytest.mark.parametrize("kwargs", [
    {"base": "abc"},
    {"base": "0" * 64, "intent": "compress"},
    {"base": "0" * 64, "declared_span": (3, 1)},
])
def test_bad_patch_arguments_are_input_errors(kwargs: dict[str, object]) -> None:
    with pytest.raises(InputError):
        Patch.replace("a", "b", **kwargs)  # type: ignore[arg-type]


# the catalogue's stale-patch stories ----------------------------------------------------------


@pytest.mark.parametrize("rule", GUARD_RULES, ids=[r.code for r in GUARD_RULES])
def test_guard_rule_example_raises_its_code(rule: type[Rule]) -> None:
    ex = rule.guard_example
    assert ex is not None
    buf = ContextBuffer(ex.base)
    base = hashlib.sha256(b"never held").hexdigest() if ex.unknown_base else buf.sha256
    for s, e, lines in ex.drift:
        buf.edit(s, e, lines)
    patch = (Patch.replace(*ex.replace, base=base) if ex.replace is not None
             else Patch.from_unified_diff(ex.diff or "", base=base))
    apply = Gate(buf, mode="fast").submit if rule.gate else buf.apply
    with pytest.raises(RewriteRejected) as info:
        apply(patch)
    assert info.value.code == rule.code
    assert rule.code in str(info.value)


def test_guard_codes_are_in_the_catalogue() -> None:
    assert [r.code for r in GUARD_RULES] == ["RG400", "RG401", "RG402", "RG403"]
    assert refgraph.rules.get_rule("rg403").name == "edit-conflict"


# concurrency ----------------------------------------------------------------------------------


def test_concurrent_writers_lose_no_update() -> None:
    buf = ContextBuffer("start")
    r0 = buf.snapshot()

    def writer(k: int) -> None:
        for i in range(50):
            buf.append(f"tool {k}.{i}")

    def patcher() -> None:
        for _ in range(20):
            snap = buf.snapshot()
            with contextlib.suppress(RewriteRejected):
                buf.apply(Patch.replace(snap.text.split("\n")[0],
                                        snap.text.split("\n")[0] + "!", base=snap.sha256))

    threads = [threading.Thread(target=writer, args=(k,)) for k in range(4)]
    threads.append(threading.Thread(target=patcher))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lines = buf.text.split("\n")
    assert {f"tool {k}.{i}" for k in range(4) for i in range(50)} <= set(lines)
    assert lines[0] == "start" + "!" * 20
    assert buf.revision == 200 + 20
    assert buf.lines_at(0) == r0.text.split("\n")


# a second reader's findings ---------------------------------------------------------------------


def test_replace_stays_on_the_lines_old_occupies() -> None:
    """Trimming whole texts slid the hunk past a tool result appended after the base."""
    buf = ContextBuffer("plan:\nstep 1: run tests")
    r17 = buf.snapshot()
    buf.append("tool: tests passed")
    buf.apply(Patch.replace("step 1: run tests", "step 1: run tests\nstep 2: deploy",
                            base=r17.sha256))
    assert buf.text == "plan:\nstep 1: run tests\nstep 2: deploy\ntool: tests passed"


def test_replace_with_a_repeated_line_binds_to_the_quoted_copy() -> None:
    buf = ContextBuffer("a\nb\na\nc")
    r0 = buf.snapshot()
    buf.edit(0, 1, ["A (edited by tool)"])  # the quoted 'a' changed: conflict
    with pytest.raises(EditConflict):
        buf.apply(Patch.replace("a\nb\n", "", base=r0.sha256))
    buf = ContextBuffer("a\nb\na\nc")
    buf.edit(2, 3, ["a2"])  # the other 'a' changed: no conflict
    buf.apply(Patch.replace("a\nb\n", "", base=r0.sha256))
    assert buf.text == "a2\nc"


def test_no_newline_marker_must_be_at_the_end_of_the_base() -> None:
    buf = ContextBuffer("a\nb\nc")
    with pytest.raises(AmbiguousAnchor):
        buf.apply(Patch.from_unified_diff("@@ -2 +2 @@\n-b\n\\ No newline at end of file\n+B\n",
                                          base=buf.sha256))
    buf = ContextBuffer("a\nb")  # translated marker (GNU diff under another locale)
    buf.apply(Patch.from_unified_diff("@@ -2 +2 @@\n-b\n\\ Kein Zeilenumbruch am Dateiende.\n+B\n",
                                      base=buf.sha256))
    assert buf.text == "a\nB\n"


def test_odd_arguments_are_input_errors_and_patches_pickle() -> None:
    import pickle

    buf = ContextBuffer("a\nb")
    with pytest.raises(InputError):
        buf.edit(0, 1, None)  # type: ignore[arg-type]
    with pytest.raises(InputError):
        Patch.splice(0, 1, 5, base=buf.sha256)  # type: ignore[arg-type]
    with pytest.raises(InputError):
        buf.lines_at("1")  # type: ignore[arg-type]
    patch = pickle.loads(pickle.dumps(Patch.splice(0, 1, ["x"], base=buf.sha256)))
    buf.apply(patch)
    assert buf.text == "x\nb"
