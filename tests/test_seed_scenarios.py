"""The seeds' "What was observed" failures as agent-context rewrites, in both modes.

Each corrupt scenario must be rejected with the code that names its cause; each seed also has
an aggressive but faithful rewrite of the same context that must not be rejected. Seeds:
001 (units, polarity, merged entities, reordered causality), 000 (dangling references, pruned
definitions, fan-out, growing prunes, lost prohibitions), 004 (unrecoverable tool output,
pruned negative results). Seed 002 (stale-base patches) belongs to the guarded apply.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from refgraph import Analyzer, Report


@dataclass(frozen=True)
class Scenario:
    name: str
    before: str
    after: str
    intent: str = "rewrite"
    declared_span: tuple[int, int] | None = None


@pytest.fixture(scope="module")
def az(mode: str) -> Analyzer:
    return Analyzer(mode)  # type: ignore[arg-type]


def run(az: Analyzer, s: Scenario) -> Report:
    report = az.analyze(s.before, s.after, intent=s.intent, declared_span=s.declared_span)
    texts = {"before": s.before, "after": s.after}
    for f in report.findings:
        for e in f.evidence:
            assert e.quote == texts[e.side][e.start:e.end]
    return report


def _span(text: str, first: str, last: str) -> tuple[int, int]:
    """From the start of ``first`` to the end of ``last`` (both in ``text``)."""
    start = text.index(first)
    return start, text.index(last, start) + len(last)


# seed 001: compression vs corruption ----------------------------------------------------------

NOTES = """\
## Working notes (payments client)
- The upstream gateway closes idle connections after 60 seconds.
- The request timeout is 30 seconds; the load test showed a p99 latency of 4.2 s.
- Retries: at most 2, with 250 ms backoff.
"""
NOTES_UNIT_DROPPED = """\
## Working notes (payments client)
- Gateway closes idle connections after 60 seconds.
- The request timeout is 30; p99 latency 4.2 s.
- Retries: at most 2, with 250 ms backoff.
"""
NOTES_SAFE = """\
## Working notes (payments client)
- Gateway drops idle connections after 1 minute.
- Request timeout: 30 s; load-test p99 latency 4.2 s.
- At most 2 retries, 250 ms backoff.
"""

FLAG = """\
system: You are the migration assistant for the orders service.
user: When do I need --rebuild-index?
assistant: The --rebuild-index flag is not required unless the search index is absent. With an \
existing index, the migration reuses it.
"""
FLAG_INVERTED = """\
system: You are the migration assistant for the orders service.
user: When do I need --rebuild-index?
assistant: The --rebuild-index flag is required when the search index is absent.
"""
FLAG_SAFE = """\
system: You are the migration assistant for the orders service.
user: When do I need --rebuild-index?
assistant: --rebuild-index is needed only if the search index is absent; otherwise the \
migration reuses the existing index.
"""

SHARDS = """\
## Cluster state (from status checks)
- The primary replica of shard A is db-7 in us-east-1; it lags by 12 seconds.
- The primary replica of shard B is db-9 in eu-west-1; it is healthy.
"""
SHARDS_MERGED = """\
## Cluster state (from status checks)
- The primary replica is db-7 in us-east-1; it is healthy.
"""
SHARDS_SAFE = """\
## Cluster state (from status checks)
- Shard A primary replica: db-7 (us-east-1), lagging 12 s.
- Shard B primary replica: db-9 (eu-west-1), healthy.
"""

LAG = """\
tool[call_12]: replication lag on shard A reached 45 seconds at 14:02 UTC
assistant: Replication lag on shard A exceeded the 30 second threshold. Therefore, failover of \
shard A must be paused.
"""
LAG_REORDERED = """\
tool[call_12]: replication lag on shard A reached 45 seconds at 14:02 UTC
assistant: Therefore, failover of shard A must be paused. Replication lag on shard A exceeded \
the 30 second threshold.
"""
LAG_SAFE = """\
tool[call_12]: replication lag on shard A reached 45 seconds at 14:02 UTC
assistant: Shard A lag exceeded the 30 s threshold, so shard A failover must be paused.
"""
# The same reorder in a Markdown note (no chat-turn prefix before "Therefore").
LAG_NOTE = """\
## Incident notes
Replication lag on shard A exceeded the 30 second threshold. Therefore, failover of shard A must \
be paused.
"""
LAG_NOTE_REORDERED = """\
## Incident notes
Therefore, failover of shard A must be paused. Replication lag on shard A exceeded the 30 second \
threshold.
"""

SEED_001 = [
    ("RG201", Scenario("unit-dropped", NOTES, NOTES_UNIT_DROPPED, "summarize")),
    ("RG301", Scenario("not-unless-to-when", FLAG, FLAG_INVERTED, "summarize")),
    ("RG103", Scenario("primary-replicas-merged", SHARDS, SHARDS_MERGED, "summarize")),
    ("RG302", Scenario("therefore-before-premise-chat", LAG, LAG_REORDERED, "rewrite")),
    ("RG302", Scenario("therefore-before-premise-note", LAG_NOTE, LAG_NOTE_REORDERED,
                       "rewrite")),
]
SAFE_001 = [
    Scenario("units-kept-or-converted", NOTES, NOTES_SAFE, "summarize"),
    Scenario("not-unless-as-only-if", FLAG, FLAG_SAFE, "summarize"),
    Scenario("shards-kept-apart", SHARDS, SHARDS_SAFE, "summarize"),
    Scenario("premise-still-first", LAG, LAG_SAFE, "summarize"),
]


# seed 000: structural loss from diff application ----------------------------------------------

PLAN = """\
## Constraints
- Never push to main without a green CI run.

## Plan
1. Fix the flaky test in tests/test_upload.py.
2. Open a PR for the fix; the above constraint applies to the merge.
"""
PLAN_PRUNED = """\
## Plan
1. Fix the flaky test in tests/test_upload.py.
2. Open a PR for the fix; the above constraint applies to the merge.
"""
PLAN_SAFE = """\
## Plan
1. Fix the flaky test in tests/test_upload.py.
2. Open a PR; never push to main without a green CI run.
"""

BUDGET = """\
- The upload client has a retry budget of 5 attempts per file.
- Mirror eu-2 timed out twice, so that retry budget leaves 3 attempts for eu-3.
"""
BUDGET_PRUNED = """\
- Mirror eu-2 timed out twice, so that retry budget leaves 3 attempts for eu-3.
"""

STAGING = """\
assistant: The staging database is read-only until Thursday.
assistant: As noted, I will run the migration against a local copy instead of staging.
"""
STAGING_PRUNED = """\
assistant: As noted, I will run the migration against a local copy instead of staging.
"""

RETRIES = """\
```python
MAX_RETRIES = 3  # per upload, see incident 4411
```

assistant: The uploader retries a failed chunk up to MAX_RETRIES times before giving up.
assistant: Next, I will add jitter to the backoff.
"""
RETRIES_PRUNED = """\
assistant: The uploader retries a failed chunk up to MAX_RETRIES times before giving up.
assistant: Next, I will add jitter to the backoff.
"""
RETRIES_SAFE = """\
assistant: The uploader retries a failed chunk up to MAX_RETRIES (3) times before giving up.
assistant: Next, I will add jitter to the backoff.
"""

TESTRUN = """\
user: Summarize the test run below, keep everything else as is.
tool[call_7]: pytest -q tests/
412 passed, 3 skipped in 81.2s
warnings: 17 DeprecationWarning (datetime.utcnow)
assistant: Next I will bump the pydantic pin and rerun the suite.
"""
TESTRUN_SPAN = _span(TESTRUN, "tool[call_7]", "(datetime.utcnow)")
TESTRUN_FANOUT = """\
user: Summarize the test run below, keep everything else as is.
tool[call_7]: pytest -q tests/: 412 passed, 3 skipped (81.2s), 17 deprecation warnings.
assistant: Next I will bump the pydantic pin and rerun the whole suite.
"""
TESTRUN_SAFE = """\
user: Summarize the test run below, keep everything else as is.
tool[call_7]: pytest -q tests/: 412 passed, 3 skipped (81.2s), 17 deprecation warnings.
assistant: Next I will bump the pydantic pin and rerun the suite.
"""

LINT_RUN = """\
assistant: Ran the linter.
tool[call_9]: ruff check . -> All checks passed!
assistant: Lint is clean; moving on to the type checker.
"""
LINT_RUN_GROWN = """\
assistant: Ran the linter.
tool[call_9]: ruff check . -> All checks passed!
assistant: Lint is clean (ruff check . reported that all checks passed, with no warnings and no \
errors in any file); moving on to the type checker, which is mypy in strict mode.
"""
LINT_RUN_SAFE = """\
tool[call_9]: ruff check . -> All checks passed!
assistant: Lint clean; next, the type checker.
"""

RUNBOOK = """\
## Deployment runbook
- Do not run `terraform apply` before Dana has reviewed the plan.
- Run `terraform plan -out=tf.plan` in the infra/ directory.
- Then run `terraform apply tf.plan` to roll out the change.
"""
RUNBOOK_PRUNED = """\
## Deployment runbook
- Run `terraform plan -out=tf.plan` in the infra/ directory.
- Then run `terraform apply tf.plan` to roll out the change.
"""
RUNBOOK_SAFE = """\
## Deployment runbook
- Never run `terraform apply` before Dana reviews the plan.
- `terraform plan -out=tf.plan` in infra/, then `terraform apply tf.plan`.
"""

SEED_000 = [
    ("RG102", Scenario("the-above-constraint", PLAN, PLAN_PRUNED, "prune")),
    ("RG102", Scenario("that-retry-budget", BUDGET, BUDGET_PRUNED, "prune")),
    ("RG102", Scenario("as-noted", STAGING, STAGING_PRUNED, "prune")),
    ("RG101", Scenario("max-retries-definition-pruned", RETRIES, RETRIES_PRUNED, "prune")),
    ("RG405", Scenario("fanout-beyond-declared-span", TESTRUN, TESTRUN_FANOUT, "summarize",
                       TESTRUN_SPAN)),
    ("RG404", Scenario("prune-grows-tokens", LINT_RUN, LINT_RUN_GROWN, "prune")),
    ("RG303", Scenario("prohibition-pruned-action-kept", RUNBOOK, RUNBOOK_PRUNED, "prune")),
]
SAFE_000 = [
    Scenario("reference-replaced-by-content", PLAN, PLAN_SAFE, "prune"),
    Scenario("definition-restated-at-use", RETRIES, RETRIES_SAFE, "prune"),
    Scenario("summary-inside-declared-span", TESTRUN, TESTRUN_SAFE, "summarize", TESTRUN_SPAN),
    Scenario("prune-that-shrinks", LINT_RUN, LINT_RUN_SAFE, "prune"),
    Scenario("prohibition-compressed-not-lost", RUNBOOK, RUNBOOK_SAFE, "prune"),
]


# seed 004: destructive vs compressive ---------------------------------------------------------

SCHEMA = """\
user: Add an `ip_addr` filter to the audit export.
assistant: First I will check the audit_log table schema.
tool[call_81]: psql -c "\\d audit_log"
 column    | type
-----------+-------------
 id        | bigint
 timestamp | timestamptz
 actor     | text
 action    | text
assistant: The table has no ip_addr column yet, so the filter needs a migration first.
"""
SCHEMA_COLLAPSED = """\
user: Add an `ip_addr` filter to the audit export.
assistant: Confirmed schema: 4 columns, id/timestamp/actor/action.
assistant: The table has no ip_addr column yet, so the filter needs a migration first.
"""
SCHEMA_WITH_HANDLE = """\
user: Add an `ip_addr` filter to the audit export.
assistant: Confirmed schema (call_81, psql \\d audit_log): 4 columns, id/timestamp/actor/action.
assistant: The table has no ip_addr column yet, so the filter needs a migration first.
"""

CHURN = """\
user: Why are EU customers missing from the weekly churn report?
assistant: Checking the three export files in s3://exports/churn/2026-11-10/.
assistant: Checked the exports. The region column was absent in all 3 files, so EU rows cannot \
be told apart.
assistant: Next I will look at the report query in reports/churn.sql.
"""
CHURN_PRUNED = """\
user: Why are EU customers missing from the weekly churn report?
assistant: Checking the three export files in s3://exports/churn/2026-11-10/.
assistant: Next I will look at the report query in reports/churn.sql.
"""
CHURN_SAFE = """\
user: Why are EU customers missing from the weekly churn report?
assistant: Exports in s3://exports/churn/2026-11-10/: no region column in any of the 3 files, \
so EU rows cannot be told apart.
assistant: Next I will look at the report query in reports/churn.sql.
"""

WEBHOOKS = """\
assistant: Searching the logs for the failed webhook deliveries.
tool[call_90]: grep -c "webhook_failed" /var/log/app/2026-11-12.log
0
assistant: No webhook_failed events were logged on 2026-11-12.
assistant: Next I will check the retry queue depth.
"""
WEBHOOKS_PRUNED = """\
assistant: Searching the logs for the failed webhook deliveries.
assistant: Next I will check the retry queue depth.
"""

SEED_004 = [
    ("RG501", Scenario("tool-output-collapsed-without-call-id", SCHEMA, SCHEMA_COLLAPSED,
                       "prune")),
    ("RG502", Scenario("negative-result-pruned", CHURN, CHURN_PRUNED, "prune")),
    ("RG502", Scenario("zero-count-pruned-with-its-tool-output", WEBHOOKS, WEBHOOKS_PRUNED,
                       "prune")),
]
SAFE_004 = [
    Scenario("summary-keeps-call-id", SCHEMA, SCHEMA_WITH_HANDLE, "prune"),
    Scenario("negative-result-kept", CHURN, CHURN_SAFE, "prune"),
]

CORRUPT = [(f"001-{s.name}", c, s) for c, s in SEED_001] + \
          [(f"000-{s.name}", c, s) for c, s in SEED_000] + \
          [(f"004-{s.name}", c, s) for c, s in SEED_004]
SAFE = [(f"001-{s.name}", s) for s in SAFE_001] + [(f"000-{s.name}", s) for s in SAFE_000] + \
       [(f"004-{s.name}", s) for s in SAFE_004]


@pytest.mark.parametrize(("code", "scenario"), [(c, s) for _, c, s in CORRUPT],
                         ids=[i for i, _, _ in CORRUPT])
def test_observed_failure_is_rejected(az: Analyzer, code: str, scenario: Scenario) -> None:
    report = run(az, scenario)
    assert code in report.codes, report.format_text()
    assert report.verdict == "reject", report.format_text()


@pytest.mark.parametrize("scenario", [s for _, s in SAFE], ids=[i for i, _ in SAFE])
def test_faithful_rewrite_is_not_rejected(az: Analyzer, scenario: Scenario) -> None:
    report = run(az, scenario)
    assert report.verdict in ("apply", "apply-with-log"), report.format_text()


def test_seed_004_summary_with_call_id_is_recoverable(az: Analyzer) -> None:
    report = run(az, Scenario("kept", SCHEMA, SCHEMA_WITH_HANDLE, "prune"))
    assert "RG501" not in report.codes, report.format_text()


def test_seed_004_unrecoverable_prune_cites_the_tool_output(az: Analyzer) -> None:
    report = run(az, Scenario("lost", SCHEMA, SCHEMA_COLLAPSED, "prune"))
    (finding,) = [f for f in report.findings if f.code == "RG501"]
    assert finding.severity == "error"
    quoted = " ".join(e.quote for e in finding.evidence if e.side == "before")
    assert "tool[call_81]" in quoted


def test_seed_001_unit_finding_is_the_only_one(az: Analyzer) -> None:
    """One cause, one finding: the dropped unit is not also a changed quantity."""
    report = run(az, Scenario("unit", NOTES, NOTES_UNIT_DROPPED, "summarize"))
    assert report.codes == ["RG201"], report.format_text()
    (finding,) = report.findings
    assert {e.side: e.quote for e in finding.evidence} == {"before": "30 seconds",
                                                           "after": "30"}


def test_seed_000_fanout_points_outside_the_span(az: Analyzer) -> None:
    s = Scenario("fanout", TESTRUN, TESTRUN_FANOUT, "summarize", TESTRUN_SPAN)
    report = run(az, s)
    (finding,) = [f for f in report.findings if f.code == "RG405"]
    start, end = TESTRUN_SPAN
    cited = [e for e in finding.evidence if e.side == "before"]
    assert cited
    assert any(e.start < start or e.end > end for e in cited), "evidence lies inside the span"
    assert any("pydantic pin" in e.quote for e in cited)


def test_seed_000_growing_prune_reports_token_counts(az: Analyzer) -> None:
    report = run(az, Scenario("grown", LINT_RUN, LINT_RUN_GROWN, "prune"))
    assert report.stats["tokens_after"] > report.stats["tokens_before"]
