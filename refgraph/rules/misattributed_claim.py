"""RG105 misattributed-claim."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from ..claims import Claim
from ..findings import Finding
from .base import Example, Rule
from .common import claim_ev, explained_elsewhere, pairs, short
from .context import Context

_COVER = 0.7  # share of the before claim (without who it is about) the after claim must hold
_ROLES = frozenset({"user", "assistant", "tool", "system"})


def _people(ctx: Context) -> frozenset[str]:
    """Who can be credited with a claim: the speakers and roles of before's turns."""
    return frozenset(ctx.before.claims.speakers) | _ROLES


class MisattributedClaim(Rule):
    """A claim kept in after is credited to someone else.

    ## What it detects
    A before claim said by, or about, one speaker or role ("Caroline: I went to the support
    group", a user's instruction, a tool's output) and an after claim of the same predicate
    about the same things credited to another one of them ("Melanie went to the support
    group", "the assistant decided ...", "I guessed ..." for what a tool returned), when no
    after claim credits it to the right one.

    ## Why it matters
    Who said or did what is a fact of the conversation. A summary that swaps speakers reads
    fluently and makes the agent answer the wrong person, or treat its own guess as a tool's
    evidence.
    """

    code = "RG105"
    name = "misattributed-claim"
    summary = "a kept claim is credited to another source (user/assistant/tool/speaker)"
    hint = "Credit the claim to the one who said or did it in before."
    example = Example("Caroline [D1:1]: I went to the support group yesterday.\n"
                      "Melanie [D1:2]: That sounds great, well done.",
                      "Melanie went to the support group yesterday.", intent="summarize")

    def check(self, ctx: Context) -> Iterator[Finding]:
        people = _people(ctx)
        for b in ctx.before.claims.claims:
            if not b.asserted:
                continue
            for attr in ("agent", "said_by"):
                who = getattr(b, attr)
                if who not in people:
                    continue
                hit = _credited_elsewhere(ctx, b, attr, who, people)
                if hit is None:
                    continue
                a, other, cover = hit
                if explained_elsewhere(ctx, b, a, _same(attr)) or \
                        _also_theirs(ctx, a, attr, other, who):
                    continue
                what = "about" if attr == "agent" else "said by"
                yield self.finding(
                    f"{short(b.text)!r} is {what} {who}; after credits it to {other}: "
                    f"{short(a.text)!r}",
                    claim_ev(ctx.before, b, "claim"), claim_ev(ctx.after, a, "conflict"),
                    confidence=0.45 + 0.4 * cover)
                break


def _credited_elsewhere(ctx: Context, b: Claim, attr: str, who: str, people: frozenset[str]
                        ) -> tuple[Claim, str, float] | None:
    found: tuple[Claim, str, float] | None = None
    for a, p in pairs(ctx, b):
        if not p.same_predicate or a.negative != b.negative or not a.asserted:
            continue
        if attr == "said_by" and not a.reported_by:
            continue  # after's turn layout is its own: only an explicit "X said" credits
        other = getattr(a, attr)
        cover = _cover_without(b, a, {who, other})
        if cover < _COVER or len(_content(b, {who, other}) & a.features) < 2:
            continue
        if other == who or _names(a, who):
            return None  # after credits it rightly, or names them in it ("Gina encouraged
            # Jon to stay positive" keeps Jon's resolve Jon's)
        if other in people and other and found is None:
            found = (a, other, cover)
    return found


def _also_theirs(ctx: Context, a: Claim, attr: str, other: str, who: str) -> bool:
    """Whether before has a claim of ``other`` (the one after credits) that shares two
    content words with after claim ``a``: both said it ("Pets bring so much joy" and "pets
    are awesome for joy and comfort"), so crediting ``other`` is no swap."""
    names = {who, other}
    want = _content(a, names)
    seen: set[str] = set()
    for f in want:
        for c in ctx.before.claims.with_feature(f):
            if c.id in seen or getattr(c, attr) != other:
                continue
            seen.add(c.id)
            if len(want & c.features) >= 2:
                return True
    return False


def _names(a: Claim, who: str) -> bool:
    """Whether after claim ``a`` names ``who`` anywhere in it (a mention or a word)."""
    return any(_is_name(f, {who}) for f in a.features)


def _is_name(f: str, names: set[str]) -> bool:
    word = f[2:] if f[1:2] == ":" else f
    # a term is a name's lemma key: "melani" for Melanie
    return any(n and n.startswith(word) and len(word) >= len(n) - 2 for n in names)


def _content(b: Claim, names: set[str]) -> frozenset[str]:
    """``b``'s features that are not names, its predicate or deictics."""
    return frozenset(f for f in b.features if not _is_name(f, names) and
                     not f.startswith("d:") and f != b.pred_key)


def _cover_without(b: Claim, a: Claim, names: set[str]) -> float:
    """How much of ``b``'s features ``a`` holds, not counting the names of who is credited
    (a swap of "Caroline" for "Melanie" must not lower the match)."""
    fb = {f for f in b.features if not _is_name(f, names) and not f.startswith("d:")}
    fa = {f for f in a.features if not _is_name(f, names)}
    if not fb:
        return 0.0
    return len(fb & fa) / len(fb)


def _same(attr: str) -> Callable[[Claim, Claim], bool]:
    """Whether two claims agree on ``attr`` (who says it, or who it is about)."""
    def agree(x: Claim, y: Claim) -> bool:
        return bool(getattr(x, attr) == getattr(y, attr))
    return agree
