"""Identifiers (define vs use) and handles that let a reader re-fetch a fact."""

from __future__ import annotations

import pytest
from spacy.language import Language

from tests.conftest import extract, quote


@pytest.mark.parametrize(("text", "name", "kind", "role"), [
    ("MAX_RETRIES=3", "MAX_RETRIES", "constant", "define"),
    ("Then MAX_RETRIES applies to every call.", "MAX_RETRIES", "constant", "use"),
    ("retry_budget is 5 attempts.", "retry_budget", "snake", "define"),
    ("Let retry_budget be the number of attempts.", "retry_budget", "snake", "define"),
    ("retry_budget is defined as attempts per hour.", "retry_budget", "snake", "define"),
    ("We call os.path.join here.", "os.path.join", "dotted", "use"),
    ("Pass --dry-run first.", "--dry-run", "flag", "use"),
    ("Read $HOME before starting.", "$HOME", "env", "use"),
    ("The `deploy` step runs last.", "deploy", "code", "use"),
    ("chunk_size: 5 GB", "chunk_size", "snake", "define"),
    ("RetryPolicy wraps the client.", "RetryPolicy", "pascal", "use"),
])
def test_identifier_kind_and_role(nlp: Language, text: str, name: str, kind: str,
                                  role: str) -> None:
    found = extract(nlp, text, "identifier")
    assert [(r.attrs["name"], r.attrs["ident_kind"], r.attrs["role"]) for r in found] == [
        (name, kind, role)]


@pytest.mark.parametrize(("text", "value", "kind"), [
    ("Logs are in src/app/main.py now.", "src/app/main.py", "path"),
    ("See ~/notes/run.md.", "~/notes/run.md", "path"),
    ("Runbook: https://example.internal/db/failover.", "https://example.internal/db/failover",
     "url"),
    ("Result stored under ledger:9f2c1ab4.", "ledger:9f2c1ab4", "store_key"),
    ("The output of call_17 was truncated.", "call_17", "tool_call"),
    ("Open config.yaml first.", "config.yaml", "path"),
])
def test_handles(nlp: Language, text: str, value: str, kind: str) -> None:
    found = extract(nlp, text, "handle")
    assert [(r.attrs["value"], r.attrs["handle_kind"]) for r in found] == [(value, kind)]
    assert quote(text, found[0]) == value


@pytest.mark.parametrize("text", [
    "Throughput was 5 req/s and/or better.",
    "Use e.g. the default, i.e. none.",
    "This is a plain sentence with API and JSON words.",
])
def test_no_false_identifiers_or_handles(nlp: Language, text: str) -> None:
    assert extract(nlp, text, "identifier") == []
    assert extract(nlp, text, "handle") == []


def test_identifier_offsets_exact_in_code_fence_text(nlp: Language) -> None:
    text = "```python\nMAX_RETRIES = 3\nBACKOFF_MS = 250\n```"
    found = extract(nlp, text, "identifier")
    assert [quote(text, r) for r in found] == ["MAX_RETRIES", "BACKOFF_MS"]
    assert all(r.attrs["role"] == "define" for r in found)
