"""The labelled evaluation corpus (benchmarks/corpus): schema, coverage and reproducibility."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest

from benchmarks.accuracy import corpus_builder

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "benchmarks" / "corpus"
SPLITS = ("dev", "test")
CODES = {
    "RG101", "RG102", "RG103", "RG104", "RG201", "RG202", "RG301", "RG302", "RG303", "RG304",
    "RG404", "RG405", "RG501", "RG502",
}
DOMAINS = {"coding-agent", "sre-ops", "data-pipeline", "support", "billing", "lab-notes", "travel"}
STYLES = {"prose", "markdown", "bullets", "logs-json", "chat-turns"}
INTENTS = {"rewrite", "summarize", "prune"}
KEYS = {
    "id", "domain", "style", "intent", "before", "after", "declared_span", "expected", "note",
    "split",
}


@pytest.fixture(scope="module")
def pairs() -> dict[str, list[dict[str, object]]]:
    # Built in memory from the scenarios, and read back through JSON as the files would be.
    build = _builder()
    by_split = build.build()
    return {split: [json.loads(line) for line in build.dump(by_split[split]).splitlines()]
            for split in SPLITS}


@pytest.fixture(scope="module")
def everything(pairs: dict[str, list[dict[str, object]]]) -> list[dict[str, object]]:
    return [p for split in SPLITS for p in pairs[split]]


def _expected(p: dict[str, object]) -> list[str]:
    value = p["expected"]
    assert isinstance(value, list)
    return [str(c) for c in value]


def test_corpus_pairs_have_the_schema(pairs: dict[str, list[dict[str, object]]]) -> None:
    for split, rows in pairs.items():
        for p in rows:
            assert set(p) == KEYS, p.get("id")
            assert isinstance(p["id"], str)
            assert p["id"]
            assert p["split"] == split
            assert p["domain"] in DOMAINS
            assert p["style"] in STYLES
            assert p["intent"] in INTENTS
            assert isinstance(p["before"], str)
            assert p["before"].strip()
            assert isinstance(p["after"], str)
            assert p["after"].strip()
            assert isinstance(p["note"], str)
            assert p["note"]
            assert "\n" not in p["note"]
            expected = _expected(p)
            assert expected == sorted(expected)
            assert len(set(expected)) == len(expected)
            assert set(expected) <= CODES, p["id"]
            assert p["before"] != p["after"], p["id"]


def test_corpus_declared_spans_lie_within_before(everything: list[dict[str, object]]) -> None:
    for p in everything:
        span = p["declared_span"]
        if span is None:
            assert "RG405" not in _expected(p), p["id"]
            continue
        assert isinstance(span, list)
        assert len(span) == 2
        start, end = span
        assert isinstance(start, int)
        assert isinstance(end, int)
        assert 0 <= start < end <= len(str(p["before"])), p["id"]


def test_corpus_span_safe_pairs_change_only_inside_the_span(
    everything: list[dict[str, object]],
) -> None:
    for p in everything:
        if p["declared_span"] is None or _expected(p):
            continue
        start, end = p["declared_span"]  # type: ignore[misc]
        before, after = str(p["before"]), str(p["after"])
        tail = len(before) - end
        assert after.startswith(before[:start]), p["id"]
        assert after.endswith(before[len(before) - tail:]), p["id"]


def test_corpus_ids_are_unique(everything: list[dict[str, object]]) -> None:
    ids = Counter(str(p["id"]) for p in everything)
    assert [k for k, v in ids.items() if v > 1] == []


def test_corpus_prune_labels_match_token_counts(everything: list[dict[str, object]]) -> None:
    for p in everything:
        if p["intent"] != "prune":
            continue
        grew = len(str(p["after"]).split()) >= len(str(p["before"]).split())
        assert grew == ("RG404" in _expected(p)), p["id"]


def test_corpus_meets_the_minimum_counts(everything: list[dict[str, object]]) -> None:
    assert len(everything) >= 400
    per_code = Counter(c for p in everything for c in _expected(p))
    assert {c: per_code[c] for c in CODES if per_code[c] < 24} == {}
    assert sum(not _expected(p) for p in everything) >= 100
    assert {str(p["domain"]) for p in everything} == DOMAINS
    assert {str(p["style"]) for p in everything} == STYLES
    assert sum(len(str(p["before"]).split()) > 2000 for p in everything) >= 10


def test_corpus_each_split_covers_every_code_domain_and_style(
    pairs: dict[str, list[dict[str, object]]],
) -> None:
    for rows in pairs.values():
        per_code = Counter(c for p in rows for c in _expected(p))
        assert {c: per_code[c] for c in CODES if per_code[c] < 12} == {}
        assert sum(not _expected(p) for p in rows) >= 40
        assert {str(p["domain"]) for p in rows} == DOMAINS
        assert {str(p["style"]) for p in rows} == STYLES


def test_corpus_splits_share_no_text(pairs: dict[str, list[dict[str, object]]]) -> None:
    dev = {str(p["before"]) for p in pairs["dev"]}
    assert dev.isdisjoint(str(p["before"]) for p in pairs["test"])


def _builder() -> ModuleType:
    return corpus_builder(CORPUS)


def test_scenarios_build_to_the_recorded_corpus() -> None:
    # The JSON lines are generated, not tracked; SHA256SUMS pins what they must be, so an
    # unintended change to a scenario or to the builder fails here.
    build = _builder()
    assert build.digests(build.build()) == build.recorded(), \
        "the corpus changed: if intended, run python benchmarks/corpus/build.py --record"
