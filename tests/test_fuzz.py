"""Fuzzing the entry points: whatever text comes in, only documented errors come out.

Properties, for ``analyze``, ``lint``, ``build_graph``, ``Patch.from_unified_diff`` and
``ContextBuffer.apply``:

* no exception but :class:`~refgraph.errors.RefgraphError` subclasses (``InputError``,
  ``RewriteRejected`` ...);
* every evidence span slices its side's text to its quote;
* ``analyze(x, x)`` is always ``apply``;
* a report always serialises to JSON that parses back.

CI runs a fixed, derandomized set of examples. ``REFGRAPH_FUZZ_EXAMPLES=20000`` runs a long
random hunt (its last figures are in the README).
"""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import refgraph
from refgraph import ContextBuffer, Patch
from refgraph.errors import RefgraphError

_LONG = int(os.environ.get("REFGRAPH_FUZZ_EXAMPLES", "0"))
FUZZ = settings(max_examples=_LONG or 300, deadline=None, derandomize=not _LONG, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

# Text built from the pieces that drive the rules (cues, numbers with units, labels, code,
# brackets, deixis, bidi and zero-width characters), joined at random, plus arbitrary Unicode.
PIECES = ["not ", "never ", "no ", "unless ", "if ", "because ", "so ", "may ", "must ",
          "do not ", "the above ", "that limit ", "30 seconds", "30", "4 GB", "1,200.5 kg",
          "up to 5", "at least 3", "user: ", "assistant: ", "tool[call_7]: ", "\n", "\n\n",
          "# Heading\n", "- ", "| a | b |\n", "```\nx = 1\n```\n", "`MAX_RETRIES=3` ",
          "src/app.py ", "https://x.test/a ", "(", ")", "[", "]", "{", "}", "\"", "'",
          "Sam ", "Zoë ", "ACGTACGT", "\u202e", "\u200b", "\r\n", "\t", ". ", ", ", "; ",
          "😀", "0 rows matched. ", "failed to ", "ruled out: ", "I think "]
texts = st.one_of(
    st.lists(st.sampled_from(PIECES), max_size=40).map("".join),
    st.text(max_size=300),
    st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=8)), max_size=30).map("".join),
)

_AZ = refgraph.Analyzer("fast")


def _check_report(report: refgraph.Report) -> None:
    sides = {"before": report.before, "after": report.after}
    for f in [*report.findings, *report.suppressed]:
        for e in f.evidence:
            assert 0 <= e.start <= e.end <= len(sides[e.side])
            assert sides[e.side][e.start:e.end] == e.quote
    data = json.loads(report.to_json())
    assert data["verdict"] == report.verdict


@FUZZ
@given(texts, texts, st.sampled_from(["rewrite", "summarize", "prune"]))
def test_analyze_raises_only_documented_errors(before: str, after: str, intent: str) -> None:
    try:
        report = _AZ.analyze(before, after, intent=intent)
    except RefgraphError:
        return
    _check_report(report)


@FUZZ
@given(texts)
# found by a long hunt: one clause held by two markers ("if unless") read as an unless turned if
@example("`MAX_RETRIES=3` user: not {if unless the above ")
# ... and a claim with no features to match ("NO") that found no counterpart, not even itself
@example("NO\nUSER:THE ABOVE")
# ... and a name whose words read oddly ("A\x08¹" holds a digit) though before has its referent
@example("A0T A\x08\u00b9/")
# ... and a claim under a hedged supposition ("if I think") whose after twin, under the same
# supposition, was not seen to keep the doubt
@example("4 GBnot if I think ")
def test_a_text_against_itself_is_always_apply(text: str) -> None:
    try:
        report = _AZ.analyze(text, text)
    except RefgraphError:
        return
    assert report.verdict == "apply", report.format_text()


@FUZZ
@given(texts)
def test_lint_and_build_graph_raise_only_documented_errors(text: str) -> None:
    try:
        report = _AZ.lint(text)
        G = refgraph.build_graph(text, mode="fast")
    except RefgraphError:
        return
    _check_report(report)
    for _, d in G.nodes(data=True):
        if "start" in d and "end" in d:
            assert 0 <= d["start"] <= d["end"] <= len(text)


lines = st.lists(st.sampled_from(["a", "b", "c", "", "not x", "30 s", "Zoë", " "]),
                 min_size=1, max_size=8).map("\n".join)
diffs = st.one_of(
    st.text(max_size=200),
    st.lists(st.sampled_from(["@@ -1 +1 @@\n", "@@ -1,2 +1,2 @@\n", "@@ -0,0 +1 @@\n",
                              "-a\n", "+b\n", " c\n", "-not x\n", "+x\n", "\\ No newline\n",
                              "--- a\n", "+++ b\n", "@@ -9,3 +9 @@\n", "@@ x @@\n"]),
             max_size=12).map("".join),
)


@FUZZ
@given(lines, diffs)
def test_patches_and_the_buffer_raise_only_documented_errors(base: str, diff: str) -> None:
    try:
        patch = Patch.from_unified_diff(diff, base=base)
    except RefgraphError:
        return
    buf = ContextBuffer(base)
    revision = buf.revision
    try:
        buf.apply(patch)
    except RefgraphError:
        assert buf.text == base
        assert buf.revision == revision


def _harness() -> Any:
    """``tools/fuzz.py``, the atheris harness, loaded by path (tools/ is not a package)."""
    path = Path(__file__).resolve().parent.parent / "tools" / "fuzz.py"
    spec = importlib.util.spec_from_file_location("refgraph_fuzz_harness", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


HARNESS_SEEDS = [
    b"", b"\x00", b"a\nb\nc\x00@@ -2 +2 @@\n-b\n+B\n", b"a\nb\x00@@ -1,2 +1,1 @@\n a\n-b\n",
    b"a\x00--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n", b"x\x00@@ -9,9 +9,9 @@\n-\n",
    b"\x00@@ @@\n", b"a\nb\x00@@ -1 +1 @@\n-a\n+b\n\\ No newline at end of file\n",
    b"user: hi\n\nassistant: ok\n```\ncode\n", b"# H\n| a | b |\n|---|---|\n\n\xff\xfe\r\n",
    "tool[call_1]: \u202e done\n\n\n- item\n  - nested".encode(), b"\n\n\n", b"```\n```\n```",
]


@pytest.mark.parametrize("target", ["diff", "blocks"])
def test_the_atheris_harness_holds_on_its_seeds(target: str) -> None:
    check = _harness_module().TARGETS[target]
    for seed in HARNESS_SEEDS:
        check(seed)


@FUZZ
@given(st.binary(max_size=400))
def test_the_atheris_harness_holds_on_random_bytes(data: bytes) -> None:
    harness = _harness_module()
    harness.check_diff(data)
    harness.check_blocks(data)


_HARNESS: list[Any] = []


def _harness_module() -> Any:
    if not _HARNESS:
        _HARNESS.append(_harness())
    return _HARNESS[0]
