"""refgraph.guard: a compaction step whose every result is checked, kept, retried or raised."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import refgraph
from refgraph import GateRejected, InputError, Ledger, RewriteRejected

BEFORE = [
    {"role": "system", "content": "You are a deployment assistant."},
    {"role": "user", "content": "Do not deploy on Fridays. The timeout is 30 seconds."},
    {"role": "assistant", "content": "Understood: no Friday deploys, 30 s timeout."},
]
FAITHFUL = [BEFORE[0], {"role": "user",
                        "content": "Do not deploy on Fridays. The timeout is 30 seconds."}]
CORRUPT = [BEFORE[0], {"role": "user", "content": "Deploy on Fridays. The timeout is 30."}]


def fixed(result: list[dict[str, str]]) -> Any:
    def compact(messages: list[dict[str, str]]) -> list[dict[str, str]]:
        return result
    return compact


def test_a_faithful_compaction_is_returned_and_logged() -> None:
    safe = refgraph.guard(fixed(FAITHFUL), mode="fast", name="compactor")
    assert safe(BEFORE) is FAITHFUL
    (d,) = safe.ledger.decisions("compactor")
    assert (d.action, d.attempt, d.call) == ("accept", 1, 1)
    assert d.verdict in ("apply", "apply-with-log")
    # both sides are payloads: what was judged can be read back
    assert "Do not deploy on Fridays." in safe.ledger.get(d.before_sha)
    assert "30 seconds" in safe.ledger.get(d.after_sha)


def test_a_rejected_compaction_keeps_the_original() -> None:
    safe = refgraph.guard(fixed(CORRUPT), mode="fast")
    assert safe(BEFORE) is BEFORE
    assert safe.last is not None
    assert safe.last.action == "keep"
    assert safe.last.verdict == "reject"
    assert "RG201" in safe.last.codes
    assert safe.last.report["findings"], "the decision carries the report"
    assert "The timeout is 30." in safe.ledger.get(safe.last.after_sha)


def test_retry_passes_the_findings_back_and_takes_the_fixed_result() -> None:
    seen: list[str | None] = []

    def compact(messages: list[dict[str, str]], *, feedback: str | None = None) -> Any:
        seen.append(feedback)
        return CORRUPT if feedback is None else FAITHFUL

    safe = refgraph.guard(compact, mode="fast", on_reject="retry", name="r")
    assert safe(BEFORE) is FAITHFUL
    assert seen[0] is None
    assert seen[1] is not None
    assert "rejected" in seen[1]
    assert "30" in seen[1]
    assert [(d.attempt, d.action) for d in safe.ledger.decisions("r")] == \
        [(1, "retry"), (2, "accept")]


def test_retry_is_bounded_and_then_keeps_the_original() -> None:
    calls = []

    def compact(messages: Any, feedback: str | None = None) -> Any:
        calls.append(feedback)
        return CORRUPT

    safe = refgraph.guard(compact, mode="fast", on_reject="retry", retries=2)
    assert safe(BEFORE) is BEFORE
    assert len(calls) == 3
    assert [d.action for d in safe.ledger.decisions()] == ["retry", "retry", "keep"]


def test_raise_carries_the_report() -> None:
    safe = refgraph.guard(fixed(CORRUPT), mode="fast", on_reject="raise")
    with pytest.raises(GateRejected) as info:
        safe(BEFORE)
    assert isinstance(info.value, RewriteRejected)
    assert "RG201" in info.value.report.codes
    assert info.value.report.findings[0].evidence[0].message is not None
    assert safe.last is not None
    assert safe.last.action == "raise"


def test_strings_are_guarded_too_and_extra_arguments_pass_through() -> None:
    def compact(text: str, budget: int) -> str:
        assert budget == 10
        return text.replace(" seconds", "")

    safe = refgraph.guard(compact, mode="fast")
    assert safe("The timeout is 30 seconds.", 10) == "The timeout is 30 seconds."
    assert safe.last is not None
    assert safe.last.codes == ["RG201"]
    assert safe.calls == 1


def test_decisions_persist_in_a_ledger_file(tmp_path: Path) -> None:
    path = tmp_path / "guard.db"
    safe = refgraph.guard(fixed(CORRUPT), mode="fast", ledger=str(path), name="g")
    safe(BEFORE)
    safe(BEFORE)
    safe.ledger.close()
    with Ledger(path) as again:
        assert [(d.call, d.action) for d in again.decisions("g")] == [(1, "keep"), (2, "keep")]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"on_reject": "ignore"}, "on_reject must be one of"),
    ({"retries": -1}, "retries must be"),
    ({"intent": "shorten"}, "unknown intent"),
    ({"mode": "turbo"}, "unknown mode"),
])
def test_bad_options_are_one_line_errors(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(InputError, match=message):
        refgraph.guard(fixed(FAITHFUL), **kwargs)


def test_retry_needs_a_feedback_argument() -> None:
    with pytest.raises(InputError, match="feedback keyword"):
        refgraph.guard(fixed(FAITHFUL), mode="fast", on_reject="retry")


def test_a_result_of_another_type_is_an_input_error() -> None:
    safe = refgraph.guard(lambda messages: "a string", mode="fast")
    with pytest.raises(InputError, match="must return what it was given"):
        safe(BEFORE)
