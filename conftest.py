"""Root pytest hooks.

With the compiled build running (``refgraph.native``), the compiled modules are extension
modules, which have no doctests pytest can collect; ``make test``'s second, pure-Python pass
(``REFGRAPH_PURE=1``) runs those doctests.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from refgraph import native

_COMPILED_SOURCES = {native.source_path(m) for m in native.COMPILED}


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    if native.is_compiled() and collection_path.resolve() in _COMPILED_SOURCES:
        return True
    return None
