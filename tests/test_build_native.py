"""tools/build_native.py where nothing can be compiled, and its no-op when the build is current.

Run on a copy of the package, so the build these tests run under is never touched.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _tool(root: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    spec = importlib.util.spec_from_file_location("build_native_under_test",
                                                  ROOT / "tools/build_native.py")
    assert spec is not None
    assert spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    monkeypatch.setattr(tool, "ROOT", root)  # the copy's refgraph/native.py is the one read
    monkeypatch.setenv("REFGRAPH_PURE", os.environ.get("REFGRAPH_PURE", ""))  # restored after
    return tool


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "refgraph", tmp_path / "refgraph",
                    ignore=shutil.ignore_patterns("__pycache__", "_native*"))
    return tmp_path


def _stale_build(root: Path) -> Path:
    """A build directory whose manifest no longer matches (a stand-in for real modules)."""
    build = root / "refgraph/_native"
    (build / "refgraph").mkdir(parents=True)
    (build / "refgraph/casing.cpython-311-x86_64-linux-gnu.so").write_bytes(b"not a module")
    (build / "manifest.json").write_text(json.dumps({"python": "other", "sources": {}}))
    return build


def test_no_compiler_removes_a_stale_build_and_falls_back(copy: Path,
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    tool = _tool(copy, monkeypatch)
    monkeypatch.setattr(tool, "_missing_toolchain", lambda: "no C compiler ('cc' is not on PATH)")
    monkeypatch.delenv("REFGRAPH_REQUIRE_NATIVE", raising=False)
    build = _stale_build(copy)
    stray = copy / "refgraph/nlp/view.cpython-311-x86_64-linux-gnu.so"  # the earlier layout
    stray.write_bytes(b"")
    assert tool.main([]) == 0
    err = capsys.readouterr().err
    assert "not compiling: no C compiler" in err
    assert "removed the out-of-date build" in err
    assert not build.exists()
    assert not stray.exists()


def test_required_build_fails_without_a_compiler(copy: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    tool = _tool(copy, monkeypatch)
    monkeypatch.setattr(tool, "_missing_toolchain", lambda: "no Python headers")
    monkeypatch.setenv("REFGRAPH_REQUIRE_NATIVE", "1")
    assert tool.main([]) == 1
    monkeypatch.delenv("REFGRAPH_REQUIRE_NATIVE")
    assert tool.main(["--require"]) == 1
    assert tool.main([]) == 0
    assert "no Python headers" in capsys.readouterr().err


def test_a_current_build_is_left_alone(copy: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    tool = _tool(copy, monkeypatch)
    native = tool._native()
    monkeypatch.setattr(native, "build_is_current", lambda recorded: True)
    monkeypatch.setattr(tool, "_native", lambda: native)
    monkeypatch.setattr(tool, "build", lambda native: pytest.fail("rebuilt a current build"))
    assert tool.main([]) == 0
    assert "up to date" in capsys.readouterr().err


def test_clean_removes_the_build(copy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tool = _tool(copy, monkeypatch)
    build = _stale_build(copy)
    assert tool.main(["--clean"]) == 0
    assert not build.exists()
