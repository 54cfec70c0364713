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
# labels of a name that acts in a claim ("Marta is the owner"; a parse may call her a place)
_NAMES = frozenset({"PERSON", "PROPER", "GPE", "ORG", "NORP"})


def _people(ctx: Context, labels: frozenset[str] = _NAMES) -> frozenset[str]:
    """Who can be credited with a claim: the speakers and roles of before's turns, and the
    people before names (a parse's PERSON, or a name of one of ``labels`` that is a claim's
    subject: "Marta is the owner")."""
    named = {a.head.lower() for c in ctx.before.claims.claims for a in c.args_of("mention")
             if a.label == "PERSON" or (a.label in labels and a.head.lower() == c.agent)}
    return frozenset(ctx.before.claims.speakers) | _ROLES | named


# Who can be credited with *saying* something: the names a parse found, not a fast-mode guess
# from capitals (PROPER: "LGBTQ advocacy stuff coming up" makes no speaker of LGBTQ).
_SPEAKING = _NAMES - {"PROPER"}


def _person(name: str, people: frozenset[str]) -> str:
    """``name`` as one of ``people``: itself, or the one full name it is a word of ("dana"
    for "dana whitfield"); "" when it names none of them or several."""
    if name in people:
        return name
    full = [p for p in people if name and name in p.split()]
    return full[0] if len(full) == 1 else ""


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
        speakers = _people(ctx, _SPEAKING)
        for b in ctx.before.claims.claims:
            if b.heading or b.code:
                continue
            for attr in ("agent", "said_by"):
                if not b.asserted and not (attr == "said_by" and b.mood == "question"):
                    continue  # who asked a question ("Can you cancel it?") is a fact too
                who = getattr(b, attr)
                if who not in people:
                    continue
                hit = _credited_elsewhere(ctx, b, attr, who, people, speakers)
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


def _credited_elsewhere(ctx: Context, b: Claim, attr: str, who: str, people: frozenset[str],
                        speakers: frozenset[str]) -> tuple[Claim, str, float] | None:
    found: tuple[Claim, str, float] | None = None
    for a, p in pairs(ctx, b):
        if not p.same_predicate or a.negative != b.negative or not a.asserted:
            continue
        if attr == "said_by" and not a.reported_by:
            continue  # after's turn layout is its own: only an explicit "X said" credits
        other = _person(getattr(a, attr), people) or getattr(a, attr)
        cover = _cover_without(b, a, {who, other})
        if cover < _COVER or len(_content(b, {who, other}) & a.features) < 2:
            continue
        if other == who or _same_person(other, who) or _names(a, who):
            return None  # after credits it rightly, or names them in it ("Gina encouraged
            # Jon to stay positive" keeps Jon's resolve Jon's)
        if (who in _ROLES) != (other in _ROLES) and not (
                {who, other} - _ROLES) <= ctx.before.claims.speakers:
            continue  # "the user" and Hana, whom before names: the user may be Hana
        if attr == "said_by" and other not in speakers:
            continue  # a reporter must be someone who speaks: a name a rule parse took for
            # a subject ("LGBTQ advocacy stuff coming up") says nothing
        if other in people and other and found is None:
            found = (a, other, cover)
    return found


def _same_person(x: str, y: str) -> bool:
    """"marisol" and "marisol vega": one name is the other's words, in part."""
    wx, wy = set(x.split()), set(y.split())
    return bool(wx) and bool(wy) and (wx <= wy or wy <= wx)


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
    # ... of any of a full name's words: "dana" for "dana whitfield"
    return any(part.startswith(word) and len(word) >= len(part) - 2
               for n in names for part in n.split())


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
