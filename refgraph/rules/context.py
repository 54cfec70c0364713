"""What a rule sees: both texts, both graphs, their units and the alignment, indexed once.

Built by the analyzer; rules only read it. Everything here is plain Python over networkx graphs.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Literal

from ..align import Alignment, Unit, content_words, unit_index, units_of
from ..findings import Evidence
from ..findings import Side as SideName
from ..model import NodeKind, RefGraph

Intent = Literal["rewrite", "summarize", "prune"]
INTENTS: tuple[Intent, ...] = ("rewrite", "summarize", "prune")


def contains_close(nums: list[float], value: float, rel: float = 1e-6) -> bool:
    """True when sorted ``nums`` holds a number within ``rel`` of ``value``."""
    lo, hi = value - abs(value) * rel - 1e-12, value + abs(value) * rel + 1e-12
    k = bisect.bisect_left(nums, lo)
    return k < len(nums) and nums[k] <= hi


@dataclass(slots=True)
class Side:
    """One text with its graph, its units and which unit holds each span node."""

    name: SideName
    text: str
    G: RefGraph
    units: list[Unit]
    unit_of: dict[str, int]
    in_unit: list[list[str]]  # span node ids per unit, in document order
    lower: str = ""
    # Per-text memo (a Side is cached by the analyzer and reused across analyses).
    memo: dict[Any, Any] = field(default_factory=dict)

    @classmethod
    def build(cls, name: SideName, text: str, G: RefGraph) -> Side:
        units = units_of(G)
        unit_of = unit_index(units, G)
        for nid in [n for n in unit_of if _list_marker(G, n, text)]:
            del unit_of[nid]
        in_unit: list[list[str]] = [[] for _ in units]
        for nid, i in unit_of.items():
            in_unit[i].append(nid)
        nodes = G.nodes
        for lst in in_unit:
            lst.sort(key=lambda n: (nodes[n]["start"], nodes[n]["end"]))
        return cls(name, text, G, units, unit_of, in_unit, text.lower())

    def d(self, nid: str) -> dict[str, Any]:
        """The data of node ``nid``."""
        data: dict[str, Any] = self.G.nodes[nid]
        return data

    def of_kind(self, i: int, kind: NodeKind) -> list[str]:
        """Span nodes of ``kind`` inside unit ``i`` (indexed once per unit)."""
        key = ("of_kind", i)
        by_kind: dict[str, list[str]] | None = self.memo.get(key)
        if by_kind is None:
            by_kind = {}
            nodes = self.G.nodes
            for n in self.in_unit[i]:
                by_kind.setdefault(nodes[n]["kind"], []).append(n)
            self.memo[key] = by_kind
        return by_kind.get(kind.value, [])

    def nodes_of(self, kind: NodeKind) -> list[str]:
        """Every node of ``kind``, in document order (indexed once per text)."""
        by_kind: dict[str, list[str]] | None = self.memo.get("by_kind")
        if by_kind is None:
            by_kind = defaultdict(list)
            for n, d in self.G.nodes(data=True):
                if n in self.unit_of:
                    by_kind[d["kind"]].append(n)
            for lst in by_kind.values():
                lst.sort(key=lambda n: self.G.nodes[n]["start"])
            self.memo["by_kind"] = by_kind
        return by_kind.get(kind.value, [])

    def all_words(self) -> frozenset[str]:
        """Content words of the whole text."""
        words: frozenset[str] | None = self.memo.get("words")
        if words is None:
            words = frozenset().union(*(u.words for u in self.units))
            self.memo["words"] = words
        return words

    def numbers(self) -> list[float]:
        """Every numeral as written in the text, sorted."""
        nums: list[float] | None = self.memo.get("numbers")
        if nums is None:
            from .common import numbers_in
            nums = sorted(numbers_in(self.text))
            self.memo["numbers"] = nums
        return nums

    def has_number(self, value: float, rel: float = 1e-6) -> bool:
        """True when a numeral within ``rel`` of ``value`` is written in the text."""
        return contains_close(self.numbers(), value, rel)

    def ev(self, start: int, end: int) -> Evidence:
        """Evidence for ``text[start:end]`` on this side."""
        return Evidence(self.name, start, end, self.text[start:end])

    def ev_node(self, nid: str) -> Evidence:
        d = self.G.nodes[nid]
        return self.ev(d["start"], d["end"])

    def ev_unit(self, i: int) -> Evidence:
        u = self.units[i]
        return self.ev(u.start, u.end)

    def words(self, start: int, end: int) -> frozenset[str]:
        return content_words(self.text[start:end])


def _list_marker(G: RefGraph, nid: str, text: str) -> bool:
    """"2." opening a numbered bullet is a marker, not a quantity of the text."""
    d = G.nodes[nid]
    if d["kind"] != NodeKind.QUANTITY.value or not str(d["text"]).isdigit():
        return False
    line_start = text.rfind("\n", 0, d["start"]) + 1
    return not text[line_start:d["start"]].strip() and text[d["end"]:d["end"] + 1] in (".", ")")


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

    _from: dict[int, list[int]] = field(default_factory=dict)
    _citing: dict[int, list[int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        from_: dict[int, list[int]] = defaultdict(list)
        for j, src in self.alignment.match.items():
            from_[src].append(j)
        citing: dict[int, list[int]] = defaultdict(list)
        for j, srcs in self.alignment.sources.items():
            for s in srcs:
                citing[s].append(j)
        self._from, self._citing = dict(from_), dict(citing)

    def after_units_from(self, i: int) -> list[int]:
        """After units whose best source is before unit ``i``."""
        return self._from.get(i, [])

    def after_units_citing(self, i: int) -> list[int]:
        """After units that drew at least a third of their content from before unit ``i``."""
        return self._citing.get(i, [])
