"""RG501 unrecoverable-prune."""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Iterable, Iterator
from functools import partial

from ..claims import Arg, Claim
from ..findings import Finding
from ..model import NodeKind
from .base import Example, Rule
from .common import (
    KEPT_SCORE,
    TOOL_ROLES,
    Handles,
    ValueIndex,
    any_handle,
    arg_ev,
    claim_ev,
    handles_of,
    identity,
    issuer_handles,
    live,
    numerals,
    pairs,
    same_quantity,
    short,
    thread,
)
from .context import Context, Side

_CODE_CHARS = frozenset('("=*')  # a mention holding these is a fragment of code, no name
_RESTATED = 0.5  # share of a tool result's claims after must restate for nothing to be lost
_SOURCE_HANDLES = frozenset({"tool_call", "path", "url", "store_key"})
_ASKED = frozenset({"call", "flag"})  # identifier kinds of the request a result echoes


_AMBIENT_MIN = 3  # results that must repeat a fact for it to be a footer, not a finding
_ACT_SHARE = 3  # a result is a report of an act when a third of its claims or more are acts


class UnrecoverablePrune(Rule):
    """Material that existed only in the context was removed and nothing can re-fetch it.

    ## What it detects
    - A tool result whose claims after does not restate, with no handle left to re-fetch it
      (its call id, a path or URL it came from), while after still talks about its subject.
      A handle to a one-shot side effect (a charge, a send, a delete) does not count: running
      it again does not give the result back. What most results repeat (a status footer
      such as "(Current directory: /repo)") is no fact of any one of them.
    - A user correction that after dropped while it keeps the claim the correction replaced.

    The finding is an error while after still depends on the lost material (mentions its
    subject, keeps what it corrected); it is a warning when the whole thread left the context.

    ## Why it matters
    The evidence that could show a later summary wrong is the thing that was pruned: the agent
    can no longer discover its own mistake.
    """

    code = "RG501"
    name = "unrecoverable-prune"
    summary = "a tool result or user correction pruned with no handle left to re-fetch it"
    hint = "Keep the result, or leave its handle (call id, path, URL, ledger key) in after."
    example = Example("assistant: checking the audit table schema\n"
                      "tool[call_8]: columns id, timestamp, actor, action, ip_addr (5 columns)\n"
                      "assistant: the schema is known now",
                      "assistant: checking the audit table schema\n"
                      "assistant: the audit table has 5 columns", intent="prune")

    def check(self, ctx: Context) -> Iterator[Finding]:
        yield from self._tool_results(ctx)
        yield from self._cited_sources(ctx)
        yield from self._corrections(ctx)

    def _cited_sources(self, ctx: Context) -> Iterator[Finding]:
        """A claim that cites its source ("(call_22)", "(full table: data/od.csv)", a JSON
        line's "call_72 GET ...") summarized in after without the citation, facts lost: the
        summary has no way back to what it summarizes. A citation in a heading covers its
        section."""
        before = ctx.before
        after_handles = Handles(handles_of(ctx.after))
        after_features = frozenset(ctx.after.claims.by_feature)
        done: set[str] = set()
        for c, handle, sourced in _citations(before):
            if handle.key in done or any_handle({handle.key}, after_handles):
                continue
            kept_now = [(a, p) for x in sourced for a, p in pairs(ctx, x)
                        if p.score >= KEPT_SCORE]
            if not kept_now:
                continue  # nothing of it is summarized: the tool-result check's case
            facts = frozenset().union(*(identity(x) for x in sourced))
            if not _unsaid(facts, after_features) and not any(x.side_effect for x in sourced):
                continue  # all of it is still said: the citation was redundant
            done.add(handle.key)
            a = max(kept_now, key=lambda ap: ap[1].score)[0]
            yield self.finding(
                f"{short(c.text)!r} cited its source {handle.key!r}; after summarizes it as "
                f"{short(a.text)!r} with no handle to re-fetch it",
                arg_ev(before, handle, "missing"), claim_ev(ctx.after, a, "dependent"),
                confidence=0.65)

    def _tool_results(self, ctx: Context) -> Iterator[Finding]:
        before = ctx.before
        after_handles = Handles(handles_of(ctx.after))
        after_features = frozenset(ctx.after.claims.by_feature)
        after_lower = frozenset(f.lower() for f in after_features)
        after_qs = ValueIndex(x for c in ctx.after.claims.claims for x in c.args_of("quantity"))
        blocks = before.nodes_of(NodeKind.BLOCK.value)
        said = {b: _facts(before.claims.by_block.get(b, [])) for b in blocks
                if str(before.d(b).get("role", "")) in TOOL_ROLES}
        ambient = _ambient(said)
        for k, bid in enumerate(blocks):
            d = before.d(bid)
            if str(d.get("role", "")) not in TOOL_ROLES:
                continue
            claims = before.claims.by_block.get(bid, [])
            handles = _block_handles(before, bid, claims) | issuer_handles(before, blocks, k)
            # An output that reports an act ("deployed api v2", "POST /refunds -> 201") is
            # not fetched again by re-running its call; a long output that mentions acts in
            # passing (a text file's lines, "set up the flag") is.
            acts = sum(1 for c in claims if c.side_effect and c.asserted)
            one_shot = acts > 0 and _ACT_SHARE * acts >= len(claims)
            turn = str(d.get("turn_id", "")).lower()
            cited = bool(turn) and turn in after_lower  # "(c1, c2)": a short call id, cited
            if (cited or any_handle(handles, after_handles)) and not one_shot:
                continue
            if any(f"i:{x.key}" in after_features for c in claims
                   for x in c.args_of("identifier") if x.label == "ref"):
                continue  # "ref CT-8842-LX" kept: the record can be looked up by it
            facts = [x for x in said[bid] if x.text not in ambient]
            topic = frozenset().union(*(thread(before, c) for c in claims)) if claims else \
                frozenset()
            # Bare numbers ("-> 201", an exit code) are codes more often than facts; a
            # measured or counted one is lost when after states it nowhere.
            quantities = [q for c in claims for q in c.args_of("quantity")
                          if q.base_unit or q.noun]
            lost = [x.text for x in facts if not _named_in(x, after_lower)] + [
                q.text for q in quantities if not after_qs.any(q, partial(same_quantity, q))]
            if not lost:
                continue  # every fact of it is still said: it was redundant
            lost = list(dict.fromkeys(lost))
            # Most of it restated (a long task text paraphrased): what is gone may be detail.
            mostly = len(lost) < (1 - _RESTATED) * len(facts + quantities)
            dependents = live(ctx, topic)
            where = f"the result of {d['turn_id']}" if d.get("turn_id") else "a tool result"
            gone = ", ".join(repr(short(t, 30)) for t in lost[:3]) + (" ..." if len(lost) > 3
                                                                      else "")
            evidence = [before.ev(d["start"], d["end"], "missing", bid)]
            if dependents:
                evidence.append(claim_ev(ctx.after, dependents[0], "dependent"))
                message = (f"{where} ({short(str(d['text']), 50)!r}) was summarized or pruned "
                           f"with no handle to re-fetch it ({gone} stated nowhere in after), "
                           f"and after still relies on it: {short(dependents[0].text, 50)!r}")
            else:
                message = (f"{where} ({short(str(d['text']), 50)!r}) was pruned with no handle "
                           f"to re-fetch it ({gone} stated nowhere in after); after no longer "
                           "mentions its subject")
            # graded by how much of it is gone: a summary that keeps most of a long output
            # and drops its detail ("LSB", "GNU") is weak evidence of a loss
            total = len(dict.fromkeys([x.text for x in facts] + [q.text for q in quantities]))
            share = len(lost) / max(1, total)
            conf = (0.55 if mostly else 0.5 + 0.3 * min(1.0, share)) if dependents else 0.5
            # a run id or a reading of it that after repeats ("last green run 8810002") shows
            # the result summarized as well as a name does
            written = numerals(ctx.after)
            echoed = sum(1 for c in claims for q in c.args_of("quantity")
                         if not (q.base_unit or q.noun) and _distinctive(q)
                         and f"{q.magnitude:g}" in written)
            if total - len(lost) + echoed >= 2:
                # after restates part of it: it was summarized, and a summary drops detail
                # ("LSB", "GNU" of a `file` output); that a needed part is gone is not proven
                conf = min(conf, 0.58)
            yield self.finding(message, *evidence, confidence=conf,
                               severity="error" if dependents else "warning")

    def _corrections(self, ctx: Context) -> Iterator[Finding]:
        before = ctx.before.claims
        after_features = frozenset(ctx.after.claims.by_feature)
        index = _IdentityIndex(before.claims)
        for u in before.claims:
            if u.source != "user" or not u.asserted:
                continue
            old = _corrected(before.claims, u, index)
            if old is None or any(p.score >= KEPT_SCORE and a.negative == u.negative
                                  for a, p in pairs(ctx, u)):
                continue  # no correction, or after keeps it
            # The correction's new value ("it is eu-west-3" beside "not us-east-2") in after
            # means after took it, in any wording.
            new = frozenset().union(*(identity(x) for x in before.by_block.get(u.block, ())
                                      if x.id != u.id and x.source == u.source))
            if (new - identity(old)) & after_features:
                continue
            # what it corrected, still in after with the value the correction replaced
            corrected = identity(u) & identity(old)
            stale = [(a, p) for a, p in pairs(ctx, old)
                     if p.score >= KEPT_SCORE and identity(a) & corrected]
            if not stale:
                continue
            a = max(stale, key=lambda ap: ap[1].score)[0]
            yield self.finding(
                f"the user's correction {short(u.text)!r} was pruned, and after keeps what it "
                f"corrected: {short(a.text)!r}",
                claim_ev(ctx.before, u, "missing"), claim_ev(ctx.before, old, "claim"),
                claim_ev(ctx.after, a, "dependent"), confidence=0.7)


def _facts(claims: list[Claim]) -> list[Arg]:
    """What a result said: its names and numbered mentions. The handles it was fetched by are
    how to get it back, not what it said; a common noun ("refund id", "the following issue")
    is how it said it, not a name; a JSON key is a field, not a fact. A call it echoes
    (`calc("68450 + 5290")`, `$ gh run list --limit 4`) is how it was asked."""
    return [x for c in claims for x in c.args
            if (x.kind == "identifier" and not x.defines and x.label not in _ASKED) or (
                x.kind == "mention" and (x.label or any(ch.isdigit() for ch in x.key))
                and not any(ch in _CODE_CHARS for ch in x.key))]


def _ambient(said: dict[str, list[Arg]]) -> frozenset[str]:
    """Facts most tool results repeat (``said``: each result's facts): an environment's status
    footer ("(Current directory: /repo)") is stated by every output, so it is not what any one
    of them said, and a result pruned without it has lost nothing of its own."""
    results = list(said.values())
    if len(results) < _AMBIENT_MIN:
        return frozenset()
    seen = Counter(t for facts in results for t in {x.text for x in facts})
    return frozenset(t for t, n in seen.items()
                     if n >= _AMBIENT_MIN and n * 2 >= len(results))


def _distinctive(q: Arg) -> bool:
    """A bare number unlikely to recur by chance: four digits or more, or a fraction."""
    m = q.magnitude
    return m is not None and (abs(m) >= 1000 or not float(m).is_integer())


def _named_in(x: Arg, after: frozenset[str]) -> bool:
    """Whether after (its features, lower-cased) names ``x``: its feature, or for a mention its
    word or one of the words that qualify it ("refund id re_7Hq2" is named by "re_7Hq2")."""
    if x.feature.lower() in after:
        return True
    if x.kind == "identifier":
        # `hold_fare(IB3107, adults=2)` is named by `hold_fare`
        return f"i:{x.key.split('(', 1)[0].lower()}" in after
    if x.kind != "mention":
        return False
    words = {x.head.lower(), *x.key.lower().replace("[", ";").replace("]", "").replace(
        "=", ";").split(";")}
    return any(w and (w in after or f"e:{w}" in after) for w in words)


def _unsaid(facts: frozenset[str], after: frozenset[str]) -> frozenset[str]:
    """The facts after does not state: an entity counts as stated by its word too ("Refund
    created" states the refund of "the refund")."""
    return frozenset(f for f in facts if f not in after and not (
        f.startswith("e:") and f[2:].lower() in after))


class _IdentityIndex:
    """Claim positions by identity feature, so a correction is compared with the claims that
    name what it names, nearest first, not with every earlier claim."""

    WINDOW = 64  # nearest earlier claims looked at per feature: a flood of turns stays linear

    def __init__(self, claims: list[Claim]) -> None:
        self.at: dict[str, list[int]] = {}
        for k, c in enumerate(claims):
            for f in identity(c):
                self.at.setdefault(f, []).append(k)

    def before(self, features: Iterable[str], k: int) -> list[int]:
        """Positions before ``k`` of claims with one of ``features``, nearest first."""
        found: set[int] = set()
        for f in features:
            ks = self.at.get(f, ())
            end = bisect.bisect_left(ks, k)
            found.update(ks[max(0, end - self.WINDOW):end])
        return sorted(found, reverse=True)


def _corrected(claims: list[Claim], u: Claim, index: _IdentityIndex) -> Claim | None:
    """The earlier claim user claim ``u`` contradicts: the same predicate about the same
    named things (or a bare "not us-east-2" about a name the claim states), with the other
    polarity or another value of the same dimension. Users correct their own requests too."""
    mine = identity(u)
    named = frozenset(f for f in mine if f.startswith(("i:", "h:")))
    # a bare "not us-east-2" corrects only a claim that states that very name
    for k in index.before(mine if u.pred_key else named, u.index):
        e = claims[k]
        if u.pred_key and e.pred_key != u.pred_key:
            continue
        if e.negative != u.negative:
            return e
        qe = {(q.base_unit, q.base_magnitude) for q in e.args_of("quantity")}
        qu = {(q.base_unit, q.base_magnitude) for q in u.args_of("quantity")}
        if qe and qu and {x for x, _ in qe} & {x for x, _ in qu} and not qe & qu:
            return e
    return None


def _block_handles(side: Side, bid: str, claims: list[Claim]) -> set[str]:
    """The handles a tool result can be re-fetched by: its call id and the sources it
    names."""
    d = side.d(bid)
    out = {str(d["turn_id"])} if d.get("turn_id") else set()
    for c in claims:
        out.update(a.key for a in c.args_of("handle") if a.label in _SOURCE_HANDLES)
    return out


def _citations(side: Side) -> Iterator[tuple[Claim, Arg, list[Claim]]]:
    """(claim, the source handle it cites, the claims that source covers): the claim itself,
    or for a heading, its section (the claims up to the next heading)."""
    cs = side.claims.claims
    for k, c in enumerate(cs):
        if c.source.startswith("tool"):
            continue  # a URL in a tool's output is what it printed, not where a note came from
        for h in c.args_of("handle"):
            if not h.cited or h.label not in _SOURCE_HANDLES:
                continue
            if c.heading:
                section = [c]
                for x in cs[k + 1:]:
                    if x.heading:
                        break
                    section.append(x)
                yield c, h, section
            else:
                yield c, h, [c]
