"""RG103 merged-entity: two entities that before kept apart are one in after."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from ..findings import Finding
from ..model import NodeKind
from .base import Example, Rule
from .context import Context


class MergedEntity(Rule):
    """Two entities that ``before`` kept apart are collapsed into one claim in ``after``.

    ## What it detects
    ``before`` has two or more mentions with the same head and different qualifiers ("the
    primary replica of shard A", "the primary replica of shard B"; "Sam (billing)", "Sam
    (support)"); ``after`` keeps a mention with that head that drops the distinguishing
    qualifier, in a unit drawn from them, and no longer tells the entities apart.

    ## Why it matters
    Deduplication by surface overlap makes memory look cleaner while the merged claim is true of
    neither entity; it is the hardest corruption to notice because it removes apparent conflict.
    """

    code = "RG103"
    name = "merged-entity"
    summary = "two entities kept apart in before are collapsed into one in after"
    hint = "Keep the qualifier that tells the entities apart (shard, team, region, version)."
    example = Example("The primary replica of shard A is db-7. The primary replica of shard B "
                      "is db-9.", "The primary replica is db-7.", intent="summarize")

    def check(self, ctx: Context) -> Iterator[Finding]:
        b, a, al = ctx.before, ctx.after, ctx.alignment
        keys_b: dict[str, dict[str, str]] = defaultdict(dict)  # head -> key -> first node
        for nid in b.nodes_of(NodeKind.MENTION):
            d = b.d(nid)
            keys_b[str(d["head"]).lower()].setdefault(str(d["key"]), nid)
        keys_a: dict[str, set[str]] = defaultdict(set)
        for nid in a.nodes_of(NodeKind.MENTION):
            d = a.d(nid)
            keys_a[str(d["head"]).lower()].add(str(d["key"]))
        reported: set[str] = set()
        for j in al.changed_after():
            for nid in a.of_kind(j, NodeKind.MENTION):
                d = a.d(nid)
                head, key = str(d["head"]).lower(), str(d["key"])
                if head in reported:
                    continue
                qa = _qualifiers(d)
                distinct = [(k, n) for k, n in keys_b.get(head, {}).items()
                            if k != key and qa < _qualifiers(b.d(n))]
                if len(distinct) < 2:
                    continue
                lost = [(k, n) for k, n in distinct if k not in keys_a[head]]
                if not lost:
                    continue
                src = set(al.sources.get(j, [])) | ({al.match[j]} if j in al.match else set())
                from_src = [(k, n) for k, n in distinct if b.unit_of.get(n) in src]
                if not from_src:
                    continue  # the generic mention was not drawn from the keyed ones
                pick = (from_src + [x for x in distinct if x not in from_src])[:2]
                reported.add(head)
                yield self.finding(
                    f"{d['text']!r} merges {b.d(pick[0][1])['text']!r} and "
                    f"{b.d(pick[1][1])['text']!r}, which before kept apart",
                    b.ev_node(pick[0][1]), b.ev_node(pick[1][1]), a.ev_node(nid),
                    hint="Say which one is meant: keep the qualifier "
                         f"({_diff_hint(b.d(pick[0][1]), b.d(pick[1][1]))}).")


def _qualifiers(d: dict[str, object]) -> frozenset[str]:
    q = str(d.get("qualifiers", ""))
    return frozenset(x for x in q.split(";") if x)


def _diff_hint(d1: dict[str, object], d2: dict[str, object]) -> str:
    diff = sorted(_qualifiers(d1) ^ _qualifiers(d2))
    return ", ".join(diff) if diff else "its qualifier"
