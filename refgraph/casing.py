"""``lower``: ``str.lower`` exactly as CPython does it, in the compiled build too.

mypyc (``tools/build_native.py``) compiles ``s.lower()`` on a ``str`` to its own per-character
routine, which lacks CPython's one context rule: a capital sigma that ends a word becomes "ς",
not "σ". Modules that are compiled call this instead (a test checks they do), so a compiled
build and the pure-Python one read every text alike.
"""

from __future__ import annotations

import operator
from collections.abc import Callable

# Called through a Python object, so a compiled caller gets CPython's own str.lower.
_CPYTHON_LOWER: Callable[[str], str] = operator.methodcaller("lower")


def lower(s: str) -> str:
    """``s.lower()``.

    >>> lower("ΟΔΟΣ"), lower("Retry")
    ('οδος', 'retry')
    """
    return s.lower() if s.isascii() else _CPYTHON_LOWER(s)  # ASCII: no context rule applies
