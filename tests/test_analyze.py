"""The analyzer's API contract: examples, verdicts, the report schema, policy, select/ignore,
bad input, odd input and one cause -> one finding (docs/contracts.md sections 1 and 5)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import refgraph
from refgraph import Analyzer, Evidence, Finding, InputError, Report
from refgraph.report import verdict_for
from refgraph.rules import RULES, Rule

EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "examples").glob("*.md"))
PAIR_RULES = [r for r in RULES if not r.lint and not r.guard]
LINT_RULES = [r for r in RULES if r.lint]
VERDICT_OF = {"error": "reject", "warning": "apply-with-log", "info": "apply-with-log"}

TIMEOUT_BEFORE = "The timeout is 30 seconds."
TIMEOUT_AFTER = "The timeout is 30."


@pytest.fixture(scope="module")
def az(mode: str) -> Analyzer:
    return Analyzer(mode)  # type: ignore[arg-type]


def assert_evidence_quotes(report: Report) -> None:
    """Every evidence quote is exactly the text it cites, on its own side."""
    texts = {"before": report.before, "after": report.after}
    for f in report.findings:
        assert f.evidence, f"{f.code} cites no evidence"
        for e in f.evidence:
            assert e.side in texts
            text = texts[e.side]
            assert 0 <= e.start <= e.end <= len(text), (f.code, e)
            assert e.quote == text[e.start:e.end], (f.code, e)


def expected_verdict(findings: list[Finding]) -> str:
    if not findings:
        return "apply"
    if any(f.severity == "error" for f in findings):
        return "reject"
    return "apply-with-log"


def run_example(az: Analyzer, rule: type[Rule]) -> Report:
    ex = rule.example
    if rule.lint:
        return az.lint(ex.before)
    assert ex.after is not None
    return az.analyze(ex.before, ex.after, intent=ex.intent, declared_span=ex.declared_span,
                      justification=ex.justification, protected=ex.protected)


# every rule's example -------------------------------------------------------------------------


@pytest.mark.parametrize("rule", PAIR_RULES, ids=[r.code for r in PAIR_RULES])
def test_pair_rule_example_produces_its_code(az: Analyzer, rule: type[Rule]) -> None:
    report = run_example(az, rule)
    assert report.codes == [rule.code], report.format_text()
    assert report.verdict == VERDICT_OF[rule.severity]
    assert report.verdict == expected_verdict(report.findings)
    assert report.intent == rule.example.intent
    assert report.mode == az.mode
    assert_evidence_quotes(report)


@pytest.mark.parametrize("rule", LINT_RULES, ids=[r.code for r in LINT_RULES])
def test_lint_rule_example_produces_its_code(az: Analyzer, rule: type[Rule]) -> None:
    report = run_example(az, rule)
    assert report.codes == [rule.code], report.format_text()
    assert report.verdict == VERDICT_OF[rule.severity]
    assert report.intent == "lint"
    assert all(e.side == "before" for f in report.findings for e in f.evidence)
    assert_evidence_quotes(report)


@pytest.mark.parametrize("rule", PAIR_RULES, ids=[r.code for r in PAIR_RULES])
def test_unchanged_example_is_apply(az: Analyzer, rule: type[Rule]) -> None:
    """The before of each example, left as it is, is no corruption."""
    ex = rule.example
    report = az.analyze(ex.before, ex.before, intent="rewrite")
    assert report.verdict == "apply", report.format_text()
    assert report.findings == []


def test_module_functions_match_the_analyzer(mode: str) -> None:
    report = refgraph.analyze(TIMEOUT_BEFORE, TIMEOUT_AFTER, mode=mode)
    assert report.codes == ["RG201"]
    assert report.mode == mode
    lint = refgraph.lint("Retry the upload up to MAX_RETRIES times.", mode=mode)
    assert lint.codes == ["RG604"]
    assert lint.verdict == "apply-with-log"


# verdicts -------------------------------------------------------------------------------------


def _finding(severity: str) -> Finding:
    return Finding("RG201", "dropped-unit", severity, "m", "h",  # type: ignore[arg-type]
                   (Evidence("before", 0, 0, ""),))


@pytest.mark.parametrize(("severities", "verdict"), [
    ((), "apply"),
    (("info",), "apply-with-log"),
    (("warning",), "apply-with-log"),
    (("info", "warning"), "apply-with-log"),
    (("error",), "reject"),
    (("info", "warning", "error"), "reject"),
])
def test_verdict_follows_the_severity_table(severities: tuple[str, ...], verdict: str) -> None:
    assert verdict_for([_finding(s) for s in severities]) == verdict


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_unchanged_context_is_apply(az: Analyzer, path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    for intent in ("rewrite", "summarize"):
        report = az.analyze(text, text, intent=intent)
        assert report.verdict == "apply", report.format_text()
        assert report.findings == []


def test_there_are_examples() -> None:
    assert len(EXAMPLES) >= 4


# report ---------------------------------------------------------------------------------------


def test_report_to_dict_schema(az: Analyzer) -> None:
    report = az.analyze(TIMEOUT_BEFORE, TIMEOUT_AFTER, intent="summarize")
    d = report.to_dict()
    assert d["schema"] == "refgraph.report/2"
    assert {"verdict", "intent", "mode", "findings", "stats", "min_confidence",
            "suppressed"} <= set(d)
    assert d["verdict"] == "reject"
    assert d["intent"] == "summarize"
    assert d["mode"] == az.mode
    assert isinstance(d["stats"], dict)
    (f,) = d["findings"]
    assert set(f) == {"code", "name", "severity", "confidence", "message", "hint", "evidence",
                      "fingerprint"}
    assert re.fullmatch(r"[0-9a-f]{16}", f["fingerprint"])
    assert f["code"] == "RG201"
    assert f["name"] == "dropped-unit"
    assert f["severity"] == "error"
    assert d["min_confidence"] <= f["confidence"] <= 1
    assert [e["role"] for e in f["evidence"]] == ["claim", "conflict"]
    for e in f["evidence"]:
        assert set(e) == {"side", "start", "end", "quote", "role", "node", "line", "column",
                          "end_line", "end_column"}
        graph = report.before_graph if e["side"] == "before" else report.after_graph
        assert graph is not None
        assert graph.nodes[e["node"]]["kind"] == "quantity"
        text = TIMEOUT_BEFORE if e["side"] == "before" else TIMEOUT_AFTER
        assert e["quote"] == text[e["start"]:e["end"]]
    assert json.loads(json.dumps(d)) == d
    assert json.loads(report.to_json()) == d


def test_lint_report_to_dict(az: Analyzer) -> None:
    d = az.lint("The request timeout is 30.").to_dict()
    assert d["schema"] == "refgraph.report/2"
    assert d["intent"] == "lint"
    assert [f["code"] for f in d["findings"]] == ["RG601"]
    json.dumps(d)


def test_clean_report_to_dict(az: Analyzer) -> None:
    d = az.analyze("Same text.", "Same text.").to_dict()
    assert d["verdict"] == "apply"
    assert d["findings"] == []
    json.dumps(d)


# policy ---------------------------------------------------------------------------------------


def _dropped_unit(analyzer: Analyzer) -> Report:
    ex = refgraph.rules.BY_CODE["RG201"].example
    assert ex.after is not None
    return analyzer.analyze(ex.before, ex.after, intent=ex.intent)


def test_policy_warning_downgrades_to_apply_with_log(mode: str) -> None:
    report = _dropped_unit(Analyzer(mode, policy={"RG201": "warning"}))  # type: ignore[arg-type]
    assert report.codes == ["RG201"]
    assert report.findings[0].severity == "warning"
    assert report.verdict == "apply-with-log"


def test_policy_info_and_lowercase_code(mode: str) -> None:
    report = _dropped_unit(Analyzer(mode, policy={"rg201": "info"}))  # type: ignore[arg-type]
    assert report.findings[0].severity == "info"
    assert report.verdict == "apply-with-log"


def test_policy_off_removes_the_finding(mode: str) -> None:
    report = _dropped_unit(Analyzer(mode, policy={"RG201": "off"}))  # type: ignore[arg-type]
    assert report.findings == []
    assert report.verdict == "apply"


def test_policy_can_make_a_lint_rule_an_error(mode: str) -> None:
    az = Analyzer(mode, policy={"RG601": "error"})  # type: ignore[arg-type]
    report = az.lint("The request timeout is 30.")
    assert report.verdict == "reject"


@pytest.mark.parametrize("policy", [
    {"RG999": "warning"},
    {"XX201": "off"},
    {"RG201": "fatal"},
    {"RG201": None},
    {"RG201": "ERROR"},
])
def test_bad_policy_is_input_error(policy: dict[str, object]) -> None:
    with pytest.raises(InputError) as exc:
        Analyzer("fast", policy=policy)  # type: ignore[arg-type]
    assert isinstance(exc.value, ValueError)
    assert str(exc.value)


# select / ignore ------------------------------------------------------------------------------


@pytest.mark.parametrize(("select", "codes"), [
    (["RG2"], ["RG201"]), (["RG201"], ["RG201"]), (["RG3"], []), ("RG2,RG3", ["RG201"]),
    (["rg20"], ["RG201"]),
])
def test_select_by_prefix(az: Analyzer, select: list[str] | str, codes: list[str]) -> None:
    assert az.analyze(TIMEOUT_BEFORE, TIMEOUT_AFTER, select=select).codes == codes


@pytest.mark.parametrize(("ignore", "codes"), [
    (["RG2"], []), (["RG201"], []), (["RG3"], ["RG201"]), (["RG202"], ["RG201"]),
])
def test_ignore_by_prefix(az: Analyzer, ignore: list[str], codes: list[str]) -> None:
    assert az.analyze(TIMEOUT_BEFORE, TIMEOUT_AFTER, ignore=ignore).codes == codes


def test_select_and_ignore_on_lint(az: Analyzer) -> None:
    text = "The request timeout is 30. Retry up to MAX_RETRIES times."
    assert az.lint(text).codes == ["RG601", "RG604"]
    assert az.lint(text, select=["RG601"]).codes == ["RG601"]
    assert az.lint(text, ignore=["RG60"]).codes == []


@pytest.mark.parametrize("what", ["select", "ignore"])
@pytest.mark.parametrize("value", [["RG9"], ["RG999"], ["XX"], ["201"], ["RG2", "RG7"]])
def test_unknown_prefix_is_input_error(az: Analyzer, what: str, value: list[str]) -> None:
    with pytest.raises(InputError, match="no finding code matches"):
        az.analyze(TIMEOUT_BEFORE, TIMEOUT_AFTER, **{what: value})  # type: ignore[arg-type]
    with pytest.raises(InputError):
        az.lint(TIMEOUT_BEFORE, **{what: value})  # type: ignore[arg-type]


# bad input ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("before", "after", "message"), [
    (None, "x", "before must be a str"),
    ("x", None, "after must be a str"),
    (42, "x", "before must be a str, not int"),
    ("x", 3.5, "after must be a str, not float"),
    (b"\xff\xfe not utf-8", "x", "not valid UTF-8"),
    ("x", b"caf\xe9", "not valid UTF-8"),
    ("broken \ud800 surrogate", "x", "unpaired surrogate"),
    ("x", "tail \udfff", "unpaired surrogate"),
    (["a list"], "x", "must be a str"),
])
def test_bad_text_is_input_error(az: Analyzer, before: object, after: object,
                                 message: str) -> None:
    with pytest.raises(InputError, match=message) as exc:
        az.analyze(before, after)  # type: ignore[arg-type]
    assert isinstance(exc.value, ValueError)


@pytest.mark.parametrize("text", [None, 7, b"\xc3\x28", "\ud83d alone"])
def test_bad_lint_text_is_input_error(az: Analyzer, text: object) -> None:
    with pytest.raises(InputError):
        az.lint(text)  # type: ignore[arg-type]


def test_unknown_intent_is_input_error(az: Analyzer) -> None:
    with pytest.raises(InputError, match="unknown intent 'delete'"):
        az.analyze("a", "a", intent="delete")
    with pytest.raises(InputError, match="unknown intent"):
        az.analyze("a", "a", intent="PRUNE")


def test_unknown_mode_is_input_error() -> None:
    with pytest.raises(InputError, match="unknown mode 'turbo'"):
        Analyzer("turbo")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="unknown mode"):
        refgraph.analyze("a", "a", mode="turbo")
    with pytest.raises(InputError, match="unknown mode"):
        refgraph.lint("a", mode="")


@pytest.mark.parametrize(("span", "message"), [
    ((0, 99), "not within before"),
    ((-1, 2), "not within before"),
    ((5, 2), "not within before"),
    ((0,), "pair of ints"),
    ((0, 1, 2), "pair of ints"),
    (("0", "3"), "pair of ints"),
    ((0.0, 3.0), "pair of ints"),
    ((True, 3), "pair of ints"),
    ("0:3", "pair of ints"),
    (3, "pair of ints"),
])
def test_bad_declared_span_is_input_error(az: Analyzer, span: object, message: str) -> None:
    with pytest.raises(InputError, match=message) as exc:
        az.analyze("0123456789", "0123456789", declared_span=span)  # type: ignore[arg-type]
    assert isinstance(exc.value, ValueError)


@pytest.mark.parametrize("span", [(0, 0), (0, 10), (10, 10), [2, 5]])
def test_declared_span_edges_are_accepted(az: Analyzer, span: tuple[int, int]) -> None:
    assert az.analyze("0123456789", "0123456789", declared_span=span).verdict == "apply"


# odd input ------------------------------------------------------------------------------------


def _long_line() -> str:
    chunk = ("req=" + "9f3a" * 70 + " upload took 5 s and returned 200 OK; ")
    return (chunk * (200_000 // len(chunk) + 1))[:200_000]


def test_long_single_line(az: Analyzer) -> None:
    line = _long_line()
    assert len(line) == 200_000
    assert "\n" not in line
    same = az.analyze(line, line)
    assert same.verdict == "apply"
    cut = az.analyze(line, line[:150_000], intent="prune")
    assert cut.verdict in ("apply", "apply-with-log", "reject")
    assert_evidence_quotes(cut)
    assert_evidence_quotes(az.lint(line))


def test_long_prose_line_fast() -> None:
    """A 200,000-character line of prose (accurate mode is spaCy-bound here; fast mode only)."""
    line = ("The cache holds 30 entries and the worker retries twice. " * 4000)[:200_000]
    report = Analyzer("fast").analyze(line, line)
    assert report.verdict == "apply"


def test_deeply_nested_json(az: Analyzer) -> None:
    nested = "[" * 5000 + "]" * 5000
    assert az.analyze(nested, nested).verdict == "apply"
    for after in (nested[:-1], "", "[]", "done"):
        report = az.analyze(nested, after, intent="prune")
        assert report.verdict in ("apply", "apply-with-log", "reject")
        assert_evidence_quotes(report)
    assert_evidence_quotes(az.lint(nested))


@pytest.mark.parametrize("text", [
    "status\x01ok\x02 the timeout is 30 seconds\x07",
    "\x1b[31mERROR\x1b[0m upload failed after 3 retries",
    "tab\tseparated\vvertical\fform feed\r\nline",
    "\u200b\u200d zero width \ufeff bom",
])
def test_control_characters(az: Analyzer, text: str) -> None:
    assert az.analyze(text, text).verdict == "apply"
    report = az.analyze(text, text[: len(text) // 2], intent="prune")
    assert_evidence_quotes(report)
    assert_evidence_quotes(az.lint(text))


@pytest.mark.parametrize(("before", "after"), [
    ("", ""),
    ("", "The timeout is 30 seconds."),
    ("The timeout is 30 seconds.", ""),
    ("   \n\n\t", ""),
    ("", "\n"),
])
@pytest.mark.parametrize("intent", ["rewrite", "summarize", "prune"])
def test_empty_sides(az: Analyzer, before: str, after: str, intent: str) -> None:
    report = az.analyze(before, after, intent=intent)
    assert report.verdict in ("apply", "apply-with-log", "reject")
    assert_evidence_quotes(report)
    json.dumps(report.to_dict())


def test_empty_both_sides_is_apply(az: Analyzer) -> None:
    assert az.analyze("", "").verdict == "apply"
    assert az.lint("").verdict == "apply"


def test_invented_quantity_from_nothing(az: Analyzer) -> None:
    assert az.analyze("", "The timeout is 30 seconds.").codes == ["RG104"]


# count_tokens ---------------------------------------------------------------------------------

# Few long characters before, more but shorter tokens after: spaCy tokens grow, characters shrink.
GLUED = "Configuration_parameter_value_established_successfully_for_the_region."
SPLIT = "It is set now."


def test_prune_uses_count_tokens(az: Analyzer) -> None:
    default = az.analyze(GLUED, SPLIT, intent="prune")
    assert default.codes == ["RG404"]
    assert default.stats["tokens_after"] >= default.stats["tokens_before"]
    by_chars = az.analyze(GLUED, SPLIT, intent="prune", count_tokens=len)
    assert by_chars.codes == []
    assert by_chars.verdict == "apply"
    assert by_chars.stats["tokens_before"] == len(GLUED)
    assert by_chars.stats["tokens_after"] == len(SPLIT)


def test_count_tokens_is_called_on_both_sides(az: Analyzer) -> None:
    seen: list[str] = []

    def counter(text: str) -> int:
        seen.append(text)
        return 10 if text == SPLIT else 5  # after "grows" by this tokenizer

    report = az.analyze(GLUED, SPLIT, intent="prune", count_tokens=counter)
    assert sorted(seen) == sorted([GLUED, SPLIT])
    assert report.codes == ["RG404"]
    assert_evidence_quotes(report)


def test_count_tokens_only_matters_for_prune(az: Analyzer) -> None:
    report = az.analyze(GLUED, SPLIT, intent="summarize", count_tokens=lambda s: -len(s))
    assert "RG404" not in report.codes


def test_equal_size_prune_is_non_shrinking(az: Analyzer) -> None:
    report = az.analyze(TIMEOUT_BEFORE, TIMEOUT_BEFORE, intent="prune")
    assert report.codes == ["RG404"]


# one cause, one finding; definitions of the codes ---------------------------------------------


def test_one_cause_one_finding(az: Analyzer) -> None:
    report = az.analyze(TIMEOUT_BEFORE, TIMEOUT_AFTER)
    assert report.codes == ["RG201"]
    assert len(report.findings) == 1
    quotes = {e.side: e.quote for e in report.findings[0].evidence}
    assert quotes == {"before": "30 seconds", "after": "30"}
    assert_evidence_quotes(report)


@pytest.mark.parametrize(("before", "after"), [
    ("The timeout is two seconds.", "The timeout is 2 s."),
    ("The timeout is 2000 ms.", "The timeout is 2 s."),
    ("The timeout is 2 s.", "The timeout is 2000 milliseconds."),
    ("The export is 1.5 GB.", "The export is 1500 MB."),
    ("The timeout is 30 seconds.", "The timeout is half a minute."),
])
def test_equal_quantities_written_differently_do_not_fire(az: Analyzer, before: str,
                                                          after: str) -> None:
    report = az.analyze(before, after)
    assert report.verdict == "apply", report.format_text()


@pytest.mark.parametrize(("before", "after", "code"), [
    ("The job may fail on Mondays.", "The job fails on Mondays.", "RG304"),
    ("You should rotate the key weekly.", "You must rotate the key weekly.", "RG304"),
    ("We saw about 40 errors in the log.", "We saw 40 errors in the log.", "RG304"),
    ("Keep the cache TTL at 300 seconds.", "Keep the cache TTL at 300 ms.", "RG202"),
    ("Do not deploy on Fridays.", "Deploy on Fridays.", "RG301"),
    ("The canary returned 502s for ten minutes, so we rolled back the release.",
     "We rolled back the release, so the canary returned 502s for ten minutes.", "RG302"),
])
def test_code_definitions(az: Analyzer, before: str, after: str, code: str) -> None:
    report = az.analyze(before, after)
    assert report.codes == [code], report.format_text()
    assert report.verdict == "reject"
    assert_evidence_quotes(report)


@pytest.mark.parametrize(("before", "after"), [
    ("The service listens on port 8080.", "The service listens on port 9090."),
    ("The service listens on port 8080.", "The service listens on ports 8080 and 9090."),
])
def test_changed_or_invented_number_is_caught(az: Analyzer, before: str, after: str) -> None:
    """9090 appears nowhere in before: a changed (RG202) or invented (RG104) number."""
    report = az.analyze(before, after)
    assert {"RG104", "RG202"} & set(report.codes), report.format_text()
    assert report.verdict == "reject"


@pytest.mark.parametrize(("before", "after"), [
    ("Do not deploy on Fridays.", "Never deploy on a Friday."),
    ("The job may fail on Mondays.", "The job may fail on Mondays."),
    ("MAX_RETRIES=3 caps the attempts.\n\nRetry the upload up to MAX_RETRIES times.",
     "MAX_RETRIES=3 caps attempts.\n\nRetry the upload up to MAX_RETRIES times."),
])
def test_faithful_rewrites_apply(az: Analyzer, before: str, after: str) -> None:
    report = az.analyze(before, after, intent="summarize")
    assert report.verdict == "apply", report.format_text()


def test_fanout_inside_the_declared_span_is_fine(az: Analyzer) -> None:
    before = "Intro stays.\nSummarize this line please.\nOutro stays."
    after = "Intro stays.\nA summary.\nOutro stays."
    report = az.analyze(before, after, declared_span=(13, 40))
    assert "RG405" not in report.codes
    assert az.analyze(before, after.replace("Outro", "Outro now"),
                      declared_span=(13, 40)).codes == ["RG405"]


def test_non_prune_intents_never_report_rg404(az: Analyzer) -> None:
    ex = refgraph.rules.BY_CODE["RG404"].example
    assert ex.after is not None
    for intent in ("rewrite", "summarize"):
        assert "RG404" not in az.analyze(ex.before, ex.after, intent=intent).codes


def test_analyzer_is_reusable_and_cached(az: Analyzer) -> None:
    first = az.analyze(TIMEOUT_BEFORE, TIMEOUT_AFTER)
    again = az.analyze(TIMEOUT_BEFORE, TIMEOUT_AFTER)
    assert first.to_dict()["findings"] == again.to_dict()["findings"]
    # The after of one analysis is the before of the next (an agent's rolling memory).
    nxt = az.analyze(TIMEOUT_AFTER, TIMEOUT_AFTER + " Retries: 2.")
    assert nxt.verdict in ("apply", "reject")
    assert_evidence_quotes(nxt)
