"""RG102 dangling-deictic."""

from __future__ import annotations

import bisect
from collections.abc import Iterator

from ..claims import ORDER_FORCES, Claim
from ..findings import Finding
from ..model import EdgeKind, NodeKind
from .base import Example, Rule
from .common import BOUNDS, TOOL_ROLES, kept, short
from .context import Context, Side

_REFERS_TO = EdgeKind.REFERS_TO.value
_DEICTIC = NodeKind.DEICTIC.value


class DanglingDeictic(Rule):
    """A reference in after lost what it pointed at.

    ## What it detects
    A reference that before resolved ("the above constraint", "that retry budget", "as
    noted", "the former") and after keeps, while what it pointed at in before has no
    counterpart in after: after's copy of the reference points at nothing, or at something
    else.

    ## Why it matters
    The reference reads as grounded and is not: the agent fills in whatever it finds nearest,
    or invents the antecedent.
    """

    code = "RG102"
    name = "dangling-deictic"
    summary = '"the above constraint", "that retry budget", "as noted" lost what it pointed at'
    hint = "Restore what the reference points at, or replace the reference by what it means."
    example = Example("Never restart the primary during a backup.\n\nThe cache is warm.\n\n"
                      "Keep the above constraint in mind.",
                      "The cache is warm.\n\nKeep the above constraint in mind.", intent="prune")

    def check(self, ctx: Context) -> Iterator[Finding]:
        before = _resolved(ctx.before)
        for nid in ctx.after.nodes_of(_DEICTIC):
            d = ctx.after.d(nid)
            if not _points_back(d) or _in_tool_output(ctx.after, nid):
                continue  # a tool's output quotes text; its "that fire" is no reference of ours
            wanted = (str(d["text"]).lower(), str(d.get("head", "")))
            found = before.get(wanted)
            if found is None:
                continue
            _, _, claims = found
            if not claims or any(kept(ctx, c) for c in claims):
                continue
            claim = max(claims, key=lambda c: c.end - c.start)
            now = _target(ctx.after, nid)
            if now is not None:
                held = _holders(ctx.after, now)
                if not held or any(s.id in {c.id for c in claims}
                                   for a_claim in held for s, _ in _sources(ctx, a_claim)):
                    continue
                tail = f"now points at {short(ctx.after.d(now)['text'], 50)!r}"
            else:
                tail = "points at nothing"
            # What it pointed at may be restated in other words just before it ("attended a
            # pride parade. This experience ..." for "the parade was an awesome experience"):
            # then the loss is not proven.
            restated = now is None and _restated_before(ctx, claims, d)
            # A guess of the resolver is no proof: "the above threshold" resolved to "no
            # guider dropouts" (the nearest claim) says nothing about what it meant.
            weak = restated or not _fits(claims, d)
            yield self.finding(
                f"{d['text']!r} pointed at {short(claim.text)!r}, which after no longer holds; "
                f"it {tail}",
                ctx.before.ev(claim.start, claim.end, "missing", claim.id),
                ctx.after.ev_node(nid, "dependent"), confidence=0.5 if weak else 0.8)


def _fits(claims: list[Claim], d: dict[str, object]) -> bool:
    """Whether what a reference resolved to in before is what its head names: the head's
    word is among the claims' features ("that retry budget" -> "retries: at most 3"), or the
    head names a rule and a claim is one (an order, a condition, a bound: "the above
    constraint" -> "never restart the primary"). A reference without a head fits anything."""
    head = str(d.get("head") or "").lower()[:5]
    if not head:
        return True
    return any(f.split(":", 1)[-1].startswith(head) for c in claims for f in c.features) or any(
        c.force in ORDER_FORCES or c.conditions or c.exclusive or any(
            q.bound in BOUNDS for q in c.args_of("quantity")) for c in claims)


_REACH = 4  # after claims just before a reference that may restate what it points at


def _restated_before(ctx: Context, lost: list[Claim], d: dict[str, object]) -> bool:
    """Whether one of the few after claims just before reference ``d`` shares a content
    word or name, other than the reference's own head, with the claims it pointed at."""
    head = str(d.get("head", ""))[:5]  # features are lemma keys: "experienc"
    want = {f for c in lost for f in c.features
            if f != c.pred_key and not f.startswith(("d:", "q:")) and
            not (head and f.split(":", 1)[-1].startswith(head))}
    start = int(str(d["start"]))
    cs = ctx.after.claims.claims
    k = bisect.bisect_right(_starts(ctx.after), start)
    # claims nest a few deep at most: the ones ending before it are among the last few
    near = [a for a in cs[max(0, k - _REACH - 8):k] if a.end <= start][-_REACH:]
    return any(want & a.features for a in near)


def _starts(side: Side) -> list[int]:
    """The start offsets of ``side``'s claims, in order (built once per text)."""
    starts = side.memo.get("claim_starts")
    if starts is None:
        starts = side.memo["claim_starts"] = [c.start for c in side.claims.claims]
    assert isinstance(starts, list)
    return starts




def _in_tool_output(side: Side, nid: str) -> bool:
    bid = nid.split(":", 1)[0]
    return bid in side.G and side.d(bid).get("role") in TOOL_ROLES


def _points_back(d: dict[str, object]) -> bool:
    """A reference that names what it points back at: "the above constraint", "that retry
    budget", "as noted", "the former". A bare "this" or "it", "the same X" (a comparison)
    and a time ("that week") point at too little to prove a loss."""
    kind = d.get("deictic_kind")
    if kind in ("pronoun", "same") or d.get("temporal"):
        return False
    if kind == "discourse":
        return len(str(d.get("word", d.get("text", ""))).split()) > 1  # "as noted", not "this"
    return kind != "demonstrative" or bool(d.get("head"))


def _sources(ctx: Context, a: Claim) -> list[tuple[Claim, float]]:
    al = ctx.alignment.claims
    if al is None:
        return []
    by_id = ctx.before.claims.by_id
    return [(by_id[p.before], p.score) for p in al.sources(a.id)]


def _target(side: Side, nid: str) -> str | None:
    for _, v, k in side.G.out_edges(nid, keys=True):
        if k == _REFERS_TO:
            return str(v)
    return None


def _holders(side: Side, node: str) -> list[Claim]:
    """The claims a reference's target stands for: the claim it is, the claims of a sentence
    (what "as noted" points at), else the innermost claim that holds it."""
    cs = side.claims
    if node in cs.by_id:
        return [cs.by_id[node]]
    d = side.d(node)
    if d["kind"] in (NodeKind.SENTENCE.value, NodeKind.BLOCK.value):
        return [c for c in cs.claims if d["start"] <= c.start and c.end <= d["end"]]
    found = _holder(side, node)
    return [found] if found is not None else []


def _holder(side: Side, node: str) -> Claim | None:
    """The innermost claim a node is inside of."""
    cs = side.claims
    d = side.d(node)
    k = bisect.bisect_right(_starts(side), d["start"])
    best: Claim | None = None
    for c in cs.claims[max(0, k - 8):k]:  # claims nest a few deep at most
        if c.start <= d["start"] and d["end"] <= c.end and (
                best is None or c.end - c.start < best.end - best.start):
            best = c
    return best


def _resolved(side: Side) -> dict[tuple[str, str], tuple[str, str, list[Claim]]]:
    """(reference text, head) -> (its node, what it points at, the claim that is or holds it),
    for each reference of ``side`` that resolves."""
    out: dict[tuple[str, str], tuple[str, str, list[Claim]]] = {}
    for nid in side.nodes_of(_DEICTIC):
        d = side.d(nid)
        if not _points_back(d):
            continue
        target = _target(side, nid)
        if target is None:
            continue
        out.setdefault((str(d["text"]).lower(), str(d.get("head", ""))),
                       (nid, target, _holders(side, target)))
    return out
