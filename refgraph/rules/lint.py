"""Single-text rules (``refgraph lint``): what is suspect in a memory with no ``before``.

RG601 unitless-measure, RG602 unresolved-reference, RG603 one-sided-conditional,
RG604 undefined-identifier. They are warnings: a lone text cannot prove what was lost.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from ..findings import Finding, Severity
from ..model import EdgeKind, NodeKind
from .base import Example, Rule
from .common import claim_ev, short
from .context import Side


class _Lint(Rule):
    severity: ClassVar[Severity] = "warning"
    lint = True


class UnitlessMeasure(_Lint):
    """A measure that needs a unit is given as a bare number.

    ## What it detects
    A number that measures something with a dimension (a timeout, a latency, a size, a price, a
    temperature...) written without a unit: "the timeout is 30", "set the memory limit to 512".
    (The front end marks such quantities ``needs_unit``.)

    ## Why it matters
    A bare number is read in whatever unit the reader assumes; 30 seconds and 30 milliseconds
    differ a thousandfold, and the text no longer says which one it was.
    """

    code = "RG601"
    name = "unitless-measure"
    summary = "a measure that needs a unit is a bare number"
    hint = "Write the unit next to the number."
    example = Example("The request timeout is 30.")

    def check_text(self, side: Side) -> Iterator[Finding]:
        for nid in side.nodes_of(NodeKind.QUANTITY.value):
            d = side.d(nid)
            if d.get("needs_unit"):
                yield self.finding(f"{d['measured']!r} is measured by the bare number "
                                   f"{d['text']!r}", side.ev_node(nid, "argument"))


class UnresolvedReference(_Lint):
    """A deictic reference has no antecedent in the text.

    ## What it detects
    "the above constraint", "that retry budget", "as noted", "the former" with nothing before it
    in the text that fits its description. Pronouns and time expressions ("that week") are
    not references to an earlier span.

    ## Why it matters
    Whatever it pointed at was pruned or never there; the reader has to guess.
    """

    code = "RG602"
    name = "unresolved-reference"
    summary = "a reference has no antecedent in the text"
    hint = "Replace the reference by what it means, or restore its antecedent."
    example = Example("Keep the above constraint in mind when retrying.")

    def check_text(self, side: Side) -> Iterator[Finding]:
        for nid in side.nodes_of(NodeKind.DEICTIC.value):
            d = side.d(nid)
            if d.get("deictic_kind") == "pronoun" or d.get("resolved") or d.get("temporal"):
                continue
            yield self.finding(f"{d['text']!r} has no antecedent before it",
                               side.ev_node(nid, "dependent"))


class OneSidedConditional(_Lint):
    """A conditional about an absence has no counterpart for the other case.

    ## What it detects
    A claim that holds *if* or *when* something is absent or false ("X is required when Y is
    absent") where no other claim of the text states the same predicate the other way (a
    negation of it, or an ``unless`` on it).

    ## Why it matters
    This is the shape a polarity inversion leaves behind ("not required unless Y is absent"
    rewritten as "required when Y is absent"); the original's negated branch is gone.
    """

    code = "RG603"
    name = "one-sided-conditional"
    summary = "a conditional on an absence has no counterpart branch"
    hint = "Check the original wording: was it 'not ... unless'?"
    example = Example("The migration flag is required when the schema is absent.")

    def check_text(self, side: Side) -> Iterator[Finding]:
        cs = side.claims
        negated = {c.pred_key for c in cs.claims if c.negative}
        excepted = {c.pred_key for c in cs.claims
                    if any(kind == "unless" for _, _, kind in c.conditions)}
        for c in cs.claims:
            if c.negative or not c.pred_key:
                continue
            for ante, _, kind in c.conditions:
                a = cs.by_id.get(ante)
                if kind not in ("if", "when") or a is None or not a.negative:
                    continue
                if c.pred_key in negated or c.pred_key in excepted:
                    continue
                yield self.finding(f"{short(c.text)!r} holds {kind} {short(a.text, 40)!r}: "
                                   "nothing says what holds otherwise",
                                   claim_ev(side, c, "claim"))
                break


class UndefinedIdentifier(_Lint):
    """A constant is used but never defined in the text.

    ## What it detects
    An UPPER_CASE constant (``MAX_RETRIES``) that the text uses and nowhere binds
    (``MAX_RETRIES=3``, "MAX_RETRIES is 3").

    ## Why it matters
    Its value lives only in whatever was pruned; the agent will assume one.
    """

    code = "RG604"
    name = "undefined-identifier"
    summary = "an identifier is used but never defined"
    hint = "Define it (NAME=value) in the text, or say where its value lives."
    example = Example("Retry the upload up to MAX_RETRIES times.")

    def check_text(self, side: Side) -> Iterator[Finding]:
        G = side.G
        binds = (EdgeKind.DEFINES.value, EdgeKind.MEASURES.value)
        for rid, d in G.nodes(data=True):
            if d["kind"] != NodeKind.REFERENT.value or d["ref_kind"] != "identifier":
                continue
            occ = [u for u, _, k in G.in_edges(rid, keys=True)]
            if any(k in binds for _, _, k in G.in_edges(rid, keys=True)):
                continue
            uses = [u for u in occ if G.nodes[u].get("ident_kind") == "constant"]
            if uses:
                first = min(uses, key=lambda u: G.nodes[u]["start"])
                yield self.finding(f"{d['key']!r} is used but never defined",
                                   side.ev_node(first, "dependent"))
