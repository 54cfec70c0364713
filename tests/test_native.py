"""The compiled build (refgraph.native, tools/build_native.py) against the pure-Python sources.

``make test`` runs the suite on each build; the tests here check that the two build the same
graphs, that the sources can always be forced, and that a stale build is never used.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import shutil
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


_PROBE = """
import importlib, sys, warnings
warnings.simplefilter("always")
import refgraph
mods = [importlib.import_module(m) for m in refgraph.native.COMPILED]  # the package is lazy
print(refgraph.native.build())
print(sorted({"so" if str(m.__spec__.origin).endswith(".so") else "py" for m in mods}))
print(refgraph.native.__file__)
"""


def _probe(package_root: Path, **env: str) -> tuple[str, str, str]:
    """(build, kinds of files the compiled modules loaded from, where native.py is) for the
    package under ``package_root``, in a fresh interpreter."""
    base = {k: v for k, v in os.environ.items() if k != native.PURE_ENV}
    base["PYTHONPATH"] = str(package_root)
    run = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True,
                         env={**base, **env}, cwd=package_root, check=True)
    build, kinds, where = run.stdout.splitlines()
    assert Path(where).is_relative_to(package_root)  # the copy ran, not the installed package
    return build, kinds, run.stderr


@pytest.fixture(scope="module")
def package_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package, its compiled build (if any) and models/, copied to a temporary directory."""
    root = tmp_path_factory.mktemp("copy")
    shutil.copytree(ROOT / "refgraph", root / "refgraph",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "models", root / "models")
    return root


def test_a_copy_runs_the_build_this_process_runs(package_copy: Path) -> None:
    build, kinds, _ = _probe(package_copy)
    # What this tree's build state gives without the variable (this process may have it set).
    expected = native.decide(False, native.MANIFEST.is_file(),
                             native.build_is_current(native.read_manifest()))
    assert build == expected
    assert kinds == ("['so']" if build == native.COMPILED_STATE else "['py']")
    if build == native.COMPILED_STATE:
        assert _probe(package_copy, REFGRAPH_PURE="0")[:2] == (build, kinds)  # "0": not set
        assert _probe(package_copy, REFGRAPH_PURE="1")[:2] == (
            f"pure Python ({native.PURE_ENV} is set)", "['py']")


@pytest.mark.parametrize("edited", ["refgraph/nlp/view.py", "refgraph/model.py"])
def test_a_stale_build_is_never_loaded(package_copy: Path, tmp_path: Path, edited: str) -> None:
    # An edit to a compiled module, or to a module the compiled code was built against: every
    # compiled module then loads from its source, with one warning, until the next build.
    root = tmp_path / "edited"
    shutil.copytree(package_copy, root)
    with (root / edited).open("a", encoding="utf-8") as f:
        f.write("\n# edited after the build\n")
    build, kinds, err = _probe(root)
    assert kinds == "['py']"
    if (package_copy / "refgraph/_native/manifest.json").exists():
        assert build == native.STALE
        assert err.count("out of date") == 1
    else:
        assert build == "pure Python (not compiled)"


def test_extension_modules_never_sit_beside_the_sources() -> None:
    # Only refgraph.native's hook loads compiled code: an extension module beside its source
    # would be imported by any checkout, stale or not.
    stray = [p for p in native.PACKAGE_DIR.rglob("*")
             if p.suffix in (".so", ".pyd") and native.BUILD_DIR not in p.parents]
    assert stray == []


@pytest.mark.parametrize(("pure", "built", "current", "expected"), [
    (True, True, True, "pure Python (REFGRAPH_PURE is set)"),
    (False, False, False, "pure Python (not compiled)"),
    (False, True, True, native.COMPILED_STATE),
    (False, True, False, native.STALE),
])
def test_decide(pure: bool, built: bool, current: bool, expected: str) -> None:
    assert native.decide(pure, built, current) == expected


@pytest.mark.parametrize(("value", "expected"), [("", False), ("0", False), ("1", True),
                                                 ("yes", True)])
def test_env_flag(value: str, expected: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFGRAPH_TEST_FLAG", value)
    assert native.env_flag("REFGRAPH_TEST_FLAG") is expected


def test_dependencies_cover_what_the_compiled_code_imports() -> None:
    deps = native.dependencies()
    assert set(native.COMPILED) <= set(deps)
    # model (node kinds), units (pint) and nlp.pipeline are imported by compiled modules.
    assert {"refgraph.model", "refgraph.units", "refgraph.nlp.pipeline"} <= set(deps)
    assert "refgraph.cli" not in deps  # the CLI is not built into the compiled code


def test_manifest_records_the_sources_it_was_built_from() -> None:
    recorded = native.read_manifest()
    if recorded is None:
        assert not native.is_compiled()
        return
    assert recorded["compiled"] == list(native.COMPILED)
    sources = recorded["sources"]
    assert isinstance(sources, dict)
    assert sorted(sources) == native.dependencies()
    digest = hashlib.sha256(native.source_path("refgraph.casing").read_bytes()).hexdigest()
    pure = native.env_flag(native.PURE_ENV)
    assert native.is_compiled() == (sources["refgraph.casing"] == digest and not pure)


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
