"""RG104 unsupported-referent."""

from __future__ import annotations

from collections.abc import Iterator

from ..findings import Finding
from .base import Example, Rule
from .common import arg_ev, claim_ev
from .context import Context
from .support import support_of


class UnsupportedReferent(Rule):
    """After names something nothing in before supports.

    ## What it detects
    An argument of an after claim (an identifier, a handle, a named entity, a number) that
    before neither states nor lets one derive. A number is supported when before has it in
    any unit (pint-converted), has two numbers of its unit that sum to it or differ by it,
    two whose ratio it is as a percentage, or a list of that many items (the arguments of one
    claim or block, a run of bullets). A path is supported by the same file under another
    directory prefix.

    ## Why it matters
    An invented identifier or number is indistinguishable from a remembered one; the agent
    will call the function that never existed or report the total nobody measured.
    """

    code = "RG104"
    name = "unsupported-referent"
    summary = "after names an entity, identifier, handle or number nothing in before supports"
    hint = "Remove it, or add the source it came from."
    example = Example("The import job wrote 1200 rows to staging.",
                      "The import job wrote 1200 rows to staging and 40 rows to archive_v2.",
                      intent="summarize")

    def check(self, ctx: Context) -> Iterator[Finding]:
        support = support_of(ctx.before)
        for a in ctx.after.claims.claims:
            if a.heading:
                continue  # "## Goal": a heading names a section, it claims nothing
            for x in a.args:
                why = support.lacks(x, a)
                if why is None:
                    continue
                what, conf = why
                yield self.finding(
                    f"{x.text!r} ({what}) is not in before and cannot be derived from it",
                    arg_ev(ctx.after, x, "argument"), claim_ev(ctx.after, a, "dependent"),
                    confidence=conf)
