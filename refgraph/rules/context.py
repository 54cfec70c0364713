"""What a rule sees: both texts, both graphs, their claims and the alignment, indexed once.

Built by the analyzer; rules only read it. A side's text is here to quote evidence from, never
to be read for meaning: rules compare graph data (claims, their arguments and relations).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..align import Alignment, Unit, unit_index, units_of
from ..claims import ClaimSet, claims_of
from ..findings import Evidence
from ..findings import Side as SideName
from ..model import RefGraph
from ..options import INTENTS as INTENTS
from ..options import Intent as Intent


@dataclass(slots=True)
class Side:
    """One text with its graph, its units and its claims."""

    name: SideName
    text: str
    G: RefGraph
    units: list[Unit]
    unit_of: dict[str, int]
    claims: ClaimSet
    # Per-text memo (a Side is cached by the analyzer and reused across analyses).
    memo: dict[Any, Any] = field(default_factory=dict)

    @classmethod
    def build(cls, name: SideName, text: str, G: RefGraph) -> Side:
        units = units_of(G)
        return cls(name, text, G, units, unit_index(units, G), claims_of(G))

    def d(self, nid: str) -> dict[str, Any]:
        """The data of node ``nid``."""
        data: dict[str, Any] = self.G.nodes[nid]
        return data

    def nodes_of(self, kind: str) -> list[str]:
        """Every node of ``kind`` (a :class:`~refgraph.model.NodeKind` value), in document
        order (indexed once per text)."""
        by_kind: dict[str, list[str]] | None = self.memo.get("by_kind")
        if by_kind is None:
            by_kind = {}
            for n, d in self.G.nodes(data=True):
                by_kind.setdefault(d["kind"], []).append(n)
            nodes = self.G.nodes
            for lst in by_kind.values():
                lst.sort(key=lambda n: (nodes[n]["start"], nodes[n]["end"]))
            self.memo["by_kind"] = by_kind
        return by_kind.get(str(kind), [])

    def ev(self, start: int, end: int, role: str = "", node: str = "") -> Evidence:
        """Evidence for ``text[start:end]`` on this side."""
        return Evidence(self.name, start, end, self.text[start:end], role, node)

    def ev_node(self, nid: str, role: str = "") -> Evidence:
        d = self.G.nodes[nid]
        return self.ev(d["start"], d["end"], role, nid)

    def ev_unit(self, i: int, role: str = "") -> Evidence:
        u = self.units[i]
        return self.ev(u.start, u.end, role, u.node)


@dataclass(slots=True)
class Context:
    """Both sides of a rewrite plus what the caller said about it."""

    before: Side
    after: Side
    alignment: Alignment
    intent: Intent = "rewrite"
    declared_span: tuple[int, int] | None = None
    justification: Side | None = None  # the patch's stated reason, as its own text and graph
    protected: tuple[tuple[int, int], ...] = ()  # character ranges of before nobody may change
    tokens_before: int = 0
    tokens_after: int = 0
    _cache: dict[str, Any] = field(default_factory=dict)
