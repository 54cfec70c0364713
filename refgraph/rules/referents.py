"""Referent rules: RG101 orphaned-reference, RG102 dangling-deictic, RG103 merged-entity,
RG104 unsupported-referent. Each asks whether what ``after`` points at still exists in it."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from ..align import UnitStatus, content_words
from ..findings import Finding
from ..model import EdgeKind, NodeKind, RefKind, referent_id
from .base import Example, Rule
from .common import close
from .context import Context, Side
from .quantities import quantity_diffs

_DEFINES = EdgeKind.DEFINES.value
_MEASURES = EdgeKind.MEASURES.value
_USES = EdgeKind.USES.value
_REFERS = EdgeKind.REFERS_TO.value
# Deictics whose antecedent is found by position ("the above", "as noted", "the former"):
# they resolve to *something* after any prune, so the before antecedent must itself survive.
_POSITIONAL = frozenset({"above", "previous", "discourse", "former-latter"})


def _definitions(side: Side, rid: str) -> list[str]:
    """Occurrences that bind referent ``rid``: defining identifiers and measuring quantities."""
    if rid not in side.G:
        return []
    return [u for u, _, k in side.G.in_edges(rid, keys=True) if k in (_DEFINES, _MEASURES)]


def _uses(side: Side, rid: str) -> list[str]:
    if rid not in side.G:
        return []
    return sorted((u for u, _, k in side.G.in_edges(rid, keys=True) if k == _USES),
                  key=lambda n: side.G.nodes[n]["start"])


class OrphanedReference(Rule):
    """An identifier is still used in ``after`` but every span that defined it is gone.

    ## What it detects
    A name that ``before`` bound (``MAX_RETRIES=3``, "let N be the batch size", ``timeout: 30 s``)
    whose binding occurrences were all removed, while a use survives ("retry up to MAX_RETRIES
    times").

    ## Why it matters
    The surviving use now refers to nothing the context can resolve; the agent fills the gap
    from guesswork. Pruning tends to delete the explanatory line around a constant and keep its
    uses, so this is the commonest structural loss.
    """

    code = "RG101"
    name = "orphaned-reference"
    summary = "an identifier is still used in after but its definition is gone"
    hint = "Keep the definition (or restate it in the summary) wherever a use survives."
    example = Example("MAX_RETRIES=3 caps the attempts.\n\nRetry the upload up to MAX_RETRIES "
                      "times.", "Retry the upload up to MAX_RETRIES times.", intent="prune")

    def check(self, ctx: Context) -> Iterator[Finding]:
        b, a = ctx.before, ctx.after
        seen: set[str] = set()
        for i in ctx.alignment.changed_before():
            for nid in b.of_kind(i, NodeKind.IDENTIFIER):
                if b.d(nid).get("role") != "define":
                    continue
                rid = referent_id(RefKind.IDENTIFIER, str(b.d(nid)["name"]))
                if rid in seen:
                    continue
                seen.add(rid)
                if _definitions(a, rid):
                    continue
                uses = _uses(a, rid)
                if not uses or self._restated(ctx, rid, uses):
                    continue
                name = b.d(nid)["name"]
                yield self.finding(
                    f"{name!r} is used in after but its definition "
                    f"{b.units[i].text.strip()[:80]!r} was removed",
                    b.ev_unit(i), a.ev_node(uses[0]),
                    hint=f"Keep the line that defines {name!r}, or restate its value where it "
                         "is used.")

    @staticmethod
    def _restated(ctx: Context, rid: str, uses: list[str]) -> bool:
        """True when a unit using the name also carries the value it was defined with."""
        b, a = ctx.before, ctx.after
        values = [b.d(q)["base_magnitude"] for q in _definitions(b, rid)
                  if b.d(q)["kind"] == NodeKind.QUANTITY.value]
        if not values:
            return False
        for u in uses:
            j = a.unit_of.get(u)
            if j is None:
                continue
            for q in a.of_kind(j, NodeKind.QUANTITY):
                if any(close(v, a.d(q)["base_magnitude"]) for v in values):
                    return True
        return False


class DanglingDeictic(Rule):
    """A deictic reference in ``after`` has no surviving antecedent that fits it.

    ## What it detects
    "the above constraint", "that retry budget", "as noted", "the former" in ``after`` where the
    span it pointed at in ``before`` was removed, or where nothing before it in ``after`` fits its
    description any more.

    ## Why it matters
    The reference reads naturally, so neither the agent nor a reviewer notices that it points at
    nothing; the agent supplies a plausible antecedent from memory instead.
    """

    code = "RG102"
    name = "dangling-deictic"
    summary = "a deictic reference in after has no surviving antecedent"
    hint = "Keep the span the reference points at, or replace the reference with its content."
    example = Example("Never restart the primary during a backup.\n\nThe cache is warm.\n\n"
                      "Keep the above constraint in mind.",
                      "The cache is warm.\n\nKeep the above constraint in mind.", intent="prune")

    def check(self, ctx: Context) -> Iterator[Finding]:
        b, a, al = ctx.before, ctx.after, ctx.alignment
        for j in range(len(a.units)):
            for nid in a.of_kind(j, NodeKind.DEICTIC):
                da = a.d(nid)
                if da.get("deictic_kind") == "pronoun":
                    continue  # nearest-mention resolution is too weak to block on
                counterpart = self._counterpart(ctx, j, nid)
                if counterpart is None:
                    if j in al.exact or da.get("resolved") or al.after_status[j] is not \
                            UnitStatus.ADDED:
                        continue
                    yield self._report(ctx, nid, None)
                    continue
                targets = [v for _, v, k in b.G.out_edges(counterpart, keys=True)
                           if k == _REFERS]
                if not targets:
                    continue  # it dangled in before too: not this rewrite's doing
                positional = da.get("deictic_kind") in _POSITIONAL
                if not da.get("resolved") or (positional and not self._survives(
                        ctx, targets[0], da["start"])):
                    yield self._report(ctx, nid, targets[0])

    @staticmethod
    def _counterpart(ctx: Context, j: int, nid: str) -> str | None:
        """The same deictic in the before unit that after unit ``j`` came from."""
        b, a, al = ctx.before, ctx.after, ctx.alignment
        i = al.match.get(j)
        if i is None:
            return None
        da = a.d(nid)
        if j in al.exact:
            off = da["start"] - a.units[j].start
            for cand in b.of_kind(i, NodeKind.DEICTIC):
                if b.d(cand)["start"] - b.units[i].start == off:
                    return cand
            return None
        for cand in b.of_kind(i, NodeKind.DEICTIC):
            if b.d(cand)["text"].lower() == da["text"].lower():
                return cand
        return None

    @staticmethod
    def _survives(ctx: Context, target: str, before_pos: int) -> bool:
        """True when the before antecedent's unit has a copy or rewrite in after before ``pos``."""
        b, a = ctx.before, ctx.after
        i = b.unit_of.get(target)
        if i is None:
            return True
        need = content_words(b.d(target)["text"]) or b.units[i].words
        for j in set(ctx.after_units_from(i)) | set(ctx.after_units_citing(i)):
            if a.units[j].start >= before_pos:
                continue
            if j in ctx.alignment.exact or len(need & a.units[j].words) * 2 >= len(need):
                return True
        return False

    def _report(self, ctx: Context, nid: str, target: str | None) -> Finding:
        da = ctx.after.d(nid)
        ev = [ctx.after.ev_node(nid)]
        if target is not None:
            ev.insert(0, ctx.before.ev_node(target))
            msg = (f"{da['text']!r} pointed at {ctx.before.d(target)['text'][:80]!r}, which is "
                   "gone from after")
        else:
            msg = f"{da['text']!r} has nothing before it in after that fits its description"
        return self.finding(msg, *ev)


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


class UnsupportedReferent(Rule):
    """``after`` asserts an entity, identifier, handle or quantity nothing in ``before`` supports.

    ## What it detects
    A rewritten or added unit in ``after`` that names an identifier, a handle (path, URL,
    tool-call id), a proper name or a number that appears nowhere in ``before`` in any form (equal
    quantities in other units count as support).

    ## Why it matters
    A rewrite is supposed to compress, not to add. An invented name, number or table is as
    corrupt as a lost one, and the agent cannot tell it from a fact it observed.
    """

    code = "RG104"
    name = "unsupported-referent"
    summary = "after asserts an entity, identifier or quantity nothing in before supports"
    hint = "Remove what before does not say, or cite where it comes from."
    example = Example("The import job wrote 1200 rows to staging.",
                      "The import job wrote 1200 rows to staging and 40 rows to archive_v2.",
                      intent="summarize")

    def check(self, ctx: Context) -> Iterator[Finding]:
        b, a, al = ctx.before, ctx.after, ctx.alignment
        for dq in quantity_diffs(ctx):
            if dq.kind == "unsupported":
                qa = a.d(dq.after)
                yield self.finding(f"{qa['text']!r} appears nowhere in before",
                                   a.ev_node(dq.after))
        before_words = None
        seen: set[str] = set()
        for j in al.changed_after():
            for nid in a.in_unit[j]:
                d = a.d(nid)
                kind = d["kind"]
                if kind == NodeKind.IDENTIFIER.value:
                    rid = referent_id(RefKind.IDENTIFIER, str(d["name"]))
                elif kind == NodeKind.HANDLE.value:
                    rid = referent_id(RefKind.HANDLE, str(d["value"]))
                elif kind == NodeKind.MENTION.value and d.get("ent_label"):
                    rid = referent_id(RefKind.ENTITY, str(d["key"]))
                else:
                    continue
                if rid in b.G or rid in seen:
                    continue
                surface = d["text"].lower()
                if surface in b.lower:
                    continue
                if before_words is None:
                    before_words = content_words(b.text)
                words = content_words(d["text"])
                if kind == NodeKind.MENTION.value and (not words or words <= before_words):
                    continue
                seen.add(rid)
                yield self.finding(f"{d['text']!r} ({kind}) appears nowhere in before",
                                   a.ev_node(nid))
