"""The compiled build (refgraph.native, tools/build_native.py) against the pure-Python sources.

``make test`` runs the suite on each build; the tests here check that the two build the same
graphs, that the sources can always be forced, and that a stale build is never used.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import refgraph
from refgraph import native
from refgraph.graph import to_node_link

ROOT = Path(__file__).resolve().parent.parent

# Texts whose graphs both builds must agree on: the bundled examples, a generated context, and
# text that exercises what compiled string primitives could read differently (case mapping
# with context, non-BMP characters, digits of other scripts, odd whitespace).
_DIGEST = """
import hashlib, json, sys
sys.path.insert(0, {bench!r})
from gen_context import generate
import refgraph
from refgraph.graph import to_node_link
texts = json.loads(sys.stdin.read())
texts.append(generate(3000, seed=7))
out = {{"build": refgraph.native.build(), "graphs": []}}
for mode in ("fast", "accurate"):
    for t in texts:
        G = refgraph.build_graph(t, mode=mode, parser=refgraph.Parser(mode))
        data = json.dumps(to_node_link(G), sort_keys=True, default=str)
        out["graphs"].append(hashlib.sha256(data.encode()).hexdigest())
print(json.dumps(out))
"""

EDGE_TEXTS = [
    # A word-final capital sigma in a mention's key and in what a quantity measures: the two
    # places where a str.lower() without CPython's final-sigma rule changed a graph.
    "The ΟΔΟΣ gateway must not exceed 3 retries.",
    "The timeout of ΚΟΜΒΟΣ is 30 s.",
    "ΟΔΟΣ ΚΛΕΙΣΤΟΣ: the timeout is 30 s. ΣΟΦΟΣ said not to retry more than ３ times.",
    "İstanbul ﬁle ǅ: MAX_RETRIES=٣ and 2½ hours — 𝟓 GB cap; do not exceed 𝟓 GB.\u2028next",
    "user: the budget is €5,000\u00a0per month.\n\nassistant: therefore we must not spend more.",
]


def _corpus() -> list[str]:
    files = sorted(p for p in (ROOT / "examples").rglob("*") if p.is_file())
    return [p.read_text("utf-8") for p in files] + EDGE_TEXTS


def _digests(env: dict[str, str]) -> dict[str, object]:
    script = _DIGEST.format(bench=str(ROOT / "benchmarks"))
    run = subprocess.run([sys.executable, "-c", script], input=json.dumps(_corpus()),
                         capture_output=True, text=True, env=env, cwd=ROOT, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    result: dict[str, object] = json.loads(run.stdout)
    return result


def test_the_build_that_runs_makes_the_same_graphs_as_the_sources() -> None:
    env = {k: v for k, v in os.environ.items() if k != native.PURE_ENV}
    running = _digests(env)
    pure = _digests({**env, native.PURE_ENV: "1"})
    # Without the variable: the compiled build wherever one was made (never a stale one).
    assert running["build"] in (native.COMPILED_STATE, "pure Python (not compiled)")
    assert str(pure["build"]).startswith("pure Python")
    assert running["graphs"] == pure["graphs"]


def test_modules_load_from_the_build_that_is_reported() -> None:
    import refgraph.nlp.quantities as quantities

    loaded_from = Path(quantities.__spec__.origin or "")
    if native.is_compiled():
        assert loaded_from.name.endswith(".so")
    else:
        assert loaded_from == native.source_path("refgraph.nlp.quantities")


def test_pure_env_forces_the_sources() -> None:
    code = ("import refgraph, refgraph.nlp.view as v; "
            "print(refgraph.native.build()); print(v.__spec__.origin)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, native.PURE_ENV: "1"}, cwd=ROOT, check=True)
    build, origin = run.stdout.splitlines()
    assert build == f"pure Python ({native.PURE_ENV} is set)"
    assert origin == str(native.source_path("refgraph.nlp.view"))


def test_a_stale_build_is_never_loaded() -> None:
    # The real select() with the manifest check answering "changed since": it must warn and
    # put the source finder in place before the package imports anything compiled.
    code = f"""
import importlib.util, warnings
spec = importlib.util.spec_from_file_location("probe", {str(ROOT / "refgraph/native.py")!r})
probe = importlib.util.module_from_spec(spec)
spec.loader.exec_module(probe)
probe._state = ""
probe._manifest_matches = lambda: False
probe.extension_files = lambda module: ["built"]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print(probe.select())
print(len(caught))
import refgraph.nlp.view as v
print(v.__spec__.origin)
"""
    env = {k: v for k, v in os.environ.items() if k != native.PURE_ENV}
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         cwd=ROOT, check=True)
    state, warned, origin = run.stdout.splitlines()
    assert state == native.STALE
    assert warned == "1"
    assert origin == str(native.source_path("refgraph.nlp.view"))


@pytest.mark.parametrize(("env", "built", "matches", "expected"), [
    ("1", len(native.COMPILED) + 1, True, "pure Python (REFGRAPH_PURE is set)"),
    ("", 0, False, "pure Python (not compiled)"),
    ("0", len(native.COMPILED) + 1, True, native.COMPILED_STATE),
    ("", len(native.COMPILED) + 1, False, native.STALE),  # sources edited since the build
    ("", len(native.COMPILED), True, native.STALE),  # a module's file missing
])
def test_decide(env: str, built: int, matches: bool, expected: str) -> None:
    assert native.decide(env, built, matches) == expected


def test_manifest_records_the_sources_it_was_built_from() -> None:
    if not native.MANIFEST.exists():
        assert not native.is_compiled()
        return
    recorded = json.loads(native.MANIFEST.read_text("utf-8"))
    assert set(recorded["sources"]) == set(native.COMPILED)
    digest = hashlib.sha256(native.source_path("refgraph.casing").read_bytes()).hexdigest()
    assert native.is_compiled() == (recorded["sources"]["refgraph.casing"] == digest
                                    and native.PURE_ENV not in os.environ)


@pytest.mark.parametrize("module", [m for m in native.COMPILED if m != "refgraph.casing"])
def test_compiled_modules_lower_case_through_casing(module: str) -> None:
    # mypyc compiles str.lower() to a routine without CPython's final-sigma rule
    # (refgraph.casing): a compiled module that called it would read Greek text differently.
    tree = ast.parse(native.source_path(module).read_text("utf-8"))
    calls = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Call)
             and isinstance(node.func, ast.Attribute) and node.func.attr == "lower"]
    assert calls == [], f"{module}: use refgraph.casing.lower() at lines {calls}"


def test_casing_lower_is_cpythons() -> None:
    from refgraph.casing import lower

    for text in ["ΟΔΟΣ", "ΣΟΦΟΣ ΟΔΟΣ.", "Σ", "ΑΣ-ΒΣ", "İstanbul", "ǅ", "MAX_RETRIES", "", "ẞ"]:
        assert lower(text) == text.lower()


def test_version_reports_the_build(capsys: pytest.CaptureFixture[str]) -> None:
    from refgraph.cli import main

    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out.strip() == f"refgraph {refgraph.__version__}, {native.build()}"


def test_graphs_from_either_build_pickle_alike() -> None:
    # Graph data stays plain Python whichever build made it.
    import pickle

    G = refgraph.build_graph("The timeout is 30 s; do not exceed 3 retries.", mode="fast")
    again = pickle.loads(pickle.dumps(G))
    assert to_node_link(again) == to_node_link(G)
