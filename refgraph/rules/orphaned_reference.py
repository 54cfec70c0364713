"""RG101 orphaned-reference."""

from __future__ import annotations

from collections.abc import Iterator

from ..claims import Claim
from ..findings import Finding
from ..model import EdgeKind, NodeKind, RefKind, referent_id
from .base import Example, Rule
from .common import (
    TOOL_ROLES,
    Handles,
    any_handle,
    claim_ev,
    handles_of,
    issuer_handles,
    kept,
    short,
)
from .context import Context, Side

_DEFINES = EdgeKind.DEFINES.value
_MEASURES = EdgeKind.MEASURES.value


class OrphanedReference(Rule):
    """An identifier is still used in after, but its definition is gone.

    ## What it detects
    An identifier that before defines (``MAX_RETRIES=3``, "let BUDGET be 40 GPU-hours",
    ``X: 5 GB``) and after still uses, when after defines it nowhere and no after claim
    restates the defining claim (its value next to the name keeps it).

    ## Why it matters
    The uses survive and the binding does not: the constant's value now lives only in what was
    pruned, and the agent will assume one.
    """

    code = "RG101"
    name = "orphaned-reference"
    summary = "an identifier or defined term is still used in after but its definition is gone"
    hint = "Keep the definition (NAME=value) in after, or inline the value where it is used."
    example = Example("MAX_RETRIES=3 caps the attempts.\n\nRetry the upload up to MAX_RETRIES "
                      "times.", "Retry the upload up to MAX_RETRIES times.", intent="prune")

    def check(self, ctx: Context) -> Iterator[Finding]:
        defined_after = _defined(ctx.after)
        used_after = _uses(ctx.after)
        after_handles = Handles(handles_of(ctx.after))
        for name, (node, claim) in _definitions(ctx.before).items():
            if name in defined_after or name not in used_after:
                continue
            if claim is not None and (kept(ctx, claim) or _restated(ctx, name, claim)):
                continue
            if _value_restated(ctx, name):
                continue  # "up to MAX_RETRIES (3) times": the value stands next to the name
            if any_handle(_block_handles(ctx.before, node) | _issued_by(ctx.before, node),
                          after_handles):
                continue  # defined in a file or output after still names: re-fetchable
            use = used_after[name][0]
            evidence = [ctx.before.ev_node(node, "missing")]
            if claim is not None:
                evidence[0] = claim_ev(ctx.before, claim, "missing")
            evidence.append(ctx.after.ev_node(use, "dependent"))  # the use that is left
            text = claim.text if claim is not None else ctx.before.d(node)["text"]
            yield self.finding(
                f"{name!r} is still used in after, but its definition {short(text)!r} is gone",
                *evidence, confidence=_strength(ctx.before, node))


def _definitions(side: Side) -> dict[str, tuple[str, Claim | None]]:
    """Identifier name -> (its first defining occurrence, the claim it is in)."""
    out: dict[str, tuple[str, Claim | None]] = {}
    holder = {a.node: c for c in side.claims.claims for a in c.args}
    for nid in side.nodes_of(NodeKind.IDENTIFIER.value):
        d = side.d(nid)
        name = str(d["name"])
        if name in out:
            continue
        if any(k == _DEFINES for _, _, k in side.G.out_edges(nid, keys=True)):
            out[name] = (nid, holder.get(nid))
    return out


def _restated(ctx: Context, name: str, definition: Claim) -> bool:
    """Whether an after claim names the identifier with more of its definition ("the flag
    order_history_prefetch is off": the value in other words). What before's uses of the name
    say too ("retry the upload up to MAX_RETRIES times") is no part of the definition."""
    feature = f"i:{name}"
    used = frozenset().union(*(c.features for c in ctx.before.claims.with_feature(feature)
                               if c.id != definition.id))
    rest = definition.features - {feature} - used
    return any(c.features & rest for c in ctx.after.claims.with_feature(feature))


def _block_handles(side: Side, node: str) -> set[str]:
    """The handles of the block an occurrence is in (a file view's path, a call id)."""
    bid = node.split(":", 1)[0]
    out: set[str] = set()
    if bid in side.G:
        turn = side.d(bid).get("turn_id")
        if turn:
            out.add(str(turn))
    for nid in side.nodes_of(NodeKind.HANDLE.value):
        if nid.startswith(bid + ":"):
            out.add(str(side.d(nid)["value"]))
    return out


_BINDINGS = frozenset({"constant", "env", "flag"})  # names that hold a setting by form


def _strength(side: Side, node: str) -> float:
    """How sure a lost definition matters: a setting (``MAX_RETRIES=3``, ``$TOKEN``), or a
    binding in prose, is relied on by name; a variable assigned in code or in a tool's output
    (``for (local_10 = 0``, a log's ``m.chen: 3 failures``) is data that changes."""
    d = side.d(node)
    if str(d.get("ident_kind", "")) in _BINDINGS:
        return 0.85
    if d.get("labelled"):
        return 0.55  # "m.chen: 3 failures": a row of a listing, not a setting
    bid = node.split(":", 1)[0]
    turn = _turn_of(side, bid)
    if side.d(bid).get("block_kind") in ("code", "json", "log") or (
            turn is not None and side.d(turn).get("role") in TOOL_ROLES):
        return 0.55
    return 0.85


def _turn_of(side: Side, bid: str) -> str | None:
    """The turn a block belongs to: itself, or the nearest block before it with a role (a
    code fence inside a tool's turn)."""
    if bid not in side.G:
        return None
    blocks = side.nodes_of(NodeKind.BLOCK.value)
    index = _block_index(side)
    k0 = index.get(bid, 0)
    for k in range(k0, max(-1, k0 - _TURN_REACH), -1):
        if side.d(blocks[k]).get("role"):
            return blocks[k]
    return None


_TURN_REACH = 40  # blocks back to a turn's label: bounded, so a long text stays linear


def _block_index(side: Side) -> dict[str, int]:
    found = side.memo.get("block_index")
    if found is None:
        found = side.memo["block_index"] = {b: k for k, b in enumerate(side.nodes_of(
            NodeKind.BLOCK.value))}
    assert isinstance(found, dict)
    return found


def _issued_by(side: Side, node: str) -> set[str]:
    """For an occurrence in a tool's output (or a code fence inside it), the handles and
    names of the command that produced it: running it again re-fetches the definition."""
    turn = _turn_of(side, node.split(":", 1)[0])
    if turn is None or side.d(turn).get("role") not in TOOL_ROLES:
        return set()
    return issuer_handles(side, side.nodes_of(NodeKind.BLOCK.value),
                          _block_index(side).get(turn, 0))


def _values(side: Side, name: str) -> list[float]:
    """The values quantities of ``side`` give identifier ``name`` (``measures`` edges)."""
    rid = referent_id(RefKind.IDENTIFIER, name)
    if rid not in side.G:
        return []
    return [float(side.d(u)["base_magnitude"]) for u, _, k in side.G.in_edges(rid, keys=True)
            if k == _MEASURES and "base_magnitude" in side.d(u)]


def _value_restated(ctx: Context, name: str) -> bool:
    """Whether after states the value before bound ``name`` to: a quantity that measures it,
    or one in a claim that names it."""
    values = set(_values(ctx.before, name))
    if not values:
        return False
    if values & set(_values(ctx.after, name)):
        return True
    for c in ctx.after.claims.claims:
        if any(a.key == name for a in c.args_of("identifier")) and any(
                q.base_magnitude in values for q in c.args_of("quantity")):
            return True
    return False


def _defined(side: Side) -> set[str]:
    return set(_definitions(side))


def _uses(side: Side) -> dict[str, tuple[str, Claim | None]]:
    holder = {a.node: c for c in side.claims.claims for a in c.args}
    out: dict[str, tuple[str, Claim | None]] = {}
    for nid in side.nodes_of(NodeKind.IDENTIFIER.value):
        name = str(side.d(nid)["name"])
        out.setdefault(name, (nid, holder.get(nid)))
    return out
