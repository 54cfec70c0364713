"""Which build of the graph builder's hot modules runs: compiled with mypyc, or pure Python.

The modules in :data:`COMPILED` (the block splitter, the rule components, graph fragments) are
plain typed Python. ``make`` also compiles them with mypyc, part of mypy, into extension modules
(``tools/build_native.py``), which builds graphs about a fifth faster. The sources stay the
truth:

* the extension modules live in ``refgraph/_native/``, never beside the sources, so nothing
  but this module's import hook loads them: an older checkout, or a module no longer listed,
  cannot pick them up by accident;
* the hook is installed only when the build's manifest matches every source the compiled code
  was built from (the compiled modules and every module of this package they import, by
  sha256) and this interpreter; otherwise the sources run, with one warning for a stale build;
* ``REFGRAPH_PURE=1`` (any value but empty or ``0``) runs the sources even where a build
  exists (the test suite runs once each way and compares their graphs);
* with no compiled build (no C compiler, or a plain ``pip install``), the sources run.

:func:`build` says which it is; ``refgraph --version`` prints it. This module is imported first
by the package and only uses the standard library, so it is never compiled itself.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

PACKAGE_DIR = Path(__file__).resolve().parent
BUILD_DIR = PACKAGE_DIR / "_native"  # the compiled build: manifest.json and refgraph/**.so
MANIFEST = BUILD_DIR / "manifest.json"
PURE_ENV = "REFGRAPH_PURE"
GROUP = "refgraph.native__mypyc"  # the shared library that holds all compiled code

# The graph-building hot path; ``refgraph.casing`` first, as the others call it.
COMPILED: tuple[str, ...] = (
    "refgraph.casing",
    "refgraph.memo",
    "refgraph.blocks",
    "refgraph.parse",
    "refgraph.fragments",
    "refgraph.nlp.view",
    "refgraph.nlp.text",
    "refgraph.nlp.lexicon",
    "refgraph.nlp.records",
    "refgraph.nlp.numbers",
    "refgraph.nlp.quantities",
    "refgraph.nlp.identifiers",
    "refgraph.nlp.entities",
    "refgraph.nlp.negation",
    "refgraph.nlp.constraints",
    "refgraph.nlp.references",
    "refgraph.nlp.causal",
    "refgraph.nlp.modality",
    "refgraph.nlp.lemmas",
    "refgraph.nlp.claims",
)

COMPILED_STATE = "compiled with mypyc"
STALE = "pure Python (the compiled build is out of date: run `make native`)"


def source_path(module: str) -> Path:
    """The source file of a module of this package (``__init__.py`` for a subpackage)."""
    path = PACKAGE_DIR.joinpath(*module.split(".")[1:])
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def dependencies() -> list[str]:
    """:data:`COMPILED` and every module of this package they import, directly or not: what
    the compiled code was type-checked and built against."""
    seen: set[str] = set()
    todo = list(COMPILED)
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        path = source_path(module)
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_bytes())):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
                names = [f"{base}.{a.name}" for a in node.names] + [base]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            for name in names:
                if name.split(".")[0] == "refgraph" and source_path(name).is_file():
                    todo.append(name)
    return sorted(seen)


def source_hashes(modules: Sequence[str]) -> dict[str, str]:
    """sha256 of each module's source."""
    return {m: hashlib.sha256(source_path(m).read_bytes()).hexdigest() for m in modules}


def env_flag(name: str) -> bool:
    """Whether environment variable ``name`` is set to anything but empty or ``0``."""
    return os.environ.get(name, "") not in ("", "0")


def python_tag() -> str:
    """The interpreter a compiled build is for (its extension modules load in no other)."""
    return f"{sys.implementation.cache_tag}-{sys.platform}"


def extension_path(module: str, root: Path = BUILD_DIR) -> Path | None:
    """The extension module for ``module`` in a build under ``root``, if there is one."""
    stem = root.joinpath(*module.split("."))
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = stem.with_name(stem.name + suffix)
        if path.is_file():
            return path
    return None


def read_manifest() -> dict[str, object] | None:
    """The compiled build's manifest, or None where there is none (or it is unreadable)."""
    try:
        recorded = json.loads(MANIFEST.read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return recorded if isinstance(recorded, dict) else None


def build_is_current(recorded: dict[str, object] | None) -> bool:
    """Whether a build with manifest ``recorded`` may run here: built for this interpreter
    from exactly :data:`COMPILED`, from sources that are all unchanged, and complete."""
    if recorded is None or recorded.get("python") != python_tag() or \
            recorded.get("compiled") != list(COMPILED):
        return False
    sources = recorded.get("sources")
    if not isinstance(sources, dict) or not set(COMPILED) <= set(sources):
        return False
    try:
        if source_hashes(list(sources)) != sources:
            return False
    except OSError:  # a module it was built against is gone
        return False
    return all(extension_path(m) is not None for m in (*COMPILED, GROUP))


def decide(pure: bool, built: bool, current: bool) -> str:
    """Which build runs, given whether ``$REFGRAPH_PURE`` is set (:func:`env_flag`), whether a
    compiled build exists, and whether it is current (:func:`build_is_current`).

    >>> decide(False, built=True, current=True)
    'compiled with mypyc'
    >>> decide(False, built=True, current=False)
    'pure Python (the compiled build is out of date: run `make native`)'
    """
    if pure:
        return f"pure Python ({PURE_ENV} is set)"
    if not built:
        return "pure Python (not compiled)"
    return COMPILED_STATE if current else STALE


class _ExtensionFinder(importlib.abc.MetaPathFinder):
    """Loads :data:`COMPILED` (and the library they share) from the compiled build."""

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname not in COMPILED and fullname != GROUP:
            return None
        found = extension_path(fullname)  # all there when select() installed this finder
        return None if found is None else importlib.util.spec_from_file_location(fullname, found)


_state = ""


def select() -> str:
    """Decide, once per process and before any of :data:`COMPILED` is imported, which build
    runs; returns :func:`build`'s answer."""
    global _state
    if _state:
        return _state
    pure = env_flag(PURE_ENV)
    built = MANIFEST.is_file()
    _state = decide(pure, built, not pure and built and build_is_current(read_manifest()))
    if _state == STALE:
        warnings.warn(f"refgraph: {_state}", RuntimeWarning, stacklevel=2)
    elif _state == COMPILED_STATE:
        sys.meta_path.insert(0, _ExtensionFinder())
    return _state


def build() -> str:
    """Which build runs: ``"compiled with mypyc"`` or ``"pure Python (<why>)"``."""
    return select()


def is_compiled() -> bool:
    """Whether the compiled build runs."""
    return select() == COMPILED_STATE


select()  # at import: the package imports this module before any of COMPILED
