"""Prohibitions, obligations, preconditions and limits, linked to what they govern."""

from __future__ import annotations

import pytest
from spacy.language import Language

from tests.conftest import extract


def _constraints(nlp: Language, text: str) -> list[tuple[str, str, str]]:
    return [(str(r.attrs["cue"]), str(r.attrs["constraint_kind"]), str(r.attrs.get("target")))
            for r in extract(nlp, text, "constraint")]


def test_prohibition_with_precondition_governs_the_action(nlp: Language) -> None:
    """Seed 000/001: "do not call deploy before tests pass"."""
    found = _constraints(nlp, "Do not call `deploy` before tests pass.")
    kinds = {k for _, k, _ in found}
    assert kinds == {"prohibition", "precondition"}
    assert all("deploy" in target.split() for _, _, target in found)


@pytest.mark.parametrize(("text", "kind", "governed"), [
    ("The batch size must not exceed 500 rows.", "limit", "size"),
    ("You must rotate the key weekly.", "obligation", "rotate"),
    ("Never fail over shard A while lag is high.", "prohibition", "fail"),
    ("Deploy only if the tests pass.", "precondition", "deploy"),
    ("Keep retries at most 3 per call.", "limit", "retry"),
])
def test_constraint_kinds(nlp: Language, text: str, kind: str, governed: str) -> None:
    found = [c for c in _constraints(nlp, text) if c[1] == kind]
    assert found, _constraints(nlp, text)
    assert governed in found[0][2].split()


@pytest.mark.parametrize("text", [
    "The service does not retry on 404.",
    "We do not know yet.",
    "Before noon the queue was empty.",
])
def test_descriptions_are_not_constraints(nlp: Language, text: str) -> None:
    assert _constraints(nlp, text) == []


@pytest.mark.parametrize("text", [
    "No rows matched the filter.",
    "No folder for 2025-03-17 is missing",
    "No tests failed.",
    "No errors occurred during the run.",
    "No folder exists for that date.",
    "| order_id | STRING | no |",
    "nullable: no",
    "actually no, let me check",
])
def test_no_that_reports_or_answers_is_not_a_prohibition(nlp: Language, text: str) -> None:
    assert [c for c in _constraints(nlp, text) if c[0] == "no"] == []


@pytest.mark.parametrize(("text", "governed"), [
    ("No deploys on Fridays.", "deploy"),
    ("- no retries after 3 failures", "retry"),
    ("No direct pushes to main.", "push"),
    ("No deploys are allowed on Fridays.", "deploy"),
    ("No service should call the DB directly.", "service"),
    ("No deploys after the freeze starts.", "deploy"),
])
def test_no_prohibitions(nlp: Language, text: str, governed: str) -> None:
    found = [c for c in _constraints(nlp, text) if c[0] == "no"]
    assert [k for _, k, _ in found] == ["prohibition"]
    assert governed in found[0][2].split()
