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

    On leaving, what was allocated meanwhile goes straight to the oldest generation
    (``gc.freeze()`` then ``gc.unfreeze()``, two list splices): left in the youngest, the
    first allocation after ``gc.enable()`` would make the collector traverse every one of
    those objects at once, to find them alive. They are still examined by full collections,
    as any long-lived object is; nothing is kept from being freed.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.freeze()
            gc.unfreeze()
            gc.enable()
