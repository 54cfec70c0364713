"""Block fragments and their assembly into the referent graph.

A block's parse becomes a *fragment*: everything that depends on the block's content alone
(its nodes, the edges between them, the referents they name), with block-relative offsets.
It is built once per parsed block and kept with it, so a build after a rewrite only makes
each node's data from its fragment entry, at the offset where the block now stands, then adds
what crosses blocks (first occurrences of referents, a causal's premise in an earlier block,
references). :func:`refgraph.graph.assemble` drives it; the schema is ``docs/graph.md``.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .blocks import Block
from .casing import lower
from .memo import WordMemo
from .model import ROLES, EdgeKind, NodeKind, RefGraph, RefKind, referent_id
from .parse import ParsedBlock

# Heads that name a constraint: "the above constraint" looks for a constraint node.
_CONSTRAINT_HEADS = frozenset({"constraint", "rule", "limit", "restriction", "requirement",
                               "prohibition", "instruction", "precondition", "condition",
                               "guideline", "policy", "invariant", "threshold", "cap"})


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

# A fragment's edge endpoints are indexes into its ``ids`` (the block's node ids, and among them
# the ids of the referents its edges point at), or one of these, for nodes only a build knows:
_PREV = -1  # the last claim of an earlier block (the premise of "Therefore, B." at the start)
_MEASURED = -2  # the referent a quantity measures: an identifier if one exists by then, else a term
_NONE = -3  # no edge

# How assembly adds a fragment's edge. Its source is a node of the block (or _PREV), so whether
# its two ends are linked already is known when the fragment is built: most edges are the
# first between their ends and need no look-up. The edges a node adds itself (contains into
# it, uses/defines/measures out of it) are not in that reckoning: they can share no (u, v)
# with these, which leave negations, conditionals, constraints and causal cues only, none of
# which names or measures anything (assembly asserts it).
_NEW = 0  # the first edge between its ends
_MORE = 1  # its ends may be linked already
_WAIT = 2  # added only when an earlier block has a claim (see _PREV); a repeat is dropped

# What to do after adding a node: _NAMES adds the referent a name points at if it is not in the
# graph yet (only the block's first occurrence of a referent has this hook); ("measure",
# identifier id, term id, ref) picks what a quantity measures, where ref is (ref kind, key,
# start, end) of the referent, built only when it is new (_referent).
# Hooks are told apart by their first item's value, never by identity: a build compiled with
# mypyc (see tools/build_native.py) boxes a tuple constant afresh wherever it is read.
_Hook = tuple[Any, ...] | None
_NAMES_TAG, _MEASURE = "names", "measure"
_NAMES: tuple[str] = (_NAMES_TAG,)

# A fragment node: (id index, kind, text, start, end, attributes or None, offset keys among
# them, hook, index of the node that contains it or _NONE, then the one edge the node may
# start: its target (an index, _MEASURED or _NONE) and key). Offsets are block-relative: the
# data dict is made at each build, straight from these (the attributes are the parse's own
# dict, shared, never changed), so the fragment holds no data dicts to copy.
_Node = tuple[int, str, str, int, int, dict[str, Any] | None, tuple[str, ...], _Hook, int, int,
              str]
# An edge: (u, v, key, data or None for just {"kind": key}, _NEW/_MORE/_WAIT).
_Edge = tuple[int, int, str, dict[str, Any] | None, int]
_Spot = tuple[int, str]  # (start, node id) of something a reference may point at


_offset_keys_of: dict[tuple[str, ...], tuple[str, ...]] = {}

# Offsets as text, for node ids: formatting the two ints was most of the cost of making an id.
_NUMERALS = [str(n) for n in range(4096)]


class _Numerals(dict[int, str]):
    """``str`` of offsets, each made once (for blocks longer than _NUMERALS covers)."""

    def __missing__(self, n: int) -> str:
        s = self[n] = str(n)
        return s


def _numerals(length: int) -> Mapping[int, str] | list[str]:
    """Something that maps every offset into a text of ``length`` to its decimal string."""
    return _NUMERALS if length < len(_NUMERALS) else _Numerals()



def _offset_keys(attrs: dict[str, Any]) -> tuple[str, ...]:
    """Every ``*_start``/``*_end`` key of ``attrs`` (offsets, by the schema)."""
    names = tuple(attrs)
    keys = _offset_keys_of.get(names)
    if keys is None:  # records of one kind share a few key sets: derive each once
        keys = _offset_keys_of[names] = tuple(k for k in names if k.endswith(("_start", "_end")))
    return keys


_CONTAINS, _USES, _DEFINES = _E[EdgeKind.CONTAINS], _E[EdgeKind.USES], _E[EdgeKind.DEFINES]
_EDGE_KINDS = {k.value: k for k in EdgeKind}
_MEASURES = _E[EdgeKind.MEASURES]
# Record kinds that name a referent: (ref kind value, referent id prefix, attribute of the key).
_NAMING = {_K[NodeKind.IDENTIFIER]: (_RV[RefKind.IDENTIFIER], _RID[RefKind.IDENTIFIER], "name"),
           _K[NodeKind.HANDLE]: (_RV[RefKind.HANDLE], _RID[RefKind.HANDLE], "value"),
           _K[NodeKind.MENTION]: (_RV[RefKind.ENTITY], _RID[RefKind.ENTITY], "key")}
# Record kinds whose nodes get scope or governs edges (see _FragmentBuilder._scope_edges).
_SCOPING = frozenset({_K[NodeKind.NEGATION], _K[NodeKind.CONDITIONAL], _K[NodeKind.CONSTRAINT]})


@dataclass(slots=True)
class Fragment:
    """What one block contributes to the graph (see module docstring).

    Node ids are made with the block id of the first assembly, so a build where the block has
    that id uses them as they are (a repeat of the same content elsewhere, "b<hash>.1", gets
    them renamed). What references resolve against is kept with block-relative starts.
    """

    # (block kind, text, role, turn id): the fragment serves only this content said by this
    # source (the same text is another claim in another speaker's turn or another message).
    key: tuple[str, str, str, str]
    bid: str  # the block id that node ids start with
    ids: list[str] = field(default_factory=list)  # endpoint ids: the block's nodes and referents
    # The block's nodes in the order they are added, each with the edges the block's content
    # gives it as it is added, which keeps every node's edges in the order they were derived.
    nodes: list[_Node] = field(default_factory=list)
    edges: list[_Edge] = field(default_factory=list)  # scope and governs edges, added last
    sentences: list[_Spot] = field(default_factory=list)
    heads: list[tuple[str, int, str]] = field(default_factory=list)  # (head word, start, id)
    constraints: list[_Spot] = field(default_factory=list)
    mentions: list[_Spot] = field(default_factory=list)
    deictics: list[tuple[str, str, str]] = field(default_factory=list)  # (id, head, kind)
    claims: list[_Spot] = field(default_factory=list)
    # Copies for the other block ids this content has had (renamed), kept for the next build.
    renames: dict[str, Fragment] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def build(cls, block: Block, pb: ParsedBlock) -> Fragment:
        return _FragmentBuilder(block).build(pb)

    def renamed(self, bid: str) -> Fragment:
        """The same fragment for a block with id ``bid`` (made once per id: fragments are
        never changed once built, so a copy can serve every later build)."""
        copy = self.renames.get(bid)
        if copy is None:
            copy = self.renames[bid] = self._renamed(bid)
        return copy

    def _renamed(self, bid: str) -> Fragment:
        n = len(self.bid)

        def rename(spots: list[_Spot]) -> list[_Spot]:
            return [(s, bid + nid[n:]) for s, nid in spots]

        # The block's ids start with its id; referent ids ("ref:...") never do.
        ids = [bid + x[n:] if x.startswith(self.bid) else x for x in self.ids]
        return Fragment(self.key, bid, ids, self.nodes, self.edges, rename(self.sentences),
                         [(h, s, bid + nid[n:]) for h, s, nid in self.heads],
                         rename(self.constraints), rename(self.mentions),
                         [(bid + nid[n:], h, k) for nid, h, k in self.deictics],
                         rename(self.claims))


class _FragmentBuilder:
    """Derives a block's fragment from its parse."""

    __slots__ = ("bid", "edge_keys", "frag", "index", "linked", "ref_of", "sent_ends", "sent_ids",
                 "sent_starts", "source", "text")

    def __init__(self, block: Block) -> None:
        self.text = block.text
        self.bid = block.id
        self.frag = Fragment(fragment_key(block), block.id)
        self.index: dict[str, int] = {}  # endpoint id -> its index in frag.ids
        self.edge_keys: set[tuple[int, int, str]] = set()
        self.linked: set[tuple[int, int]] = set()  # (u, v) of edges added through edge()
        self.ref_of: dict[int, int] = {}  # occurrence -> referent it uses or defines
        # The block's sentences: id indexes, starts and ends, in order.
        self.sent_ids: list[int] = []
        self.sent_starts: list[int] = []
        self.sent_ends: list[int] = []
        self.source = block_source(block)
        extra: dict[str, Any] = {"block_kind": block.kind.value, "hash": block.hash}
        if block.role:
            extra["role"] = block.role
        if block.turn_id:
            extra["turn_id"] = block.turn_id
        if "\n" in block.text:  # most blocks are one line: no pass over them
            lines = sum(1 for line in block.text.splitlines() if line.strip())
            if lines >= 2:
                extra["lines"] = lines  # "printed 8 lines" counts them
        numerals = block_numerals(block.text)
        if numerals:
            extra["numerals"] = numerals
        words = block_words(block.text)
        if words:
            extra["words"] = words
        self.frag.nodes.append((self._id(self.bid), _BLOCK, block.text, 0, len(block.text), extra,
                                (), None, _NONE, _NONE, ""))

    def _id(self, nid: str) -> int:
        """The index of a new endpoint (a node id of the block or a referent id)."""
        i = self.index[nid] = len(self.frag.ids)
        self.frag.ids.append(nid)
        return i

    def referent(self, rid: str) -> tuple[int, bool]:
        """The index of referent ``rid`` and whether the block names it for the first time."""
        r = self.index.get(rid)
        if r is not None:
            return r, False
        return self._id(rid), True

    def edge(self, u: int, v: int, kind: EdgeKind, attrs: dict[str, Any] | None = None,
             cond: bool = False) -> _Edge | None:
        """The edge to add (None: the block has it already)."""
        key = _E[kind]
        if cond:  # a repeat of a waiting edge is dropped at assembly
            mode = _WAIT
        else:
            if (u, v, key) in self.edge_keys:
                return None
            self.edge_keys.add((u, v, key))
            mode = _MORE if (u, v) in self.linked else _NEW
        self.linked.add((u, v))
        return (u, v, key, {"kind": key, **attrs} if attrs else None, mode)

    def build(self, pb: ParsedBlock) -> Fragment:
        frag = self.frag
        text, bid, index = self.text, self.bid, self.index
        num = _numerals(len(text))
        for s, e in pb.sentences:
            nid = f"{bid}:sentence@{num[s]}-{num[e]}"
            sid = index.get(nid)
            if sid is None:  # (a repeat would add nothing)
                sid = self._id(nid)
                frag.nodes.append((sid, _SENTENCE, text[s:e], s, e, None, (), None, 0, _NONE,
                                   ""))
                frag.sentences.append((s, nid))
            self.sent_ids.append(sid)
            self.sent_starts.append(s)
            self.sent_ends.append(e)
        first = len(frag.nodes)  # the records' nodes follow
        ids, nodes = frag.ids, frag.nodes
        sent_ids, sent_starts = self.sent_ids, self.sent_starts
        scoping = False
        for rec in pb.records:
            kind, start, end, a = rec.kind, rec.start, rec.end, rec.attrs
            nid = f"{bid}:{kind}@{num[start]}-{num[end]}"
            if nid in index:
                continue
            i = index[nid] = len(ids)
            ids.append(nid)
            # Records are mostly nested in a sentence, else directly in the block.
            k = bisect.bisect_right(sent_starts, start) - 1
            keys = _offset_keys(a) if a else ()
            named = _NAMING.get(kind)
            if kind == _CLAIM:
                a = {**a, "source": self.source} if self.source else a
                self.frag.claims.append((start, nid))
            if named is None:
                hook, target, edge = self._record(i, nid, kind, start, end, a)
            else:  # an identifier, handle or mention: it uses or defines a referent
                hook, target, edge = self._name(i, nid, kind, start, a, named)
            nodes.append((i, kind, text[start:end], start, end, a or None, keys, hook,
                          sent_ids[k] if k >= 0 else 0, target, edge))
            scoping = scoping or kind in _SCOPING
        if scoping:
            # By start, then id: the order scope edges are added in.
            spans = sorted([(n[3], ids[n[0]], n) for n in nodes[first:]])
            starts = [s for s, _, _ in spans]
            for _, _, n in spans:
                if n[1] in _SCOPING:
                    self._scope_edges(n, spans, starts)
        self._links(pb)
        # Sorted once here, references search them block by block (see _Blocks.latest).
        frag.claims.sort()
        frag.sentences.sort()
        frag.constraints.sort()
        frag.mentions.sort()
        return frag

    def _name(self, i: int, nid: str, kind: str, start: int, a: dict[str, Any],
              named: tuple[str, str, str]) -> tuple[_Hook, int, str]:
        """The hook and edge of a name's node (see _Node); notes what references may use."""
        frag = self.frag
        _, prefix, attr = named
        key = str(a[attr])
        r, first = self.referent(prefix + key)
        self.ref_of[i] = r
        if kind == _IDENTIFIER:
            head = _HEAD_WORDS(key)
            if head:
                frag.heads.append((head, start, nid))
            return (_NAMES if first else None, r,
                    _DEFINES if a.get("role") == "define" else _USES)
        if kind == _MENTION:
            frag.heads.append((lower(str(a["head"])), start, nid))
            frag.mentions.append((start, nid))
        return _NAMES if first else None, r, _USES

    def _record(self, i: int, nid: str, kind: str, start: int, end: int,
                a: dict[str, Any]) -> tuple[_Hook, int, str]:
        """The hook and edge of any other record's node (see _Node); notes what references
        may use."""
        frag = self.frag
        if kind == _QUANTITY and "measured" in a:  # a quantity that says what it measures
            measured = str(a["measured"])
            m0 = int(a.get("measured_start", start))
            m1 = int(a.get("measured_end", end))
            return ((_MEASURE, _RID[RefKind.IDENTIFIER] + measured,
                     _RID[RefKind.TERM] + lower(measured),
                     (_RV[RefKind.TERM], lower(measured), m0, m1)), _MEASURED, _MEASURES)
        if kind == _CONSTRAINT:
            frag.constraints.append((start, nid))
        elif kind == _DEICTIC:
            frag.deictics.append((nid, lower(str(a.get("head", ""))),
                                  str(a.get("deictic_kind", ""))))
        return None, _NONE, ""

    def _links(self, pb: ParsedBlock) -> None:
        """Edges from the parse's links between records (see refgraph.nlp.claims.Link): a
        claim's arguments, the cues that negate, qualify or govern it, its conditions and
        premises. A premise "before the block" ("Therefore, ..." opening it) is the last
        claim of an earlier block, which only a build knows: that edge waits for it."""
        bid, index, num = self.bid, self.index, _numerals(len(self.text))
        edges = self.frag.edges
        for sk, ss, se, ek, dk, ds, de, attrs in pb.links:
            v = index.get(f"{bid}:{dk}@{num[ds]}-{num[de]}")
            if v is None:
                continue
            if sk == "prev":
                u, cond = _PREV, True
            else:
                found = index.get(f"{bid}:{sk}@{num[ss]}-{num[se]}")
                if found is None:
                    continue
                u, cond = found, False
            e = self.edge(u, v, _EDGE_KINDS[ek], dict(attrs) if attrs else None, cond)
            if e is not None:
                edges.append(e)

    def _scope_edges(self, node: _Node, spans: list[tuple[int, str, _Node]],
                     starts: list[int]) -> None:
        i, kind, a = node[0], node[1], node[5]
        assert a is not None  # scoping records say what they scope over
        ranges: list[tuple[int, int, str]] = []
        if kind == "negation":
            ranges.append((a["scope_start"], a["scope_end"], ""))
        elif kind == "conditional":
            ranges.append((a["antecedent_start"], a["antecedent_end"], "antecedent"))
            ranges.append((a["consequent_start"], a["consequent_end"], "consequent"))
        elif kind == "constraint":
            ranges.append((a["governed_start"], a["governed_end"], "governs"))
        edges = self.frag.edges
        for lo, hi, part in ranges:
            j = bisect.bisect_left(starts, lo)
            while j < len(spans) and spans[j][0] < hi:
                other, okind = spans[j][2][0], spans[j][2][1]
                j += 1
                if other == i:
                    continue
                e: _Edge | None = None
                if part == "governs":
                    if okind in _NAMED and other in self.ref_of:
                        e = self.edge(i, self.ref_of[other], EdgeKind.GOVERNS)
                    elif okind == "quantity":
                        e = self.edge(i, other, EdgeKind.GOVERNS)
                elif okind in _LINKED:
                    e = self.edge(i, other, EdgeKind.SCOPES, {"part": part} if part else None)
                if e is not None:
                    edges.append(e)


class Assembly:
    """The graph's nodes and edges, block by block, then the references between them.

    Writes straight into the empty MultiDiGraph's own structures (``_node``, and ``_succ`` /
    ``_pred`` sharing one key dict per node pair: what ``add_node``/``add_edge`` build), in the
    order those calls would: networkx's per-call checks, attribute-dict copies and cache
    clearing were most of the assembly time. Every data dict is made fresh per build, so the
    graph owns its data as if it had been added through the public API.
    """

    def __init__(self, G: RefGraph) -> None:
        own = vars(G)  # the stubs describe the public API only
        self.nodes: dict[str, dict[str, Any]] = own["_node"]
        self.succ: dict[str, dict[str, dict[str, dict[str, Any]]]] = own["_succ"]
        self.pred: dict[str, dict[str, dict[str, dict[str, Any]]]] = own["_pred"]
        assert self.succ is own["_adj"]  # networkx's layout, as of 3.x
        # Each block's start and fragment, in order: what references may point at is read from
        # them only as far as the references need it.
        self.placed: list[tuple[int, Fragment]] = []
        self.last_claim = ""  # "": no claim yet
        # Indexes into placed of the blocks that list any of these.
        self.with_sentences: list[int] = []
        self.with_constraints: list[int] = []
        self.with_mentions: list[int] = []
        self.with_deictics: list[int] = []

    def _node(self, nid: str, data: dict[str, Any]) -> None:
        if nid not in self.nodes:
            self.succ[nid] = {}
            self.pred[nid] = {}
        self.nodes[nid] = data

    def add(self, block: Block, frag: Fragment) -> None:
        """Add a block's nodes and edges. Each node comes with the edges that its block gave it
        as it was derived, so every node's edges keep that order."""
        off = block.start
        if block.id != frag.bid:
            frag = frag.renamed(block.id)
        text = frag.key[1]
        nodes, succ, pred = self.nodes, self.succ, self.pred
        ids = frag.ids
        prev = self.last_claim
        contains = _CONTAINS
        for i, kind, t, s, e, a, keys, hook, c, r, rkey in frag.nodes:
            d: dict[str, Any]
            if a is None:
                d = {"kind": kind, "text": t, "start": s + off, "end": e + off}
            else:
                d = {"kind": kind, "text": t, "start": s + off, "end": e + off, **a}
                for k in keys:
                    d[k] += off
            nid = ids[i]
            nodes[nid] = d  # node ids are new here
            out = succ[nid] = {}
            into = pred[nid] = {}
            if c != _NONE:
                src = ids[c]
                keydict = {contains: {"kind": contains}}
                succ[src][nid] = keydict
                into[src] = keydict
            target = ""
            if hook is not None:
                tag = hook[0]
                if tag == _NAMES_TAG:
                    if ids[r] not in nodes:
                        self._node(ids[r], _named(kind, t, s + off, e + off, a))
                else:
                    target = self._measured(hook, text, off)
            if r != _NONE:
                dst = ids[r] if r >= 0 else target
                keydict = {rkey: {"kind": rkey}}
                out[dst] = keydict
                pred[dst][nid] = keydict
        for u, v, key, data, mode in frag.edges:
            if mode == _NEW:
                gu, gv = ids[u], ids[v]
                assert gv not in succ[gu], (gu, gv)  # see _NEW
                keydict = {key: {"kind": key} if data is None else data.copy()}
                succ[gu][gv] = keydict
                pred[gv][gu] = keydict
            elif mode == _MORE:
                self._link(ids[u], ids[v], key, data, False)
            elif prev:  # _WAIT: from the last claim of an earlier block
                self._link(prev if u == _PREV else ids[u], ids[v], key, data, True)
        place = len(self.placed)
        self.placed.append((off, frag))
        if frag.claims:
            self.last_claim = frag.claims[-1][1]
        if frag.sentences:
            self.with_sentences.append(place)
        if frag.constraints:
            self.with_constraints.append(place)
        if frag.mentions:
            self.with_mentions.append(place)
        if frag.deictics:
            self.with_deictics.append(place)

    def _measured(self, hook: tuple[Any, ...], text: str, off: int) -> str:
        """What a quantity measures: an identifier of that name if one exists by now, else a
        term (added if new)."""
        _, ident, term, ref = hook
        if ident in self.nodes:
            return str(ident)
        if term not in self.nodes:
            self._node(term, _referent(ref, text, off))
        return str(term)

    def _link(self, u: str, v: str, key: str, data: dict[str, Any] | None, wait: bool) -> None:
        """Add an edge whose ends may be linked already (see _MORE and _WAIT)."""
        nbrs = self.succ[u]
        keydict = nbrs.get(v)
        if keydict is None:
            keydict = nbrs[v] = {}
            self.pred[v][u] = keydict
        elif wait and key in keydict:
            return  # the fragment could not drop this repeat: it waited for the premise
        keydict[key] = {"kind": key} if data is None else data.copy()

    def resolve_references(self) -> None:
        """Link each deictic to the nearest earlier thing that fits its description."""
        placed = self.placed
        pending = [(k, d) for k in self.with_deictics for d in placed[k][1].deictics]
        if not pending:
            return
        wanted = {head for _, (_, head, _) in pending}
        heads: dict[str, list[_Spot]] = {}  # head word -> where it heads a name, if asked for
        for off, frag in placed:
            for head, s, nid in frag.heads:
                if head in wanted:
                    heads.setdefault(head, []).append((s + off, nid))
        for lst in heads.values():
            lst.sort()
        nodes = self.nodes
        constraints = _Blocks(placed, self.with_constraints, lambda f: f.constraints)
        sentences = _Blocks(placed, self.with_sentences, lambda f: f.sentences, ends=nodes)
        mentions = _Blocks(placed, self.with_mentions, lambda f: f.mentions, ends=nodes)
        for k, (nid, head, kind) in pending:
            d = nodes[nid]
            start = d["start"]
            target = None
            if head in _CONSTRAINT_HEADS:
                target = constraints.latest(k, start)
            if target is None and head:
                target = _latest_before(heads.get(head, []), start)
            if target is None and not head and kind == "discourse":
                target = sentences.latest(k, start)
            if target is None and kind == "pronoun":
                # No coreference model: the nearest earlier mention is the candidate, which is
                # what a reader checks first; a pronoun with no mention before it is dangling.
                target = mentions.latest(k, start)
            if target is not None:
                self._link(nid, target, _E[EdgeKind.REFERS_TO], None, False)
            d["resolved"] = target is not None


class _Blocks:
    """One kind of thing references point at, as each placed fragment lists it (sorted by
    block-relative start). Blocks are in document order and do not overlap, so the blocks'
    lists one after the other are the document's, sorted: a reference looks in its own block
    and then the blocks before it, which saves making and sorting that list."""

    def __init__(self, placed: list[tuple[int, Fragment]], having: list[int],
                 pick: Callable[[Fragment], list[_Spot]],
                 ends: dict[str, dict[str, Any]] | None = None) -> None:
        self.placed = placed
        self.having = having  # indexes of the blocks that list any
        self.pick = pick
        self.ends = ends

    def latest(self, k: int, start: int) -> str | None:
        """The last item starting before ``start`` in block ``k`` or an earlier one (and, with
        ``ends``, ending before it too): _latest_before of the document's list."""
        h = bisect.bisect_right(self.having, k)
        while h > 0:
            h -= 1
            off, frag = self.placed[self.having[h]]
            found = _latest_before(self.pick(frag), start - off, self.ends, off)
            if found is not None:
                return found
        return None


_NUMERAL = re.compile(r"\d+(?:[.,]\d+)*")
MAX_NUMERALS = 256  # per block: a log dump's numbers are bounded


def block_numerals(text: str) -> str:
    """Every number written in ``text``, normalised ("4,800.00" -> 4800, "05:41" -> 5 and 41),
    space-separated and sorted: what a summary may compute from, including the digits of
    dates, clock times and versions, which are no quantities of their own."""
    if not any(c.isdigit() for c in text):
        return ""
    found: set[str] = set()
    for m in _NUMERAL.finditer(text):
        raw = m.group()
        try:
            found.add(f"{float(raw.replace(',', '')):g}")
        except ValueError:  # "1.2.3": a version; its parts count
            found.update(f"{int(part)}" for part in raw.replace(",", ".").split(".") if part)
        if len(found) >= MAX_NUMERALS:
            break
    return " ".join(sorted(found))


_WORDISH = re.compile(r"[^\W_]\w*")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")  # terminal colour and cursor codes
MAX_WORDS = 4096  # per block: a long tool output's later words count too


def block_words(text: str) -> str:
    """The block's distinct words and names, lower-cased, space-separated, sorted: what a
    summary may quote from code, JSON and logs (``return``, ``total_seconds``), which hold no
    claims of their own."""
    found: set[str] = set()
    if "\x1b" in text:
        text = _ANSI.sub(" ", text)  # "\x1b[38;21mutf-8": a colour code is no part of a word
    for m in _WORDISH.finditer(text):
        w = m.group()
        if len(w) > 1:
            found.add(lower(w))
            if len(found) >= MAX_WORDS:
                break
    return " ".join(sorted(found))


def fragment_key(block: Block) -> tuple[str, str, str, str]:
    """What a block's fragment depends on: its kind, text and source."""
    return (block.kind, block.text, block.role, block.turn_id)


def block_source(block: Block) -> str:
    """Who a block's claims come from: ``user``, ``assistant``, ``system``, ``tool`` or
    ``tool:<call id>``, ``speaker:<name>`` for a named speaker's turn; "" for text that is no
    one's turn (the context's own notes)."""
    role = block.role
    if not role:
        return ""
    named = ROLES.get(role)
    if named == "tool":
        return f"tool:{block.turn_id}" if block.turn_id else "tool"
    return named or f"speaker:{role}"


def _referent_data(ref_kind: str, key: str, text: str, start: int, end: int) -> dict[str, Any]:
    """Referent node data, at the referent's first occurrence."""
    return {"kind": _REFERENT, "text": text, "start": start, "end": end, "ref_kind": ref_kind,
            "key": key}


def _named(kind: str, text: str, start: int, end: int, a: dict[str, Any] | None) -> dict[str, Any]:
    """Referent node data at its first occurrence, a name of ``kind`` (see _NAMING)."""
    assert a is not None  # a name has its key among its attributes
    ref_kind, _, attr = _NAMING[kind]
    return _referent_data(ref_kind, str(a[attr]), text, start, end)


def _referent(ref: tuple[str, str, int, int], text: str, off: int) -> dict[str, Any]:
    """Referent node data at its first occurrence: ``ref`` is (ref kind value, key, start,
    end) with offsets relative to the block whose text is ``text``, which starts at ``off``."""
    ref_kind, key, start, end = ref
    return _referent_data(ref_kind, key, text[start:end], start + off, end + off)


def _latest_before(items: list[tuple[int, str]], start: int,
                   ends: dict[str, dict[str, Any]] | None = None, off: int = 0) -> str | None:
    """The last item starting before ``start`` (and, with ``ends``, also ending before it);
    item starts and ``start`` are relative to ``off``, the ends in ``ends`` are not."""
    i = bisect.bisect_left(items, (start, "")) - 1
    while i >= 0:
        _s, nid = items[i]
        i -= 1
        if ends is not None and ends[nid]["end"] > start + off:
            continue
        return nid
    return None


def _head_word(name: str) -> str:
    """The head word of an identifier, for matching descriptions: retry_budget -> budget."""
    parts = [p for p in lower(name.replace(".", "_").replace("-", "_")).split("_") if p]
    return parts[-1] if parts else ""


# Names recur across blocks and builds: each head word is derived once.
_HEAD_WORDS = WordMemo(_head_word)
