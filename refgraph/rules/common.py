"""Shared functions over claims, documented once and used by every rule.

Two questions recur. *Is this before claim still said in after?* (:func:`kept`: any
counterpart of enough weight, anywhere, paraphrases included) decides closure findings, which
need material that has no counterpart at all. *Which after claim says the same thing
differently?* (:func:`strict_pairs`: the same predicate class, most of the before claim's
features, no contradicting identity) decides inversion findings, which need an after claim that
conflicts with its before counterpart. Every function reads claims (``refgraph.claims``) and the
claim alignment; none reads text.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Iterable, Iterator

from ..align import ClaimPair
from ..blocks import BlockKind
from ..claims import Arg, Claim, arg_of_node
from ..findings import Evidence
from ..model import NodeKind
from ..nlp.lemmas import key
from .context import Context, Side

STRICT_COVER = 0.5  # share of a before claim's weight a strict counterpart must hold
LIGHT_COVER = 0.75  # ... when its predicate is be/have/do/get
KEPT_SCORE = 0.45  # a counterpart this good means the claim is still said
_IDENTITY = ("i:", "h:")
_THREAD_REACH = 3  # blocks before a claim's own that belong to its thread
ISSUER_REACH = 3  # blocks back from a tool result to the turn that issued its call
TOOL_ROLES = frozenset({"tool", "observation", "function"})  # turns that hold a tool's output
BOUNDS = frozenset({"<", "<=", ">", ">="})  # quantity bounds that restrict ("at most 3")


def pairs(ctx: Context, b: Claim) -> list[tuple[Claim, ClaimPair]]:
    """The after counterparts of before claim ``b``, best first."""
    al = ctx.alignment.claims
    if al is None:
        return []
    by_id = ctx.after.claims.by_id
    return [(by_id[p.after], p) for p in al.counterparts(b.id)]


def sources(ctx: Context, a: Claim) -> list[tuple[Claim, ClaimPair]]:
    """The before claims after claim ``a`` restates, best first."""
    al = ctx.alignment.claims
    if al is None:
        return []
    by_id = ctx.before.claims.by_id
    return [(by_id[p.before], p) for p in al.sources(a.id)]


def strict_pairs(ctx: Context, b: Claim, *, cover: float = STRICT_COVER
                 ) -> list[tuple[Claim, ClaimPair]]:
    """After claims that state ``b``'s predicate (its class) about most of what ``b`` is
    about, with no identity that contradicts ``b``'s (see :func:`compatible`)."""
    if not b.pred_key:
        return []
    need = max(cover, LIGHT_COVER) if b.light else cover
    return [(a, p) for a, p in pairs(ctx, b)
            if p.same_predicate and p.coverage >= need and compatible(b, a)
            and beyond_predicate(b, a)]


def words_of(features: Iterable[str]) -> frozenset[str]:
    """Features with an entity and its own head word counted once: "pads" gives the term
    ``pad`` and the entity ``e:pad``, one word in common, not two."""
    return frozenset(key(f[2:]) if f[:2] == "e:" else f for f in features)


def beyond_predicate(b: Claim, a: Claim) -> frozenset[str]:
    """The features two claims share besides ``b``'s predicate and the noun of the same word
    ("Scan done" / "the scan found no codes" share only the scan)."""
    return frozenset(f for f in b.features & a.features if f != b.pred_key and not (
        f[:2] == "e:" and b.pred_key and key(f[2:]) in (b.pred_key, key(b.predicate))))


def explained_elsewhere(ctx: Context, b: Claim, a: Claim,
                        agrees: Callable[[Claim, Claim], bool]) -> bool:
    """Whether after claim ``a`` restates another before claim, at least as well as it
    restates ``b``, that agrees with it on what the rule compares: then ``a`` is that claim's
    counterpart, not a changed copy of ``b`` ("do not deploy before the tests pass" and a
    later "deploy with the release tag": the after "deploy with the release tag" is the
    second one kept, not the first one flipped)."""
    mine = next((p.score for x, p in sources(ctx, a) if x.id == b.id), 0.0)
    return any(x.id != b.id and p.score >= mine and x.pred_key == a.pred_key and agrees(x, a)
               for x, p in sources(ctx, a))


def kept(ctx: Context, b: Claim, *, score: float = KEPT_SCORE) -> bool:
    """Whether some after claim restates ``b`` (a counterpart scoring ``score`` or more). A
    claim that states numbers ("212 passed") is restated only by one that states a number of
    the same kind, whatever its value: "before the tests pass" does not keep it."""
    kinds = {q.feature for q in b.args_of("quantity")}
    return any(p.score >= score and (not kinds or kinds & {q.feature for q in
                                                          a.args_of("quantity")})
               for a, p in pairs(ctx, b))


def compatible(b: Claim, a: Claim) -> bool:
    """False when the two claims name different things of one kind and no common one: other
    identifiers, other handles, or the same head with other qualifiers ("the replica of shard
    A" vs "of shard B"). Such claims are about different instances and never conflict."""
    for kind in ("identifier", "handle"):
        kb = {x.key for x in b.args_of(kind)}
        ka = {x.key for x in a.args_of(kind)}
        if kb and ka and not kb & ka:
            return False
    eb: dict[str, set[str]] = {}
    for x in b.args_of("mention"):
        eb.setdefault(x.head, set()).add(x.key)
    for x in a.args_of("mention"):
        keys = eb.get(x.head)
        if keys and x.key not in keys and "[" in x.key and all("[" in k for k in keys) and \
                not any(_narrows(x.key, k) or _narrows(k, x.key) for k in keys):
            return False
    return True


def _qualifiers(key: str) -> frozenset[str]:
    return frozenset(key.partition("[")[2].rstrip("]").split(";"))


def _narrows(k1: str, k2: str) -> bool:
    """Whether mention key ``k1`` names the same head as ``k2`` with more of its qualifiers:
    "the flight duty period" and a summary's "the duty period" are one period; "shard A"
    and "shard B" are two."""
    return _qualifiers(k2) < _qualifiers(k1)


def identity(c: Claim) -> frozenset[str]:
    """What names the claim's subject matter: identifier and handle features, and the
    entity heads it mentions."""
    return frozenset(f for f in c.features if f.startswith(_IDENTITY) or f.startswith("e:"))


def live(ctx: Context, features: Iterable[str], *, skip: frozenset[str] = frozenset()
         ) -> list[Claim]:
    """After claims that still talk about the subject given by ``features``: they name one
    of its identifiers, handles or entities, or share two of its other features (a unit, a
    content term). The subject of lost material is live while after talks about it."""
    weight: dict[str, int] = {}
    found: dict[str, Claim] = {}
    for f in features:
        w = 2 if f.startswith((*_IDENTITY, "e:")) else 1
        for a in ctx.after.claims.with_feature(f):
            if a.id not in skip:
                weight[a.id] = weight.get(a.id, 0) + w
                found[a.id] = a
    return sorted((found[k] for k, w in weight.items() if w >= 2), key=lambda a: a.start)


def subject(c: Claim) -> frozenset[str]:
    """What a claim is about, for :func:`live`: its features (content terms, arguments)."""
    return c.features


def quantities(side: Side) -> list[Arg]:
    """Every quantity node of ``side`` as an :class:`Arg`, claims or not (a number in a
    listing's header counts), built once per text."""
    found = side.memo.get("quantities")
    if found is None:
        found = side.memo["quantities"] = [
            arg_of_node(n, side.d(n)) for n in side.nodes_of(NodeKind.QUANTITY.value)]
    assert isinstance(found, list)
    return found


def quantity_index(side: Side) -> ValueIndex:
    """:func:`quantities` of ``side`` as a :class:`ValueIndex`, built once per text."""
    found = side.memo.get("quantity_index")
    if found is None:
        found = side.memo["quantity_index"] = ValueIndex(quantities(side))
    assert isinstance(found, ValueIndex)
    return found


def sentence_quantities(side: Side, q: Arg) -> list[Arg]:
    """The quantities of q's sentence (unit), claims or not, indexed once per text."""
    index = side.memo.get("quantities_by_unit")
    if index is None:
        index = side.memo["quantities_by_unit"] = {}
        for y in quantities(side):
            index.setdefault(side.unit_of.get(y.node), []).append(y)
    assert isinstance(index, dict)
    found: list[Arg] = index.get(side.unit_of.get(q.node), [])
    return found


def holds_zero(c: Claim) -> bool:
    """Whether a quantity of ``c`` is zero ("0 events", a bare "0")."""
    return any(q.magnitude == 0 for q in c.args_of("quantity"))


def numerals(side: Side) -> frozenset[str]:
    """Every number written in ``side``'s blocks (the blocks' ``numerals``, as ``f"{x:g}"``),
    in quantities or not ("run 8810002" names a run with one), built once per text."""
    found = side.memo.get("numerals")
    if found is None:
        found = side.memo["numerals"] = frozenset(
            w for bid in side.nodes_of(NodeKind.BLOCK.value)
            for w in str(side.d(bid).get("numerals", "")).split())
    assert isinstance(found, frozenset)
    return found


def thread(side: Side, c: Claim) -> frozenset[str]:
    """What the thread a claim belongs to is about: its own features, those of the claims
    of its block and of the few blocks before it (the call that produced a result, the
    question it answers), and of the user turn it answers. A lost result's thread is live
    while after still talks about any of it."""
    cs = side.claims
    out = set(c.features)
    blocks = thread_blocks(side, c)
    for bid in blocks:
        for x in cs.by_block.get(bid, ()):
            out |= x.features
    if side.d(blocks[-1]).get("role") == "user":
        return frozenset(out)
    last = _last_user_claim(side)[c.index]
    if last >= 0:
        out |= cs.claims[last].features
    return frozenset(out)


def thread_blocks(side: Side, c: Claim) -> list[str]:
    """The blocks of ``c``'s thread, its own first: it and the few before it, back to the
    user turn it answers, if that is near."""
    blocks = side.memo.get("block_order")
    if blocks is None:
        blocks = side.memo["block_order"] = {b: k for k, b in enumerate(
            side.nodes_of("block"))}
        side.memo["blocks"] = side.nodes_of("block")
    order: list[str] = side.memo["blocks"]
    k = blocks.get(c.block, 0)
    out: list[str] = []
    for bid in reversed(order[max(0, k - _THREAD_REACH):k + 1]):
        out.append(bid)
        if side.d(bid).get("role") == "user":
            break
    return out


def _last_user_claim(side: Side) -> list[int]:
    """For each claim index, the index of the last user claim before it (-1: none), built
    once per text: looking back claim by claim made a context without user turns quadratic."""
    found = side.memo.get("last_user_claim")
    if found is None:
        found, last = [], -1
        for x in side.claims.claims:
            found.append(last)
            if x.source == "user":
                last = x.index
        side.memo["last_user_claim"] = found
    assert isinstance(found, list)
    return found


def claim_ev(side: Side, c: Claim, role: str) -> Evidence:
    return side.ev(c.start, c.end, role, c.id)


def arg_ev(side: Side, a: Arg, role: str = "argument") -> Evidence:
    return side.ev(a.start, a.end, role, a.node)


def short(text: str, width: int = 70) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width - 1] + "…"


def same_quantity(b: Arg, a: Arg) -> bool:
    """Whether after's quantity ``a`` states before's ``b``: the same value in base units
    (so "2,000 ms" is "2 s"), or ``b`` rounded the way summaries round: to ``a``'s
    significant digits when ``a`` has a fraction or is 1,000 or more ("4.2M" for 4,193,280),
    within 10% when ``a`` says it is approximate ("about 40")."""
    if b.base_unit != a.base_unit or b.base_magnitude is None or a.base_magnitude is None:
        return False
    x, y = b.base_magnitude, a.base_magnitude
    if math.isclose(x, y, rel_tol=1e-6, abs_tol=1e-12):
        return True
    if a.bound == "~" and y and abs(x - y) <= 0.1 * abs(y):
        return True
    digits = _rounding_digits(a)
    return bool(digits) and math.isclose(round_to(x, digits), y, rel_tol=1e-6)


class ValueIndex:
    """Quantities by base unit and value: "does any of them state ``q``" then looks only at
    those :func:`same_quantity` can pair with ``q``, either way round, so a context of
    thousands of numbers (a long table) stays linear. Its three cases give three lookups:
    equal values (a narrow window of the sorted values), approximations ("about 40": the
    values within 10% of one side), and roundings ("4.2M" for 4,193,280: the values that round
    to the rounded one, and the rounded ones a value rounds to). A range ("1471-1475") is
    compared with every quantity of its unit."""

    SCAN_CAP = 512  # candidates tried per question; past it, the answer is "stated"

    def __init__(self, qs: Iterable[Arg]) -> None:
        self._units: dict[str, list[Arg]] = {}
        for q in qs:
            self._units.setdefault(q.base_unit, []).append(q)
        self._sorted: dict[str, tuple[list[float], list[Arg]]] = {}
        self._approx: dict[str, tuple[list[float], list[Arg]]] = {}
        self._rounded: dict[tuple[str, int, str], list[Arg]] = {}
        self._ranged: dict[str, list[Arg]] = {}
        for unit, group in self._units.items():
            valued = [q for q in group if q.base_magnitude is not None]
            self._sorted[unit] = _by_value(valued)
            self._approx[unit] = _by_value([q for q in valued if q.bound == "~"])
            self._ranged[unit] = [q for q in group if q.magnitude_high is not None]
            for q in valued:
                d = _rounding_digits(q)
                if d:
                    self._rounded.setdefault((unit, d, _value_key(q.base_magnitude or 0.0)),
                                             []).append(q)

    def near(self, q: Arg) -> Iterator[Arg]:
        """The quantities of ``q``'s unit that may equal it (and perhaps a few more)."""
        v = q.base_magnitude
        unit = q.base_unit
        if v is None or q.magnitude_high is not None:
            yield from self._units.get(unit, ())
            return
        valued = self._sorted.get(unit, ([], []))
        tol = abs(v) * 2e-6 + 1e-12
        yield from _window(valued, v - tol, v + tol)  # equal values
        if q.bound == "~":  # q is the approximation: values within 10% of it
            yield from _window(valued, v - 0.1 * abs(v) - tol, v + 0.1 * abs(v) + tol)
        # approximations within 10% of themselves of v
        yield from _window(self._approx.get(unit, ([], [])), v - abs(v) / 0.9 * 0.1 - tol,
                           v + abs(v) / 0.9 * 0.1 + tol)
        d = _rounding_digits(q)
        if d and v:  # q is the rounded one: the values within half its last digit
            half = 0.5 * 10 ** (math.floor(math.log10(abs(v))) - d + 1) * 1.01
            yield from _window(valued, v - half, v + half)
        for digits in (1, 2, 3):  # the rounded ones v rounds to
            yield from self._rounded.get((unit, digits, _value_key(round_to(v, digits))), ())
        yield from self._ranged.get(unit, ())

    def any(self, q: Arg, test: Callable[[Arg], bool]) -> bool:
        """Whether ``test`` holds for a quantity near ``q``. Past :attr:`SCAN_CAP` candidates
        it answers True: then q is taken as stated, and nothing is claimed changed."""
        return any(n >= self.SCAN_CAP or test(x) for n, x in enumerate(self.near(q)))


def _by_value(qs: list[Arg]) -> tuple[list[float], list[Arg]]:
    ordered = sorted(qs, key=lambda q: q.base_magnitude or 0.0)
    return [q.base_magnitude or 0.0 for q in ordered], ordered


def _window(table: tuple[list[float], list[Arg]], lo: float, hi: float) -> list[Arg]:
    keys, qs = table
    return qs[bisect.bisect_left(keys, lo):bisect.bisect_right(keys, hi)]


def _value_key(x: float) -> str:
    return f"{x:.9g}"


def _rounding_digits(a: Arg) -> int:
    """The significant digits ``a`` is taken to be rounded to by :func:`same_quantity` (a
    value with a fraction, or of 1,000 or more, with at most 3 of them), else 0."""
    y = a.base_magnitude
    value = a.magnitude if a.magnitude is not None else y
    if not value or not (value != int(value) or abs(value) >= 1000):
        return 0
    digits = significant_digits(value)
    return digits if digits <= 3 else 0


def significant_digits(x: float) -> int:
    """Significant digits of ``x`` as a number is written: 4.2e6 -> 2, 30.5 -> 3, 30 -> 1."""
    s = f"{abs(x):.12g}"
    if "e" in s:
        s = s.split("e", 1)[0]
    digits = s.replace(".", "").lstrip("0")
    if "." not in s:
        digits = digits.rstrip("0")
    return max(1, len(digits))


def round_to(x: float, digits: int) -> float:
    if x == 0:
        return 0.0
    return round(x, digits - 1 - math.floor(math.log10(abs(x))))


def quantity_text(a: Arg) -> str:
    return repr(short(a.text, 40))


def handles_of(side: Side) -> set[str]:
    """Every way ``side`` names a source: handle values, turn ids, identifier names and the
    names inside code spans (a command in backticks re-runs it)."""
    out = {a.key for c in side.claims.claims for a in c.args_of("handle")}
    for bid in side.nodes_of(NodeKind.BLOCK.value):
        d = side.d(bid)
        if d.get("turn_id"):
            out.add(str(d["turn_id"]))
    for nid in side.nodes_of(NodeKind.HANDLE.value):
        d = side.d(nid)
        out.add(str(d["value"]))
        if d.get("through"):  # "call_2–call_8" names the calls between
            out.update(_id_range(str(d["value"]), str(d["through"])))
    for nid in side.nodes_of(NodeKind.IDENTIFIER.value):
        d = side.d(nid)
        out.add(str(d["name"]))  # `find_file "fields.py" src` re-runs the search
        if d.get("ident_kind") == "code":
            out.add(_command(str(d.get("text", ""))))  # the whole command, as issued
        out.update(str(d.get("files", "")).split())  # `strings disk.img | grep flag`
        out.update(str(d.get("words", "")).split())
    return out


def _id_range(first: str, last: str) -> list[str]:
    """``call_3`` ... ``call_7`` for ``call_2`` through ``call_8`` (the front end bounds it)."""
    head = first.rstrip("0123456789")
    lo, hi = int(first[len(head):]), int(last[len(head):])
    return [f"{head}{n}" for n in range(lo + 1, hi)]


_ELIDED = "\u2026"  # "eps1.7_wh1ter0se_….m4v": a long name shortened in the middle
_ELIDED_KEPT = 8  # characters an elided name must keep to name one file, not many


class Handles:
    """A text's handles (:func:`handles_of`) with the forms :func:`any_handle` matches them
    in, built once: asking about each of a thousand tool results stays linear."""

    def __init__(self, handles: Iterable[str]) -> None:
        self.all = set(handles)
        self.names = {_basename(h) for h in self.all}
        self.bare = {h.split("?", 1)[0].rstrip("/") for h in self.all if "://" in h}
        self.cut = [tuple(n.split(_ELIDED, 1)) for n in self.names if _ELIDED in n]


def any_handle(handles: set[str], after: set[str] | Handles) -> bool:
    """Whether after names one of ``handles``: as it is, a path by the same file name, or a
    name shortened with an ellipsis whose head and tail are the handle's own."""
    index = after if isinstance(after, Handles) else Handles(after)
    if handles & index.all:
        return True
    own = [_basename(h) for h in handles]
    if any(n in index.names for n in own) or any(h.split("?", 1)[0].rstrip("/") in index.bare
                                                 for h in handles):
        return True
    return any(len(head) + len(tail) >= _ELIDED_KEPT and any(
        len(name) > len(head) + len(tail) and name.startswith(head) and name.endswith(tail)
        for name in own) for head, tail in index.cut)


def _basename(handle: str) -> str:
    return handle.rstrip("/").rsplit("/", 1)[-1]


def _command(line: str) -> str:
    return "$ " + " ".join(line.split())


def _commands(fenced: str) -> set[str]:
    """The command lines of a fenced block, each as :func:`handles_of` writes a quoted one."""
    return {_command(line) for line in fenced.splitlines()
            if line.strip() and not line.lstrip().startswith(("```", "~~~"))}


def issuer_handles(side: Side, blocks: list[str], k: int) -> set[str]:
    """Handles and identifiers of the turn that issued tool result ``blocks[k]`` (the
    assistant turn before it and any command block in between): running that command again
    re-fetches the result."""
    out: set[str] = set()
    for bid in reversed(blocks[max(0, k - ISSUER_REACH):k]):
        d = side.d(bid)
        if d.get("block_kind") == BlockKind.CODE.value:
            # the command itself: after that quotes it (`disassemble warmup`) can re-run it
            out.update(_commands(str(d.get("text", ""))))
        for nid in _inside(side, bid):
            nd = side.d(nid)
            if nd["kind"] == NodeKind.HANDLE.value:
                out.add(str(nd["value"]))
            elif nd["kind"] == NodeKind.IDENTIFIER.value:
                out.add(str(nd["name"]))
        if side.d(bid).get("role") in ("assistant", "agent", "ai"):
            break
    return out


def _inside(side: Side, bid: str) -> list[str]:
    """The span nodes of a block (through its sentences)."""
    out: list[str] = []
    for v in side.G.successors(bid):
        if side.d(v)["kind"] == NodeKind.SENTENCE.value:
            out.extend(side.G.successors(v))
        else:
            out.append(v)
    return out
