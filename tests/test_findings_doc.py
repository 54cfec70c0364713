"""docs/findings.md is generated from the rule catalogue and every rule is fully documented."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from refgraph.rules import BY_CODE, RULES, SPECIFICITY, Example, Rule, render_markdown

DOC = Path(__file__).resolve().parent.parent / "docs" / "findings.md"
_CODE = re.compile(r"RG\d{3}")
_KEBAB = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")


def test_findings_doc_is_current() -> None:
    assert DOC.read_text(encoding="utf-8") == render_markdown(), (
        "docs/findings.md is stale: run `.venv/bin/python -m refgraph.rules > docs/findings.md`")


def test_codes_are_unique_and_well_formed() -> None:
    codes = [r.code for r in RULES]
    assert len(codes) == len(set(codes))
    assert all(_CODE.fullmatch(c) for c in codes), codes
    names = [r.name for r in RULES]
    assert len(names) == len(set(names))
    assert set(BY_CODE) == set(codes)


def test_specificity_names_only_known_codes() -> None:
    assert set(SPECIFICITY) <= set(BY_CODE)
    assert len(SPECIFICITY) == len(set(SPECIFICITY))


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_rule_is_documented(rule: type[Rule]) -> None:
    assert _KEBAB.fullmatch(rule.name), rule.name
    assert rule.severity in ("error", "warning", "info")
    for attr in ("summary", "hint"):
        value = getattr(rule, attr)
        assert isinstance(value, str), f"{rule.code}.{attr} is not a str"
        assert value.strip(), f"{rule.code} has no {attr}"
        assert "\n" not in value, f"{rule.code}.{attr} is not one line"
    doc = rule.doc()
    assert doc.splitlines()[0].strip(), f"{rule.code} docstring has no summary line"
    for section in ("## What it detects", "## Why it matters"):
        assert section in doc, f"{rule.code} docstring lacks {section!r}"
        body = doc.split(section, 1)[1].split("\n## ", 1)[0]
        assert body.strip(), f"{rule.code}: section {section!r} is empty"
    ex = rule.example
    assert isinstance(ex, Example)
    assert ex.before.strip()
    if rule.guard:
        assert rule.guard_example is not None, f"guard rule {rule.code} has no stale-patch story"
    elif rule.lint:
        assert ex.after is None, f"lint rule {rule.code} has a pair example"
    else:
        assert ex.after is not None, f"pair rule {rule.code} has no after in its example"


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_rule_appears_in_doc(rule: type[Rule]) -> None:
    doc = DOC.read_text(encoding="utf-8")
    assert f"## {rule.code} {rule.name}" in doc
    assert f"| {rule.code} | {rule.name} | {rule.severity} |" in doc
