"""Small referent graphs built by hand, so rule tests run without spaCy.

A :class:`Text` is one side: a string and the claims a test says it holds. Each claim names the
substring it spans, its attributes (schema ``refgraph.graph/2``, ``docs/graph.md``) and its
arguments (substrings with a kind and attributes). :func:`context` turns two of them into the
:class:`~refgraph.rules.context.Context` the rules read, aligned as the analyzer aligns them.

>>> before = Text("The job never runs without a lock.").claim(
...     "The job never runs without a lock", "run", negative=True, qualified=True,
...     args=[("job", "mention", {"key": "job", "head": "job"})])
>>> ctx = context(before, Text("The job runs without a lock.").claim(
...     "The job runs without a lock", "run", qualified=True,
...     args=[("job", "mention", {"key": "job", "head": "job"})]))
>>> [c.negative for c in ctx.after.claims.claims]
[False]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from refgraph.align import align, align_claims
from refgraph.model import SCHEMA, EdgeKind, NodeKind, RefGraph
from refgraph.rules.context import Context, Intent, Side

Arg = tuple[str, str, dict[str, Any]]  # (substring, node kind, attributes)


@dataclass
class Text:
    """One side of a rewrite: its text, split into blocks at blank lines, and its claims."""

    text: str
    role: str | tuple[str, ...] = ""  # the blocks' turn roles ("tool"; one per block, or
    # one for all), when the test wants them
    claims: list[tuple[str, str, dict[str, Any], list[Arg]]] = field(default_factory=list)
    links: list[tuple[str, str, str]] = field(default_factory=list)  # (consequent, antecedent,
    # condition kind)

    def condition(self, consequent: str, antecedent: str, kind: str = "if") -> Text:
        """Make the claim over ``antecedent`` the condition of the one over ``consequent``."""
        self.links.append((consequent, antecedent, kind))
        return self

    def claim(self, span: str, pred_key: str, *, negative: bool = False,
              args: list[Arg] | None = None, **attrs: Any) -> Text:
        """Add a claim over ``span`` (its first occurrence) with predicate class
        ``pred_key``; ``attrs`` are further claim attributes (``strength``, ``force``,
        ``mood``, ``source``, ``finding``, ``terms`` ...)."""
        data = {"predicate": pred_key, "pred_key": pred_key,
                "polarity": "negative" if negative else "positive", "strength": 1.0,
                "mood": "declarative", **attrs}
        if negative and "denial" not in data:
            data["denial"] = "cue"
        self.claims.append((span, pred_key, data, list(args or [])))
        return self

    def graph(self) -> RefGraph:
        G: RefGraph = nx.MultiDiGraph(schema=SCHEMA)
        blocks: list[tuple[int, int, str, str]] = []
        start = 0
        parts = self.text.split("\n\n")
        roles = self.role if isinstance(self.role, tuple) else (self.role,) * len(parts)
        for k, (part, role) in enumerate(zip(parts, roles, strict=True)):
            bid = f"b{k:016x}.0"
            end = start + len(part)
            data: dict[str, Any] = {"kind": NodeKind.BLOCK.value, "text": part, "start": start,
                                    "end": end, "block_kind": "turn" if role else "paragraph"}
            if role:
                data["role"] = role
            G.add_node(bid, **data)
            blocks.append((start, end, bid, role))
            start = end + 2
        for span, _, data, args in self.claims:
            s = self.text.index(span)
            bid, role = next((b, r) for b0, b1, b, r in blocks if b0 <= s < b1 or b0 == s == b1)
            cid = f"{bid}:claim@{s}-{s + len(span)}"
            data = dict(data)
            terms = data.pop("terms", None)
            source = {"source": _source(role)} if role and "source" not in data else {}
            G.add_node(cid, kind=NodeKind.CLAIM.value, text=span, start=s, end=s + len(span),
                       terms=terms if terms is not None else " ".join(
                           w.lower().strip(".,") for w in span.split() if len(w) > 3),
                       **source, **data)
            G.add_edge(bid, cid, key=EdgeKind.CONTAINS.value, kind=EdgeKind.CONTAINS.value)
            for sub, kind, attrs in args:
                a = self.text.index(sub, s)
                nid = f"{bid}:{kind}@{a}-{a + len(sub)}"
                G.add_node(nid, kind=kind, text=sub, start=a, end=a + len(sub), **attrs)
                G.add_edge(cid, nid, key=EdgeKind.ARG.value, kind=EdgeKind.ARG.value,
                           role="other")
        ids = {G.nodes[n]["text"]: n for n in G if G.nodes[n]["kind"] == NodeKind.CLAIM.value}
        for consequent, antecedent, kind in self.links:
            G.add_edge(ids[consequent], ids[antecedent], key=EdgeKind.CONDITIONS.value,
                       kind=EdgeKind.CONDITIONS.value, marker=kind, cond_kind=kind)
        return G


_ROLES = frozenset({"user", "assistant", "tool", "system"})


def _source(role: str) -> str:
    """A claim's ``source`` for its block's role, as the graph builder writes it."""
    return role if role in _ROLES else f"speaker:{role}"


def context(before: Text, after: Text, intent: Intent = "rewrite") -> Context:
    """The context the rules see for ``before`` -> ``after``, aligned as the analyzer does."""
    sb = Side.build("before", before.text, before.graph())
    sa = Side.build("after", after.text, after.graph())
    al = align(sb.units, sa.units)
    al.claims = align_claims(sb.claims, sa.claims)
    return Context(sb, sa, al, intent=intent)


def quantity(value: float, unit: str = "", *, bound: str = "=", noun: str = "",
             base: float | None = None) -> dict[str, Any]:
    """Attributes of a quantity node: ``unit`` is also its base unit unless ``base`` says
    the base value in it (30 minutes: ``quantity(30, "minute", base=1800)`` in seconds)."""
    d: dict[str, Any] = {"magnitude": float(value), "bound": bound,
                         "base_magnitude": float(value if base is None else base)}
    if unit:
        d.update(unit=unit, base_unit=unit if base is None else "second")
    if noun:
        d["noun"] = noun
    return d


def mention(key: str, head: str | None = None, label: str = "") -> dict[str, Any]:
    d: dict[str, Any] = {"key": key, "head": head or key.split("[", 1)[0]}
    if label:
        d["ent_label"] = label
    return d
