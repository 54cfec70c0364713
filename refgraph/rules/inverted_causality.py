"""RG302 inverted-causality."""

from __future__ import annotations

from collections.abc import Iterator

from ..claims import Claim
from ..findings import Finding
from .base import Example, Rule
from .common import claim_ev, pairs, short, sources
from .context import Context

_RESTATED = 0.7  # how closely a claim after the moved conclusion must restate the premise
_LINKED = 0.35  # how well each end of a causal link must be restated to count


class InvertedCausality(Rule):
    """After argues the other way round: a conclusion is now the premise of its own premise.

    ## What it detects
    A ``supports`` link of before (premise -> conclusion: "the canary returned 502s, so we
    rolled back") and a ``supports`` link of after whose premise restates before's conclusion
    and whose conclusion restates before's premise ("we rolled back, so the canary returned
    502s", "the canary failed because we rolled back").

    ## Why it matters
    A reversed inference is grammatical and plausible. The agent then cites the conclusion as
    evidence for the premise it came from, and the reasoning chain runs backwards.
    """

    code = "RG302"
    name = "inverted-causality"
    summary = "after's causal link runs from before's conclusion to its premise"
    hint = "Restore the direction: the premise supports the conclusion, not the reverse."
    example = Example("The canary returned 502s for ten minutes, so we rolled back the release.",
                      "We rolled back the release, so the canary returned 502s for ten minutes.")

    def check(self, ctx: Context) -> Iterator[Finding]:
        before = ctx.before.claims
        for c in before.claims:
            for pid in c.premises:
                p = before.by_id.get(pid)
                if p is None:
                    continue
                of_concl = {a.id: s.score for a, s in pairs(ctx, c) if s.score >= _LINKED}
                of_prem = {a.id: s.score for a, s in pairs(ctx, p) if s.score >= _LINKED}
                if not of_concl or not of_prem:
                    continue
                if _same_way(ctx, p.id, c.id):
                    continue  # after also keeps the link as it was
                found = _reversed(ctx, of_concl, of_prem) or \
                    _ahead(ctx, of_concl, of_prem, p.id)
                if found is None:
                    continue
                a, concl, why, conf = found
                yield self.finding(
                    f"before concluded {short(c.text)!r} from {short(p.text)!r}; after {why}",
                    claim_ev(ctx.before, p, "claim"), claim_ev(ctx.before, c, "claim"),
                    claim_ev(ctx.after, a, "conflict"), claim_ev(ctx.after, concl, "conflict"),
                    confidence=conf)
                break


def _reversed(ctx: Context, of_concl: dict[str, float], of_prem: dict[str, float]
              ) -> tuple[Claim, Claim, str, float] | None:
    """An after link from a restatement of the conclusion to one of the premise."""
    after = ctx.after.claims
    for aid, s1 in of_concl.items():
        a = after.by_id[aid]
        back = [x for x in a.conclusions if x in of_prem]
        if not back or aid in of_prem:
            continue
        concl = after.by_id[back[0]]
        conf = 0.5 + 0.25 * min(s1, of_prem[concl.id]) / 0.7
        return a, concl, f"concludes {short(concl.text)!r} from {short(a.text)!r}", conf
    return None


def _best_source(ctx: Context, aid: str) -> str:
    src = sources(ctx, ctx.after.claims.by_id[aid])
    return src[0][0].id if src else ""


def _ahead(ctx: Context, of_concl: dict[str, float], of_prem: dict[str, float],
           premise: str) -> tuple[Claim, Claim, str, float] | None:
    """The conclusion's restatement now comes first and rests on something else ("Therefore,
    B. A."): its premise in after restates no premise of before, while the restated premise
    comes after it."""
    after = ctx.after.claims
    for cid, s1 in of_concl.items():
        concl = after.by_id[cid]
        if not concl.premises or cid in of_prem:
            continue
        if any(x in of_prem and _best_source(ctx, x) == premise for x in concl.premises):
            continue
        if not all(after.by_id[x].end <= concl.start for x in concl.premises if x in after.by_id):
            continue  # only a connective that looks back ("Therefore, ...") rests on the
            # wrong claim when the conclusion is moved ahead
        # the premise, said again after it: a close restatement, not a claim that shares a
        # word with it ("after 30 min under that limit" for "gusts exceeded that limit")
        later = [after.by_id[x] for x in of_prem if after.by_id[x].start > concl.end
                 and of_prem[x] >= _RESTATED]
        if not later:
            continue
        prem = later[0]
        conf = 0.45 + 0.2 * min(s1, of_prem[prem.id]) / 0.7
        return prem, concl, (f"puts {short(concl.text)!r} before the premise it rests on, "
                             f"{short(prem.text)!r}"), conf
    return None


def _same_way(ctx: Context, premise: str, conclusion: str) -> bool:
    """Whether after links a restatement of ``premise`` to one of ``conclusion``."""
    before, after = ctx.before.claims, ctx.after.claims
    concl = {a.id for a, s in pairs(ctx, before.by_id[conclusion]) if s.score >= _LINKED}
    for a, s in pairs(ctx, before.by_id[premise]):
        if s.score >= _LINKED and _best_source(ctx, a.id) == premise and any(
                x in concl for x in after.by_id[a.id].conclusions):
            return True
    return False
