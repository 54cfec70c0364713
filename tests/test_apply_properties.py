"""Property tests of the guarded apply against an independent oracle.

For random buffers full of duplicate lines, random patches (1-3 separated hunks, as unified diffs
or splices) and random drifts recorded through the buffer, ``ContextBuffer.apply`` must give
exactly the oracle's ground truth (``benchmarks/stale_patches.rebase``, written from the rebase
contract, not from refgraph) or a rejection, never anything else: a mergeable patch is applied (it
loses nothing) and a conflicting one is refused, leaving the buffer as it was. Concurrent writers
lose no update. The strategies come from ``test_stale_patches.py``.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchmarks import stale_patches as sp
from benchmarks.stale_patches import DriftStep, Edit
from refgraph import (
    AmbiguousAnchor,
    ContextBuffer,
    EditConflict,
    Patch,
    RewriteRejected,
    StaleBase,
)
from tests.test_stale_patches import ALPHABET, NEW, PROPS, bases, drifts, patches

ROOT = Path(__file__).resolve().parent.parent


def record(base: str, drift: Sequence[DriftStep]) -> ContextBuffer:
    """A buffer of ``base`` with ``drift`` recorded through ``edit`` / ``append``."""
    buf = ContextBuffer(base)
    for step in drift:
        if step.append:
            buf.append(step.text)
        else:
            buf.edit(step.edit.start, step.edit.end, list(step.edit.lines))
    return buf


def live_text(base: str, drift: Sequence[DriftStep]) -> str:
    lines = base.split("\n")
    for step in drift:
        lines = sp.apply_edit(lines, step.edit)
    return "\n".join(lines)


def check_outcome(buf: ContextBuffer, patch: Patch, truth: str | None) -> None:
    """``buf.apply(patch)`` is the truth, or a rejection exactly when the truth is a conflict."""
    before_text, before_rev = buf.text, buf.revision
    rejected: RewriteRejected | None = None
    try:
        rev = buf.apply(patch)
    except RewriteRejected as exc:
        rejected = exc
    if rejected is not None:
        assert buf.text == before_text, "a rejected patch changed the buffer"
        assert buf.revision == before_rev, "a rejected patch made a revision"
        assert truth is None, f"mergeable patch rejected ({rejected!r})"
        assert isinstance(rejected, EditConflict), f"a conflict is RG403, not {rejected!r}"
        return
    assert truth is not None, f"conflicting patch applied, giving {buf.text!r}"
    assert buf.text == truth, "applied, but not the ground truth"
    assert rev == buf.revision == before_rev + 1
    assert buf.sha256 == hashlib.sha256(buf.text.encode()).hexdigest()
    assert buf.lines == tuple(buf.text.split("\n"))


@st.composite
def diff_cases(draw: st.DrawFn) -> tuple[str, tuple[Edit, ...], tuple[DriftStep, ...]]:
    base = draw(bases())
    return base, draw(patches(base)), draw(drifts(base))


@PROPS
@given(diff_cases())
def test_diff_apply_is_the_truth_or_a_rejection(
        case: tuple[str, tuple[Edit, ...], tuple[DriftStep, ...]]) -> None:
    base, edits, drift = case
    buf = record(base, drift)
    assert buf.text == live_text(base, drift)
    assert buf.revision == len(drift)
    diff = sp.unified_diff(base, edits)
    truth = sp.rebase(base, [d.edit for d in drift], edits)
    check_outcome(buf, Patch.from_unified_diff(diff, base=hashlib.sha256(base.encode())
                                               .hexdigest()), truth)


@st.composite
def splice_cases(draw: st.DrawFn) -> tuple[str, Edit, tuple[DriftStep, ...]]:
    """A splice may touch any buffer line, the final empty one and an unterminated last one too."""
    base = draw(bases())
    n = len(base.split("\n"))
    a = draw(st.integers(0, n))
    b = draw(st.integers(a, min(n, a + 4)))
    new = draw(st.lists(st.sampled_from(NEW), min_size=0 if a < b else 1, max_size=3))
    old = base.split("\n")[a:b]
    if (old and new and (old[0] == new[0] or old[-1] == new[-1])) or n - (b - a) + len(new) < 1:
        new = ["S"]     # minimal (no line of the alphabet is "S"), and never an empty buffer
    return base, Edit(a, b, tuple(new)), draw(drifts(base))


@PROPS
@given(splice_cases())
def test_splice_apply_is_the_truth_or_a_rejection(
        case: tuple[str, Edit, tuple[DriftStep, ...]]) -> None:
    base, edit, drift = case
    buf = record(base, drift)
    sha = hashlib.sha256(base.encode()).hexdigest()
    truth = sp.rebase(base, [d.edit for d in drift], [edit])
    check_outcome(buf, Patch.splice(edit.start, edit.end, list(edit.lines), base=sha), truth)


@PROPS
@given(st.data())
def test_fresh_patch_applies_exactly(data: st.DataObject) -> None:
    """Base == live: the diff is applied where it says, whatever the duplicates around it."""
    base = data.draw(bases())
    edits = data.draw(patches(base))
    buf = ContextBuffer(base)
    assert buf.text == base
    buf.apply(Patch.from_unified_diff(sp.unified_diff(base, edits), base=buf.sha256))
    assert buf.text == "\n".join(sp.apply_edits(base.split("\n"), edits))


@PROPS
@given(bases(), st.lists(st.sampled_from(ALPHABET), min_size=1, max_size=3)
       .filter(lambda lines: any(lines)), st.sampled_from(NEW))
def test_replace_needs_exactly_one_occurrence(base: str, old_lines: list[str], new: str) -> None:
    old = "\n".join(old_lines)
    count = sum(base.startswith(old, i) for i in range(len(base)))
    buf = ContextBuffer(base)
    try:
        buf.apply(Patch.replace(old, new, base=buf.sha256))
    except AmbiguousAnchor:
        assert count != 1
        assert buf.text == base
        return
    assert count == 1
    assert buf.text == base.replace(old, new)


@pytest.mark.parametrize("how", ["edit", "splice"])
def test_emptied_buffer_keeps_the_text_split_invariant(how: str) -> None:
    """Deleting every line leaves the text "", whose lines are ("",), as ContextBuffer("") has."""
    buf = ContextBuffer("a\nb")
    if how == "edit":
        buf.edit(0, 2, [])
    else:
        buf.apply(Patch.splice(0, 2, [], base=buf.sha256))
    assert buf.text == ""
    assert buf.lines == tuple(buf.text.split("\n")) == ContextBuffer("").lines
    buf.edit(0, 1, ["x"])      # the one (empty) line is there to be replaced, as in a fresh buffer
    assert buf.text == "x"


def test_unknown_base_is_stale() -> None:
    buf = ContextBuffer("a\nb\n")
    buf.append("c")
    with pytest.raises(StaleBase) as info:
        buf.apply(Patch.splice(0, 1, ["A"], base=hashlib.sha256(b"other").hexdigest()))
    assert info.value.code == "RG401"
    assert buf.text == "a\nb\n\nc"


# --------------------------------------------------------------------------------------------
# Concurrent writers
# --------------------------------------------------------------------------------------------


@pytest.fixture
def busy_switching() -> Iterator[None]:
    """Switch threads as often as CPython allows, so races have every chance to show."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(old)


WRITERS, WRITES, PATCHERS, PATCHES = 6, 80, 2, 40


def _race(buf: ContextBuffer) -> list[BaseException]:
    """Writers append and insert while patchers apply patches authored on snapshots."""
    errors: list[BaseException] = []
    barrier = threading.Barrier(WRITERS + PATCHERS)

    def writer(i: int) -> None:
        barrier.wait()
        for j in range(WRITES):
            if j % 3 == 0:
                buf.append(f"append {i}.{j}")
            elif j % 3 == 1:
                buf.edit(0, 0, [f"top {i}.{j}"])
            else:
                at = len(buf.lines) // 2    # the buffer only grows: still a valid position
                buf.edit(at, at, [f"middle {i}.{j}"])

    def patcher(i: int) -> None:
        # An insertion at the top is mergeable whatever the writers did meanwhile (a drift
        # insertion at line 0 goes before it), so every one of these must apply.
        barrier.wait()
        for j in range(PATCHES):
            snap = buf.snapshot()
            buf.apply(Patch.splice(0, 0, [f"patch {i}.{j}"], base=snap.sha256))

    def guarded(fn: Callable[[int], None], i: int) -> None:
        try:
            fn(i)
        except BaseException as exc:  # reported by the test, not swallowed
            errors.append(exc)

    threads = [threading.Thread(target=guarded, args=(writer, i)) for i in range(WRITERS)]
    threads += [threading.Thread(target=guarded, args=(patcher, i)) for i in range(PATCHERS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


@pytest.mark.usefixtures("busy_switching")
@pytest.mark.parametrize("round_", range(3))
def test_concurrent_writers_lose_no_update(round_: int) -> None:
    buf = ContextBuffer(f"# context {round_}\n")
    start = buf.revision
    errors = _race(buf)
    assert not errors, errors
    lines = buf.text.split("\n")
    expected = {f"append {i}.{j}" for i in range(WRITERS) for j in range(0, WRITES, 3)}
    expected |= {f"top {i}.{j}" for i in range(WRITERS) for j in range(1, WRITES, 3)}
    expected |= {f"middle {i}.{j}" for i in range(WRITERS) for j in range(2, WRITES, 3)}
    expected |= {f"patch {i}.{j}" for i in range(PATCHERS) for j in range(PATCHES)}
    written = [x for x in lines if x.split(" ")[0] in ("append", "top", "middle", "patch")]
    assert sorted(written) == sorted(expected)
    assert buf.revision - start == WRITERS * WRITES + PATCHERS * PATCHES
    assert buf.sha256 == hashlib.sha256(buf.text.encode()).hexdigest()
    assert buf.lines == tuple(lines)


# --------------------------------------------------------------------------------------------
# The benchmark's own scenarios
# --------------------------------------------------------------------------------------------


def test_apply_benchmark_scenarios_are_all_right(tmp_path: Path) -> None:
    """A small run of ``benchmarks/apply_bench.py`` (in-process engines): refgraph's buffer is
    never silently wrong and loses nothing; the numbers land in the JSON."""
    out = tmp_path / "bench.json"
    proc = subprocess.run(
        [sys.executable, "benchmarks/apply_bench.py", "--n", "40", "--seed", "ci", "--reps", "3",
         "--engines", "refgraph,refgraph-file,strict,dmp", "--json", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "| refgraph ContextBuffer.apply | 32 | 8 | 0 | 0 |" in proc.stdout
    result = json.loads(out.read_text(encoding="utf-8"))
    engines = {e["engine"]: e for e in result["engines"]}
    ours = engines["refgraph ContextBuffer.apply"]
    assert (ours["correct"], ours["rejected_conflict"], ours["errors"]) == (32, 8, 0)
    assert engines["strict sha256 check"]["lost"] == 32
    assert result["big"]["lines"] > 5000
