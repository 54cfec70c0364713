"""Each proof-carrying rule on hand-built claim graphs (no spaCy): it fires on the conflict it
names, cites both sides, and stays quiet when after keeps the claim in another form."""

from __future__ import annotations

from refgraph.findings import Finding
from refgraph.rules import BY_CODE
from refgraph.rules.context import Context

from .handmade import Text, context, mention, quantity

JOB = [("job", "mention", mention("job")), ("lock", "mention", mention("lock"))]


def _run(code: str, ctx: Context) -> list[Finding]:
    return list(BY_CODE[code]().check(ctx))


def _roles(f: Finding) -> list[tuple[str, str]]:
    return [(e.side, e.role) for e in f.evidence]


# RG301 ----------------------------------------------------------------------------------------

def test_rg301_a_dropped_negation_is_a_conflict_with_both_claims_cited() -> None:
    before = Text("Failover is not required.").claim(
        "Failover is not required", "need", negative=True, subject="failover")
    after = Text("Failover is required.").claim("Failover is required", "need",
                                                  subject="failover")
    (f,) = _run("RG301", context(before, after))
    assert _roles(f) == [("before", "claim"), ("after", "conflict")]
    assert [e.quote for e in f.evidence] == ["Failover is not required", "Failover is required"]


def test_rg301_never_without_is_only_with() -> None:
    before = Text("The job never runs without a lock.").claim(
        "The job never runs without a lock", "run", negative=True, qualified=True, args=JOB)
    only = Text("The job only runs with a lock.").claim(
        "The job only runs with a lock", "run", exclusive=True, args=JOB)
    flipped = Text("The job runs without a lock.").claim(
        "The job runs without a lock", "run", qualified=True, args=JOB)
    assert _run("RG301", context(before, only)) == []
    assert [f.code for f in _run("RG301", context(before, flipped))] == ["RG301"]


def test_rg301_an_if_clause_asserts_nothing_to_flip() -> None:
    before = Text("Rejected edits are not applied.").claim(
        "Rejected edits are not applied", "apply", negative=True,
        args=[("edits", "mention", mention("edit"))])
    def after(conditioned: bool) -> Text:
        t = Text("Report rejected edits if applied.").claim(
            "Report rejected edits", "report", mood="imperative",
            args=[("edits", "mention", mention("edit"))]).claim(
            "if applied", "apply", args=[("applied", "mention", mention("edit"))],
            terms="rejected edits apply")
        return t.condition("Report rejected edits", "if applied") if conditioned else t

    assert _run("RG301", context(before, after(conditioned=True))) == []
    # the same words asserted outright do conflict
    assert [f.code for f in _run("RG301", context(before, after(conditioned=False)))] == [
        "RG301"]


# RG202 / RG201 --------------------------------------------------------------------------------

def test_rg301_what_can_be_done_is_no_fact_to_flip() -> None:
    main = [("main.py", "handle", {"key": "main.py"})]
    before = Text("You can run main.py to see.").claim(
        "You can run main.py to see", "run", modality="ability", args=main)
    after = Text("main.py was not run.").claim("main.py was not run", "run", negative=True,
                                               args=main)
    assert _run("RG301", context(before, after)) == []
    # a denied ability reports a failed attempt, as a fact does; and both sides modal compare
    cannot = Text("main.py cannot run.").claim("main.py cannot run", "run", negative=True,
                                               modality="ability", args=main)
    ran = Text("main.py ran.").claim("main.py ran", "run", args=main)
    assert [f.code for f in _run("RG301", context(cannot, ran))] == ["RG301"]
    assert [f.code for f in _run("RG301", context(before, cannot))] == ["RG301"]


def test_rg202_a_changed_value_cites_both_numbers() -> None:
    before = Text("Keep the cache TTL at 300 seconds.").claim(
        "Keep the cache TTL at 300 seconds", "keep", mood="imperative",
        args=[("cache TTL", "mention", mention("ttl[cache]", "ttl")),
              ("300 seconds", "quantity", quantity(300, "second"))])
    after = Text("Keep the cache TTL at 30 seconds.").claim(
        "Keep the cache TTL at 30 seconds", "keep", mood="imperative",
        args=[("cache TTL", "mention", mention("ttl[cache]", "ttl")),
              ("30 seconds", "quantity", quantity(30, "second"))])
    (f,) = _run("RG202", context(before, after))
    assert [e.quote for e in f.evidence] == ["300 seconds", "30 seconds"]


def test_rg202_the_same_amount_in_another_unit_is_kept() -> None:
    before = Text("The timeout is 2000 ms.").claim(
        "The timeout is 2000 ms", "be", light=True,
        args=[("timeout", "mention", mention("timeout")),
              ("2000 ms", "quantity", {**quantity(2000, "millisecond"), "base_unit": "second",
                                       "base_magnitude": 2.0})])
    after = Text("The timeout is 2 s.").claim(
        "The timeout is 2 s", "be", light=True,
        args=[("timeout", "mention", mention("timeout")),
              ("2 s", "quantity", quantity(2, "second"))])
    ctx = context(before, after)
    assert _run("RG202", ctx) == []
    assert _run("RG201", ctx) == []


def test_rg201_a_number_that_lost_its_unit() -> None:
    before = Text("The request timeout is 30 seconds.").claim(
        "The request timeout is 30 seconds", "be", light=True,
        args=[("request timeout", "mention", mention("timeout[request]", "timeout")),
              ("30 seconds", "quantity", quantity(30, "second"))])
    after = Text("The request timeout is 30.").claim(
        "The request timeout is 30", "be", light=True,
        args=[("request timeout", "mention", mention("timeout[request]", "timeout")),
              ("30", "quantity", quantity(30))])
    (f,) = _run("RG201", context(before, after))
    assert [e.quote for e in f.evidence] == ["30 seconds", "30"]


# RG304 ----------------------------------------------------------------------------------------

def test_rg304_a_dropped_hedge_and_one_kept_in_another_word() -> None:
    args = [("export", "mention", mention("export[nightly]", "export")),
            ("bucket", "mention", mention("bucket"))]
    before = Text("The nightly export may fail when the bucket is full.").claim(
        "The nightly export may fail", "pass", negative=True, strength=0.4,
        modality="possibility", args=args[:1], terms="export nightly pass bucket")
    certain = Text("The nightly export fails when the bucket is full.").claim(
        "The nightly export fails", "pass", negative=True, args=args[:1],
        terms="export nightly pass bucket")
    probable = Text("The nightly export probably fails when the bucket is full.").claim(
        "The nightly export probably fails", "pass", negative=True, strength=0.7,
        modality="likelihood", args=args[:1], terms="export nightly pass bucket")
    (f,) = _run("RG304", context(before, certain))
    assert _roles(f) == [("before", "claim"), ("after", "conflict")]
    assert _run("RG304", context(before, probable)) == []


# RG502 ----------------------------------------------------------------------------------------

def _lookup(text: str) -> Text:
    return Text(text, role="tool").claim(
        "No rows matched the duplicate key", "match", negative=True, finding=True,
        args=[("duplicate key", "mention", mention("key[duplicate]", "key"))],
        terms="match row duplicate key")


def test_rg502_a_negative_lookup_pruned_while_after_still_works_on_it() -> None:
    before = _lookup("No rows matched the duplicate key")
    after = Text("Next: delete rows with the duplicate key.").claim(
        "delete rows with the duplicate key", "delete", mood="imperative",
        args=[("duplicate key", "mention", mention("key[duplicate]", "key"))],
        terms="delete row duplicate key")
    (f,) = _run("RG502", context(before, after, "prune"))
    assert f.severity == "error"
    assert _roles(f) == [("before", "missing"), ("after", "dependent")]


def test_rg502_zero_rows_restates_no_rows() -> None:
    before = _lookup("No rows matched the duplicate key")
    after = Text("0 rows matched the duplicate key.").claim(
        "0 rows matched the duplicate key", "match", negative=True,
        args=[("0 rows", "quantity", quantity(0, "row")),
              ("duplicate key", "mention", mention("key[duplicate]", "key"))],
        terms="match duplicate key")
    assert _run("RG502", context(before, after, "prune")) == []


# RG105 ----------------------------------------------------------------------------------------

def test_rg105_a_claim_credited_to_the_other_speaker() -> None:
    group = [("support group", "mention", mention("group[support]", "group"))]
    before = Text("I went to the support group yesterday.\n\nThat sounds great.",
                  role=("caroline", "melanie")).claim(
        "I went to the support group yesterday", "go", subject="i", args=group,
        terms="go support group yesterday").claim("That sounds great", "sound")

    def after(who: str) -> Text:
        return Text(f"{who} went to the support group yesterday.").claim(
            f"{who} went to the support group yesterday", "go", subject=who.lower(),
            args=group, terms="go support group yesterday")

    (f,) = _run("RG105", context(before, after("Melanie"), "summarize"))
    assert "caroline" in f.message
    assert "melanie" in f.message
    assert _roles(f) == [("before", "claim"), ("after", "conflict")]
    assert _run("RG105", context(before, after("Caroline"), "summarize")) == []


def test_rg202_a_count_of_a_total_is_another_measure_than_a_count() -> None:
    credits = [("credits", "mention", mention("credit"))]
    before = Text("18 credits").claim(
        "18 credits", "", args=[("18", "quantity", quantity(18, noun="credit")), *credits])
    after = Text("58/120 credits").claim(
        "58/120 credits", "",
        args=[("58/120", "quantity", {**quantity(58, noun="credit"), "total": 120.0}),
              *credits])
    assert _run("RG202", context(before, after)) == []
    plain = Text("58 credits").claim(
        "58 credits", "", args=[("58", "quantity", quantity(58, noun="credit")), *credits])
    assert [f.code for f in _run("RG202", context(before, plain))] == ["RG202"]


def test_rg103_reads_no_entity_in_a_terminal_colour_code() -> None:
    from refgraph.rules.merged_entity import MergedEntity

    def merged(k1: str, k2: str) -> list[str]:
        before = Text("The replica of shard A is lagging.\n\nThe replica of shard B is healthy.")
        before.claim("The replica of shard A is lagging", "lag", terms="replica shard lag",
                     args=[("replica of shard A", "mention", mention(k1, "replica"))])
        before.claim("The replica of shard B is healthy", "healthy",
                     terms="replica shard healthy",
                     args=[("replica of shard B", "mention", mention(k2, "replica"))])
        after = Text("The replica is lagging and healthy.").claim(
            "The replica is lagging and healthy", "lag", terms="replica lag healthy",
            args=[("replica", "mention", mention("replica", "replica"))])
        return [f.code for f in MergedEntity().check(context(before, after))]

    assert merged("replica[of=shard a]", "replica[of=shard b]") == ["RG103"]
    # RsaCtfTool's "\x1b[0m" inside a mention's key (a line of coloured tool output): no name
    assert merged("replica[of=shard a\x1b[0m]", "replica[of=shard b\x1b[0m]") == []


# RG501 ----------------------------------------------------------------------------------------

def _results(n: int, *, unique: str = "") -> Text:
    """``n`` tool results, each ending in the same status footer; the first also names
    ``unique``."""
    cwd = "/srv/proj2015/ctf"
    footer = f"(cwd {cwd})"
    parts = [f"Wrong flag {k}{' ' + unique if unique and k == 0 else ''} {footer}"
             for k in range(n)]
    text = Text("\n\n".join(parts), role="tool")
    for k, part in enumerate(parts):
        args = [(cwd, "mention", mention(f"ctf[{cwd}]", "ctf"))]
        if unique and k == 0:
            args.append((unique, "mention", mention(unique, unique, label="PRODUCT")))
        text.claim(part, "wrong", args=args, terms=f"wrong flag {k}")
    return text


def test_rg501_a_footer_every_result_repeats_is_not_what_one_result_said() -> None:
    after = Text("All three flags were wrong.").claim(
        "All three flags were wrong", "wrong", terms="three flags wrong")
    assert _run("RG501", context(_results(3), after, "summarize")) == []
    # what one result said alone is still missed when after drops it
    findings = _run("RG501", context(_results(3, unique="Ghidra9"), after, "summarize"))
    assert [f.code for f in findings] == ["RG501"]
    assert "Ghidra9" in findings[0].message
    # two results are too few to call a repeated fact a footer
    assert [f.code for f in _run("RG501", context(_results(2), after, "summarize"))]
