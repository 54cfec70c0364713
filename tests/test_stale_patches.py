"""The stale-patch generator and its oracle (``benchmarks/stale_patches.py``) stay right.

The oracle's rebase is checked against a second, independent formulation of the same contract
(lines carry identities through the drift; a pure-insertion hunk is a marker between lines), the
diff writer against a small applier of its own, and the generator for determinism and for
scenarios whose class matches their truth. Nothing here imports refgraph's guarded apply, so the
measurement side keeps working while the library changes. The hypothesis strategies defined here
are shared with ``test_apply_properties.py``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks import stale_patches as sp
from benchmarks.stale_patches import DriftStep, Edit, Scenario

_DEEP = int(os.environ.get("REFGRAPH_PROPERTY_EXAMPLES", "0"))
PROPS = settings(max_examples=_DEEP or 200, deadline=None, derandomize=not _DEEP, database=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
"""CI: 200 examples, derandomized. ``REFGRAPH_PROPERTY_EXAMPLES=5000`` for a deep random hunt."""

# --------------------------------------------------------------------------------------------
# Strategies: tiny alphabets, so buffers are full of duplicate lines
# --------------------------------------------------------------------------------------------

ALPHABET = ("a", "b", "", "x y", "```", "}")
NEW = ("a", "b", "", "N", "M 1")


@st.composite
def bases(draw: st.DrawFn) -> str:
    """A text of 0-24 lines drawn from a tiny alphabet, with or without a final newline."""
    lines = draw(st.lists(st.sampled_from(ALPHABET), min_size=0, max_size=24))
    newline = draw(st.booleans()) if lines and lines[-1] else True
    return "\n".join(lines) + ("\n" if newline else "")


def _minimal(old: list[str], new: list[str]) -> bool:
    """No common first or last line: the edit changes exactly the lines it names."""
    return not (old and new and (old[0] == new[0] or old[-1] == new[-1]))


@st.composite
def patches(draw: st.DrawFn, base: str) -> tuple[Edit, ...]:
    """1-3 sorted patch edits on ``base``'s file lines, separated by an untouched line.

    With no final newline, the last line is left alone (a diff could not say otherwise).
    """
    flines, newline = sp.file_lines(base)
    limit = len(flines) if newline else len(flines) - 1
    edits: list[Edit] = []
    prev_end = -1
    for _ in range(draw(st.integers(1, 3))):
        if prev_end + 1 > limit:
            break
        a = draw(st.integers(prev_end + 1, min(limit, prev_end + 7)))
        b = draw(st.integers(a, min(limit, a + 4)))
        new = draw(st.lists(st.sampled_from(NEW), min_size=0 if a < b else 1, max_size=3))
        if not _minimal(flines[a:b], new):
            continue
        edits.append(Edit(a, b, tuple(new)))
        prev_end = b
    if not edits:
        at = draw(st.integers(0, limit))
        edits.append(Edit(at, at, ("N",)))
    return tuple(edits)


@st.composite
def drifts(draw: st.DrawFn, base: str, max_steps: int = 4) -> tuple[DriftStep, ...]:
    """0-``max_steps`` recorded edits (appends, inserts, replacements, deletions) after base.

    Each is minimal (see ``_minimal``) and leaves at least one line in the buffer.
    """
    lines = base.split("\n")
    steps: list[DriftStep] = []
    for _ in range(draw(st.integers(0, max_steps))):
        n = len(lines)
        if draw(st.integers(0, 3)) == 0:
            new = draw(st.lists(st.sampled_from(NEW), min_size=1, max_size=3))
            step = DriftStep("append", Edit(n, n, tuple(new)), append=True)
        else:
            s = draw(st.integers(0, n))
            e = draw(st.integers(s, min(n, s + 4)))
            new = draw(st.lists(st.sampled_from(NEW), min_size=0 if s < e else 1, max_size=3))
            if not _minimal(lines[s:e], new) or n - (e - s) + len(new) < 1:
                continue
            step = DriftStep("edit", Edit(s, e, tuple(new)))
        lines = sp.apply_edit(lines, step.edit)
        steps.append(step)
    return tuple(steps)


# --------------------------------------------------------------------------------------------
# A second oracle: identities instead of position arithmetic
# --------------------------------------------------------------------------------------------


def simulate(base: str, drift: Sequence[DriftStep], patch: Sequence[Edit]) -> str | None:
    """The rebase contract as a simulation: every line keeps an identity through the drift.

    A non-empty patch edit merges iff its lines all survive, still adjacent; a pure insertion is
    a marker sitting between two lines, which a drift insertion at its gap goes before, a drift
    replacement starting at its gap goes after, and a replacement around it destroys.
    """
    lines = base.split("\n")
    # The latest revision whose text is the base's.
    texts = [lines]
    for d in drift:
        texts.append(sp.apply_edit(texts[-1], d.edit))
    start = max(i for i, t in enumerate(texts) if t == lines)
    items: list[tuple[str, int, str]] = []
    marks = {p.start: k for k, p in enumerate(patch) if p.start == p.end}
    for i, text in enumerate(texts[start]):
        if i in marks:
            items.append(("mark", marks[i], ""))
        items.append(("line", i, text))
    if len(texts[start]) in marks:
        items.append(("mark", marks[len(texts[start])], ""))
    fresh = len(texts[start])
    for d in drift[start:]:
        e = d.edit
        real = [j for j, it in enumerate(items) if it[0] == "line"]
        new: list[tuple[str, int, str]] = []
        for text in e.lines:
            new.append(("line", fresh, text))
            fresh += 1
        if e.start == e.end:
            at = real[e.start - 1] + 1 if e.start else 0
            items[at:at] = new
            continue
        lo, hi = real[e.start], real[e.end - 1]
        if any(items[j][0] == "mark" for j in range(lo, hi + 1)):
            return None
        items[lo:hi + 1] = new
    ids = [(it[0], it[1]) for it in items]
    out: list[str] = []
    skip: set[int] = set()
    firsts: dict[int, int] = {}
    for k, p in enumerate(patch):
        if p.start == p.end:
            continue
        want = [("line", i) for i in range(p.start, p.end)]
        at = ids.index(want[0]) if want[0] in ids else -1
        if at < 0 or ids[at:at + len(want)] != want:
            return None
        firsts[at] = k
        skip.update(range(at, at + len(want)))
    for j, it in enumerate(items):
        if it[0] == "mark":
            out += patch[it[1]].lines
        elif j in firsts:
            out += patch[firsts[j]].lines
        elif j not in skip:
            out.append(it[2])
    return "\n".join(out)


@st.composite
def cases(draw: st.DrawFn) -> tuple[str, tuple[Edit, ...], tuple[DriftStep, ...]]:
    base = draw(bases())
    return base, draw(patches(base)), draw(drifts(base))


@PROPS
@given(cases())
def test_rebase_agrees_with_the_identity_simulation(
        case: tuple[str, tuple[Edit, ...], tuple[DriftStep, ...]]) -> None:
    base, patch, drift = case
    assert sp.rebase(base, [d.edit for d in drift], patch) == simulate(base, drift, patch)


# --------------------------------------------------------------------------------------------
# The rules, one example each
# --------------------------------------------------------------------------------------------

BASE = "l0\nl1\nl2\nl3\nl4\nl5\n"


@pytest.mark.parametrize(("drift", "patch", "expected"), [
    # a drift insertion exactly at the hunk's start goes before it
    ([Edit(2, 2, ("D",))], [Edit(2, 4, ("P",))], "l0\nl1\nD\nP\nl4\nl5\n"),
    # ... and before an insertion hunk at the same point
    ([Edit(2, 2, ("D",))], [Edit(2, 2, ("P",))], "l0\nl1\nD\nP\nl2\nl3\nl4\nl5\n"),
    # at the hunk's end: after it, no shift
    ([Edit(4, 4, ("D",))], [Edit(2, 4, ("P",))], "l0\nl1\nP\nD\nl4\nl5\n"),
    # changing a context line next to the hunk is no conflict
    ([Edit(1, 2, ("C",))], [Edit(2, 4, ())], "l0\nC\nl4\nl5\n"),
    ([Edit(4, 5, ("C",))], [Edit(2, 4, ())], "l0\nl1\nC\nl5\n"),
    # a rewrite above shifts the hunk by its size change
    ([Edit(0, 2, ("S",))], [Edit(3, 4, ("P",))], "S\nl2\nP\nl4\nl5\n"),
    # a replacement starting at an insertion point stays after the inserted lines
    ([Edit(2, 3, ("R",))], [Edit(2, 2, ("P",))], "l0\nl1\nP\nR\nl3\nl4\nl5\n"),
    # conflicts: a removed line edited, an insertion strictly inside, a range around a point
    ([Edit(3, 4, ("C",))], [Edit(2, 4, ())], None),
    ([Edit(3, 3, ("D",))], [Edit(2, 4, ())], None),
    ([Edit(1, 3, ("R",))], [Edit(2, 2, ("P",))], None),
    # the base text recurring means its latest revision: only the drift after it counts
    ([Edit(3, 4, ("C",)), Edit(3, 4, ("l3",)), Edit(0, 0, ("T",))], [Edit(2, 4, ())],
     "T\nl0\nl1\nl4\nl5\n"),
])
def test_rebase_rules(drift: list[Edit], patch: list[Edit], expected: str | None) -> None:
    assert sp.rebase(BASE, drift, patch) == expected
    assert simulate(BASE, [DriftStep("edit", d) for d in drift], patch) == expected


def test_rebase_refuses_malformed_patches() -> None:
    with pytest.raises(ValueError, match="separated"):
        sp.rebase(BASE, [], [Edit(1, 3, ()), Edit(3, 4, ())])
    with pytest.raises(ValueError, match="outside"):
        sp.rebase(BASE, [], [Edit(5, 9, ())])


# --------------------------------------------------------------------------------------------
# The diff writer
# --------------------------------------------------------------------------------------------

HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@$")


def apply_diff(base: str, diff: str) -> str:
    """A strict applier for the writer's output: hunks at their stated lines, no fuzz."""
    flines, newline = sp.file_lines(base)
    lines = diff.split("\n")
    assert lines[0].startswith("--- a/")
    assert lines[1].startswith("+++ b/")
    out: list[str] = []
    pos = 0
    new_newline = newline
    i = 2
    while i < len(lines) and lines[i]:
        m = HUNK.match(lines[i])
        assert m, lines[i]
        old_start, old_len = int(m[1]), int(m[2] or 1)
        first = old_start - 1 if old_len else old_start
        out += flines[pos:first]
        pos = first
        i += 1
        seen_old = seen_new = 0
        new_len = int(m[4] or 1)
        while seen_old < old_len or seen_new < new_len:
            tag, text = lines[i][:1], lines[i][1:]
            if tag in " -":
                assert flines[pos] == text
                pos += 1
                seen_old += 1
            if tag in " +":
                out.append(text)
                seen_new += 1
            i += 1
        if i < len(lines) and lines[i] == "\\ No newline at end of file":
            i += 1
    out += flines[pos:]
    return "\n".join(out) + ("\n" if out and new_newline else "")


def test_unified_diff_format() -> None:
    diff = sp.unified_diff("a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\n",
                           [Edit(1, 2, ("B",)), Edit(5, 5, ("new",)), Edit(11, 12, ())])
    assert diff == (
        "--- a/context.md\n+++ b/context.md\n"
        "@@ -1,12 +1,12 @@\n a\n-b\n+B\n c\n d\n e\n+new\n f\n g\n h\n i\n j\n k\n-l\n")
    far = sp.unified_diff("\n".join("abcdefghijklmnop") + "\n",
                          [Edit(0, 1, ()), Edit(15, 15, ("z",))])
    assert far == ("--- a/context.md\n+++ b/context.md\n@@ -1,4 +1,3 @@\n-a\n b\n c\n d\n"
                   "@@ -13,4 +12,5 @@\n m\n n\n o\n+z\n p\n")
    tail = sp.unified_diff("a\nb\nc", [Edit(0, 1, ("A",))])
    assert tail.endswith(" c\n\\ No newline at end of file\n")
    assert sp.unified_diff("", [Edit(0, 0, ("x",))]).endswith("@@ -0,0 +1 @@\n+x\n")
    with pytest.raises(ValueError, match="last line"):
        sp.unified_diff("a\nb", [Edit(1, 2, ())])


@PROPS
@given(st.data())
def test_unified_diff_says_exactly_the_patch(data: st.DataObject) -> None:
    base = data.draw(bases())
    patch = data.draw(patches(base))
    diff = sp.unified_diff(base, patch)
    assert apply_diff(base, diff) == "\n".join(sp.apply_edits(base.split("\n"), patch))


# --------------------------------------------------------------------------------------------
# The generator
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def scenarios() -> list[Scenario]:
    return list(sp.generate(60, seed=7, conflicts=0.25))


def test_generate_is_deterministic(scenarios: list[Scenario]) -> None:
    again = sp.generate(60, seed=7, conflicts=0.25)
    assert [s.to_dict() for s in scenarios] == [s.to_dict() for s in again]
    assert sp.make_scenario(7, 5, conflict=scenarios[5].conflict) == scenarios[5]
    assert sp.generate(60, seed=8, conflicts=0.25)[0].base != scenarios[0].base


def test_generate_mix(scenarios: list[Scenario]) -> None:
    summary = sp.summary(scenarios)
    assert (summary["conflict"], summary["mergeable"]) == (15, 45)
    assert summary["lines"][0] >= 40
    assert summary["lines"][1] <= 400
    assert set(summary["patch_kinds"]) == {"delete", "replace", "insert"}
    kinds = set(summary["drift_kinds"])
    assert len(kinds & set(sp.MERGEABLE_DRIFT)) >= 6
    assert kinds & set(sp.CONFLICT_DRIFT)


def test_scenarios_are_consistent(scenarios: list[Scenario]) -> None:
    for s in scenarios:
        assert s.base.endswith("\n")
        assert s.live != s.base
        assert s.truth == sp.rebase(s.base, [d.edit for d in s.drift], s.patch)
        assert s.truth == simulate(s.base, s.drift, s.patch)
        assert apply_diff(s.base, s.diff) == s.patched_base
        assert s.conflict == any(k in sp.CONFLICT_DRIFT for k in s.drift_kinds)
        for d in s.drift:
            if d.append:
                assert d.edit.lines == tuple(d.text.split("\n"))
        assert sp.Scenario.from_dict(s.to_dict()) == s


def test_contexts_repeat_blocks(scenarios: list[Scenario]) -> None:
    """Verbatim repeats (tool outputs, the re-injected prompt) are what mislead text matching."""
    for s in scenarios[:20]:
        lines = [x for x in s.base.split("\n") if len(x) > 12]
        assert len(lines) > len(set(lines))


def test_cli_prints_a_summary(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "s.jsonl"
    assert sp.main(["--n", "10", "--seed", "3", "--out", str(out), "--show", "2"]) == 0
    printed = capsys.readouterr().out
    assert '"scenarios": 10' in printed
    assert "scenario 2:" in printed
    assert len(out.read_text().splitlines()) == 10
