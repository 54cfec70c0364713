"""Pipeline loading, spaCy conventions and the public API surface."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import pytest
import spacy
from spacy.language import Language

import refgraph
from refgraph.cli import main
from refgraph.errors import FastModeFallback, InputError, PipelineUnavailable
from refgraph.nlp import COMPONENTS, load_pipeline, pipeline


def test_public_api_is_pinned() -> None:
    assert sorted(refgraph.__all__) == sorted([
        "Analyzer", "Block", "BlockKind", "EdgeKind", "Evidence", "Finding", "InputError",
        "NodeKind", "Parser", "PipelineUnavailable", "RefGraph", "RefKind", "RefgraphError",
        "Report", "__version__", "analyze", "analyze_messages", "build_graph", "lint",
        "load_pipeline", "split_blocks", "to_node_link",
        # the guarded apply
        "AmbiguousAnchor", "Committed", "ContextBuffer", "EditConflict", "Gate", "GateRefused",
        "GateRejected", "Hunk", "Ledger", "Patch", "Revision", "RewriteRejected", "Snapshot",
        "StaleBase", "three_way_apply",
        # the compaction guard
        "Decision", "Guarded", "guard",
        # batch audits
        "AuditResult", "audit"])


def test_components_are_registered_entry_points() -> None:
    eps = {ep.name for ep in importlib.metadata.entry_points(group="spacy_factories")}
    assert set(COMPONENTS) <= eps


def test_modes_have_the_components(nlp: Language, mode: str) -> None:
    assert [p for p in nlp.pipe_names if p.startswith("refgraph_")] == list(COMPONENTS)
    if mode == "accurate":
        assert "parser" in nlp.pipe_names
        assert "lemmatizer" in nlp.pipe_names  # claims read lemmas
    else:
        assert nlp.pipe_names[0] == "sentencizer"


def test_components_work_on_blank_english_one_at_a_time() -> None:
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    nlp.add_pipe("refgraph_negation", config={"use_dependencies": False})
    doc = nlp("It is not ready.")
    assert [s.text for s in doc.spans["rg_negations"]] == ["not"]


def test_span_groups_always_exist(nlp: Language) -> None:
    doc = nlp("Plain words only.")
    for key in ("rg_identifiers", "rg_handles", "rg_quantities", "rg_negations",
                "rg_conditionals", "rg_hedges", "rg_deictics", "rg_mentions",
                "rg_constraints", "rg_causal"):
        assert key in doc.spans


def test_doc_still_serialises(nlp: Language) -> None:
    doc = nlp("The timeout is 30 seconds.")
    assert doc.to_bytes()


def test_unknown_mode_is_an_input_error() -> None:
    with pytest.raises(InputError, match="unknown mode"):
        load_pipeline("turbo")  # type: ignore[arg-type]


def test_missing_trained_pipeline_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pipeline, "trained_pipeline_name", lambda: None)
    load_pipeline.cache_clear()
    try:
        with pytest.raises(PipelineUnavailable, match="en_core_web_sm"):
            load_pipeline("accurate")
    finally:
        load_pipeline.cache_clear()


@pytest.mark.parametrize("component", COMPONENTS)
def test_each_component_alone_on_blank_english(component: str) -> None:
    nlp = spacy.blank("en")
    nlp.add_pipe(component)
    doc = nlp("The timeout is 30 seconds, so do not call `deploy` before tests pass; "
              "that retry budget may fail.")
    assert doc._.rg_records, component
    key = {"refgraph_identifiers": "rg_identifiers", "refgraph_quantities": "rg_quantities",
           "refgraph_negation": "rg_negations", "refgraph_modality": "rg_hedges",
           "refgraph_references": "rg_deictics", "refgraph_entities": "rg_mentions",
           "refgraph_constraints": "rg_constraints", "refgraph_causal": "rg_causal",
           "refgraph_claims": "rg_claims"}[component]
    assert len(doc.spans[key]) >= 1


def test_analyze_pipes_reports_no_problems(nlp: Language) -> None:
    problems = nlp.analyze_pipes(pretty=False)["problems"]
    assert all(not p for p in problems.values()), problems


def test_sentence_bounds_set_after_first_component_are_seen() -> None:
    nlp = spacy.blank("en")
    nlp.add_pipe("refgraph_identifiers")
    nlp.add_pipe("sentencizer")
    nlp.add_pipe("refgraph_causal")
    doc = nlp("The disk failed. Therefore, we retry.")
    (rec,) = [r for r in doc._.rg_records if r[0] == "causal"]
    assert rec[3]["premise_scope"] == "previous"


def test_accurate_mode_falls_back_to_fast_with_one_warning(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A plain `pip install refgraph` has no trained pipeline: the default mode still works."""
    monkeypatch.setattr(pipeline, "trained_pipeline_name", lambda: None)
    monkeypatch.setattr(pipeline, "_warned", [])
    monkeypatch.delenv("REFGRAPH_REQUIRE_ACCURATE", raising=False)
    with pytest.warns(FastModeFallback, match="fast mode"):
        az = refgraph.Analyzer("accurate")
    assert az.mode == "fast"
    report = az.analyze("The timeout is 30 seconds.", "The timeout is 30.")
    assert (report.mode, report.codes) == ("fast", ["RG201"])
    # the CLI says so in one line on stderr, and exits by its verdict, not 2
    monkeypatch.setattr(pipeline, "_warned", [])
    (tmp_path / "b.txt").write_text("The timeout is 30 seconds.", encoding="utf-8")
    (tmp_path / "a.txt").write_text("The timeout is 30.", encoding="utf-8")
    assert main(["check", str(tmp_path / "b.txt"), str(tmp_path / "a.txt"),
                 "--isolated"]) == 1
    err = capsys.readouterr().err
    assert err.count("refgraph: warning: accurate mode needs") == 1
    assert len(err.strip().splitlines()) == 1
    # CI can insist on the trained pipeline
    monkeypatch.setenv("REFGRAPH_REQUIRE_ACCURATE", "1")
    with pytest.raises(PipelineUnavailable, match="en_core_web_sm"):
        refgraph.Analyzer("accurate")
