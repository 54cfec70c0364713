"""Bugs a second reader found in the analyzer; each stays fixed."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import refgraph


@pytest.fixture(scope="module")
def az() -> refgraph.Analyzer:
    return refgraph.Analyzer("fast")


def _quotes_hold(report: refgraph.Report) -> bool:
    texts = {"before": report.before, "after": report.after}
    return all(0 <= e.start <= e.end <= len(texts[e.side])
               and texts[e.side][e.start:e.end] == e.quote
               for f in report.findings for e in f.evidence)


def test_hedge_evidence_indexes_the_original_text(az: refgraph.Analyzer) -> None:
    # 'İ'.lower() is two characters: offsets taken from lower-cased text drift.
    before = "İ" * 20 + ": the upload to the bucket on node-7 likely failed."
    after = "İ" * 20 + ": the upload to the bucket on node-7 failed."
    report = az.analyze(before, after)
    assert report.codes == ["RG304"]
    assert _quotes_hold(report)


def test_deleting_exactly_the_declared_block_is_not_fanout(az: refgraph.Analyzer) -> None:
    before = "Keep A.\n\nDrop me.\n\nKeep C."
    assert az.analyze(before, "Keep A.\n\nKeep C.", declared_span=(9, 17)).codes == []
    assert az.analyze(before, "Keep B.\n\nKeep C.", declared_span=(9, 17)).codes == ["RG405"]


def test_a_kept_causal_chain_with_one_word_changed_is_not_inverted(
        az: refgraph.Analyzer) -> None:
    before = "The deploy failed because the cache was cold, so we restarted the workers."
    after = "The deploy failed because the cache was cold, so we restarted the nodes."
    assert "RG302" not in az.analyze(before, after).codes


def test_names_match_as_whole_words(az: refgraph.Analyzer) -> None:
    # "Ann" is inside "planning": it must not count as said. A capitalised word alone is weak
    # evidence of a name in fast mode, so the finding sits below the default confidence.
    before = "We are planning the release for Friday."
    report = az.analyze(before, "We are planning the release for Friday with Ann.",
                        min_confidence=0)
    assert [f.code for f in report.findings] == ["RG104"]
    assert report.findings[0].evidence[0].quote == "Ann"


def test_a_handle_inside_a_longer_one_does_not_count_as_kept(az: refgraph.Analyzer) -> None:
    before = ("tool[call_1]: SELECT count(*) FROM orders: 1842 rows, 3 with a null total\n"
              "tool[call_12]: ls exports/: 4 files\n"
              "assistant: the null totals need a fix")
    # call_1's counts are gone; "call_12" contains "call_1" but is another call
    after = ("assistant: some orders have a null total\n"
             "tool[call_12]: ls exports/: 4 files\n"
             "assistant: the null totals need a fix")
    assert "RG501" in az.analyze(before, after, intent="prune").codes


def test_a_long_hyphenated_name_does_not_make_the_acronym_check_explode(
        az: refgraph.Analyzer) -> None:
    before = "Merged branch " + "-".join(["add", "build", "cache", "deploy", "edit"] * 80) + "."
    t0 = time.perf_counter()
    az.analyze(before, "We asked ABCDEG about it.")
    assert time.perf_counter() - t0 < 5  # exponential backtracking took minutes


def test_cli_closed_stdin_is_one_line_and_exit_2(tmp_path: Path) -> None:
    # The child starts with file descriptor 0 closed, as `refgraph lint - <&-` does.
    proc = subprocess.run([sys.executable, "-m", "refgraph", "lint", "-", "--mode", "fast"],
                          capture_output=True, text=True, preexec_fn=lambda: os.close(0))
    assert proc.returncode == 2
    assert proc.stderr.strip().startswith("refgraph: error:")
    assert "Traceback" not in proc.stderr


def test_cli_output_survives_an_ascii_stdout(tmp_path: Path) -> None:
    before, after = tmp_path / "b.txt", tmp_path / "a.txt"
    before.write_text("Ask Zoë: the timeout is 30 seconds.", encoding="utf-8")
    after.write_text("Ask Zoë: the timeout is 30.", encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "refgraph", "check", str(before), str(after),
                           "--mode", "fast"], capture_output=True,
                          env={**os.environ, "PYTHONIOENCODING": "ascii"})
    assert proc.returncode == 1
    assert b"RG201" in proc.stdout
    assert b"Traceback" not in proc.stderr


def test_a_unit_letter_inside_a_later_word_does_not_hide_a_dropped_unit(
        az: refgraph.Analyzer) -> None:
    # The 40-character window after '30' ended inside "status": its "s" read as the unit.
    before = "timeout: 30 s\nregion: eu-west\nretries: 3\nowner: ana\nstatus: green\n"
    assert az.analyze(before, before.replace("30 s", "30")).codes == ["RG201"]
    assert az.analyze(before, before.replace("30 s", "30 s (hard)")).codes == []


def test_only_with_words_before_its_condition_restates_not_unless(
        az: refgraph.Analyzer) -> None:
    before = "Old unit: you don't need to send it back unless the replacement also shows E31."
    assert az.analyze(before, "Old unit: keep it; only needed back if the replacement also "
                              "shows E31.").codes == []
    assert az.analyze(before, "Old unit: you need to send it back if the replacement also "
                              "shows E31.").codes == ["RG301"]


def test_a_scale_suffix_restates_a_number(az: refgraph.Analyzer) -> None:
    before = "Usage: 63,250,000 calls this month; 1,900,000 of them from the sandbox."
    assert az.analyze(before, "Usage: 63.25M calls/mo; 1.9M from the sandbox.").codes == []
    assert az.analyze("Usage: 63.25M calls this month.", "Usage: 63,250,000 calls.").codes == []
    assert az.analyze("Usage: 63,250,000 calls this month.", "Usage: 64.25M calls/mo.").codes \
        == ["RG202"]


def test_a_contrast_keeps_what_a_negation_said(az: refgraph.Analyzer) -> None:
    before = "The weekly DR drill is not this Thursday; it moved to next Tuesday."
    assert az.analyze(before, "Weekly DR drill moved from this Thursday to next "
                              "Tuesday.").codes == []
    assert az.analyze(before, "The weekly DR drill is this Thursday.").codes == ["RG301"]


def test_abbreviated_hedges_are_hedges_not_sentence_ends(az: refgraph.Analyzer) -> None:
    before = "The plan moves 9 partitions, about 1.3 TB of data, and takes about 3 hours."
    assert az.analyze(before, "Plan: 9 partitions, approx. 1.3 TB, est. 3 h.").codes == []
    assert az.analyze(before, "Plan: 9 partitions, 1.3 TB, 3 h.").codes == ["RG304"]


def test_a_negated_bound_is_its_complement(az: refgraph.Analyzer) -> None:
    before = ("Customers get a full refund within 14 days, as long as they have not exported "
              "more than 50 reports.")
    assert az.analyze(before, "Full refund within 14 days if the customer exported no more "
                              "than 50 reports.").codes == []
    assert az.analyze("The queue holds more than 50 jobs.",
                      "The queue holds no more than 50 jobs.").codes == ["RG202"]


def test_zero_as_a_value_is_a_negative_result_about_its_subject(
        az: refgraph.Analyzer) -> None:
    before = ("Execution started at 19:05. Under-replicated partitions stayed at zero "
              "throughout. Lag peaked at 12 s.")
    kept = "Status: started 19:05; no under-replicated partitions at any point; lag peaked at 12 s."
    assert az.analyze(before, kept).codes == []
    assert az.analyze(before, "Status: started 19:05; lag peaked at 12 s.").codes == ["RG502"]


def test_modals_that_hedge_nothing_or_stay_in_another_form(az: refgraph.Analyzer) -> None:
    # a counterfactual duty is no doubt
    assert az.analyze("They fall under reverse charge, so no VAT should have been charged.",
                      "Reverse charge: no VAT.").codes == []
    # "may be disclosed" and "disclosable" say the same
    before = "Legal says the held records may be disclosed, but they must not be deleted."
    assert az.analyze(before, "Held records: disclosable, but not to be deleted.").codes == []
    assert az.analyze(before, "Held records: disclosed, but not to be deleted.").codes \
        == ["RG304"]
    # a doubtful claim that after corrects was not made certain
    assert az.analyze("user: Note the CI image runs Python 3.12, I think.\n"
                      "user: Sorry, correction: CI uses Python 3.11, not 3.12.",
                      "user (correction): CI uses Python 3.11, not 3.12.").codes == []


def test_a_verb_s_own_negative_keeps_the_negation(az: refgraph.Analyzer) -> None:
    before = "The cursor format is public; do not change the base64 layout, only the arithmetic."
    assert az.analyze(before, "Cursor format is public: keep the base64 layout, change only "
                              "the arithmetic.").codes == []
    assert az.analyze(before, "Cursor format is public: change the base64 layout and the "
                              "arithmetic.").codes == ["RG301"]
    assert az.analyze("The build did not pass on CI.", "The build failed on CI.").codes == []


def test_summary_shorthand_is_not_an_invented_referent(az: refgraph.Analyzer) -> None:
    """A fresh batch of safe rewrites (dev_v4) was flagged for a summary's ordinary shorthand."""
    assert az.analyze("The payroll cutover is on 14 March; training took 1,240 GPU-hours.",
                      "Payroll cutover 14 Mar; training took 1,240 GPU-h.").codes == []
    assert az.analyze("Tokens seen: 4.19M.", "Tokens seen: 4.2M.").codes == []
    assert az.analyze("Tokens seen: 4.19M.", "Tokens seen: 5.2M.").codes == ["RG202"]
    assert az.analyze("CI ran 212 jobs; 209 passed and 3 were skipped.",
                      "CI: 209/212 passed, 3 skipped.").codes == []
    assert az.analyze("CI ran 212 jobs; 209 passed and 3 were skipped.",
                      "CI: 208/212 passed, 3 skipped.").codes == ["RG202"]
    assert az.analyze("Late fees must not exceed 1% per month.",
                      "Late fees: not to exceed 1%/month.").codes == []
    assert az.analyze("Picking is back to normal. Nothing else to report from the warehouse.",
                      "Picking back to normal.").codes == []
    # still a change: another quarter
    assert az.analyze("Results for Q3 2020 were strong.", "Results for Q4 2020 were strong.") \
        .codes == ["RG104"]


def test_entities_kept_apart_by_their_own_qualifiers_are_not_merged(
        az: refgraph.Analyzer) -> None:
    before = ('There are two locations both called "Main" in Shopify: Main (Dublin, location id '
              "61440) and Main (Galway, location id 61877). Only the Dublin one ships online "
              "orders; Galway is the retail shop.")
    kept = ('Two "Main" locations: Main (Dublin, id 61440) and Main (Galway, id 61877, retail '
            "shop); only Dublin ships online orders.")
    assert az.analyze(before, kept).codes == []
    merged = 'Location "Main" (ids 61440, 61877) ships online orders.'
    assert "RG103" in az.analyze(before, merged).codes


_DOUBLE = "The job never runs without a lock. Tests passed."


@pytest.mark.parametrize("mode", ["fast", "accurate"])
@pytest.mark.parametrize(("before", "after", "codes"), [
    # Two negations in one clause cancel: saying it positively is a faithful rewrite.
    ("The fix: the error path no longer returns without releasing. Tests passed.",
     "Fix: the error path now releases before returning. Tests passed.", []),
    ("The worker never starts without a valid token. Tests passed.",
     "The worker only starts with a valid token. Tests passed.", []),
    (_DOUBLE, "The job never runs unless it holds a lock. Tests passed.", []),
    # Dropping one of the two flips the meaning, whichever one goes.
    (_DOUBLE, "The job runs without a lock. Tests passed.", ["RG301"]),
    (_DOUBLE, "The job never runs with a lock. Tests passed.", ["RG301"]),
    # Two negations joined by "and" are two statements, not a pair.
    ("The deploy did not fail and nothing was rolled back. Tests passed.",
     "The deploy did not fail and it was rolled back. Tests passed.", ["RG301"]),
])
def test_double_negation(mode: str, before: str, after: str, codes: list[str]) -> None:
    assert refgraph.Analyzer(mode).analyze(before, after).codes == codes


@pytest.mark.parametrize(("after", "codes"), [
    ("The flight lands at 19:45, so there is little slack. Tests passed.", []),
    ("The flight lands at 19:45, so there is a lot of slack. Tests passed.", ["RG301"]),
])
def test_negative_quantifier_keeps_the_negation(az: refgraph.Analyzer, after: str,
                                                codes: list[str]) -> None:
    # "little", "few", "hardly" negate as "not much" does.
    before = "The flight lands at 19:45, so there is not much slack. Tests passed."
    assert az.analyze(before, after).codes == codes


def test_a_range_of_call_ids_keeps_every_call_in_it() -> None:
    from refgraph.rules.common import handles_of
    from refgraph.rules.context import Side

    text = "Row counts (call_2–call_5) are in."
    G = refgraph.build_graph(text, mode="fast")
    handles = {d["value"]: d.get("through") for _, d in G.nodes(data=True)
               if d["kind"] == "handle"}
    assert handles == {"call_2": "call_5", "call_5": None}
    assert {"call_3", "call_4"} <= handles_of(Side.build("after", text, G))
    assert "call_6" not in handles_of(Side.build("after", text, G))


def test_unless_is_if_not(mode: str) -> None:
    before = "The contract renews for a year unless we give written notice 60 days ahead."
    after = "The contract renews for a year if no written notice is given 60 days ahead."
    assert refgraph.Analyzer(mode).analyze(before, after, intent="summarize").codes == []


def test_a_count_of_a_total_is_another_measure(az: refgraph.Analyzer) -> None:
    before = "Audit: 58 of 120 credits done.\n\nElectives: 18 credits."
    assert az.analyze(before, "Audit: 58/120 credits. Electives: 18 credits.",
                      intent="summarize").codes == []


def test_a_weak_guess_does_not_hide_a_proven_finding() -> None:
    from refgraph.analyze import _one_per_cause
    from refgraph.findings import Evidence, Finding

    def finding(code: str, conf: float) -> Finding:
        ev = (Evidence("after", 0, 20, "the user thinks it", "conflict"),)
        return Finding(code, code.lower(), "error", "m", "h", ev, confidence=conf)

    # RG302 is the more specific code: it masks RG105 only when it is at least as sure
    guess, proven = finding("RG302", 0.58), finding("RG105", 0.79)
    assert [f.code for f in _one_per_cause([guess, proven])] == ["RG302", "RG105"]
    sure = finding("RG302", 0.9)
    assert [f.code for f in _one_per_cause([sure, proven])] == ["RG302"]


def test_a_condition_folded_into_the_action_is_kept(az: refgraph.Analyzer) -> None:
    before = ("Always check the code after you issue an edit to make sure that it reflects "
              "what you wanted to accomplish.")
    assert az.analyze(before, "Check the code after each edit.",
                      intent="summarize").codes == []


def test_a_heading_about_a_name_does_not_define_it(az: refgraph.Analyzer) -> None:
    """b6: "Idle analysis for ADHOC_L: ..." is a line about ADHOC_L, not its value."""
    before = ("Credits by warehouse: ETL_XL 6,120, ADHOC_L 3,310.\n\n"
              "Idle analysis for ADHOC_L: auto_suspend = 3,600 s; 40% of credits idle.")
    assert az.analyze(before, "ADHOC_L used 3,310 credits.", intent="summarize").codes == []
    # a label at the start of its line still binds the name
    assert az.analyze("MAX_RETRIES: 3\n\nRetry up to MAX_RETRIES times.",
                      "Retry up to MAX_RETRIES times.", intent="prune").codes == ["RG101"]


@pytest.mark.parametrize("mode", ["fast", "accurate"])
def test_a_prohibition_with_its_condition_folded_in_keeps_it(mode: str) -> None:
    """b6 (accurate): "if main.py has tests, do not edit them" is kept by "do not edit the
    tests in it"."""
    before = ("You should only be editing the main.py file. If the main.py file has tests in "
              "it, you should not edit them, but you can run main.py to see if they pass.")
    after = "Edit only main.py, and do not edit the tests in it; run main.py to see if they pass."
    assert refgraph.Analyzer(mode).analyze(before, after, intent="summarize").codes == []


def test_a_unit_shared_by_a_list_or_a_change_is_kept(az: refgraph.Analyzer) -> None:
    assert az.analyze("The p99 latency went from 850 ms to 420 ms.",
                      "p99 latency: 850 -> 420 ms.", intent="summarize").codes == []
    assert az.analyze("Disks hold 3 GB, 5 GB and 8 GB.", "Disks: 3, 5 and 8 GB.",
                      intent="summarize").codes == []
    # a number that stands apart from the other one lost its unit
    assert az.analyze("p99 was 4.8 s against the 800 ms SLO.",
                      "p99 4.8 against the 800 ms SLO.", intent="summarize").codes == ["RG201"]


def test_a_summary_s_agent_is_the_assistant(az: refgraph.Analyzer) -> None:
    before = ("User: Can you book the review?\n"
              "Agent: I'll schedule a 30-minute review call with Dev Malhotra for 20 March.")
    assert az.analyze(before, "Agent schedules a 30-min review call with Dev Malhotra for "
                              "20 Mar.", intent="summarize").codes == []


def test_b7_b8_summary_habits_are_not_corruptions(az: refgraph.Analyzer) -> None:
    """Causes of false alarms in fresh batches b7 and b8, each a general habit of summaries."""
    # a pair of answers is no negative result
    assert az.analyze("tool: Welcome. The server responded with a Yes/No question.\n"
                      "assistant: I will answer it.",
                      "The server asks a question; the assistant will answer it.",
                      intent="summarize").codes == []
    # the ends of a long hex string, and a method its class and name make
    before = ("assistant: n = CE3205AE0011223344556677C60F8107 is the modulus.\n"
              "tool: class TimeDelta:\n    def _serialize(self, value):\n        return value")
    assert az.analyze(before, "n = CE3205AE…C60F8107; the code is TimeDelta._serialize.",
                      intent="summarize").codes == []
    # one word read as a verb on one side and in a verbless line on the other
    assert az.analyze("assistant: Two of the three replicas are crash-looping.",
                      "Status: 2 of 3 replicas crash-looping.", intent="summarize").codes == []


def test_times_of_day_do_not_tell_people_apart(az: refgraph.Analyzer) -> None:
    before = ("Runbook log:\nLena (01:05): backfill started on the orders table, 4.1M rows.\n"
              "Dev (01:36): replica lag is 3 s.\nLena (02:40): backfill of the orders table "
              "finished, 4.1M rows.\nDev (02:34): lag back to 0 s.")
    assert az.analyze(before, "Lena started the orders backfill (4.1M rows) and finished it; "
                              "Dev saw replica lag of 3 s, then 0 s.",
                      intent="summarize").codes == []


def test_a_full_name_tells_which_of_two_people_it_is() -> None:
    az = refgraph.Analyzer("accurate")
    before = "Sam O. said the offer is fine. Sam W. disagreed about the offer."
    assert az.analyze(before, "Sam Oyelaran said the offer is fine.",
                      intent="summarize").codes == []


@pytest.mark.parametrize("mode", ["fast", "accurate"])
def test_a_condition_after_a_semicolon_governs_what_follows(mode: str) -> None:
    before = ("He wants the 2019 episode clarified before randomisation: request the Porto "
              "records; if they are unavailable, a serum lipase at screening is not sufficient "
              "on its own.")
    after = ("Plan: clarify the 2019 episode before randomisation. Marta requests the Porto "
             "records this week.")
    assert refgraph.Analyzer(mode).analyze(before, after, intent="summarize").codes == []


def test_an_approximation_carried_to_the_result_is_kept(az: refgraph.Analyzer) -> None:
    before = "The quartz is €410/m² and we need about 3.2 m², so roughly €1,312."
    assert az.analyze(before, "Quartz 3.2 m² × €410/m² ≈ €1,312.",
                      intent="summarize").codes == []


def test_a_tool_result_summarized_by_its_ids_or_cited_is_recoverable(
        az: refgraph.Analyzer) -> None:
    """b8: a run list summarized by the run ids it gave (its command's flags are how it was
    asked, no facts), and a SQL result cited by its call id (the table "orders" places no
    order: no one-shot side effect)."""
    runs = ("user: fix the red integration-tests on release/2.14.\n\n"
            "tool[call_1]: $ gh run list --branch release/2.14 --workflow ci.yml --limit 4\n"
            "X  bump boto3 to 1.35.0      push  8812345  14m02s  1d\n"
            "X  fix typo in CONTRIBUTING  push  8811990  13m47s  2d\n"
            "✓  merge #4410               push  8810002   9m31s  3d\n"
            "✓  merge #4402               push  8809417   9m18s  4d\n\n"
            "assistant: The last green run is 8810002. The first red one, 8811990, only "
            "touched CONTRIBUTING.md.")
    assert az.analyze(runs, "Goal: fix red integration-tests on release/2.14. Last green run "
                            "8810002; first red run 8811990 only touched CONTRIBUTING.md.",
                      intent="summarize").codes == []
    sql = ("user: why is the order-history page slow?\n\n"
           "assistant: I also checked bloat in case that's a factor.\n\n"
           "tool[call_5]: SELECT n_live_tup, n_dead_tup, last_autovacuum FROM "
           "pg_stat_user_tables WHERE relname = 'orders';\n"
           " 48170112 | 146210 | 2026-12-02 06:58:31+00\n\n"
           "assistant: Dead tuples are 0.3%, so not bloat.")
    assert az.analyze(sql, "Order-history page slow. Not bloat: about 0.3 % dead tuples, "
                           "autovacuum at 06:58 UTC (call_5).", intent="summarize").codes == []


def test_a_modal_of_another_verb_does_not_hedge_the_clause() -> None:
    """b8 (accurate): "might" belongs to "be the flag", not to "try to submit it"."""
    before = ("assistant: We found a string which might be the flag, try to submit it\n```\n"
              "submit flat{People always make the best exploits.}\n```\n\ntool: Wrong flag!")
    after = ('Submitted so far, all rejected with "Wrong flag!": `flat{People always make the '
             'best exploits.}` once.')
    assert refgraph.Analyzer("accurate").analyze(before, after, intent="summarize").codes == []


def test_a_request_credited_to_another_person_named_in_before() -> None:
    """A ticket's message headers name who wrote each message; a summary that has someone
    else ask for it misattributes the request (accurate: the parse names the reporter)."""
    before = ("[Tomasz Kowalczyk, 4 Dec 09:12]\nHi, we were charged twice. Can you cancel TK "
              "Studio and refund it? Please do not touch Kowalczyk Design.\n\n"
              "[Dana Whitfield (Support), 4 Dec 10:05]\nBecause Marta is the owner of TK "
              "Studio, the cancellation has to be confirmed by her. I've emailed her a link.")
    az = refgraph.Analyzer("accurate")
    rest = " and refund TK Studio and not to touch Kowalczyk Design.\n- Marta (owner) must confirm."
    assert az.analyze(before, "- Tomasz asked to cancel" + rest, intent="summarize").codes == []
    assert az.analyze(before, "- Marta asked to cancel" + rest,
                      intent="summarize").codes == ["RG105"]


def test_b9_summary_habits_are_not_corruptions(az: refgraph.Analyzer) -> None:
    """Causes of false alarms in fresh batch b9, each a general habit of summaries."""
    # "800 full charge cycles" charges no card: a cited result is recoverable
    warranty = ("user: is my battery covered?\n\nassistant: check_warranty(serial=\"BP-4410\")"
                "\n\ntool[call_2]: {\"component\": \"battery pack 36 V 14 Ah\", \"coverage\": "
                "\"24 months from delivery or 800 full charge cycles\", \"expires\": "
                "\"2027-03-18\"}\n\nassistant: It is covered until 18 March 2027.")
    assert az.analyze(warranty, "Battery: warranty (call_2) active until 2027-03-18, 24 "
                                "months or 800 cycles.", intent="summarize").codes == []
    # a booking's reference (with its suffix) is a key to look the record up again
    booking = ("user: book the Lisbon hotel.\n\ntool[call_3]: CONFIRMED ref CT-8842-LX, 3 "
               "nights, €492 total, free cancellation until 2027-03-07\n\nassistant: Booked.")
    assert az.analyze(booking, "Lisbon hotel booked, ref CT-8842-LX; free cancellation until "
                               "7 Mar.", intent="summarize").codes == []
    # "a nice-to-have" is a noun: no negative result
    assert az.analyze("user: Inês uses a wheelchair, so step-free access is a requirement, "
                      "not a nice-to-have.", "Step-free access is mandatory (Inês uses a "
                      "wheelchair).", intent="summarize").codes == []
    # a before word with an index is notation
    assert az.analyze("assistant: The hash adds each char times 2 to the power of its index.",
                      "`_hash` adds char_i * 2^i.", intent="summarize").codes == []
    # a zero kept without its noun is kept
    before = "assistant: I checked the dashboard. Fresh installs show 0 events as well."
    assert az.analyze(before, "Dashboard checked; fresh installs also 0.",
                      intent="summarize").codes == []


B10_HABITS = [
    # an embedded question ("ask Lin whether ...") asserts nothing a hedge could be dropped from
    ("assistant: The draft says the 30-day window was probably met.",
     "Ask Lin whether the 30-day window was met."),
    # "if it isn't fixed" and "unless fixed" are one condition
    ("Dispatch: the truck is grounded if it isn't fixed within 8 hours of engine run time.",
     "Truck grounded unless fixed within 8 h of engine run time."),
    # "usually" dropped from a rule of thumb is a summary's generalization, not a guess made fact
    ("Callum: Mild signs (vomiting, restlessness) can start above 20 mg/kg; heart effects "
     "usually above 40 mg/kg. So he's probably in the mild range.",
     "Callum: ≈ 22 mg/kg, probably mild (mild signs above 20 mg/kg, heart effects above "
     "40 mg/kg)."),
    # an antecedent ("unless we pay the fee") supposes the act the prohibition governs
    ("Sam Reilly says the hold expires Friday 12 March at 17:00 unless we pay a £1,000 holding "
     "fee.\n\nTomás Ferreira: But we shouldn't pay the holding fee until Lakeside sends the "
     "fire certificate.",
     "- Lakeside: hold lapses Fri 12 Mar 17:00 unless we pay the £1,000 holding fee; don't pay "
     "it until the fire certificate arrives."),
    # a limit kept with its number ("the limit is 45 min") is kept
    ("Priya Nair: The couple were firm: no venue more than 45 minutes' drive from St Aidan's. "
     "Harrow Mill was 38 minutes on my map.",
     "- Drive from St Aidan's: the couple's limit is 45 min. Harrow Mill is 38 min."),
    # "scan" the noun is the predicate "scan" again: no second thing in common to flip
    ("06:15 Ahmed Saleh (workshop): VAN-112, driver reported a warning light yesterday. Scan "
     "done: no stored fault codes, no pending codes. Light did not come back on during a 12 km "
     "test loop.",
     "- VAN-112: scan found no stored or pending codes and the light stayed off on a 12 km "
     "test loop; cleared."),
    # "at least 4 mm" restates "no pads under 4 mm", not the 11.0 mm measured on a new pad
    ("06:02 Rosa (dispatch): Reminder from fleet manager Hollis: no vehicle goes out with front "
     "brake pads under 4 mm.\n\n11:05 Ahmed: VAN-118 pads fitted, 11.0 mm both sides. Released.",
     "Hollis's rules: front pads at least 4 mm. VAN-118 released."),
    # a date range's dash joins two dates before states
    ("4. Dates. Loan period 14 March – 30 August 2028, in Gallery 4.",
     "- Agreed: 14 Mar–30 Aug 2028, in Gallery 4."),
]


@pytest.mark.parametrize("mode", ["fast", "accurate"])
@pytest.mark.parametrize(("before", "after"), B10_HABITS,
                         ids=["whether", "unless", "usually", "antecedent", "limit", "scan",
                              "bound", "range"])
def test_b10_summary_habits_are_not_corruptions(mode: str, before: str, after: str) -> None:
    """Causes of false alarms in fresh batch b10, each a general habit of summaries."""
    assert refgraph.analyze(before, after, mode=mode, intent="summarize").codes == []


def test_the_corruptions_next_to_the_b10_habits_are_still_caught() -> None:
    # the same shapes, corrupted: a guess made fact, unless turned into if, a limit changed
    assert refgraph.analyze("assistant: The 30-day window was probably met.",
                            "The 30-day window was met.", mode="fast",
                            intent="summarize").codes == ["RG304"]
    assert "RG301" in refgraph.analyze(
        "Dispatch: the truck is grounded if it isn't fixed within 8 hours of engine run time.",
        "Truck grounded if fixed within 8 h of engine run time.", mode="fast",
        intent="summarize").codes
    assert refgraph.analyze(
        "Priya Nair: The couple were firm: no venue more than 45 minutes' drive.",
        "Couple's limit: no venue more than 55 minutes' drive.", mode="fast",
        intent="summarize").codes == ["RG202"]


UNLESS_BECAME_IF = [
    # the outcome paraphrased ("renews automatically" / "auto-renews"), the condition kept
    ("Under 12.2 the agreement renews automatically for successive 12-month terms unless "
     "either party gives written notice of non-renewal at least 90 days before the end of the "
     "then-current term.",
     "Fine: §12.2 auto-renews for 12-month terms if either side gives ≥90 days' notice before "
     "term end."),
    # the condition paraphrased ("potassium is below" / "K <"), the outcome kept
    ("Night plan for bed 12: hold the 08:00 lisinopril unless the repeat potassium is below "
     "5.0 mmol/L.",
     "Plan: hold the 08:00 lisinopril if repeat K < 5.0 mmol/L."),
]


@pytest.mark.parametrize(("before", "after"), UNLESS_BECAME_IF, ids=["outcome", "condition"])
def test_unless_turned_into_if_is_caught_across_a_paraphrase(before: str, after: str) -> None:
    report = refgraph.analyze(before, after, mode="fast", intent="summarize")
    assert report.codes == ["RG301"]
    f = report.findings[0]
    assert [e.role for e in f.evidence] == ["claim", "conflict", "claim", "conflict"]
    assert _quotes_hold(report)
    # said with "unless" (or with "if" and a negation) it is kept
    kept = after.replace(" if ", " unless ")
    assert refgraph.analyze(before, kept, mode="fast", intent="summarize").codes == []


def test_a_labelled_negative_value_is_one_claim_and_its_flip_is_caught() -> None:
    # "**Ethics**: not required" is the claim "ethics not required", in bold or not
    before = "- **Ethics**: not required (no human subjects beyond SMS opt-in consent)."
    assert refgraph.analyze(before, "Ethics review not needed.", mode="fast",
                            intent="summarize").codes == []
    assert refgraph.analyze(before, "Ethics review needed.", mode="fast",
                            intent="summarize").codes == ["RG301"]


@pytest.mark.parametrize("mode", ["fast", "accurate"])
def test_a_causal_link_joins_the_clauses_beside_its_connective_not_a_label(mode: str) -> None:
    before = ("Dana: both platforms ship together because the backend feature flags assume "
              "one version.")
    kept = "- Both platforms ship together because the backend feature flags assume one version."
    swapped = ("- The backend feature flags assume one version because both platforms ship "
               "together.")
    assert refgraph.analyze(before, kept, mode=mode, intent="summarize").codes == []
    report = refgraph.analyze(before, swapped, mode=mode, intent="summarize")
    assert report.codes == ["RG302"]
    assert [e.quote for e in report.findings[0].evidence[:2]] == [
        "the backend feature flags assume one version", "both platforms ship together"]


LONG_ERROR = ("AttributeError: Unable to convert the pixel data as the following required "
              "elements are missing from the dataset: PixelRepresentation")
B11_HABITS = [
    # a code span longer than any name keeps its backticks: the prose after it is no code
    (f"assistant: python reproduce_bug.py\ntool: Traceback ... {LONG_ERROR}\nassistant: So the "
     "bug reproduces; the call path runs through `convert_pixel_data`.",
     f"`python reproduce_bug.py` fails with `{LONG_ERROR}`, which confirms the report. Stack: "
     "`convert_pixel_data`."),
    # "0x10" is one number in a code span, as before writes it
    ("tool: pbVar4 = (byte *)(param_1 + 0x10); *pbVar4 = (*pbVar4 ^ 0x10) + 9 & 0xFF;",
     "Invert it with `((c - 9) ^ 0x10) & 0xFF`."),
    # a suggestion ("could name target journals") kept as a request states no fact
    ("- Dissemination plan could name target journals.",
     "- **Feedback letter (minor)**: duplicate refs; name target journals."),
    # "use 9.8, not 10" rules out the other value; it denies nothing of the clause
    ("tutor: we have to use g = 9.8 m/s² not 10, the question says so.",
     "Use g = 9.8 m/s², as the question says."),
    # Kubernetes' "8Gi" is 8 GiB, which is 8,192 MiB
    ('tool[af-03]: {"msg": "worker pod resources: requests 6Gi / limits 8Gi"}',
     "- af-03: worker pod limit 8,192 MiB (requests 6 GiB)."),
]


@pytest.mark.parametrize("mode", ["fast", "accurate"])
@pytest.mark.parametrize(("before", "after"), B11_HABITS,
                         ids=["long-code-span", "hex", "suggestion", "not-value",
                              "kubernetes-units"])
def test_b11_summary_habits_are_not_corruptions(mode: str, before: str, after: str) -> None:
    """Causes of false alarms in fresh batch b11 (after its first measurement)."""
    assert refgraph.analyze(before, after, mode=mode, intent="summarize").codes == []


@pytest.mark.parametrize("mode", ["fast", "accurate"])
def test_b12_a_short_call_id_cited_in_after_keeps_its_result_recoverable(mode: str) -> None:
    before = ('user: check the row counts.\ntool[c1]: psql -h old-db -c "select count(*) from '
              'orders"\n count\n----------\n 48213907\n(1 row)\nassistant: 48,213,907 rows.')
    kept = "Row counts: 48,213,907 on OLD (c1)."
    assert refgraph.analyze(before, kept, mode=mode, intent="summarize").codes == []
    assert refgraph.analyze(before, "Row counts: 48,213,907 on OLD.", mode=mode,
                            intent="summarize").codes == ["RG501"]


@pytest.mark.parametrize("mode", ["fast", "accurate"])
def test_b12_an_exact_value_before_also_states_is_no_dropped_approximation(mode: str) -> None:
    before = ("assistant: Lag is 1.85 seconds right now.\n\nassistant: Summary: counts equal, "
              "lag is about 1.85 s.")
    assert refgraph.analyze(before, "Replication lag was 1.85 s.", mode=mode,
                            intent="summarize").codes == []
    # stated only as approximate, it is still caught
    assert refgraph.analyze("assistant: Summary: counts equal, lag is about 1.85 s.",
                            "Replication lag was 1.85 s.", mode=mode,
                            intent="summarize").codes == ["RG304"]



@pytest.mark.parametrize("mode", ["fast", "accurate"])
def test_a_clause_opening_without_qualifies_a_part(mode: str) -> None:
    # "Without a lock the job runs" says the job runs (without a lock): no denial of the run
    from refgraph.claims import claims_of
    from refgraph.graph import build_graph
    for text, negative in (("Without a lock the job runs.", False),
                           ("Without a DMP the application is ineligible.", True)):
        [c] = claims_of(build_graph(text, mode=mode)).claims
        assert (c.negative, c.qualified) == (negative, True), text


# Causes found on fresh batch b13 (each written here in other words than the batch's).
@pytest.mark.parametrize("mode", ["fast", "accurate"])
def test_nothing_may_is_a_prohibition_not_a_hedge(mode: str) -> None:
    before = "user: If you add a lifecycle rule, nothing may expire in under 90 days."
    after = "- User: any lifecycle rule must not expire objects in under 90 days."
    assert "RG304" not in refgraph.analyze(before, after, intent="summarize", mode=mode).codes
    G = refgraph.build_graph(before + "\n\ntool: nothing matched the filter.", mode=mode)
    forces = {d["text"]: d.get("force") for _, d in G.nodes(data=True) if d["kind"] == "claim"}
    assert forces["nothing may expire in under 90 days"] == "prohibition"
    assert forces["nothing matched the filter"] is None


@pytest.mark.parametrize(("before", "kept", "changed_from", "changed", "code"), [
    # A bound beside a measurement in the very unit leaves the unit out as read; after "5 s",
    # a bare 10 that was 10 minutes reads as seconds.
    ("The warm-up must last at least 10 minutes. It lasted 12 minutes.",
     "A 12-minute warm-up (10 minimum) was done.",
     "Retry after 5 s. The warm-up must last at least 10 minutes.",
     "Retry after 5 s; the warm-up must last at least 10.", "RG201"),
    # A value worked out from its sentence (4 sacks of 25 kg) is no change.
    ("- Flour (25 kg sacks): 4 sacks on hand; par 3.", "- flour 4 sacks (100 kg), over par.",
     "", "- Flour (20 kg sacks): 4 sacks on hand; par 3.", "RG202"),
    # A CamelCase name of before's words is supported; another one is not.
    ("assistant: there is a syntax error in parse.py on line 4.",
     "Goal: a SyntaxError in parse.py, line 4.", "",
     "Goal: a ValueError in parse.py, line 4.", "RG104"),
])
def test_a_restatement_is_kept_and_a_change_is_caught(
        az: refgraph.Analyzer, before: str, kept: str, changed_from: str, changed: str,
        code: str) -> None:
    assert az.analyze(before, kept, intent="summarize").codes == []
    assert az.analyze(changed_from or before, changed, intent="summarize").codes == [code]


@pytest.mark.parametrize("mode", ["fast", "accurate"])
def test_no_such_file_points_at_nothing(mode: str) -> None:
    G = refgraph.build_graph("tool: cat: notes.txt: No such file or directory", mode=mode)
    assert [d for _, d in G.nodes(data=True) if d["kind"] == "deictic"] == []
    G = refgraph.build_graph("Keep a copy of the log. Any such file must be kept.", mode=mode)
    assert [d["text"] for _, d in G.nodes(data=True) if d["kind"] == "deictic"] == ["such file"]


def test_a_denied_act_does_not_depend_on_its_condition(az: refgraph.Analyzer) -> None:
    before = "The linter rejected the edit. Edit the config again if needed."
    assert "RG303" not in az.analyze(before, "The edit was rejected; the config was not edited.",
                                     intent="summarize").codes
    assert "RG303" in az.analyze("Deploy the build only if the tests pass.", "Deploy the build.",
                                 intent="summarize").codes


def test_a_long_output_that_mentions_acts_is_fetched_again_by_its_command(
        az: refgraph.Analyzer) -> None:
    # The command kept in backticks names its file; "eight lines" counts the output's lines;
    # an output that mentions acts ("raised the flag") is no report of one.
    lines = ["Captain Silver raised the flag at dawn.", "The flag of the Hispaniola was grey.",
             "Tuppence had a flagon of wine.", "The flags were limp over Dantes.",
             "No flag was seen by Tommy.", "The flagstones of Marseille were wet.",
             "A flag of truce came from Jim.", "There were flags on every mast of the Pequod."]
    before = ("assistant: run strings on the image\n```\nstrings disk.img | grep flag\n```\n\n"
              "tool: " + "\n".join(lines) + "\n\nassistant: none of these is the flag.")
    after = ("- `strings disk.img | grep flag` printed eight lines of prose that mention flags, "
             "none a flag.")
    assert az.analyze(before, after, intent="summarize").codes == []
    # A report of an act is not fetched again by re-running its call.
    assert "RG501" in az.analyze(
        "tool[call_2]: deployed api v2 to prod and restarted 3 pods on node-7\n\n"
        "assistant: the deploy is done.", "- The deploy (call_2) is done on node-7.",
        intent="summarize").codes


def test_a_parser_guess_inside_a_note_does_not_cut_a_quantity() -> None:
    G = refgraph.build_graph("- Stock: olive oil 7 × 5 L tins, over par 6, so no order.",
                             mode="accurate")
    units = {d["text"]: d.get("unit") for _, d in G.nodes(data=True) if d["kind"] == "quantity"}
    assert units.get("5 L") == "liter"


@pytest.mark.parametrize("mode", ["fast", "accurate"])
def test_a_mention_of_none_is_no_entity_to_merge(mode: str) -> None:
    before = ("assistant: Most of the increase is NAT Gateway in prod (+$12,580) and S3 in the "
              "EU account (+$2,870).\n\nassistant: Draft findings: (1) add an endpoint; (2) no "
              "lifecycle rule; (3) no untagged S3 in the EU account.")
    after = ("- call_1: mostly NAT Gateway in PROD, and S3 in EU, $5,600 -> $8,470.\n"
             "- Draft: endpoint; no lifecycle rule; no untagged S3 in EU.")
    assert "RG103" not in refgraph.analyze(before, after, intent="summarize", mode=mode).codes


def test_a_doubled_limit_is_not_worked_out_from_itself(az: refgraph.Analyzer) -> None:
    before = "user: One rule: nothing over £500 gets posted without Joanne's sign-off."
    assert az.analyze(before, "Rule: nothing over £1,000 posted without Joanne's sign-off.",
                      intent="summarize").codes == ["RG202"]


def test_a_reference_resolved_to_what_its_head_does_not_name_proves_nothing() -> None:
    # The resolver took "after Sam reset the breaker" for "the above threshold": citing it as
    # what the reference lost would be a false proof.
    before = ("- Night 3: the spectrum only if T2 is still brighter than r = 20.5.\n"
              "- The heater works again after Sam reset the breaker.\n"
              "- T2 was fainter than the above threshold, so no spectrum.")
    after = "- Heater fixed.\n- T2 was fainter than the above threshold, so no spectrum."
    r = refgraph.analyze(before, after, intent="summarize", mode="accurate")
    assert "RG102" not in r.codes
    assert [f.confidence for f in r.suppressed if f.code == "RG102"] == [0.5]


class TestFreshBatchB14:
    """Causes of false alarms in fresh batch b14 (after its first measurement)."""

    def test_a_number_before_itself_writes_bare_has_lost_no_unit(
            self, az: refgraph.Analyzer) -> None:
        before = ("tool[lookup_1]: eGFR 30–80 mL/min: no adjustment needed.\n\n"
                  "assistant: At eGFR 38 she's in the 30–80 band, so no adjustment.")
        assert "RG201" not in az.analyze(before, "- Renal: no adjustment for eGFR 30–80.",
                                         intent="summarize").codes
        # without the bare use in before, the lost unit is still caught
        assert "RG201" in az.analyze("The pool holds 30 connections per worker.\n"
                                     "The timeout is 45 seconds.",
                                     "The timeout is 45.", intent="summarize").codes

    def test_a_file_name_shortened_with_an_ellipsis_is_still_its_handle(
            self, az: refgraph.Analyzer) -> None:
        before = ("assistant: cat eps1.7_wh1ter0se_2b007cf0ba9881d954e85eb475d0d5e4.m4v\n\n"
                  "tool: EOY XF, AY VMU M UKFNY TOY YF UFWHYKAXZ EAZZHN.\n\n"
                  "assistant: That looks like a substitution cipher.")
        after = "- eps1.7_wh1ter0se_….m4v holds a substitution cipher, not decrypted yet."
        codes = az.analyze(before, after, intent="summarize").codes
        assert "RG501" not in codes
        assert "RG104" not in codes  # the shortened name is before's, not invented
        # a head and tail that fit no file of before are no handle of it
        assert "RG104" in az.analyze(before, after.replace("eps1.7", "ops2.3"),
                                     intent="summarize").codes

    def test_a_summary_that_quotes_the_command_can_re_run_it(
            self, az: refgraph.Analyzer) -> None:
        before = ("assistant: Let me disassemble the binary.\n```\ndisassemble warmup\n```\n\n"
                  "tool: Function main not found! Instead, here is FUN_0040061d: local_48, "
                  "local_88, gets\n\n"
                  "assistant: It calls gets() on a 64-byte stack buffer.")
        after = "- `disassemble warmup` found no main; FUN_0040061d calls gets() on 64 bytes."
        assert "RG501" not in az.analyze(before, after, intent="summarize").codes
        # naming another command keeps no way back to this result
        assert "RG501" in az.analyze(before, after.replace("`disassemble warmup`",
                                                           "`objdump -d warmup`"),
                                     intent="summarize").codes


# Causes of false findings from the fourth blind LoCoMo judge and from fresh batch b15 (own
# sentences): before, a faithful after, the code it must not raise, and a pair that must still
# raise that code.
_SAID_ANOTHER_WAY = {
    # a relative clause under a far frame is its antecedent's claim, not the frame speaker's
    "relative-clause-under-a-far-frame": (
        "Omar [D1:1]: I'm off to Portugal next month, any tips?\n"
        "Lena [D1:2]: I would recommend visiting the old monasteries.",
        "Omar mentioned his trip to Portugal, asking Lena for tips, who suggested visiting the "
        "old monasteries.", "RG105",
        ("Omar [D1:1]: I'm off to Portugal next month, any tips?\n"
         "Lena [D1:2]: I would recommend visiting the old monasteries.",
         "Omar said he would recommend visiting the old monasteries.")),
    # "thinking about" is kept by "considering"; "considered" hedges, so dropping it counts
    "considering-keeps-thinking-about": (
        "Rui [D2:4]: Those kids love the game. I'm already thinking about making competitions "
        "for them too.",
        "Rui, who loves the game, was considering making competitions for them.", "RG304",
        ("The outage is considered resolved.", "The outage is resolved.")),
    # zero counts left to another clause ("none idle") are not asserted away
    "zero-counts-left-to-another-clause": (
        'tool[q-7] rack.status → rack A: 7 running, 2 idle (N03, N08), 1 error (N10: "fan '
        'stall"); rack C: 14 running, 0 idle, 0 error.',
        "- Racks (q-7): rack A 7 running, N03 and N08 idle, N10 in error; rack C 14 running, "
        "none idle, no errors.", "RG301",
        ("The query returned 0 rows.", "The query returned rows.")),
    # a negative result whose words ("file", "line") after still uses elsewhere is not
    # proven to be depended on: only a shared identifier, handle or name proves it. From b10.
    "common-nouns-are-no-dependency": (
        "tool[call_4]: The edited file does not contain duplicate lines.\n"
        "assistant: The traceback points at line 4 of the file.",
        "The traceback points at line 4 of the file.", "RG502",
        ("Checked the export. The email column was absent in all 3 files. Next: backfill the "
         "email column.", "Checked the export. Next: backfill the email column.")),
}


@pytest.mark.parametrize(("before", "after", "code", "changed"), _SAID_ANOTHER_WAY.values(),
                         ids=_SAID_ANOTHER_WAY.keys())
def test_a_meaning_said_another_way_is_no_finding(az: refgraph.Analyzer, before: str,
                                                   after: str, code: str,
                                                   changed: tuple[str, str]) -> None:
    assert code not in az.analyze(before, after, intent="summarize").codes
    assert code in az.analyze(*changed, intent="summarize").codes


class TestFreshBatchB15:
    """Causes of false alarms in fresh batch b15 (after its first measurement; own texts)."""

    def test_a_clock_stamped_turn_is_its_speakers_not_the_tool_output_above(
            self, az: refgraph.Analyzer) -> None:
        before = ('tool[call_3] -> {"results": [], "message": "0 recalls matched"}\n'
                  "[09:08] agent: I think the weekend menu will use more cream than usual.")
        after = "- The agent thinks the weekend menu will use more cream than usual."
        assert "RG105" not in az.analyze(before, after, intent="summarize").codes
        blocks = refgraph.split_blocks(before)
        assert [b.role for b in blocks] == ["tool", "agent"]
        # a log line's level is no speaker
        assert not [b for b in refgraph.split_blocks("[10:02] ERROR: disk full\n[10:03] WARN: x")
                    if b.role]

    def test_a_code_the_tokenizer_split_is_still_before_s(self) -> None:
        az = refgraph.Analyzer("accurate")  # the parse's tokens split "A-2026-55810"
        before = ("user: File LN-7731: a house at $412,000 with 10% down, so 90% LTV. Applicant "
                  "ID A-2026-55810 is Tomás Varga.")
        after = ("File LN-7731, applicant Tomás Varga (A-2026-55810): the house at $412,000 "
                 "with 10% down.")
        found = az.analyze(before, after, intent="summarize", min_confidence=0.3)
        assert not [f for f in found.findings if "Varga" in f.message]
        changed = az.analyze(before, after.replace("55810", "55811"), intent="summarize")
        assert "RG104" in changed.codes


@pytest.mark.parametrize("mode", ["fast", "accurate"])
def test_a_label_is_not_the_subject_of_the_clause_after_its_colon(mode: str) -> None:
    """ "Dr. Okoro (email, 09:12): 22-014 was re-drawn": the clause after a label's colon does
    not take the label's name as its subject (a cause of b16's false alarms; own text)."""
    az = refgraph.Analyzer(mode)  # type: ignore[arg-type]
    before = ("## Dr. Okoro (site PI), by email\n- She states that 22-014's ALT was re-drawn "
              "on 2026-03-02 and came back at 80 U/L.\n")
    after = ("**Dr. Okoro (email, 09:12)**: 22-014 was re-drawn on 2026-03-02 and came back at "
             "80 U/L.\n")
    assert "RG105" not in az.analyze(before, after, intent="summarize").codes
    assert "RG105" in az.analyze("Marta [D1:1]: I replaced the disk on db-7 on Monday.\n"
                                 "Omar [D1:2]: Good, thanks.",
                                 "Omar replaced the disk on db-7 on Monday.",
                                 intent="summarize").codes


# Found by batch b17 (first measured before tuning): faithful summaries flagged.

@pytest.mark.parametrize("mode", ["fast", "accurate"])
def test_an_amount_beside_a_name_does_not_make_it_a_second_entity(mode: str) -> None:
    before = ("tool[call_1]: doc_parse -> 1099-NEC, payer Brightline Studio LLC (EIN "
              "84-2219034), box 1 $18,400.00\nassistant: I see one 1099-NEC from Brightline "
              "Studio LLC ($18,400).")
    after = "Income (call_1): 1099-NEC from Brightline Studio LLC, $18,400."
    assert "RG103" not in refgraph.analyze(before, after, mode=mode).codes


@pytest.mark.parametrize("mode", ["fast", "accurate"])
def test_code_restated_in_notation_with_before_names_is_supported(mode: str) -> None:
    before = ('31:        m = pow(m, e, n)\n34:        return {"time_capsule": f"{m:X}", '
              '"pubkey": [f"{n:X}", f"{e:X}"]}')
    after = ('Each answer returns JSON `{"time_capsule": hex(m^e mod n), "pubkey": [hex n, '
             'hex e]}` with a new key.')
    assert "RG104" not in refgraph.analyze(before, after, mode=mode).codes
    # a name before never wrote is still unsupported, in notation or not
    invented = after.replace("pubkey", "session_token")
    assert "RG104" in refgraph.analyze(before, invented, mode=mode).codes


@pytest.mark.parametrize("mode", ["fast", "accurate"])
def test_a_hedged_antecedent_restated_as_an_unless_is_no_dropped_hedge(mode: str) -> None:
    before = ("The seepage exclusion should not apply. If the drying log shows rot or staining "
              "that suggests a long-running leak, that would change the picture.")
    after = ("The seepage exclusion should not apply, unless the drying log shows signs of a "
             "long-running leak.")
    assert "RG304" not in refgraph.analyze(before, after, mode=mode, intent="summarize").codes


# Found by batch b18 (first measured before tuning).

@pytest.mark.parametrize("mode", ["fast", "accurate"])
def test_a_long_hex_cut_short_with_an_ellipsis_is_supported(mode: str) -> None:
    c = "A76EDD727245046F0A2407582423AEC192019947458769DF7B96D5CCD15F4D34"
    before = f'tool: {{"time_capsule": "{c}"}}'
    after = "The time capsule: `A76EDD72…CCD15F4D34`."
    assert "RG104" not in refgraph.analyze(before, after, mode=mode).codes
    assert "RG104" in refgraph.analyze(before, after.replace("A76", "B76"), mode=mode).codes


@pytest.mark.parametrize("mode", ["fast", "accurate"])
def test_two_readings_of_one_name_are_not_two_entities(mode: str) -> None:
    before = ("- BISCUIT, dog: T 38.4 at 18:00, eating.\n"
              "- BISCUIT recheck at 21:00: T 39.1, lethargic.")
    after = "- BISCUIT: T 39.1 at the 21:00 recheck (38.4 at 18:00), now lethargic."
    assert "RG103" not in refgraph.analyze(before, after, mode=mode).codes


@pytest.mark.parametrize("mode", ["fast", "accurate"])
def test_a_when_clause_conditions_the_order_after_its_comma(mode: str) -> None:
    from refgraph.claims import claims_of

    cs = claims_of(refgraph.build_graph("When the flag is found, run `submit`.", mode=mode))
    order = next(c for c in cs.claims if c.mood == "imperative")
    assert [cs.by_id[a].text for a, _, _ in order.conditions] == ["When the flag is found"]


@pytest.mark.parametrize("mode", ["fast", "accurate"])
def test_every_clause_of_an_antecedent_is_supposed(mode: str) -> None:
    from refgraph.claims import claims_of

    text = "If you run a command and it doesn't work, try running a different command."
    cs = claims_of(refgraph.build_graph(text, mode=mode))
    denial = next(c for c in cs.claims if c.negative)
    assert denial.conditioned  # "it doesn't work" is supposed, not a negative finding
    before = text + " Rules: one command at a time."
    assert "RG502" not in refgraph.analyze(before, "Rules: one command at a time.",
                                           mode=mode, intent="prune").codes


@pytest.mark.parametrize("mode", ["fast", "accurate"])
def test_a_comma_splice_with_that_is_two_claims(mode: str) -> None:
    before = "The drone can't fly in gusts above 25 mph, that's the operator's limit."
    after = "The drone operator's limit is 25 mph gusts."
    assert "RG301" not in refgraph.analyze(before, after, mode=mode,
                                           intent="summarize").codes
