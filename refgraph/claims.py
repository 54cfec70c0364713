"""Claims read off a referent graph: what the alignment and the rules compare.

A :class:`Claim` is a claim node of the graph with its edges resolved: its arguments (with the
data of the node each ``arg`` edge points at), the claims it is conditioned on or supported by,
and who it is credited to. Everything comes from the graph (schema ``refgraph.graph/2``,
``docs/graph.md``); nothing here reads the text again. Pure functions and plain data: no spaCy.

>>> from refgraph.graph import build_graph
>>> cs = claims_of(build_graph("The timeout is 30 seconds.", mode="fast"))
>>> [(c.pred_key, c.negative, [a.kind for a in c.args]) for c in cs.claims]
[('be', False, ['mention', 'quantity'])]
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, replace
from typing import Any

from .model import ROLES, EdgeKind, NodeKind, RefGraph

_CLAIM, _BLOCK = NodeKind.CLAIM.value, NodeKind.BLOCK.value
_ARG, _CONDITIONS, _SUPPORTS = EdgeKind.ARG.value, EdgeKind.CONDITIONS.value, \
    EdgeKind.SUPPORTS.value
_NEGATES, _QUALIFIES, _GOVERNS = EdgeKind.NEGATES.value, EdgeKind.QUALIFIES.value, \
    EdgeKind.GOVERNS.value
_CONTAINS = EdgeKind.CONTAINS.value
_FIRST = frozenset({"i", "we", "me", "us", "my", "our"})
_SECOND = frozenset({"you", "your"})
_ROLES = frozenset({"user", "assistant", "system", "tool"})


# Forces that order something done or not done (a claim's ``force``; see docs/graph.md):
# "must", "never", "should". A permission grants leave and an exemption waives a duty.
ORDER_FORCES = frozenset({"obligation", "prohibition", "advice"})


@dataclass(frozen=True, slots=True)
class Arg:
    """An argument of a claim: the node an ``arg`` edge points at, with its match data."""

    node: str
    kind: str  # mention, identifier, handle, quantity or deictic
    role: str  # subj, obj or other
    start: int
    end: int
    text: str
    key: str = ""  # entity key, identifier name, handle value, deictic head
    head: str = ""  # the entity's head word (mentions)
    label: str = ""  # named-entity label (mentions)
    magnitude: float | None = None  # quantities: as written
    unit: str = ""
    base_magnitude: float | None = None
    base_unit: str = ""
    bound: str = ""
    magnitude_high: float | None = None
    counted: bool = False  # quantities: a count of things ("5 rows"), not a measurement
    noun: str = ""  # unitless quantities: the plural noun counted ("63,250,000 calls": call)
    total: float | None = None  # quantities: the total of a count ("58/120": 120)
    plural: bool = False  # mentions: several at once ("the replicas")
    none: bool = False  # mentions: quantified as empty ("no untagged S3"): names nothing
    resolved: bool = True  # deictics: whether the graph found what it points at
    cited: bool = False  # handles: it names the source of what the claim says
    words: tuple[str, ...] = ()  # code spans and handles: the names and numbers inside
    defines: bool = False  # identifiers: this occurrence defines it ("X=3", a JSON key)

    @property
    def feature(self) -> str:
        """The match feature of this argument (see :attr:`Claim.features`)."""
        if self.kind == "mention":
            return f"e:{self.head}"
        if self.kind == "identifier":
            return f"i:{self.key}"
        if self.kind == "handle":
            return f"h:{self.key}"
        if self.kind == "quantity":
            return f"q:{self.base_unit or self.noun or '#'}"
        return f"d:{self.key}"


@dataclass(slots=True)
class Claim:
    """One claim node, resolved (see the module docstring and ``docs/graph.md``)."""

    id: str
    index: int  # position among the side's claims, in document order
    start: int
    end: int
    text: str
    block: str  # the block node id
    block_kind: str
    predicate: str
    pred_key: str
    negative: bool
    strength: float
    modality: str
    force: str
    mood: str
    subject: str
    frame: str
    reported_by: str
    source: str
    terms: frozenset[str]
    finding: bool
    side_effect: bool
    signature: str
    head_start: int
    head_end: int
    args: tuple[Arg, ...] = ()
    conditions: tuple[tuple[str, str, str], ...] = ()  # (antecedent claim id, marker, kind)
    conditioned: tuple[str, ...] = ()  # consequent claims this one is the antecedent of
    premises: tuple[str, ...] = ()  # claims that support this one
    conclusions: tuple[str, ...] = ()  # claims this one supports
    negations: tuple[str, ...] = ()  # negation nodes counted in its polarity
    hedges: tuple[str, ...] = ()  # hedge nodes that qualify it
    constraints: tuple[str, ...] = ()  # constraint nodes that govern it
    light: bool = False  # its predicate is be/have/do/get: the arguments carry the meaning
    exclusive: bool = False  # "only", "solely": it also says what does not hold
    cues: int = 0  # how many negation cues its polarity counts (2+: a complex clause)
    denial: str = ""  # negative claims: "cue" (a negation says so) or "predicate" ("failed")
    absence: bool = False  # it denies that something is there ("absent", "missing", "empty")
    qualified: bool = False  # a "without" or "except" negates a part of it
    code: bool = False  # it reads as code or a listing, parsed as prose
    quoted: bool = False  # it quotes a message ('declined with "do not honour"')
    supposition: bool = False  # an embedded question: "to see if we can reproduce it"
    folded: bool = False  # its polarity counts its predicate's sense: an antonym ("failed"),
    # a negative affix ("unreachable") or a negative implicative ("failed to connect")
    said_by: str = ""  # who asserts it (a speaker, user, assistant, tool), "" when unknown
    agent: str = ""  # who it is about (its subject, resolved), "" when unknown
    features: frozenset[str] = frozenset()

    @property
    def heading(self) -> bool:
        return self.block_kind == "heading"

    @property
    def asserted(self) -> bool:
        """A statement (not a question, a counterfactual "should have been", a heading or a
        line of code): what inversion rules compare."""
        return self.mood not in ("question", "counterfactual") and not self.heading and \
            not self.code and not self.supposition

    def args_of(self, kind: str) -> list[Arg]:
        return [a for a in self.args if a.kind == kind]


@dataclass(slots=True)
class ClaimSet:
    """The claims of one side, in document order, with the indexes rules share."""

    claims: list[Claim]
    by_id: dict[str, Claim]
    by_block: dict[str, list[Claim]]
    speakers: frozenset[str]  # the named speakers and roles whose turns the text holds
    by_feature: dict[str, list[int]] = field(default_factory=dict)
    memo: dict[Any, Any] = field(default_factory=dict)

    def with_feature(self, feature: str) -> list[Claim]:
        return [self.claims[i] for i in self.by_feature.get(feature, ())]


def claims_of(G: RefGraph) -> ClaimSet:
    """The claims of ``G`` (see the module docstring)."""
    nodes = G.nodes
    succ = G.succ
    pred = G.pred
    raw: list[tuple[int, int, str]] = []
    block_of: dict[str, str] = {}
    speakers: set[str] = set()
    for nid, d in G.nodes(data=True):
        kind = d["kind"]
        if kind == _CLAIM:
            raw.append((d["start"], d["end"], nid))
        elif kind == _BLOCK and "role" in d:
            speakers.add(_speaker(str(d["role"])))
    raw.sort()
    for _, _, nid in raw:
        block_of[nid] = _block_id(nid)
    dialogue = sorted(s for s in speakers if s not in _ROLES)
    claims: list[Claim] = []
    for k, (_, _, nid) in enumerate(raw):
        d = nodes[nid]
        args: list[Arg] = []
        conds: list[tuple[str, str, str]] = []
        concl: list[str] = []
        for v, keyed in succ[nid].items():
            for ek, data in keyed.items():
                if ek == _ARG:
                    args.append(_arg(v, nodes[v], str(data.get("role", "other"))))
                elif ek == _CONDITIONS:
                    conds.append((v, str(data.get("marker", "")), str(data.get("cond_kind", ""))))
                elif ek == _SUPPORTS and nodes[v]["kind"] == _CLAIM:
                    concl.append(v)
        negs: list[str] = []
        hedges: list[str] = []
        governs: list[str] = []
        prems: list[str] = []
        conditioned: list[str] = []
        for u, keyed in pred[nid].items():
            for ek in keyed:
                if ek == _NEGATES:
                    negs.append(u)
                elif ek == _QUALIFIES:
                    hedges.append(u)
                elif ek == _GOVERNS:
                    governs.append(u)
                elif ek == _SUPPORTS and nodes[u]["kind"] == _CLAIM:
                    prems.append(u)
                elif ek == _CONDITIONS:
                    conditioned.append(u)
        args.sort(key=lambda a: (a.start, a.end))
        bid = block_of[nid]
        bd = nodes.get(bid, {})
        source = str(d.get("source", ""))
        c = Claim(
            id=nid, index=k, start=d["start"], end=d["end"], text=d["text"], block=bid,
            block_kind=str(bd.get("block_kind", "")), predicate=str(d.get("predicate", "")),
            pred_key=str(d.get("pred_key", "")), negative=d.get("polarity") == "negative",
            strength=float(d.get("strength", 1.0)), modality=str(d.get("modality", "")),
            force=str(d.get("force", "")), mood=str(d.get("mood", "declarative")),
            subject=str(d.get("subject", "")), frame=str(d.get("frame", "")),
            reported_by=str(d.get("reported_by", "")), source=source,
            terms=frozenset(str(d.get("terms", "")).split()),
            finding=bool(d.get("finding", False)), side_effect=bool(d.get("side_effect", False)),
            signature=str(d.get("signature", "")), head_start=int(d.get("head_start", -1)),
            head_end=int(d.get("head_end", -1)), args=tuple(args), conditions=tuple(conds),
            conditioned=tuple(conditioned), premises=tuple(prems), conclusions=tuple(concl),
            negations=tuple(negs), hedges=tuple(hedges), constraints=tuple(governs),
            light=bool(d.get("light", False)), exclusive=bool(d.get("exclusive", False)),
            cues=int(d.get("negations", 1 if d.get("polarity") == "negative" else 0)),
            denial=str(d.get("denial", "")), absence=bool(d.get("absence", False)),
            qualified=bool(d.get("qualified", False)), code=bool(d.get("code", False)),
            quoted=bool(d.get("quoted", False)), supposition=bool(d.get("supposition", False)),
            folded=bool(d.get("denies") or d.get("affixed") or d.get("implicative")))
        c.said_by = _said_by(c, dialogue)
        c.agent = _agent(c, dialogue)
        c.features = c.terms | {a.feature for a in args}
        claims.append(c)
    by_id = {c.id: c for c in claims}
    by_block: dict[str, list[Claim]] = defaultdict(list)
    by_feature: dict[str, list[int]] = defaultdict(list)
    for c in claims:
        by_block[c.block].append(c)
        for f in c.features:
            by_feature[f].append(c.index)
    return ClaimSet(claims, by_id, dict(by_block), frozenset(speakers), dict(by_feature))


def _block_id(nid: str) -> str:
    return nid.split(":", 1)[0]


def _speaker(role: str) -> str:
    """A block role as a speaker name: roles by their own name ("Agent" is the assistant),
    names lower-cased."""
    low = role.lower()
    return ROLES.get(low, low)


def _source_name(source: str) -> str:
    """``speaker:caroline`` -> ``caroline``, ``tool:call_7`` -> ``tool``."""
    kind, _, rest = source.partition(":")
    return rest if kind == "speaker" else kind


_RELATIVE = frozenset({"who", "whom", "which"})  # a relative clause's subject: its antecedent


def _resolve(word: str, speaker: str, dialogue: list[str]) -> str:
    """Who ``word`` (a subject or a reporter) names: the speaker for "I"/"we", the one other
    person of a two-person dialogue for "you", a name as it is; "" when it cannot say."""
    w = word.split("[", 1)[0].strip().lower()
    if not w:
        return ""
    if w in _FIRST:
        return speaker
    if w in _SECOND:
        others = [p for p in dialogue if p != speaker]
        return others[0] if len(others) == 1 else ""
    if w in ("he", "she", "they", "it", "this", "that", "there", "who", "one"):
        return ""
    return ROLES.get(w.removeprefix("the "), w)  # "the agent schedules": the assistant


def _said_by(c: Claim, dialogue: list[str]) -> str:
    speaker = _source_name(c.source) if c.source else ""
    if c.reported_by:
        if c.subject.lower() in _RELATIVE:
            return ""  # "John mentioned ... Tim, who suggested castles": Tim's suggestion,
            # not something John said
        return _resolve(c.reported_by, speaker, dialogue)
    return speaker


def _agent(c: Claim, dialogue: list[str]) -> str:
    speaker = _source_name(c.source) if c.source else ""
    return _resolve(c.subject, speaker, dialogue)


def arg_of_node(nid: str, d: dict[str, Any], role: str = "other") -> Arg:
    """An :class:`Arg` for any span node (a quantity anywhere in a text, say)."""
    return _arg(nid, d, role)


def _arg(nid: str, d: dict[str, Any], role: str) -> Arg:
    kind = str(d["kind"])
    base = Arg(nid, kind, role, int(d["start"]), int(d["end"]), str(d["text"]))
    if kind == "mention":
        return replace(base, key=str(d.get("key", "")), head=str(d.get("head", "")),
                       label=str(d.get("ent_label", "")), plural=bool(d.get("plural", False)),
                       none=bool(d.get("none", False)))
    words = tuple(str(d.get("words", "")).split())
    if kind == "identifier":
        return replace(base, key=str(d.get("name", "")), label=str(d.get("ident_kind", "")),
                       words=words, defines=d.get("role") == "define")
    if kind == "handle":
        return replace(base, key=str(d.get("value", "")),
                       label=str(d.get("handle_kind", "")),
                       cited=bool(d.get("cited", False)), words=words)
    if kind == "quantity":
        high = d.get("magnitude_high")
        return replace(base, magnitude=float(d.get("magnitude", 0.0)),
                       unit=str(d.get("unit", "")),
                       base_magnitude=float(d.get("base_magnitude", d.get("magnitude", 0.0))),
                       base_unit=str(d.get("base_unit", "")), bound=str(d.get("bound", "=")),
                       magnitude_high=float(high) if high is not None else None,
                       counted=bool(d.get("counted", False)), noun=str(d.get("noun", "")),
                       total=float(d["total"]) if "total" in d else None)
    return replace(base, key=str(d.get("head", d.get("text", ""))).lower(),
                   resolved=bool(d.get("resolved", True)))
