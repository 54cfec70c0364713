"""What the graph-diff figure shows, computed without matplotlib: nodes, their status, rows, edges.

Both referent graphs become one two-column picture: ``before`` nodes on the left, ``after``
nodes on the right, one row per node in text order. The two node sequences are diffed like
lines of text, so a referent kept in place shares its row with its copy (kept), a node only in
``before`` has an empty right-hand cell (removed) and one only in ``after`` an empty left-hand
cell (added). A kept node that changed places is "moved" and linked to its copy.

Referent nodes (``ref:...``) are not drawn: a reviewer looks for text, so every drawn node is a
span of one side. An edge into a referent is projected onto that referent's occurrences: the
occurrences of one identifier, entity or handle are chained in text order, and a constraint or
quantity that governs or measures a referent points at its nearest occurrence.

Each finding is tied to the nodes its evidence spans cover; ``focus="findings"`` keeps those
nodes, their copies on the other side and their direct neighbours, so a large context stays
legible. Everything here is deterministic: the same report gives the same view.
"""

from __future__ import annotations

import bisect
import functools
import itertools
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Any, Literal, TypeAlias

from ..findings import Evidence, Finding, Side
from ..model import EdgeKind, NodeKind, RefGraph

Status: TypeAlias = Literal["kept", "moved", "removed", "added"]
Focus: TypeAlias = Literal["findings", "all"]
NodeRef: TypeAlias = tuple[Side, str]  # (side, node id)
SIDES: tuple[Side, Side] = ("before", "after")

# Span kinds drawn as nodes; blocks and sentences only when a finding's evidence needs them.
DRAWN = (NodeKind.IDENTIFIER, NodeKind.HANDLE, NodeKind.QUANTITY, NodeKind.NEGATION,
         NodeKind.CONDITIONAL, NodeKind.CONSTRAINT, NodeKind.DEICTIC, NodeKind.HEDGE,
         NodeKind.MENTION, NodeKind.CAUSAL, NodeKind.CLAIM)
# When an evidence span covers many nodes, the ones that carry meaning come first.
_RANK: dict[str, int] = {k: i for i, k in enumerate((
    NodeKind.DEICTIC, NodeKind.CONSTRAINT, NodeKind.NEGATION, NodeKind.CONDITIONAL,
    NodeKind.CLAIM, NodeKind.QUANTITY, NodeKind.HANDLE, NodeKind.IDENTIFIER, NodeKind.CAUSAL,
    NodeKind.HEDGE, NodeKind.MENTION, NodeKind.SENTENCE, NodeKind.BLOCK))}
_PER_EVIDENCE = 3  # nodes one evidence span contributes at most
_LABEL_WIDTH = 40
# A reviewer's words for each kind, not the schema's: "not: reachable", "limit: at most 3".
_TAG: dict[str, str] = {
    NodeKind.IDENTIFIER: "name", NodeKind.HANDLE: "handle", NodeKind.QUANTITY: "amount",
    NodeKind.NEGATION: "not", NodeKind.CONDITIONAL: "condition", NodeKind.CONSTRAINT: "rule",
    NodeKind.DEICTIC: "points to", NodeKind.HEDGE: "hedge", NodeKind.MENTION: "thing",
    NodeKind.CAUSAL: "because", NodeKind.CLAIM: "says", NodeKind.SENTENCE: "sentence",
    NodeKind.BLOCK: "block"}
_BOUNDED = frozenset({"<", "<=", ">", ">=", "≤", "≥", "range"})


@dataclass(frozen=True, slots=True)
class ViewNode:
    """One drawn node: a span of one side."""

    side: Side
    id: str
    kind: str
    label: str
    start: int
    end: int
    status: Status
    row: int = -1
    findings: tuple[int, ...] = ()  # indexes into the report's findings


@dataclass(frozen=True, slots=True)
class ViewEdge:
    """A relation between two nodes of one side (``kind`` is an EdgeKind value or ``same``)."""

    side: Side
    source: str
    target: str
    kind: str
    findings: tuple[int, ...] = ()


@dataclass(slots=True)
class DiffView:
    """The picture as data. ``links`` join a finding's before nodes to its after nodes;
    ``moves`` join a moved node to its copy. ``total`` counts the nodes before focusing."""

    nodes: dict[NodeRef, ViewNode] = field(default_factory=dict)
    edges: list[ViewEdge] = field(default_factory=list)
    links: list[tuple[int, str, str]] = field(default_factory=list)  # (finding, before, after)
    moves: list[tuple[str, str]] = field(default_factory=list)  # (before id, after id)
    rows: int = 0
    total: int = 0
    findings: tuple[Finding, ...] = ()

    def node(self, side: Side, node_id: str) -> ViewNode:
        return self.nodes[(side, node_id)]


def short_label(kind: str, data: dict[str, Any], width: int = _LABEL_WIDTH) -> str:
    """A one-line label: a kind tag and the span's text, cut to ``width`` characters.

    >>> short_label("quantity", {"text": "30   seconds"})
    'amount: 30 seconds'
    >>> short_label("quantity", {"text": "at least 5 minutes", "bound": ">="})
    'limit: at least 5 minutes'
    >>> short_label("deictic", {"text": "that budget", "resolved": False})
    'points to: that budget → ?'
    """
    text = " ".join(str(data.get("text", "")).split())
    if kind == NodeKind.IDENTIFIER and data.get("role") == "define":
        tag = "defines"
    elif kind == NodeKind.NEGATION and data.get("word"):
        tag, text = "not", " ".join(str(data["word"]).split())  # "un" -> "unreachable"
    elif kind == NodeKind.QUANTITY and data.get("bound") in _BOUNDED:
        tag = "limit"
    elif kind == NodeKind.REFERENT:
        tag = str(data.get("ref_kind", "referent"))
        text = " ".join(str(data.get("key", text)).split())
    else:
        tag = _TAG.get(kind, kind)
    tail = " → ?" if kind == NodeKind.DEICTIC and data.get("resolved") is False else ""
    room = max(width - len(tag) - len(tail) - 2, 8)
    if len(text) > room:
        text = text[: room - 1].rstrip() + "…"
    return f"{tag}: {text}{tail}"


def by_position(findings: Iterable[Finding]) -> tuple[Finding, ...]:
    """Findings in reading order: by where their first evidence starts (before first)."""
    def key(f: Finding) -> tuple[int, int, str]:
        spans = [(e.side != "before", e.start) for e in f.evidence] or [(True, 0)]
        side, start = min(spans)
        return int(side), start, f.code
    return tuple(sorted(findings, key=key))


def build_view(findings: Iterable[Finding], before_graph: RefGraph, after_graph: RefGraph, *,
               focus: Focus = "findings", max_nodes: int = 60) -> DiffView:
    """The figure's content for a report's findings and graphs (see the module docstring)."""
    if focus not in ("findings", "all"):
        raise ValueError(f"focus must be 'findings' or 'all', not {focus!r}")
    if max_nodes < 2:
        raise ValueError(f"max_nodes must be at least 2, not {max_nodes}")
    found = by_position(findings)
    graphs: dict[Side, RefGraph] = {"before": before_graph, "after": after_graph}
    evidence_nodes = {side: _evidence_nodes(found, graphs[side], side)
                      for side in SIDES}
    # Only what the evidence names wears a finding's ring; the kept twins added below are
    # drawn and linked, not ringed.
    named = {side: {i: frozenset(ns) for i, ns in evidence_nodes[side].items()}
             for side in SIDES}
    # Sentences and blocks are drawn only where evidence needs them, and then on both sides,
    # so that a sentence both sides hold shows as kept rather than removed.
    extra = {side: {n for per in evidence_nodes[side].values() for n in per
                    if graphs[side].nodes[n]["kind"] not in DRAWN} for side in graphs}
    wanted = {_key(graphs[side], n) for side in graphs for n in extra[side]}
    seq: dict[Side, list[str]] = {}
    for side in SIDES:
        G = graphs[side]
        ids = [n for n, d in G.nodes(data=True) if d["kind"] in DRAWN or _bare_referent(G, n)
               or (n not in extra[side] and d["kind"] in (NodeKind.SENTENCE, NodeKind.BLOCK)
                   and _key(G, n) in wanted)]
        ids += sorted(extra[side])
        seq[side] = sorted(ids, key=functools.partial(_order, G))
    rows, partner, moved = _diff_rows(seq, graphs)
    # A finding also concerns the kept copy of what it cites: the before copy of a dangling
    # "the above constraint" still has the edge to the constraint that was pruned.
    for side in SIDES:
        for i, ns in list(evidence_nodes[side].items()):
            for n in ns:
                if (side, n) in partner:
                    other, m = partner[(side, n)]
                    per = evidence_nodes[other].setdefault(i, [])
                    if m not in per:
                        per.append(m)
    edges = {side: _projected_edges(graphs[side], set(seq[side]), side)
             for side in SIDES}
    keep = _focus(found, seq, evidence_nodes, partner, edges, focus, max_nodes)

    view = DiffView(total=len(seq["before"]) + len(seq["after"]), findings=found)
    row_ids = sorted({rows[r] for r in keep})
    compact = {r: i for i, r in enumerate(row_ids)}
    view.rows = len(row_ids)
    for side, n in sorted(keep, key=lambda r: (rows[r], r[0] != "before")):
        d = graphs[side].nodes[n]
        if (side, n) in moved:
            status: Status = "moved"
        elif (side, n) in partner:
            status = "kept"
        else:
            status = "removed" if side == "before" else "added"
        tied = tuple(sorted(i for i, per in named[side].items() if n in per))
        label = _negation_label(graphs[side], n) if d["kind"] == NodeKind.NEGATION else None
        view.nodes[(side, n)] = ViewNode(side, n, d["kind"], label or short_label(d["kind"], d),
                                         d["start"], d["end"], status, compact[rows[(side, n)]],
                                         tied)
    for side in SIDES:
        for u, v, kind in edges[side]:
            if (side, u) in view.nodes and (side, v) in view.nodes:
                shared = tuple(sorted(set(view.node(side, u).findings)
                                      & set(view.node(side, v).findings)))
                view.edges.append(ViewEdge(side, u, v, kind, shared))
    for i in range(len(found)):
        left = [n for (s, n) in view.nodes if s == "before" and n in evidence_nodes[s].get(i, ())]
        right = [n for (s, n) in view.nodes if s == "after" and n in evidence_nodes[s].get(i, ())]
        # Link what became what: a removed node to the finding's first after node, and the
        # first before node to an added one. Kept copies already share a row (or a "moved"
        # line), and linking every node to every other is a thicket.
        if left and right:
            pairs = [(b, right[0]) for b in left if ("before", b) not in partner]
            pairs += [(left[0], a) for a in right if ("after", a) not in partner]
            view.links += [(i, b, a) for b, a in dict.fromkeys(pairs)
                           if partner.get(("before", b)) != ("after", a)]
    for ref in sorted(moved):
        twin = partner[ref]
        if ref[0] == "before" and ref in view.nodes and twin in view.nodes:
            view.moves.append((ref[1], twin[1]))
    return view


def _negation_label(G: RefGraph, n: str) -> str | None:
    """"not: required" for a negation: what it denies (the first word it scopes over, else
    its affixed word or the claim it negates), not the cue ("not", "un") again."""
    scoped = [G.nodes[v] for _, v, k in G.out_edges(n, keys=True) if k == EdgeKind.SCOPES
              and G.nodes[v]["kind"] != NodeKind.MENTION]
    if scoped:
        what = str(min(scoped, key=lambda d: d["start"])["text"])
    else:
        claims = [G.nodes[v] for _, v, k in G.out_edges(n, keys=True)
                  if k == EdgeKind.NEGATES]
        what = str(G.nodes[n].get("word") or (claims[0]["text"] if claims else ""))
    what = " ".join(what.split())
    if not what:
        return None
    return short_label(NodeKind.NEGATION, {"text": what})


def _bare_referent(G: RefGraph, n: str) -> bool:
    """A referent no span occurrence stands for (a term only measured or governed): drawn
    itself, or what governs or measures it would point at nothing."""
    if G.nodes[n]["kind"] != NodeKind.REFERENT:
        return False
    return not any(k in (EdgeKind.USES, EdgeKind.DEFINES) for _, _, k in G.in_edges(n, keys=True))


def _order(G: RefGraph, n: str) -> tuple[int, int, int, str]:
    d = G.nodes[n]
    # A wider span first, so a claim comes before the words inside it; ids break ties.
    return d["start"], -d["end"], _RANK.get(d["kind"], 99), n


def _key(G: RefGraph, n: str) -> tuple[str, str]:
    d = G.nodes[n]
    return d["kind"], " ".join(str(d["text"]).split()).casefold()


def _evidence_nodes(findings: tuple[Finding, ...], G: RefGraph,
                    side: Side) -> dict[int, list[str]]:
    """finding index -> the nodes of ``side`` its evidence covers (at most a few per span)."""
    if not findings:
        return {}
    spans = sorted((d["start"], d["end"], n, d["kind"]) for n, d in G.nodes(data=True)
                   if d["kind"] in (*DRAWN, NodeKind.SENTENCE, NodeKind.BLOCK))
    starts = [s[0] for s in spans]
    # A sentence that is itself a premise or an antecedent stands for its evidence better
    # than the words inside it.
    roled = {n for u, v, k in G.edges(keys=True) if k != EdgeKind.CONTAINS for n in (u, v)
             if G.nodes[n]["kind"] in (NodeKind.SENTENCE, NodeKind.BLOCK)}
    out: dict[int, list[str]] = {}
    for i, f in enumerate(findings):
        for e in f.evidence:
            if e.side == side:
                named = _named_nodes(e, G)
                for n in named or _nodes_for(e, spans, starts, roled):
                    if n not in out.setdefault(i, []):
                        out[i].append(n)
    return out


_ACTS_ON = (EdgeKind.GOVERNS, EdgeKind.NEGATES)


def _named_nodes(e: Evidence, G: RefGraph) -> list[str]:
    """The node an evidence names, when it is drawn; a claim comes with the constraints
    and negations acting on it (what made it a prohibition or a denial)."""
    if not e.node or e.node not in G or G.nodes[e.node]["kind"] not in DRAWN:
        return []
    out = [e.node]
    if G.nodes[e.node]["kind"] == NodeKind.CLAIM:
        out += sorted(u for u, _, k in G.in_edges(e.node, keys=True)
                      if k in _ACTS_ON and G.nodes[u]["kind"] in DRAWN)[:_PER_EVIDENCE - 1]
    return out


def _nodes_for(e: Evidence, spans: list[tuple[int, int, str, str]], starts: list[int],
               roled: set[str]) -> list[str]:
    """The nodes that stand for one evidence span, most telling first.

    The node the evidence names (``Evidence.node``), with, for a claim, the constraints and
    negations that act on it; else a span node the evidence quotes exactly, or a sentence it
    quotes exactly that is a premise or an antecedent; else the meaningful nodes inside it (a
    constraint, a negation, a number, a handle...); else the sentence or block it quotes
    exactly; else the mentions inside it; else the smallest node around it.
    """
    end = max(e.end, e.start + 1)
    hi = bisect.bisect_left(starts, end)
    inside = [s for s in spans[bisect.bisect_left(starts, e.start):hi] if s[1] <= end]
    exact = [s for s in inside if s[0] == e.start and s[1] == e.end]
    structural = (NodeKind.SENTENCE, NodeKind.BLOCK)
    around = [s for s in spans[:hi] if s[0] <= e.start and s[1] >= e.end]
    groups = (
        [s for s in exact if s[3] in DRAWN or s[2] in roled],
        [s for s in inside if s[3] in DRAWN and s[3] != NodeKind.MENTION],
        [s for s in exact if s[3] in structural][:1],
        [s for s in inside if s[3] == NodeKind.MENTION],
        sorted((s for s in around if s[3] in DRAWN), key=lambda s: s[1] - s[0])[:1],
        sorted((s for s in around if s[3] in structural), key=lambda s: s[1] - s[0])[:1],
    )
    for group in groups:
        if group:
            ranked = sorted(group, key=lambda s: (_RANK.get(s[3], 99), s[0], s[2]))
            return [s[2] for s in sorted(ranked[:_PER_EVIDENCE])]
    return []


def _diff_rows(seq: dict[Side, list[str]], graphs: dict[Side, RefGraph]
               ) -> tuple[dict[NodeRef, int], dict[NodeRef, NodeRef], set[NodeRef]]:
    """Rows like a side-by-side text diff; kept nodes pair up, moved nodes pair across rows."""
    b, a = seq["before"], seq["after"]
    bk = [_key(graphs["before"], n) for n in b]
    ak = [_key(graphs["after"], n) for n in a]
    rows: dict[NodeRef, int] = {}
    partner: dict[NodeRef, NodeRef] = {}
    row = 0
    for op, i1, i2, j1, j2 in SequenceMatcher(None, bk, ak, autojunk=False).get_opcodes():
        # A replaced stretch is shown side by side, like a diff tool does: fewer rows.
        for k in range(max(i2 - i1, j2 - j1)):
            if i1 + k < i2:
                rows[("before", b[i1 + k])] = row
            if j1 + k < j2:
                rows[("after", a[j1 + k])] = row
            if op == "equal":
                partner[("before", b[i1 + k])] = ("after", a[j1 + k])
                partner[("after", a[j1 + k])] = ("before", b[i1 + k])
            row += 1
    # Second pass: an unpaired node whose twin is unpaired on the other side moved.
    waiting: dict[tuple[str, str], list[str]] = defaultdict(list)
    for n, key in zip(a, ak, strict=True):
        if ("after", n) not in partner:
            waiting[key].append(n)
    moved: set[NodeRef] = set()
    for n, key in zip(b, bk, strict=True):
        if ("before", n) not in partner and waiting.get(key):
            m = waiting[key].pop(0)
            partner[("before", n)], partner[("after", m)] = ("after", m), ("before", n)
            moved |= {("before", n), ("after", m)}
    return rows, partner, moved


def _projected_edges(G: RefGraph, drawn: set[str], side: Side) -> list[tuple[str, str, str]]:
    """Edges between drawn nodes, with referents replaced by their occurrences."""
    occurrences: dict[str, list[str]] = defaultdict(list)
    for u, v, kind in G.edges(keys=True):
        if kind in (EdgeKind.USES, EdgeKind.DEFINES) and u in drawn:
            occurrences[v].append(u)
    for occ in occurrences.values():
        occ.sort(key=lambda n: _order(G, n))
    out: set[tuple[str, str, str]] = set()
    for occ in occurrences.values():
        out |= {(x, y, "same") for x, y in itertools.pairwise(occ)}
    for u, v, kind in G.edges(keys=True):
        if u not in drawn or kind in (EdgeKind.CONTAINS, EdgeKind.USES, EdgeKind.DEFINES):
            continue
        if v in drawn:
            out.add((u, v, str(kind)))
        elif occurrences.get(v):
            at = G.nodes[u]["start"]
            near = min(occurrences[v], key=lambda n: (abs(G.nodes[n]["start"] - at), n))
            if near != u:
                out.add((u, near, str(kind)))
    return sorted(out)


def _focus(found: tuple[Finding, ...], seq: dict[Side, list[str]],
           evidence_nodes: dict[Side, dict[int, list[str]]],
           partner: dict[NodeRef, NodeRef], edges: dict[Side, list[tuple[str, str, str]]],
           focus: Focus, max_nodes: int) -> list[NodeRef]:
    """Which nodes to draw: the findings' nodes first, then their surroundings, up to the cap."""
    adjacent: dict[NodeRef, list[NodeRef]] = defaultdict(list)
    for side, es in edges.items():
        for u, v, _ in es:
            adjacent[(side, u)].append((side, v))
            adjacent[(side, v)].append((side, u))
    seeds: list[NodeRef] = [(side, n) for side in SIDES
                            for i in range(len(found)) for n in evidence_nodes[side].get(i, [])]
    if not seeds:  # no findings: what changed is what a reviewer looks at
        seeds = [(side, n) for side in SIDES for n in seq[side]
                 if (side, n) not in partner]
    order: list[NodeRef] = []
    seen: set[NodeRef] = set()

    def take(refs: Iterable[NodeRef]) -> None:
        for r in refs:
            if r not in seen:
                seen.add(r)
                order.append(r)

    take(seeds)
    take([partner[r] for r in seeds if r in partner])
    ring = list(order)
    take([m for r in ring for m in adjacent[r]])
    take([partner[r] for r in order[len(ring):] if r in partner])
    if focus == "all":
        take((side, n) for side in SIDES for n in seq[side]
             if (side, n) not in partner)
        take((side, n) for side in SIDES for n in seq[side])
    return order[:max_nodes]
