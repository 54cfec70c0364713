"""The referent graph: schema invariants, exports, edges for the seeds' signals, incrementality."""

from __future__ import annotations

import dataclasses
import io
import json
import pickle

import networkx as nx
import pytest

import refgraph
from refgraph import EdgeKind, NodeKind, Parser, build_graph, split_blocks, to_node_link
from refgraph.graph import assemble

CONTEXT = """# Incident notes

The primary replica of shard A is db-7; the primary replica of shard B is db-9.
MAX_RETRIES=3 and the timeout is 30 seconds.

- Do not call `deploy` before tests pass.
- X is not required unless Y is absent.

tool[call_17]: {"rows": 0, "path": "src/app/main.py"}

assistant: The above constraint still applies to that retry budget.
Lag exceeded 30 seconds. Therefore the failover was paused.
"""


@pytest.fixture(scope="module", params=["fast", "accurate"])
def graph(request: pytest.FixtureRequest) -> nx.MultiDiGraph:
    return build_graph(CONTEXT, mode=request.param)


def _nodes(G: nx.MultiDiGraph, kind: NodeKind) -> list[dict[str, object]]:
    return [d for _, d in G.nodes(data=True) if d["kind"] == kind.value]


def test_every_node_points_at_its_text(graph: nx.MultiDiGraph) -> None:
    for nid, d in graph.nodes(data=True):
        assert d["kind"] in {k.value for k in NodeKind}, nid
        assert CONTEXT[d["start"]:d["end"]] == d["text"], nid


def test_data_is_flat_plain_scalars(graph: nx.MultiDiGraph) -> None:
    for _, d in graph.nodes(data=True):
        assert all(type(v) in (str, int, float, bool) for v in d.values()), d
    for _, _, k, d in graph.edges(keys=True, data=True):
        assert k == d["kind"]
        assert d["kind"] in {e.value for e in EdgeKind}
        assert all(type(v) in (str, int, float, bool) for v in d.values())


def test_graph_exports(graph: nx.MultiDiGraph) -> None:
    buf = io.BytesIO()
    nx.write_graphml(graph, buf)
    assert nx.read_graphml(io.BytesIO(buf.getvalue())).number_of_nodes() == \
        graph.number_of_nodes()
    data = json.loads(json.dumps(to_node_link(graph)))
    assert len(data["nodes"]) == graph.number_of_nodes()
    assert pickle.loads(pickle.dumps(graph)).number_of_edges() == graph.number_of_edges()
    assert graph.graph["schema"] == "refgraph.graph/2"


def test_identifier_definition_and_measure(graph: nx.MultiDiGraph) -> None:
    rid = "ref:identifier:MAX_RETRIES"
    kinds = {k for _, _, k in graph.in_edges(rid, keys=True)}
    assert {EdgeKind.DEFINES.value, EdgeKind.MEASURES.value} <= kinds


def test_constraint_governs_deploy(graph: nx.MultiDiGraph) -> None:
    governors = [u for u, _, k in graph.in_edges("ref:identifier:deploy", keys=True)
                 if k == EdgeKind.GOVERNS]
    assert {graph.nodes[u]["constraint_kind"] for u in governors} >= {"prohibition"}


def test_entity_keys_keep_shards_apart(graph: nx.MultiDiGraph) -> None:
    assert "ref:entity:replica[of=shard a;primary]" in graph
    assert "ref:entity:replica[of=shard b;primary]" in graph


def test_deictic_resolves_to_constraint(graph: nx.MultiDiGraph) -> None:
    (above,) = [n for n, d in graph.nodes(data=True)
                if d["kind"] == "deictic" and d.get("head") == "constraint"]
    targets = [v for _, v, k in graph.out_edges(above, keys=True) if k == EdgeKind.REFERS_TO]
    assert [graph.nodes[t]["kind"] for t in targets] == ["constraint"]
    assert graph.nodes[above]["resolved"] is True


def test_negation_scopes_and_conditional_polarity(graph: nx.MultiDiGraph) -> None:
    (cond,) = [d for d in _nodes(graph, NodeKind.CONDITIONAL) if d["marker"] == "unless"]
    assert cond["consequent_polarity"] == "negative"
    negs = _nodes(graph, NodeKind.NEGATION)
    assert any(str(n["text"]) == "not" for n in negs)


def test_premise_supports_conclusion_across_sentences(graph: nx.MultiDiGraph) -> None:
    supports = [(u, v) for u, v, k in graph.edges(keys=True) if k == EdgeKind.SUPPORTS]
    assert supports
    premise, conclusion = supports[-1]
    assert graph.nodes[premise]["kind"] == graph.nodes[conclusion]["kind"] == "claim"
    assert graph.nodes[premise]["text"] == "Lag exceeded 30 seconds"
    assert graph.nodes[conclusion]["text"] == "the failover was paused"


def test_handles_become_referents(graph: nx.MultiDiGraph) -> None:
    assert "ref:handle:src/app/main.py" in graph
    assert any(d.get("turn_id") == "call_17" for d in _nodes(graph, NodeKind.BLOCK))


def test_node_ids_stable_across_reparse_and_edits_elsewhere() -> None:
    a = build_graph(CONTEXT, mode="fast", parser=Parser("fast"))
    edited = CONTEXT.replace("# Incident notes", "# Incident notes, revised\n\nNew para.")
    b = build_graph(edited, mode="fast", parser=Parser("fast"))
    same = [n for n, d in a.nodes(data=True) if "deploy" in d["text"] and d["kind"] != "block"]
    assert same
    assert all(n in b for n in same)
    assert all(b.nodes[n]["text"] == a.nodes[n]["text"] for n in same)


def test_repeated_block_gets_distinct_node_ids() -> None:
    G = build_graph("Retry at most 3 times.\n\nRetry at most 3 times.", mode="fast")
    quantities = [n for n, d in G.nodes(data=True) if d["kind"] == "quantity"]
    assert len(quantities) == 2
    assert len(set(quantities)) == 2


def test_rebuild_after_one_block_changes_parses_only_that_block() -> None:
    parser = Parser("fast")
    blocks = [f"Block {i}: the timeout for job_{i} is {i + 1} seconds." for i in range(50)]
    build_graph("\n\n".join(blocks), parser=parser)
    assert parser.parses == 50
    blocks[17] = "Block 17: the timeout for job_17 is 99 seconds."
    G = build_graph("\n\n".join(blocks), parser=parser)
    assert parser.parses == 51
    assert any(d.get("magnitude") == 99.0 for _, d in G.nodes(data=True))


def test_empty_text_gives_empty_graph() -> None:
    assert build_graph("", mode="fast").number_of_nodes() == 0


@pytest.mark.parametrize("bad", [None, 42, ["text"]])
def test_non_string_input_is_a_clear_error(bad: object) -> None:
    with pytest.raises(refgraph.InputError, match="must be a str"):
        build_graph(bad, mode="fast")  # type: ignore[arg-type]


def test_undecodable_bytes_are_a_clear_error() -> None:
    with pytest.raises(refgraph.InputError, match="UTF-8"):
        build_graph(b"\xff\xfe bad", mode="fast")  # type: ignore[arg-type]


def test_odd_text_does_not_crash() -> None:
    nested = "[" * 500 + "]" * 500
    text = "x" * 200_000 + "\n\n" + nested + "\n\n" + "ctrl \x01\x02\x07 chars. " * 10
    G = build_graph(text, mode="fast")
    assert G.number_of_nodes() > 0
    for _, d in G.nodes(data=True):
        assert text[d["start"]:d["end"]] == d["text"]


def test_unpaired_surrogate_is_a_clear_error() -> None:
    with pytest.raises(refgraph.InputError, match="surrogate"):
        build_graph("ok \ud800 not ok", mode="fast")


@pytest.mark.parametrize("text", ["It took 1e400 s.", "A factor of 3x10^999.", "$1e300bn"])
def test_numbers_beyond_float_range_do_not_leak_inf(text: str) -> None:
    G = build_graph(text, mode="fast")
    for _, d in G.nodes(data=True):
        for value in d.values():
            if isinstance(value, float):
                assert value == value
                assert abs(value) != float("inf")


def test_each_limit_governs_its_own_quantity() -> None:
    G = build_graph("Quota: up to 5 GB of disk, up to 3 cores, and up to 10 users.", mode="fast")
    governs = [(u, v) for u, v, k in G.edges(keys=True) if k == EdgeKind.GOVERNS
               and G.nodes[v]["kind"] == "quantity"]
    assert len(governs) == 3
    assert len({v for _, v in governs}) == 3


def test_therefore_without_a_previous_sentence_leaves_no_orphans() -> None:
    G = build_graph("Therefore, we retry.", mode="fast")
    assert all(G.degree(n) > 0 for n, d in G.nodes(data=True) if d["kind"] != "block")
    assert not [k for _, _, k in G.edges(keys=True) if k == EdgeKind.SUPPORTS]


def test_term_referent_points_at_the_measured_word() -> None:
    text = "The timeout is 30 seconds."
    G = build_graph(text, mode="fast")
    assert G.nodes["ref:term:timeout"]["text"] == "timeout"


def test_magnitudes_are_floats() -> None:
    G = build_graph("We run a dozen servers and 3 workers.", mode="fast")
    mags = [d["magnitude"] for _, d in G.nodes(data=True) if d["kind"] == "quantity"]
    assert mags == [12.0, 3.0]
    assert all(type(m) is float for m in mags)


def test_binary_bytes_are_refused() -> None:
    with pytest.raises(refgraph.InputError, match="binary"):
        build_graph(b"\x00\x01\x02 binary", mode="fast")  # type: ignore[arg-type]
    assert build_graph("caf\u00e9 is 3 km away".encode(), mode="fast").number_of_nodes() > 0  # type: ignore[arg-type]


def test_pronoun_resolves_to_nearest_earlier_mention_in_accurate_mode() -> None:
    G = build_graph("The cache expired. It was rebuilt.", mode="accurate")
    (it,) = [n for n, d in G.nodes(data=True) if d["kind"] == "deictic" and d["text"] == "It"]
    (target,) = [v for _, v, k in G.out_edges(it, keys=True) if k == EdgeKind.REFERS_TO]
    assert G.nodes[target]["text"] == "cache"
    G2 = build_graph("It was rebuilt.", mode="accurate")
    assert [d["resolved"] for _, d in G2.nodes(data=True) if d["kind"] == "deictic"] == [False]


def test_progress_reports_parsed_blocks() -> None:
    calls: list[tuple[int, int]] = []
    text = "\n\n".join(f"Block {i} has {i} rows." for i in range(150))
    build_graph(text, parser=Parser("fast"), progress=lambda d, t: calls.append((d, t)))
    assert calls[-1] == (150, 150)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)


def _public_copy(G: nx.MultiDiGraph) -> nx.MultiDiGraph:
    """The same graph rebuilt through networkx's public API."""
    H: nx.MultiDiGraph = nx.MultiDiGraph(**G.graph)
    H.add_nodes_from((n, dict(d)) for n, d in G.nodes(data=True))
    H.add_edges_from((u, v, k, dict(d)) for u, v, k, d in G.edges(keys=True, data=True))
    return H


def test_graph_is_what_the_public_api_builds(graph: nx.MultiDiGraph) -> None:
    H = _public_copy(graph)
    assert nx.utils.graphs_equal(graph, H)
    assert {n: dict(p) for n, p in graph.pred.items()} == {n: dict(p) for n, p in H.pred.items()}
    assert list(graph.edges(keys=True)) == list(H.edges(keys=True))
    # The graph is an ordinary networkx graph: it can be edited and copied.
    G = graph.copy()
    G.add_edge("x", "ref:identifier:MAX_RETRIES", key="uses", kind="uses")
    G.remove_node("ref:identifier:MAX_RETRIES")
    assert "x" in G
    assert not any(v == "ref:identifier:MAX_RETRIES" for _, v in G.edges())


def test_rebuild_reuses_block_fragments_and_owns_its_data() -> None:
    parser = Parser("fast")
    a = build_graph(CONTEXT, parser=parser)
    edited = "Preface: the budget is 5 GB.\n\n" + CONTEXT  # every block moves
    b = build_graph(edited, parser=parser)
    fresh = build_graph(edited, parser=Parser("fast"))
    assert nx.utils.graphs_equal(b, fresh)
    assert list(b.nodes) == list(fresh.nodes)
    assert list(b.edges(keys=True)) == list(fresh.edges(keys=True))
    assert all(edited[d["start"]:d["end"]] == d["text"] for _, d in b.nodes(data=True))
    # Node and edge data are fresh per graph: editing one graph leaves the next untouched.
    for _, d in a.nodes(data=True):
        d["start"] = -1
    for _, _, d in a.edges(data=True):
        d["kind"] = "edited"
    c = build_graph(CONTEXT, parser=parser)
    assert all(d["start"] >= 0 for _, d in c.nodes(data=True))
    assert all(k == d["kind"] for _, _, k, d in c.edges(keys=True, data=True))


def test_causal_premise_in_an_earlier_block_is_linked_only_when_there_is_one() -> None:
    parser = Parser("fast")
    alone = build_graph("Therefore the failover was paused.", parser=parser)
    assert not [k for _, _, k in alone.edges(keys=True) if k == EdgeKind.SUPPORTS]
    G = build_graph("Lag exceeded 30 seconds.\n\nTherefore the failover was paused.",
                    parser=parser)  # the second block's parse (and fragment) is cached
    supports = [(u, v) for u, v, k in G.edges(keys=True) if k == EdgeKind.SUPPORTS]
    assert len(supports) == 1
    assert G.nodes[supports[0][0]]["text"] == "Lag exceeded 30 seconds"
    assert G.nodes[supports[0][1]]["text"] == "the failover was paused"


def test_repeated_and_reordered_blocks_rebuild_as_built_fresh() -> None:
    # A block's fragment is made for the id and place of its first assembly; the same content
    # elsewhere (another id: "b<hash>.1") or moved must give what a fresh parser gives,
    # references and edge order included.
    note = "The retry budget is 5 calls. Do not raise that budget."
    other = "The above constraint applies. It was set by the SRE team. This holds."
    parser = Parser("fast")
    for text in (f"{note}\n\n{other}\n\n{note}", f"{other}\n\n{note}\n\n{other}\n\n{note}"):
        G = build_graph(text, parser=parser)
        # The reference derives every block's fragment afresh: a fresh parser would still
        # share one fragment between the repeats of a block within the text.
        blocks = split_blocks(text)
        parsed = Parser("fast").parse(blocks)
        H = assemble(text, blocks, [dataclasses.replace(pb, fragment=None) for pb in parsed],
                     mode="fast")
        assert to_node_link(G) == to_node_link(H)
        assert [list(p) for p in G.pred.values()] == [list(p) for p in H.pred.values()]
