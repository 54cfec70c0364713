"""Pause Python's cyclic garbage collector around allocation-heavy, cycle-free work."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """Parsing and graph assembly allocate many small objects that hold no reference cycles;
    the collector would rescan them all repeatedly (a third of the build time) and free
    nothing. Restores the previous state, also on error.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
