"""Single-text rules (``refgraph lint``): what is suspect in a memory with no ``before``.

RG601 unitless-measure, RG602 unresolved-reference, RG603 one-sided-conditional,
RG604 undefined-identifier. They are warnings: a lone text cannot prove what was lost.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from ..align import content_words
from ..findings import Finding, Severity
from ..model import EdgeKind, NodeKind
from .base import Example, Rule
from .common import lexicon
from .context import Side
from .meaning import Polar, polarity_items


class _Lint(Rule):
    severity: ClassVar[Severity] = "warning"
    lint = True


class UnitlessMeasure(_Lint):
    """A measure that needs a unit is given as a bare number.

    ## What it detects
    A number that measures something with a dimension (a timeout, a latency, a size, a price, a
    temperature...) written without a unit: "the timeout is 30", "set the memory limit to 512".

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
        dims = lexicon("dimensioned")
        for nid in side.nodes_of(NodeKind.QUANTITY):
            d = side.d(nid)
            if "unit" in d or "measured" not in d:
                continue
            if content_words(str(d["measured"])) & dims or str(d["measured"]).lower() in dims:
                yield self.finding(f"{d['measured']!r} is measured by the bare number "
                                   f"{d['text']!r}", side.ev_node(nid))


class UnresolvedReference(_Lint):
    """A deictic reference has no antecedent in the text.

    ## What it detects
    "the above constraint", "that retry budget", "as noted", "the former" with nothing before it
    in the text that fits its description.

    ## Why it matters
    Whatever it pointed at was pruned or never there; the reader has to guess.
    """

    code = "RG602"
    name = "unresolved-reference"
    summary = "a reference has no antecedent in the text"
    hint = "Replace the reference by what it means, or restore its antecedent."
    example = Example("Keep the above constraint in mind when retrying.")

    def check_text(self, side: Side) -> Iterator[Finding]:
        for nid in side.nodes_of(NodeKind.DEICTIC):
            d = side.d(nid)
            if d.get("deictic_kind") == "pronoun" or d.get("resolved") or \
                    str(d.get("head", "")).lower() in lexicon("time_words"):
                continue
            yield self.finding(f"{d['text']!r} has no antecedent before it", side.ev_node(nid))


class OneSidedConditional(_Lint):
    """A conditional about an absence has no counterpart for the other case.

    ## What it detects
    "X is required when Y is absent" where nothing in the text says what holds when Y is present:
    no negation or ``unless`` scoping over X anywhere else.

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
        everything: list[Polar] | None = None
        for nid in side.nodes_of(NodeKind.CONDITIONAL):
            d = side.d(nid)
            if d["cond_kind"] not in ("if", "when") or d["antecedent_polarity"] != "negative" \
                    or d["consequent_polarity"] != "positive":
                continue
            consequent = content_words(side.text[d["consequent_start"]:d["consequent_end"]])
            if everything is None:  # once per text: N conditionals must not cost N passes
                everything = [p for i in range(len(side.units)) for p in polarity_items(side, i)]
            others = [p for p in everything
                      if p.node != nid and not (d["antecedent_start"] <= side.d(p.node)["start"]
                                                < d["antecedent_end"])]
            if consequent and not any(p.scope & consequent for p in others):
                yield self.finding(f"{side.text[d['start']:d['antecedent_end']]!r}: nothing says "
                                   "what holds otherwise", side.ev_node(nid))


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
                                   side.ev_node(first))
