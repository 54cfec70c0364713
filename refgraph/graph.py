"""``build_graph``: a context text in, a networkx referent graph out.

Blocks are parsed through the incremental :class:`~refgraph.parse.Parser`; this module only
assembles plain nodes and edges from the cached records, in one pass over the blocks plus a
resolution pass for references, so building is linear in the number of extracted things.
Schema: ``docs/graph.md``.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from typing import Any

import networkx as nx

from .blocks import Block, split_blocks
from .errors import InputError
from .gcpause import gc_paused
from .io import decode_text
from .model import SCHEMA, EdgeKind, NodeKind, RefGraph, RefKind, Scalar, referent_id
from .nlp.pipeline import Mode
from .nlp.records import Record
from .parse import ParsedBlock, Parser

# Heads that name a constraint: "the above constraint" looks for a constraint node.
_CONSTRAINT_HEADS = frozenset({"constraint", "rule", "limit", "restriction", "requirement",
                               "prohibition", "instruction", "precondition", "condition",
                               "guideline", "policy", "invariant", "threshold", "cap"})

_parsers: dict[str, Parser] = {}
_SURROGATE = re.compile("[\ud800-\udfff]")


def default_parser(mode: Mode) -> Parser:
    """The process-wide parser (and parse cache) for ``mode``."""
    if mode not in _parsers:
        _parsers[mode] = Parser(mode)
    return _parsers[mode]


def check_text(text: object, what: str = "text") -> str:
    """Return ``text`` if it is a ``str``; else raise :class:`InputError` with a clear message."""
    if isinstance(text, bytes | bytearray):
        return decode_text(bytes(text), what)  # UTF-8 only; binary data is refused
    if not isinstance(text, str):
        raise InputError(f"{what} must be a str, not {type(text).__name__}")
    bad = _SURROGATE.search(text)
    if bad:
        raise InputError(f"{what} holds an unpaired surrogate (U+{ord(bad.group()):04X}) at "
                         f"index {bad.start()}: not valid Unicode text")
    return text


def build_graph(text: str, *, mode: Mode = "accurate", parser: Parser | None = None,
                progress: Callable[[int, int], None] | None = None) -> RefGraph:
    """Build the referent graph of ``text``.

    Parameters
    ----------
    text : str
        The context, exactly as the agent holds it. Offsets in the graph index this string.
    mode : {"accurate", "fast"}
        Trained English pipeline plus rules, or ``spacy.blank("en")`` plus rules.
    parser : Parser, optional
        Reuse a parser (and its block cache); by default a process-wide one per mode.
    progress : callable, optional
        Called as ``progress(done, total)`` while blocks are parsed (for progress bars).

    Returns
    -------
    networkx.MultiDiGraph
        Nodes and edges with flat scalar data (see ``docs/graph.md``).

    Examples
    --------
    >>> G = build_graph("The timeout is 30 seconds.", mode="fast")
    >>> [d["unit"] for _, d in G.nodes(data=True) if d["kind"] == "quantity"]
    ['second']
    """
    text = check_text(text)
    parser = parser or default_parser(mode)
    blocks = split_blocks(text)
    parsed = parser.parse(blocks, progress=progress)
    return assemble(text, blocks, parsed, mode=parser.mode)


def assemble(text: str, blocks: list[Block], parsed: list[ParsedBlock], *, mode: str) -> RefGraph:
    """Nodes and edges from parsed blocks (pure: no parsing happens here)."""
    builder = _Builder(text)
    with gc_paused():
        for block, pb in zip(blocks, parsed, strict=True):
            builder.add_block(block, pb)
        builder.resolve_references()
        G: RefGraph = nx.MultiDiGraph(schema=SCHEMA, mode=mode, length=len(text))
        # Bulk insertion: networkx's per-call add_node/add_edge dominate otherwise.
        G.add_nodes_from(builder.nodes.items())
        # (u, v, key, data) 4-tuples are what MultiDiGraph takes; the stubs only know Graph's.
        G.add_edges_from(builder.edges)  # type: ignore[arg-type]
    return G


_K = {k: k.value for k in NodeKind}
_E = {k: k.value for k in EdgeKind}
_LINKED = frozenset({_K[NodeKind.IDENTIFIER], _K[NodeKind.MENTION], _K[NodeKind.QUANTITY],
                     _K[NodeKind.HEDGE], _K[NodeKind.CONSTRAINT], _K[NodeKind.HANDLE]})
_NAMED = frozenset({_K[NodeKind.IDENTIFIER], _K[NodeKind.MENTION], _K[NodeKind.HANDLE]})


class _Builder:
    def __init__(self, text: str) -> None:
        self.text = text
        self.nodes: dict[str, dict[str, Any]] = {}
        self.edges: list[tuple[str, str, str, dict[str, Any]]] = []
        self._edge_keys: set[tuple[str, str, str]] = set()
        self.sentences: list[str] = []  # sentence node ids in document order
        self.sentence_ends: list[int] = []  # their end offsets (non-decreasing)
        self.ref_of: dict[str, str] = {}  # occurrence node -> referent it uses or defines
        self.heads: dict[str, list[tuple[int, str]]] = {}  # head word -> occurrences
        self.constraints: list[tuple[int, str]] = []
        self.mentions: list[tuple[int, str]] = []
        self.pending: list[tuple[str, dict[str, Any]]] = []  # deictics, in document order

    # nodes and edges -------------------------------------------------------------------------
    def node(self, nid: str, kind: NodeKind, start: int, end: int, **attrs: Scalar) -> str:
        self.nodes[nid] = {"kind": _K[kind], "text": self.text[start:end], "start": start,
                           "end": end, **attrs}
        return nid

    def edge(self, u: str, v: str, kind: EdgeKind, **attrs: Scalar) -> None:
        key = _E[kind]
        if (u, v, key) in self._edge_keys:
            return
        self._edge_keys.add((u, v, key))
        self.edges.append((u, v, key, {"kind": key, **attrs}))

    def referent(self, ref_kind: RefKind, key: str, start: int, end: int) -> str:
        rid = referent_id(ref_kind, key)
        if rid not in self.nodes:
            self.node(rid, NodeKind.REFERENT, start, end, ref_kind=ref_kind.value, key=key)
        return rid

    # blocks ------------------------------------------------------------------------------------
    def add_block(self, block: Block, pb: ParsedBlock) -> None:
        off = block.start
        bid = block.id
        extra: dict[str, Scalar] = {"block_kind": block.kind.value, "hash": block.hash}
        if block.role:
            extra["role"] = block.role
        if block.turn_id:
            extra["turn_id"] = block.turn_id
        self.node(bid, NodeKind.BLOCK, block.start, block.end, **extra)
        sent_ids: list[str] = []
        sent_starts: list[int] = []
        for s, e in pb.sentences:
            sid = self.node(f"{bid}:sentence@{s}-{e}", NodeKind.SENTENCE, off + s, off + e)
            self.edge(bid, sid, EdgeKind.CONTAINS)
            sent_ids.append(sid)
            sent_starts.append(s)
            self.sentences.append(sid)
            self.sentence_ends.append(off + e)
        spans: list[tuple[int, str]] = []  # (global start, node id) of span nodes
        for rec in pb.records:
            nid = self._record(bid, off, rec, sent_ids, sent_starts)
            if nid is not None:
                spans.append((off + rec.start, nid))
        spans.sort()
        starts = [s for s, _ in spans]
        for _, nid in spans:
            self._scope_edges(nid, spans, starts)

    def _record(self, bid: str, off: int, rec: Record, sent_ids: list[str],
                sent_starts: list[int]) -> str | None:
        kind = NodeKind(rec.kind)
        nid = f"{bid}:{rec.kind}@{rec.start}-{rec.end}"
        if nid in self.nodes:
            return None
        g = rec.shifted(off)
        self.node(nid, kind, g.start, g.end, **g.attrs)
        k = bisect.bisect_right(sent_starts, rec.start) - 1
        self.edge(sent_ids[k] if k >= 0 else bid, nid, EdgeKind.CONTAINS)
        a = g.attrs
        if kind is NodeKind.IDENTIFIER:
            name = str(a["name"])
            rid = self.referent(RefKind.IDENTIFIER, name, g.start, g.end)
            self.edge(nid, rid, EdgeKind.DEFINES if a.get("role") == "define" else EdgeKind.USES)
            self.ref_of[nid] = rid
            head = _head_word(name)
            if head:
                self.heads.setdefault(head, []).append((g.start, nid))
        elif kind is NodeKind.HANDLE:
            rid = self.referent(RefKind.HANDLE, str(a["value"]), g.start, g.end)
            self.edge(nid, rid, EdgeKind.USES)
            self.ref_of[nid] = rid
        elif kind is NodeKind.MENTION:
            rid = self.referent(RefKind.ENTITY, str(a["key"]), g.start, g.end)
            self.edge(nid, rid, EdgeKind.USES)
            self.ref_of[nid] = rid
            self.heads.setdefault(str(a["head"]).lower(), []).append((g.start, nid))
            self.mentions.append((g.start, nid))
        elif kind is NodeKind.QUANTITY and "measured" in a:
            measured = str(a["measured"])
            ident = referent_id(RefKind.IDENTIFIER, measured)
            m0 = int(a.get("measured_start", g.start))
            m1 = int(a.get("measured_end", g.end))
            rid = ident if ident in self.nodes else self.referent(
                RefKind.TERM, measured.lower(), m0, m1)
            self.edge(nid, rid, EdgeKind.MEASURES)
        elif kind is NodeKind.CONSTRAINT:
            self.constraints.append((g.start, nid))
        elif kind is NodeKind.DEICTIC:
            self.pending.append((nid, dict(a)))
        elif kind is NodeKind.CAUSAL:
            self._causal(bid, off, nid, g)
        return nid

    def _causal(self, bid: str, off: int, nid: str, g: Record) -> None:
        a = g.attrs
        c0, c1 = int(a["conclusion_start"]), int(a["conclusion_end"])
        before = bisect.bisect_right(self.sentence_ends, g.start)  # sentences ended before it
        if "premise_start" not in a and before == 0:
            return  # "Therefore, ..." with no sentence before it: nothing to link
        concl = self.node(f"{bid}:claim@{c0 - off}-{c1 - off}", NodeKind.CLAIM, c0, c1,
                          role="conclusion")
        self.edge(bid, concl, EdgeKind.CONTAINS)
        if "premise_start" in a:
            p0, p1 = int(a["premise_start"]), int(a["premise_end"])
            prem = self.node(f"{bid}:claim@{p0 - off}-{p1 - off}", NodeKind.CLAIM, p0, p1,
                             role="premise")
            self.edge(bid, prem, EdgeKind.CONTAINS)
        else:
            # "Therefore, B." rests on the sentence before it, wherever that is.
            prem = self.sentences[before - 1]
        self.edge(nid, prem, EdgeKind.SIGNALS, role="premise")
        self.edge(nid, concl, EdgeKind.SIGNALS, role="conclusion")
        self.edge(prem, concl, EdgeKind.SUPPORTS, connective=str(a["connective"]))

    def _scope_edges(self, nid: str, spans: list[tuple[int, str]], starts: list[int]) -> None:
        d = self.nodes[nid]
        kind = d["kind"]
        ranges: list[tuple[int, int, str]] = []
        if kind == "negation":
            ranges.append((d["scope_start"], d["scope_end"], ""))
        elif kind == "conditional":
            ranges.append((d["antecedent_start"], d["antecedent_end"], "antecedent"))
            ranges.append((d["consequent_start"], d["consequent_end"], "consequent"))
        elif kind == "constraint":
            ranges.append((d["governed_start"], d["governed_end"], "governs"))
        else:
            return
        for lo, hi, part in ranges:
            i = bisect.bisect_left(starts, lo)
            while i < len(spans) and spans[i][0] < hi:
                other = spans[i][1]
                i += 1
                if other == nid:
                    continue
                okind = self.nodes[other]["kind"]
                if part == "governs":
                    if okind in _NAMED and other in self.ref_of:
                        self.edge(nid, self.ref_of[other], EdgeKind.GOVERNS)
                    elif okind == "quantity":
                        self.edge(nid, other, EdgeKind.GOVERNS)
                elif okind in _LINKED:
                    if part:
                        self.edge(nid, other, EdgeKind.SCOPES, part=part)
                    else:
                        self.edge(nid, other, EdgeKind.SCOPES)

    # references ----------------------------------------------------------------------------
    def resolve_references(self) -> None:
        """Link each deictic to the nearest earlier thing that fits its description."""
        for lst in self.heads.values():
            lst.sort()
        self.constraints.sort()
        self.mentions.sort()
        sentence_starts = [(self.nodes[s]["start"], s) for s in self.sentences]
        for nid, a in self.pending:
            d = self.nodes[nid]
            start = d["start"]
            head = str(a.get("head", "")).lower()
            target = None
            if head in _CONSTRAINT_HEADS:
                target = _latest_before(self.constraints, start)
            if target is None and head:
                target = _latest_before(self.heads.get(head, []), start)
            if target is None and not head and a.get("deictic_kind") == "discourse":
                target = _latest_before(sentence_starts, start, ends=self.nodes)
            if target is None and a.get("deictic_kind") == "pronoun":
                # No coreference model: the nearest earlier mention is the candidate, which is
                # what a reader checks first; a pronoun with no mention before it is dangling.
                target = _latest_before(self.mentions, start, ends=self.nodes)
            if target is not None:
                self.edge(nid, target, EdgeKind.REFERS_TO)
            d["resolved"] = target is not None


def _latest_before(items: list[tuple[int, str]], start: int,
                   ends: dict[str, dict[str, Any]] | None = None) -> str | None:
    """The last item starting before ``start`` (and, with ``ends``, also ending before it)."""
    i = bisect.bisect_left(items, (start, "")) - 1
    while i >= 0:
        _s, nid = items[i]
        i -= 1
        if ends is not None and ends[nid]["end"] > start:
            continue
        return nid
    return None


def _head_word(name: str) -> str:
    """The head word of an identifier, for matching descriptions: retry_budget -> budget."""
    parts = [p for p in name.replace(".", "_").replace("-", "_").lower().split("_") if p]
    return parts[-1] if parts else ""


def to_node_link(G: RefGraph) -> dict[str, Any]:
    """The graph as a JSON-ready node-link dict (``networkx.node_link_data``, edges="edges")."""
    data: dict[str, Any] = nx.node_link_data(G, edges="edges")
    return data
