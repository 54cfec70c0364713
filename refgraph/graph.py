"""``build_graph``: a context text in, a networkx referent graph out.

Blocks are parsed through the incremental :class:`~refgraph.parse.Parser`; this module only
assembles plain nodes and edges from the cached records, in one pass over the blocks plus a
resolution pass for references, so building is linear in the number of extracted things.

Assembly is split in two so a re-build after a rewrite is cheap: everything that depends on a
block's content alone (its nodes, the edges between them, the referents they name) is a
*fragment* with block-relative offsets, built once per parsed block and kept with it; a build
only copies each fragment's node data with offsets shifted to where the block now stands, then
adds what crosses blocks (first occurrences of referents, a causal's premise in an earlier
block, references). Schema: ``docs/graph.md``.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from .blocks import Block, split_blocks
from .errors import InputError
from .gcpause import gc_paused
from .io import decode_text
from .model import SCHEMA, EdgeKind, NodeKind, RefGraph, RefKind, referent_id
from .nlp.pipeline import Mode
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
    with gc_paused():  # one pause for parsing and assembly (see refgraph.gcpause)
        blocks = split_blocks(text)
        parsed = parser.parse(blocks, progress=progress)
        return assemble(text, blocks, parsed, mode=parser.mode)


def assemble(text: str, blocks: list[Block], parsed: list[ParsedBlock], *, mode: str) -> RefGraph:
    """Nodes and edges from parsed blocks (pure: no parsing happens here).

    Each parsed block keeps its fragment (see the module docstring), so assembling blocks that
    were assembled before costs a copy of their node data, not a re-derivation.
    """
    G: RefGraph = nx.MultiDiGraph(schema=SCHEMA, mode=mode, length=len(text))
    with gc_paused():
        asm = _Assembly(G)
        for block, pb in zip(blocks, parsed, strict=True):
            frag = pb.fragment
            if not isinstance(frag, _Fragment) or frag.key != (block.kind, block.text):
                frag = _Fragment.build(block, pb)
                pb.fragment = frag
            asm.add(block, frag)
        asm.resolve_references()
    return G


_K = {k: k.value for k in NodeKind}
_E = {k: k.value for k in EdgeKind}
_RV = {k: k.value for k in RefKind}
# referent_id(kind, key) is _RID[kind] + key: ``.value`` goes through a Python descriptor
_RID = {k: referent_id(k, "") for k in RefKind}
_LINKED = frozenset({_K[NodeKind.IDENTIFIER], _K[NodeKind.MENTION], _K[NodeKind.QUANTITY],
                     _K[NodeKind.HEDGE], _K[NodeKind.CONSTRAINT], _K[NodeKind.HANDLE]})
_NAMED = frozenset({_K[NodeKind.IDENTIFIER], _K[NodeKind.MENTION], _K[NodeKind.HANDLE]})
(_BLOCK, _SENTENCE, _IDENTIFIER, _HANDLE, _QUANTITY, _CONSTRAINT, _DEICTIC, _MENTION, _CAUSAL,
 _CLAIM, _REFERENT) = (k.value for k in (
    NodeKind.BLOCK, NodeKind.SENTENCE, NodeKind.IDENTIFIER, NodeKind.HANDLE, NodeKind.QUANTITY,
    NodeKind.CONSTRAINT, NodeKind.DEICTIC, NodeKind.MENTION, NodeKind.CAUSAL, NodeKind.CLAIM,
    NodeKind.REFERENT))

# Edge endpoints in a fragment: an int is a node of the block (an index into its ids), a str a
# referent id; these two stand for nodes only a build knows.
_PREV = -1  # the last sentence of an earlier block (the premise of "Therefore, B." at the start)
_MEASURED = -2  # the referent a quantity measures: an identifier if one exists by then, else a term
_FIRST_REF = -3  # while a fragment is built, referent r is _FIRST_REF - r

# A fragment node entry: (id index, data with block-relative offsets, keys of the offsets,
# what to do after adding it). Hooks: ("ref", referent id, ref) adds the referent at its first
# occurrence; ("measure", identifier id, term id, ref) picks what a quantity measures, where
# ref is (ref kind, key, start, end) of the referent, built only when it is new (_referent);
# _COND adds the node only when an earlier block has a sentence.
_Hook = tuple[Any, ...] | None
_COND: tuple[str] = ("cond",)


_offset_keys_of: dict[tuple[str, ...], tuple[str, ...]] = {}


def _offset_keys(attrs: dict[str, Any]) -> tuple[str, ...]:
    """Every ``*_start``/``*_end`` key of ``attrs`` (offsets, by the schema)."""
    names = tuple(attrs)
    keys = _offset_keys_of.get(names)
    if keys is None:  # records of one kind share a few key sets: derive each once
        keys = _offset_keys_of[names] = tuple(k for k in names if k.endswith(("_start", "_end")))
    return keys


# Data of edges without attributes, shared by every fragment (assembly copies edge data).
_BARE = {key: {"kind": key} for key in _E.values()}
_CONTAINS, _USES, _DEFINES = _E[EdgeKind.CONTAINS], _E[EdgeKind.USES], _E[EdgeKind.DEFINES]
# Record kinds that name a referent: (ref kind value, referent id prefix, attribute of the key).
_NAMING = {_K[NodeKind.IDENTIFIER]: (_RV[RefKind.IDENTIFIER], _RID[RefKind.IDENTIFIER], "name"),
           _K[NodeKind.HANDLE]: (_RV[RefKind.HANDLE], _RID[RefKind.HANDLE], "value"),
           _K[NodeKind.MENTION]: (_RV[RefKind.ENTITY], _RID[RefKind.ENTITY], "key")}
# Record kinds whose nodes get scope or governs edges (see _FragmentBuilder._scope_edges).
_SCOPING = frozenset({_K[NodeKind.NEGATION], _K[NodeKind.CONDITIONAL], _K[NodeKind.CONSTRAINT]})


@dataclass(slots=True)
class _Fragment:
    """What one block contributes to the graph, relative to the block (see module docstring)."""

    key: tuple[str, str]  # (block kind, text): the fragment serves only this content
    suffixes: list[str] = field(default_factory=list)  # node id after the block id ("" = block)
    refs: list[str] = field(default_factory=list)  # referent ids edges point at
    # (id index, data, offset keys beyond start/end, hook), in the order nodes are added
    nodes: list[tuple[int, dict[str, Any], tuple[str, ...], _Hook]] = field(default_factory=list)
    # (u, v, key, data, waits for an earlier sentence); v >= len(suffixes) is a referent
    edges: list[tuple[int, int, str, dict[str, Any], bool]] = field(default_factory=list)
    sentences: list[tuple[int, int, int]] = field(default_factory=list)  # (index, start, end)
    heads: list[tuple[str, int, int]] = field(default_factory=list)  # (head, start, index)
    constraints: list[tuple[int, int]] = field(default_factory=list)  # (start, index)
    mentions: list[tuple[int, int]] = field(default_factory=list)
    deictics: list[tuple[int, str, str]] = field(default_factory=list)  # (index, head, kind)

    @classmethod
    def build(cls, block: Block, pb: ParsedBlock) -> _Fragment:
        return _FragmentBuilder(block).build(pb)


class _FragmentBuilder:
    """Derives a block's fragment from its parse, in block-relative offsets."""

    def __init__(self, block: Block) -> None:
        self.text = block.text
        self.frag = _Fragment((block.kind, block.text))
        self.index: dict[str, int] = {}  # suffix -> id index
        self.data: dict[int, dict[str, Any]] = {}  # id index -> latest data
        self.edge_keys: set[tuple[int, int, str]] = set()
        self.ref_index: dict[str, int] = {}  # referent id -> its place in frag.refs
        self.ref_of: dict[int, str] = {}  # occurrence -> referent it uses or defines
        extra: dict[str, Any] = {"block_kind": block.kind.value, "hash": block.hash}
        if block.role:
            extra["role"] = block.role
        if block.turn_id:
            extra["turn_id"] = block.turn_id
        self.node("", _BLOCK, 0, len(block.text), extra)

    def node(self, suffix: str, kind: str, start: int, end: int,
             attrs: dict[str, Any] | None = None, hook: _Hook = None) -> int:
        """Add node data (``kind`` is a NodeKind value); the same suffix again replaces it."""
        i = self.index.get(suffix)
        if i is None:
            i = self.index[suffix] = len(self.frag.suffixes)
            self.frag.suffixes.append(suffix)
        if attrs:
            data = {"kind": kind, "text": self.text[start:end], "start": start, "end": end,
                    **attrs}
            keys = _offset_keys(attrs)
        else:
            data = {"kind": kind, "text": self.text[start:end], "start": start, "end": end}
            keys = ()
        self.frag.nodes.append((i, data, keys, hook))
        if hook is not _COND:
            self.data[i] = data
        return i

    def edge(self, u: int, v: int | str, kind: EdgeKind, attrs: dict[str, Any] | None = None,
             cond: bool = False) -> None:
        key = _E[kind]
        if isinstance(v, str):  # a referent: numbered below the placeholders until build ends
            r = self.ref_index.get(v)
            if r is None:
                r = self.ref_index[v] = len(self.frag.refs)
                self.frag.refs.append(v)
            v = _FIRST_REF - r
        if not cond:  # a repeat of a waiting edge is dropped at assembly
            if (u, v, key) in self.edge_keys:
                return
            self.edge_keys.add((u, v, key))
        self.frag.edges.append((u, v, key, {"kind": key, **attrs} if attrs else _BARE[key], cond))

    def build(self, pb: ParsedBlock) -> _Fragment:
        frag = self.frag
        sent_ids: list[int] = []
        sent_starts: list[int] = []
        sent_ends: list[int] = []
        for s, e in pb.sentences:
            sid = self.node(f":sentence@{s}-{e}", _SENTENCE, s, e)
            self.edge(0, sid, EdgeKind.CONTAINS)
            sent_ids.append(sid)
            sent_starts.append(s)
            sent_ends.append(e)
            frag.sentences.append((sid, s, e))
        spans: list[tuple[int, str, int]] = []  # (start, id suffix, id index) of span nodes
        scoping: set[int] = set()  # span nodes that may scope over or govern others
        index = self.index
        for rec in pb.records:
            start = rec.start
            suffix = f":{rec.kind}@{start}-{rec.end}"
            if suffix in index:
                continue
            i = self._record(suffix, rec.kind, start, rec.end, rec.attrs, sent_ids,
                             sent_starts, sent_ends)
            spans.append((start, suffix, i))
            if rec.kind in _SCOPING:
                scoping.add(i)
        spans.sort()  # by start, then id: the order scope edges are added in
        if scoping:
            starts = [s for s, _, _ in spans]
            for _, _, i in spans:
                if i in scoping:
                    self._scope_edges(i, spans, starts)
        # Referents go after the block's own ids, so assembly indexes one list for both.
        n = len(frag.suffixes)
        edges = frag.edges
        for k, (u, v, key, data, cond) in enumerate(edges):
            if v <= _FIRST_REF:  # most edges stay inside the block: only these are rebuilt
                edges[k] = (u, n + _FIRST_REF - v, key, data, cond)
        return frag

    def _record(self, suffix: str, kind: str, start: int, end: int, a: dict[str, Any],
                sent_ids: list[int], sent_starts: list[int], sent_ends: list[int]) -> int:
        frag = self.frag
        # The record's node and the edge from its sentence, as node() and edge() would add
        # them: the suffix is new (the caller checked), so is the edge (nothing else adds a
        # "contains" edge to a record's node).
        i = self.index[suffix] = len(frag.suffixes)
        frag.suffixes.append(suffix)
        data = {"kind": kind, "text": self.text[start:end], "start": start, "end": end, **a}
        self.data[i] = data
        k = bisect.bisect_right(sent_starts, start) - 1
        contains = (sent_ids[k] if k >= 0 else 0, i, _CONTAINS, _BARE[_CONTAINS], False)
        named = _NAMING.get(kind)
        if named is not None:  # an identifier, handle or mention: it uses or defines a referent
            ref_kind, prefix, attr = named
            key = str(a[attr])
            rid = prefix + key
            frag.nodes.append((i, data, _offset_keys(a), ("ref", rid, (ref_kind, key, start, end))))
            frag.edges.append(contains)
            edge = _DEFINES if kind == _IDENTIFIER and a.get("role") == "define" else _USES
            # As edge() adds it, but the edge is new like the node (no other edge leaves the
            # node of a name), so it need not be looked up.
            r = self.ref_index.get(rid)
            if r is None:
                r = self.ref_index[rid] = len(frag.refs)
                frag.refs.append(rid)
            frag.edges.append((i, _FIRST_REF - r, edge, _BARE[edge], False))
            self.ref_of[i] = rid
            if kind == _IDENTIFIER:
                head = _head_word(key)
                if head:
                    frag.heads.append((head, start, i))
            elif kind == _MENTION:
                frag.heads.append((str(a["head"]).lower(), start, i))
                frag.mentions.append((start, i))
            return i
        hook: _Hook = None
        if kind == _QUANTITY and "measured" in a:
            measured = str(a["measured"])
            m0 = int(a.get("measured_start", start))
            m1 = int(a.get("measured_end", end))
            hook = ("measure", _RID[RefKind.IDENTIFIER] + measured,
                    _RID[RefKind.TERM] + measured.lower(),
                    (_RV[RefKind.TERM], measured.lower(), m0, m1))
        frag.nodes.append((i, data, _offset_keys(a), hook))
        frag.edges.append(contains)
        if hook is not None:  # a quantity that says what it measures
            self.edge(i, _MEASURED, EdgeKind.MEASURES)
        elif kind == _CONSTRAINT:
            frag.constraints.append((start, i))
        elif kind == _DEICTIC:
            frag.deictics.append((i, str(a.get("head", "")).lower(),
                                  str(a.get("deictic_kind", ""))))
        elif kind == _CAUSAL:
            self._causal(i, start, a, sent_ids, sent_ends)
        return i

    def _causal(self, i: int, start: int, a: dict[str, Any], sent_ids: list[int],
                sent_ends: list[int]) -> None:
        c0, c1 = int(a["conclusion_start"]), int(a["conclusion_end"])
        has_premise = "premise_start" in a
        prem = _PREV
        cond = False
        if not has_premise:
            # "Therefore, B." rests on the sentence before it, wherever that is: in this block
            # if one ended before the cue, else the last sentence of an earlier block (if any,
            # which only a build knows: everything below waits for it).
            before = bisect.bisect_right(sent_ends, start)
            if before:
                prem = sent_ids[before - 1]
            else:
                cond = True
        concl = self.node(f":claim@{c0}-{c1}", _CLAIM, c0, c1, {"role": "conclusion"},
                          _COND if cond else None)
        self.edge(0, concl, EdgeKind.CONTAINS, cond=cond)
        if has_premise:
            p0, p1 = int(a["premise_start"]), int(a["premise_end"])
            prem = self.node(f":claim@{p0}-{p1}", _CLAIM, p0, p1, {"role": "premise"})
            self.edge(0, prem, EdgeKind.CONTAINS)
        self.edge(i, prem, EdgeKind.SIGNALS, {"role": "premise"}, cond)
        self.edge(i, concl, EdgeKind.SIGNALS, {"role": "conclusion"}, cond)
        self.edge(prem, concl, EdgeKind.SUPPORTS, {"connective": str(a["connective"])}, cond)

    def _scope_edges(self, i: int, spans: list[tuple[int, str, int]], starts: list[int]) -> None:
        d = self.data[i]
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
            j = bisect.bisect_left(starts, lo)
            while j < len(spans) and spans[j][0] < hi:
                other = spans[j][2]
                j += 1
                if other == i:
                    continue
                okind = self.data[other]["kind"]
                if part == "governs":
                    if okind in _NAMED and other in self.ref_of:
                        self.edge(i, self.ref_of[other], EdgeKind.GOVERNS)
                    elif okind == "quantity":
                        self.edge(i, other, EdgeKind.GOVERNS)
                elif okind in _LINKED:
                    self.edge(i, other, EdgeKind.SCOPES, {"part": part} if part else None)


class _Assembly:
    """The graph's nodes and edges, block by block, then the references between them.

    Writes straight into the empty MultiDiGraph's own structures (``_node``, and ``_succ`` /
    ``_pred`` sharing one key dict per node pair: what ``add_node``/``add_edge`` build), in the
    order those calls would: networkx's per-call checks, attribute-dict copies and cache
    clearing were most of the assembly time. Every data dict is fresh per build, so the graph
    owns its data as if it had been added through the public API.
    """

    def __init__(self, G: RefGraph) -> None:
        own = vars(G)  # the stubs describe the public API only
        self.nodes: dict[str, dict[str, Any]] = own["_node"]
        self.succ: dict[str, dict[str, dict[str, dict[str, Any]]]] = own["_succ"]
        self.pred: dict[str, dict[str, dict[str, dict[str, Any]]]] = own["_pred"]
        assert self.succ is own["_adj"]  # networkx's layout, as of 3.x
        self.sentences: list[tuple[int, str]] = []  # (start, id) in document order
        self.heads: dict[str, list[tuple[int, str]]] = {}  # head word -> occurrences
        self.constraints: list[tuple[int, str]] = []
        self.mentions: list[tuple[int, str]] = []
        self.pending: list[tuple[str, str, str]] = []  # deictics (id, head, kind), in order

    def _node(self, nid: str, data: dict[str, Any]) -> None:
        if nid not in self.nodes:
            self.succ[nid] = {}
            self.pred[nid] = {}
        self.nodes[nid] = data

    def add(self, block: Block, frag: _Fragment) -> None:
        off = block.start
        text = frag.key[1]
        bid = block.id
        nodes, succ, pred = self.nodes, self.succ, self.pred
        ids = [bid + s for s in frag.suffixes]
        prev = self.sentences[-1][1] if self.sentences else ""  # "": no sentence yet
        measured: dict[int, str] = {}
        for i, proto, keys, hook in frag.nodes:
            if hook is _COND and not prev:
                continue
            d = proto.copy()
            d["start"] += off
            d["end"] += off
            for k in keys:
                d[k] += off
            nid = ids[i]
            # No edge touches the block's nodes yet, so a repeated id just gets empty dicts again.
            succ[nid] = {}
            pred[nid] = {}
            nodes[nid] = d
            if hook is None or hook is _COND:
                continue
            if hook[0] == "ref":
                if hook[1] not in nodes:
                    self._node(hook[1], _referent(hook[2], text, off))
            else:  # "measure": an identifier of that name if one exists by now, else a term
                ident, term = hook[1], hook[2]
                if ident in nodes:
                    measured[i] = ident
                else:
                    measured[i] = term
                    if term not in nodes:
                        self._node(term, _referent(hook[3], text, off))
        ends = ids + frag.refs
        for u, v, key, data, cond in frag.edges:
            if cond and not prev:
                continue
            gu = ids[u] if u >= 0 else prev
            gv = ends[v] if v >= 0 else (prev if v == _PREV else measured[u])
            nbrs = succ[gu]
            keydict = nbrs.get(gv)
            if keydict is None:
                keydict = nbrs[gv] = {}
                pred[gv][gu] = keydict
            elif cond and key in keydict:
                continue  # the fragment could not drop this repeat: it waited for the premise
            keydict[key] = data.copy()
        # Lists, not generators, and only when there is something to add: most blocks have
        # a few of these at most, where a generator's set-up is most of the cost.
        if frag.sentences:
            self.sentences.extend([(s + off, ids[i]) for i, s, _ in frag.sentences])
        for head, s, i in frag.heads:
            self.heads.setdefault(head, []).append((s + off, ids[i]))
        if frag.constraints:
            self.constraints.extend([(s + off, ids[i]) for s, i in frag.constraints])
        if frag.mentions:
            self.mentions.extend([(s + off, ids[i]) for s, i in frag.mentions])
        if frag.deictics:
            self.pending.extend([(ids[i], head, kind) for i, head, kind in frag.deictics])

    def resolve_references(self) -> None:
        """Link each deictic to the nearest earlier thing that fits its description."""
        for lst in self.heads.values():
            lst.sort()
        self.constraints.sort()
        self.mentions.sort()
        for nid, head, kind in self.pending:
            d = self.nodes[nid]
            start = d["start"]
            target = None
            if head in _CONSTRAINT_HEADS:
                target = _latest_before(self.constraints, start)
            if target is None and head:
                target = _latest_before(self.heads.get(head, []), start)
            if target is None and not head and kind == "discourse":
                target = _latest_before(self.sentences, start, ends=self.nodes)
            if target is None and kind == "pronoun":
                # No coreference model: the nearest earlier mention is the candidate, which is
                # what a reader checks first; a pronoun with no mention before it is dangling.
                target = _latest_before(self.mentions, start, ends=self.nodes)
            if target is not None:
                key = _E[EdgeKind.REFERS_TO]
                keydict = self.succ[nid].setdefault(target, {})
                self.pred[target][nid] = keydict
                keydict[key] = {"kind": key}
            d["resolved"] = target is not None


def _referent(ref: tuple[str, str, int, int], text: str, off: int) -> dict[str, Any]:
    """Referent node data at its first occurrence: ``ref`` is (ref kind value, key, start,
    end) with offsets relative to the block whose text is ``text``, which starts at ``off``."""
    ref_kind, key, start, end = ref
    return {"kind": _REFERENT, "text": text[start:end], "start": start + off,
            "end": end + off, "ref_kind": ref_kind, "key": key}


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
