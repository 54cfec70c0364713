"""RG501 unrecoverable-prune and RG502 pruned-negative-result on hand-written agent contexts."""

from __future__ import annotations

import pytest

import refgraph
from refgraph.analyze import Analyzer
from refgraph.rules.pruned_negative_result import PrunedNegativeResult
from refgraph.rules.unrecoverable_prune import UnrecoverablePrune


@pytest.fixture(scope="module")
def az(mode: str) -> Analyzer:
    return refgraph.Analyzer(mode)  # type: ignore[arg-type]


def _codes(az: Analyzer, before: str, after: str, intent: str = "summarize",
           select: list[str] | None = None) -> list[str]:
    rep = az.analyze(before, after, intent=intent, select=select)
    for f in rep.findings:
        for e in f.evidence:
            text = before if e.side == "before" else after
            assert text[e.start:e.end] == e.quote
    return rep.codes


# RG501 -----------------------------------------------------------------------------------------
INVENTORY = ("assistant: Listing the bucket.\n"
             "tool[call_31]: gsutil ls gs://logs-prod/2024-11/ -> 30 daily folders, 1.8 TB, "
             "newest 2024-11-30\n"
             "assistant: The month is complete.")


def test_rg501_tool_result_summarized_without_its_call_id(az: Analyzer) -> None:
    after = "assistant: The bucket holds the whole month (about 1.8 TB)."
    assert "RG501" in _codes(az, INVENTORY, after)


def test_rg501_silent_when_the_call_id_stays(az: Analyzer) -> None:
    after = "assistant: Bucket listing (call_31): 30 daily folders, 1.8 TB; the month is complete."
    assert "RG501" not in _codes(az, INVENTORY, after)


def test_rg501_heading_handle_dropped_from_a_summarized_section(az: Analyzer) -> None:
    before = ("## Disk usage (full report: `reports/du_2024-11-02.txt`)\n"
              "/var 81 GB, /home 12 GB, /opt 7 GB, /tmp 2 GB; total 102 GB of 120 GB.\n")
    kept = ("## Disk usage (full report: `reports/du_2024-11-02.txt`)\n"
            "/var dominates (81 of 102 GB used).\n")
    dropped = "## Disk usage\n/var dominates (81 of 102 GB used).\n"
    assert "RG501" in _codes(az, before, dropped, "prune")
    assert "RG501" not in _codes(az, before, kept, "prune")


def test_rg501_one_shot_result_reduced_to_its_handle(az: Analyzer) -> None:
    before = ("assistant: Creating the refund.\n"
              "tool[call_88]: POST /v1/refunds -> 201, refund id re_7Hq2, 42.50 EUR, "
              "settles 2024-12-03\n"
              "assistant: Done.")
    blurred = "assistant: Refund created (see call_88)."
    faithful = "assistant: Refund created (call_88): re_7Hq2, 42.50 EUR, settles 2024-12-03."
    assert "RG501" in _codes(az, before, blurred)
    assert "RG501" not in _codes(az, before, faithful)


def test_rg501_user_correction_dropped(az: Analyzer) -> None:
    before = ("user: Deploy the worker to the staging cluster in region us-east-2.\n"
              "assistant: Preparing the staging deploy.\n"
              "user: Correction: it is eu-west-3, not us-east-2; the US cluster is frozen.\n"
              "assistant: Understood.")
    dropped = "user: Deploy the worker to staging (us-east-2).\nassistant: Preparing the deploy."
    echoed = ("user: Deploy the worker to staging in eu-west-3 (corrected from us-east-2; the "
              "US cluster is frozen).\nassistant: Preparing the deploy.")
    # the dropped "not us-east-2" may also read as a polarity flip (RG301): look at RG5xx alone
    assert "RG501" in _codes(az, before, dropped, select=["RG5"])
    assert "RG501" not in _codes(az, before, echoed, select=["RG5"])


def test_rg501_repeated_status_lines_may_go(az: Analyzer) -> None:
    line = '{{"level":"info","msg":"heartbeat","worker":"w-{}","status":"ok"}}'
    before = "\n".join(line.format(k) for k in (1, 2, 3, 1, 2, 3)) \
        + "\n\nassistant: all workers healthy."
    after = "[6 heartbeat lines pruned]\n\nassistant: all workers healthy."
    assert "RG501" not in _codes(az, before, after, "prune")


# RG502 -----------------------------------------------------------------------------------------
AUDIT = ("I ran the duplicate check on `orders_2024`. No rows matched the duplicate key. "
         "The export then finished in 4 minutes.")


def test_rg502_negative_result_removed(az: Analyzer) -> None:
    after = "Ran the duplicate check on `orders_2024`; the export finished in 4 minutes."
    assert "RG502" in _codes(az, AUDIT, after)


def test_rg502_silent_when_restated(az: Analyzer) -> None:
    after = ("Duplicate check on `orders_2024`: no rows matched the duplicate key. Export "
             "finished in 4 minutes.")
    assert "RG502" not in _codes(az, AUDIT, after)


def test_rg502_json_zero_count_dropped(az: Analyzer) -> None:
    before = ('{"check":"auth upstream","result":"healthy, 0 errors in last 10 min"}\n'
              '{"check":"db upstream","result":"3 errors in last 10 min"}')
    blurred = ('{"check":"auth upstream","result":"checked"}\n'
               '{"check":"db upstream","result":"3 errors in last 10 min"}')
    kept = ('{"check":"auth upstream","result":"0 errors / 10 min"}\n'
            '{"check":"db upstream","result":"3 errors in last 10 min"}')
    assert "RG502" in _codes(az, before, blurred, "prune")
    assert "RG502" not in _codes(az, before, kept, "prune")


def test_rg502_instructions_and_conditions_are_not_results(az: Analyzer) -> None:
    before = ("Do not restart the pods by hand. Nobody should touch the queue until Monday. "
              "The lock is released at 02:00.")
    after = "The lock is released at 02:00."
    assert "RG502" not in _codes(az, before, after, "prune")


def test_rg502_unconfirmed_is_a_hedge_not_a_result(az: Analyzer) -> None:
    before = "The cause looks like a stale cache; we have not confirmed it yet. Restart fixed it."
    after = "The cause is a stale cache. Restart fixed it."
    assert "RG502" not in _codes(az, before, after)


@pytest.mark.parametrize("rule", [UnrecoverablePrune, PrunedNegativeResult])
def test_examples_still_fire(az: Analyzer, rule: type[UnrecoverablePrune]) -> None:
    ex = rule.example
    assert ex.after is not None
    assert rule.code in az.analyze(ex.before, ex.after, intent=ex.intent).codes
