"""Which build of the graph builder's hot modules runs: compiled with mypyc, or pure Python.

The modules in :data:`COMPILED` (the block splitter, the rule components, graph fragments) are
plain typed Python. ``make`` also compiles them with mypyc, part of mypy, into extension modules
beside the sources (``tools/build_native.py``), which builds graphs about a fifth faster. The
sources stay the truth:

* ``REFGRAPH_PURE=1`` in the environment runs the pure-Python sources even where a compiled
  build exists (the test suite runs once each way and compares their graphs);
* a compiled build whose sources have changed since (the build records their hashes in
  ``refgraph/native-build.json``) is not used: the sources run, with one warning, until it is
  rebuilt, so an edit is never shadowed by stale machine code;
* with no compiled build (no C compiler, or a plain ``pip install``), the sources run.

:func:`build` says which it is; ``refgraph --version`` prints it. This module is imported first
by the package and only uses the standard library, so it is never compiled itself.
"""

from __future__ import annotations

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
MANIFEST = PACKAGE_DIR / "native-build.json"
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
)


def source_path(module: str) -> Path:
    """The ``.py`` file of a module of this package."""
    return PACKAGE_DIR.joinpath(*module.split(".")[1:]).with_suffix(".py")


def source_hashes() -> dict[str, str]:
    """sha256 of each compiled module's source, as the build records them."""
    return {m: hashlib.sha256(source_path(m).read_bytes()).hexdigest() for m in COMPILED}


def extension_files(module: str) -> list[Path]:
    """The extension module files of ``module`` in the package (a compiled build's)."""
    path = source_path(module)
    return sorted(path.parent / (path.stem + suffix)
                  for suffix in importlib.machinery.EXTENSION_SUFFIXES
                  if (path.parent / (path.stem + suffix)).is_file())


def _manifest_matches() -> bool:
    try:
        recorded = json.loads(MANIFEST.read_text("utf-8"))
    except (OSError, ValueError):
        return False
    return (isinstance(recorded, dict) and recorded.get("python") == python_tag()
            and recorded.get("sources") == source_hashes())


def python_tag() -> str:
    return f"{sys.implementation.cache_tag}-{sys.platform}"


class _SourceFinder(importlib.abc.MetaPathFinder):
    """Loads the compiled modules from their ``.py`` sources (an extension module beside a
    source would otherwise win: the import system tries extension suffixes first)."""

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname not in COMPILED:
            return None
        return importlib.util.spec_from_file_location(fullname, source_path(fullname))


COMPILED_STATE = "compiled with mypyc"
STALE = "pure Python (the compiled build is out of date: run `make native`)"
_state = ""


def decide(pure_env: str, built: int, manifest_matches: bool) -> str:
    """Which build runs, given ``$REFGRAPH_PURE``, how many of the compiled build's
    ``len(COMPILED) + 1`` files are present, and whether its manifest matches the sources.

    >>> decide("", built=len(COMPILED) + 1, manifest_matches=True)
    'compiled with mypyc'
    >>> decide("", built=3, manifest_matches=True)  # all or nothing: one shared library
    'pure Python (the compiled build is out of date: run `make native`)'
    """
    if pure_env not in ("", "0"):
        return f"pure Python ({PURE_ENV} is set)"
    if not built:
        return "pure Python (not compiled)"
    if built == len(COMPILED) + 1 and manifest_matches:
        return COMPILED_STATE
    return STALE


def select() -> str:
    """Decide, once per process and before any of :data:`COMPILED` is imported, which build
    runs; returns :func:`build`'s answer."""
    global _state
    if _state:
        return _state
    built = sum(1 for m in (*COMPILED, GROUP) if extension_files(m))
    _state = decide(os.environ.get(PURE_ENV, ""), built, bool(built) and _manifest_matches())
    if _state == STALE:
        warnings.warn(f"refgraph: {_state}", RuntimeWarning, stacklevel=2)
    if _state != COMPILED_STATE and not any(isinstance(f, _SourceFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _SourceFinder())
    return _state


def build() -> str:
    """Which build runs: ``"compiled with mypyc"`` or ``"pure Python (<why>)"``."""
    return select()


def is_compiled() -> bool:
    """Whether the compiled build runs."""
    return select() == COMPILED_STATE


select()  # at import: the package imports this module before any of COMPILED
