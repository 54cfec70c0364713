"""Every signal the four seed documents describe is visible in the referent graph (both modes).

Seeds live in ../shared/seeds; these are their scenarios restated as short agent contexts.
"""

from __future__ import annotations

import networkx as nx
import pytest

from refgraph import EdgeKind, build_graph


@pytest.fixture(params=["fast", "accurate"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _of(G: nx.MultiDiGraph, kind: str) -> list[dict[str, object]]:
    return sorted((d for _, d in G.nodes(data=True) if d["kind"] == kind),
                  key=lambda d: int(str(d["start"])))


def test_seed_001_orphaned_unit(mode: str) -> None:
    before = build_graph("The timeout is 30 seconds and the limit is 2000 ms.", mode=mode)
    after = build_graph("The timeout is 30 and the limit is 2000.", mode=mode)
    qb, qa = _of(before, "quantity"), _of(after, "quantity")
    assert [q.get("unit") for q in qb] == ["second", "millisecond"]
    assert [q.get("unit") for q in qa] == [None, None]
    assert [q["magnitude"] for q in qa] == [30.0, 2000.0]
    assert qa[0]["measured"] == "timeout"


def test_seed_001_dangling_negation(mode: str) -> None:
    before = _of(build_graph("X is not required unless Y is absent.", mode=mode), "conditional")
    after = _of(build_graph("X is required when Y is absent.", mode=mode), "conditional")
    assert (before[0]["cond_kind"], before[0]["consequent_polarity"]) == ("unless", "negative")
    assert (after[0]["cond_kind"], after[0]["consequent_polarity"]) == ("when", "positive")


def test_seed_001_referent_collapse(mode: str) -> None:
    before = build_graph("Shard A: the primary replica of shard A is db-7.\n\n"
                         "Shard B: the primary replica of shard B is db-9.", mode=mode)
    after = build_graph("The primary replica is db-7.", mode=mode)
    keys_before = {d["key"] for d in _of(before, "referent") if d["ref_kind"] == "entity"}
    keys_after = {d["key"] for d in _of(after, "referent") if d["ref_kind"] == "entity"}
    assert {"replica[of=shard a;primary]", "replica[of=shard b;primary]"} <= keys_before
    assert "replica[primary]" in keys_after


def test_seed_001_reordering_across_causal_boundary(mode: str) -> None:
    before = _of(build_graph("The disk filled up. Therefore the archiver stalled.", mode=mode),
                 "causal")
    after = _of(build_graph("The archiver stalled because the disk filled up.", mode=mode),
                "causal")
    assert before[0]["order"] == "premise-first"
    assert after[0]["order"] == "conclusion-first"


def test_seed_000_deictics_identifiers_and_negative_space(mode: str) -> None:
    text = ("MAX_RETRIES=3. Requests must not exceed 5 req/s. "
            "Do not call `deploy` before tests pass; run it only if staging is green.\n\n"
            "As noted, the above constraint also applies to that retry budget.")
    G = build_graph(text, mode=mode)
    ids = {d["name"]: d["role"] for d in _of(G, "identifier")}
    assert ids["MAX_RETRIES"] == "define"
    kinds = {d["constraint_kind"] for d in _of(G, "constraint")}
    assert {"limit", "prohibition", "precondition"} <= kinds
    deictics = {str(d["text"]).lower(): d for d in _of(G, "deictic")}
    assert "as noted" in deictics
    assert deictics["the above constraint"]["resolved"] is True
    assert deictics["that retry budget"]["description"] == "retry budget"
    governed = {v for u, v, k in G.edges(keys=True) if k == EdgeKind.GOVERNS}
    assert "ref:identifier:deploy" in governed


def test_seed_004_handles_and_negative_results(mode: str) -> None:
    text = ("tool[call_42]: describe_table analytics.events -> 4 columns\n\n"
            "assistant: Confirmed schema: 4 columns (id, timestamp, actor, action). "
            "The field `session_id` was absent. Full output saved to "
            "artifacts/schema.json and ledger:9f2c1ab4.")
    G = build_graph(text, mode=mode)
    handles = {d["handle_kind"] for d in _of(G, "handle")}
    assert {"tool_call", "path", "store_key"} <= handles
    assert any(d["cue"] == "absent" for d in _of(G, "negation"))
    assert any(d.get("turn_id") == "call_42" for d in _of(G, "block"))


def test_seed_000_hedges_are_kept(mode: str) -> None:
    G = build_graph("The deploy may fail and takes about 40 minutes; you should retry.",
                    mode=mode)
    assert {d["modality"] for d in _of(G, "hedge")} >= {"possibility", "approximation", "advice"}
