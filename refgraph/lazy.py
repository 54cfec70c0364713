"""Lazy package namespaces (PEP 562): a public name is imported from its module on first use.

``import refgraph`` then costs what ``refgraph.native`` costs; spaCy, pint and networkx load
when a pipeline, a graph or a rule is first used. Standard library only.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping
from types import ModuleType
from typing import Any


class _Package(ModuleType):
    """A package whose function ``f`` defined in its submodule ``f`` stays the function:
    the import system sets the submodule as an attribute of its parent when it is imported,
    which would replace ``refgraph.analyze`` (the function) with ``refgraph.analyze`` (the
    module). The submodule is still in ``sys.modules``."""

    _shadowed: frozenset[str] = frozenset()

    def __setattr__(self, name: str, value: object) -> None:
        if name in type(self)._shadowed and isinstance(value, ModuleType):
            return
        super().__setattr__(name, value)


def install(package: str, exports: Mapping[str, str], public: Iterable[str]
            ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """Make ``package`` lazy: returns its ``__getattr__`` and ``__dir__``. ``exports`` maps
    each public name to the submodule (relative to ``package``) that defines it."""
    module = sys.modules[package]
    names = sorted(set(public))

    def __getattr__(name: str) -> Any:
        where = exports.get(name)
        if where is not None:
            value = getattr(importlib.import_module(f".{where}", package), name)
            module.__dict__[name] = value
            return value
        try:  # a submodule used as an attribute: "refgraph.rules.RULES" after "import refgraph"
            return importlib.import_module(f".{name}", package)
        except ModuleNotFoundError as exc:
            if exc.name != f"{package}.{name}":
                raise
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted(set(module.__dict__) | set(names))

    shadowed = frozenset(n for n, m in exports.items() if n == m.rsplit(".", 1)[-1])
    module.__class__ = type("_Package", (_Package,), {"_shadowed": shadowed})
    return __getattr__, __dir__
