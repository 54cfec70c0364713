"""Claim alignment on hand-built graphs: counterparts are found anywhere in after, by shared
arguments and predicates, scored by how much of the before claim they hold."""

from __future__ import annotations

from refgraph.align import CLAIM_THRESHOLD, align_claims
from refgraph.claims import claims_of

from .rules.handmade import Text, mention, quantity


def _claims(t: Text):  # type: ignore[no-untyped-def]
    return claims_of(t.graph())


def test_a_claim_moved_to_another_sentence_is_found_there() -> None:
    before = Text("The export failed twice.\n\nSam owns the report.").claim(
        "The export failed twice", "pass", negative=True, terms="export pass",
        args=[("export", "mention", mention("export"))]).claim(
        "Sam owns the report", "own", args=[("Sam", "mention", mention("sam", label="PERSON")),
                                            ("report", "mention", mention("report"))])
    after = Text("Sam owns the report; the export failed.").claim(
        "Sam owns the report", "own", args=[("Sam", "mention", mention("sam", label="PERSON")),
                                            ("report", "mention", mention("report"))]).claim(
        "the export failed", "pass", negative=True, terms="export pass",
        args=[("export", "mention", mention("export"))])
    cb, ca = _claims(before), _claims(after)
    al = align_claims(cb, ca)
    best = [ca.by_id[al.counterparts(c.id)[0].after].text for c in cb.claims]
    assert best == ["the export failed", "Sam owns the report"]
    p = al.counterparts(cb.claims[0].id)[0]
    assert p.same_predicate
    assert p.coverage > 0.9
    assert [q.before for q in al.sources(p.after)] == [cb.claims[0].id]


def test_a_number_in_another_unit_is_the_same_argument_kind() -> None:
    before = Text("The timeout is 30 minutes.").claim(
        "The timeout is 30 minutes", "be", light=True, terms="timeout",
        args=[("timeout", "mention", mention("timeout")),
              ("30 minutes", "quantity", quantity(30, "minute", base=1800))])
    after = Text("Timeout: 1800 s.").claim(
        "Timeout: 1800 s", "be", light=True, terms="timeout",
        args=[("Timeout", "mention", mention("timeout")),
              ("1800 s", "quantity", quantity(1800, "second"))])
    cb, ca = _claims(before), _claims(after)
    (p,) = align_claims(cb, ca).counterparts(cb.claims[0].id)
    assert p.coverage == 1.0  # the quantity feature is its base unit, not its digits


def test_claims_that_share_nothing_are_no_counterparts() -> None:
    before = Text("The cache is warm.").claim("The cache is warm", "warm",
                                              args=[("cache", "mention", mention("cache"))])
    after = Text("Deploys run on Fridays.").claim(
        "Deploys run on Fridays", "run", args=[("Fridays", "mention", mention("friday"))])
    cb, ca = _claims(before), _claims(after)
    assert align_claims(cb, ca).counterparts(cb.claims[0].id) == []
    assert CLAIM_THRESHOLD > 0


def test_an_empty_side_aligns_to_nothing() -> None:
    cb = _claims(Text("The cache is warm.").claim("The cache is warm", "warm"))
    ca = _claims(Text(""))
    assert align_claims(cb, ca).pairs == {}
