"""The gate: rebase, analyze before writing, commit only on an unmoved live revision."""

from __future__ import annotations

from typing import Any

import pytest

from refgraph import (
    Analyzer,
    ContextBuffer,
    EditConflict,
    Gate,
    GateRefused,
    GateRejected,
    InputError,
    Ledger,
    Patch,
    Report,
)

CONTEXT = "\n".join([
    "user: deploy the billing service; never deploy before the tests pass.",
    "assistant: running the tests first.",
    "tool[call_1] run_tests: 212 passed, 0 failed in 48 s",
    "assistant: the request timeout is 30 seconds and the pool holds 20 connections.",
    "tool[call_2] POST /deploy -> 202 accepted, job 7781",
    "assistant: deploy job 7781 is running.",
])


@pytest.fixture(scope="module")
def az(mode: str) -> Analyzer:
    return Analyzer(mode)


def gate_for(az: Analyzer, text: str = CONTEXT, **kw: Any) -> tuple[ContextBuffer, Gate]:
    buf = ContextBuffer(text)
    return buf, Gate(buf, analyzer=az, **kw)


def test_safe_patch_is_committed(az: Analyzer) -> None:
    buf, gate = gate_for(az)
    done = gate.submit(Patch.replace("running the tests first", "running the test suite first",
                                     base=buf.sha256))
    assert done.revision == 1
    assert done.report.verdict == "apply"
    assert "running the test suite first" in buf.text


def test_corrupting_patch_is_rejected_before_anything_is_written(az: Analyzer) -> None:
    buf, gate = gate_for(az)
    before = buf.text
    with pytest.raises(GateRejected) as info:
        gate.submit(Patch.replace("is 30 seconds", "is 30", base=buf.sha256))
    assert info.value.codes == ["RG201"]
    assert info.value.report.verdict == "reject"
    assert buf.text == before
    assert buf.revision == 0
    assert gate.stats()["rejected"] == {"RG201": 1}


def test_stale_patch_is_rebased_then_checked(az: Analyzer) -> None:
    buf, gate = gate_for(az)
    r17 = buf.snapshot()
    buf.append("tool[call_3] GET /deploy/7781 -> 200 done")  # r18 lands meanwhile
    done = gate.submit(Patch.replace("deploy job 7781 is running.", "deploy job 7781 started.",
                                     base=r17.sha256))
    assert done.revision == 2
    assert buf.text.endswith("deploy job 7781 started.\ntool[call_3] GET /deploy/7781 -> 200 done")


def test_conflicting_stale_patch_is_refused_by_the_buffer(az: Analyzer) -> None:
    buf, gate = gate_for(az)
    r17 = buf.snapshot()
    buf.edit(5, 6, ["assistant: deploy job 7781 FAILED; rolling back."])
    with pytest.raises(EditConflict):
        gate.submit(Patch.replace("deploy job 7781 is running.", "deploy job 7781 started.",
                                  base=r17.sha256))
    assert gate.stats()["rejected"] == {"RG403": 1}


def test_protected_region_is_tracked_by_position_not_marker(az: Analyzer) -> None:
    buf, gate = gate_for(az)
    region = gate.protect(0, 1, "user instructions")
    buf.edit(0, 0, ["system: context follows", "---"])  # the region moves down by two
    assert (region.start, region.end) == (2, 3)
    snap = buf.snapshot()
    # The marker ("user:") survives; the instruction under it does not.
    with pytest.raises(GateRejected) as info:
        gate.submit(Patch.replace("never deploy before the tests pass", "deploy when ready",
                                  base=snap.sha256))
    assert "RG406" in info.value.codes
    # A copy of the instruction elsewhere is not protected: editing it is fine.
    buf.append("note: user said never deploy before the tests pass.")
    gate.submit(Patch.replace("note: user said", "note: the user said", base=buf.sha256))


def test_prune_must_stay_inside_its_declared_span_after_rebase(az: Analyzer) -> None:
    buf, gate = gate_for(az)
    r17 = buf.snapshot()
    buf.edit(0, 0, ["system: header"])
    new = "assistant: tests first."
    patch = Patch.splice(1, 2, [new], base=r17.sha256, declared_span=(1, 2))
    assert gate.submit(patch).report.verdict == "apply"
    bad = Patch.splice(1, 3, ["assistant: tests ran."], base=buf.sha256, declared_span=(1, 2))
    with pytest.raises(GateRejected) as info:
        gate.submit(bad)
    assert "RG405" in info.value.codes


PRUNE = ("the above establishes that 212 tests passed in 48 s, so the tool output can be "
         "condensed")


def test_circular_prune_is_rejected_and_externalized_prune_applies(az: Analyzer) -> None:
    buf, gate = gate_for(az)
    prune = Patch.splice(2, 3, [], base=buf.sha256, intent="prune", justification=PRUNE)
    with pytest.raises(GateRejected) as info:
        gate.submit(prune)
    assert "RG503" in info.value.codes
    assert buf.revision == 0

    ledger = Ledger(":memory:")
    buf2, gate2 = gate_for(az, ledger=ledger, externalize=True)
    done = gate2.submit(Patch.splice(2, 3, [], base=buf2.sha256, intent="prune",
                                     justification=PRUNE))
    (sha,) = done.handles
    handle = buf2.text.split("\n")[2]
    assert handle == f"[pruned: ledger:{sha[:12]}, 9 words]"
    assert ledger.get(sha[:12]) == CONTEXT.split("\n")[2]
    assert done.report.findings == []


def test_budget_turns_a_blocked_prune_into_refuse(az: Analyzer) -> None:
    buf, gate = gate_for(az, budget=10)
    with pytest.raises(GateRefused) as info:
        gate.submit(Patch.splice(2, 5, [], base=buf.sha256, intent="prune"))
    assert info.value.verdict == "refuse"
    assert info.value.report.verdict == "refuse"
    assert gate.stats()["refused"] == 1
    buf2, gate2 = gate_for(az, budget=10_000)  # under budget already: a plain reject
    with pytest.raises(GateRejected) as info2:
        gate2.submit(Patch.splice(2, 5, [], base=buf2.sha256, intent="prune"))
    assert not isinstance(info2.value, GateRefused)


def test_prune_that_grows_is_rejected(az: Analyzer) -> None:
    buf, gate = gate_for(az)
    grow = Patch.splice(1, 2, ["assistant: running the tests first, as the user asked, before "
                               "any deploy happens."], base=buf.sha256, intent="prune")
    with pytest.raises(GateRejected) as info:
        gate.submit(grow)
    assert "RG404" in info.value.codes


class _MovingAnalyzer(Analyzer):
    """Appends a tool result to the buffer while the first analysis runs."""

    buffer: ContextBuffer | None = None
    moved = False

    def analyze(self, *args: Any, **kw: Any) -> Report:
        if not self.moved and self.buffer is not None:
            self.moved = True
            self.buffer.append("tool[call_9] late result")
        return super().analyze(*args, **kw)


def test_live_moving_during_analysis_is_rechecked_once(mode: str) -> None:
    az = _MovingAnalyzer(mode)  # type: ignore[arg-type]
    buf = ContextBuffer(CONTEXT)
    az.buffer = buf
    gate = Gate(buf, analyzer=az)
    done = gate.submit(Patch.replace("running the tests first", "running the test suite first",
                                     base=buf.sha256))
    assert done.rechecked
    assert done.revision == 2
    assert buf.text.endswith("tool[call_9] late result")
    assert "running the test suite first" in buf.text


def test_stats_warn_when_nothing_is_ever_rejected(az: Analyzer) -> None:
    buf, gate = gate_for(az, text="timeout: 30 s", quiet_warning_after=5, window=10)
    for i in range(6):
        # benign notes that name nothing new (a new number would be RG104)
        gate.submit(Patch.splice(1, 1, [f"note {'ab'[i % 2]}"], base=buf.sha256))
    st = gate.stats()
    assert st["applied"] == 6
    assert st["rejection_rate"] == 0.0
    assert st["warning"]
    assert "no rewrite rejected" in st["warning"]
    with pytest.raises(GateRejected):
        gate.submit(Patch.replace("timeout: 30 s", "timeout: 30", base=buf.sha256))
    assert gate.stats()["warning"] is None


def test_bad_gate_arguments(az: Analyzer) -> None:
    buf = ContextBuffer("x")
    with pytest.raises(InputError):
        Gate(buf, analyzer=az, externalize=True)  # no ledger
    with pytest.raises(InputError):
        Gate(buf, analyzer=az, budget=-1)
    with pytest.raises(InputError):
        Gate(buf, mode="slow")
    with pytest.raises(InputError):
        Gate(buf, analyzer=az).protect(0, 5)


def test_gate_and_concurrent_tool_results_lose_nothing(az: Analyzer) -> None:
    import threading

    buf, gate = gate_for(az)
    done: list[int] = []

    def tools(k: int) -> None:
        for i in range(30):
            buf.append(f"tool[t{k}] result {i}")

    def rewriter() -> None:
        for i in range(8):
            snap = buf.snapshot()  # authored against whatever was live, applied later
            done.append(gate.submit(Patch.replace(
                snap.text.split("\n")[1], f"assistant: running the tests first ({i}).",
                base=snap.sha256)).revision)

    threads = [threading.Thread(target=tools, args=(k,)) for k in range(3)]
    threads.append(threading.Thread(target=rewriter))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lines = buf.text.split("\n")
    assert {f"tool[t{k}] result {i}" for k in range(3) for i in range(30)} <= set(lines)
    assert lines[1] == "assistant: running the tests first (7)."
    assert len(done) == 8
    assert buf.revision == 90 + 8


def test_externalized_handle_is_not_an_invented_claim(az: Analyzer) -> None:
    """The handle's key and word count are bookkeeping: no RG104/RG202 for '21 words'."""
    ledger = Ledger(":memory:")
    buf, gate = gate_for(az, ledger=ledger, externalize=True)
    done = gate.submit(Patch.splice(2, 4, [], base=buf.sha256, intent="prune"))
    handle = buf.lines[2]
    assert handle.startswith("[pruned: ledger:")
    assert handle.endswith(" words]")
    assert done.report.findings == []
    assert ledger.get(done.handles[0]) == "\n".join(CONTEXT.split("\n")[2:4])


CLOSURE = {
    "RG101": "config: MAX_RETRIES = 5 for every upload job\n"
             "assistant: retry the upload up to MAX_RETRIES times.",
    "RG102": "user: never deploy on Fridays.\n"
             "assistant: the above constraint also applies to hotfixes.",
    "RG303": "user: do not call deploy before the tests pass.\n"
             "assistant: next, call deploy for the billing service.",
}


@pytest.mark.parametrize("code", sorted(CLOSURE))
def test_externalized_antecedent_is_reconstructible_not_orphaned(az: Analyzer,
                                                                 code: str) -> None:
    """Pruning the line that defines what a later line refers to is RG101/RG102/RG303; moving
    it to the ledger instead leaves a handle, and the reference is reconstructible."""
    buf, gate = gate_for(az, text=CLOSURE[code])
    with pytest.raises(GateRejected) as info:
        gate.submit(Patch.splice(0, 1, [], base=buf.sha256, intent="prune"))
    assert info.value.codes == [code]
    ledger = Ledger(":memory:")
    buf, gate = gate_for(az, text=CLOSURE[code], ledger=ledger, externalize=True)
    done = gate.submit(Patch.splice(0, 1, [], base=buf.sha256, intent="prune"))
    assert done.report.findings == []
    assert ledger.get(done.handles[0]) == CLOSURE[code].split("\n")[0]


def test_protected_lines_are_checked_by_line_not_by_text(az: Analyzer) -> None:
    text = "header\nUSER: never delete logs\nUSER: never delete logs\nfooter"
    buf, gate = gate_for(az, text=text)
    gate.protect(1, 2, "user")
    # Deleting the protected line leaves an identical line: a text diff sees no change there.
    with pytest.raises(GateRejected) as info:
        gate.submit(Patch.splice(1, 2, [], base=buf.sha256))
    assert info.value.codes == ["RG406"]
    buf, gate = gate_for(az, text="intro\nUSER: use tabs")
    gate.protect(1, 2, "user")
    gate.submit(Patch.splice(1, 1, ["note: added above it"], base=buf.sha256))  # boundary
    assert gate.protected[0].start == 2


def test_empty_ranges_do_not_break_the_gate(az: Analyzer) -> None:
    buf, gate = gate_for(az, text="a\nUSER: keep\nb")
    gate.protect(1, 2)
    buf.edit(1, 2, [])  # a tool edit empties the protected region
    gate.submit(Patch.splice(1, 1, ["x"], base=buf.sha256, declared_span=(1, 1)))
    assert buf.text == "a\nx\nb"


def test_a_safe_prune_reports_whether_it_met_the_budget(az: Analyzer) -> None:
    text = "status: all green.\nstatus: all green.\nnext: deploy."
    for budget, met in ((5, False), (12, True)):
        buf, gate = gate_for(az, text=text, budget=budget)
        stats = gate.submit(Patch.splice(1, 2, [], base=buf.sha256, intent="prune")).report.stats
        assert stats["budget"] == budget
        assert stats["budget_met"] is met
        assert stats["tokens_after"] < stats["tokens_before"]


def test_the_handle_the_gate_writes_is_the_one_the_analyzer_recognises() -> None:
    from refgraph.analyze import HANDLE_FORMAT, LEDGER_HANDLE
    for words in (1, 250):
        assert LEDGER_HANDLE.fullmatch(HANDLE_FORMAT.format(sha="0123456789ab", words=words))


@pytest.mark.parametrize(("severity", "codes"), [("warning", ["RG406"]), ("off", [])])
def test_protected_region_findings_follow_the_policy(severity: str, codes: list[str]) -> None:
    buf = ContextBuffer("header\nUSER: never delete logs\nfooter")
    gate = Gate(buf, policy={"RG406": severity}, mode="fast")
    gate.protect(1, 2, "user")
    done = gate.submit(Patch.splice(1, 2, ["USER: never delete old logs"], base=buf.sha256))
    hits = [f for f in done.report.findings if f.code == "RG406"]
    assert [f.code for f in hits] == codes
    assert all(f.severity == "warning" for f in hits)  # the policy's, not the rule's default
