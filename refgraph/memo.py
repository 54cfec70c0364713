"""A bounded memo for pure functions of words, shared by the components and the graph."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar, cast

V = TypeVar("V")

MAX_KEY = 64  # characters: longer words are rare and are computed each time, never kept


class WordMemo(Generic[V]):
    """``fn(word)`` remembered by word, as long as the word has at most :data:`MAX_KEY`
    characters; the memo empties once it holds ``size`` words. Both bounds keep an adversarial
    text (a million distinct 100,000-letter words) from growing it without limit.

    >>> m = WordMemo(str.upper, size=2)
    >>> m("ok"), len(m.seen)
    ('OK', 1)
    """

    __slots__ = ("fn", "seen", "size")

    def __init__(self, fn: Callable[[str], V], size: int = 100_000) -> None:
        self.fn = fn
        self.seen: dict[str, V] = {}
        self.size = size

    def __call__(self, word: str) -> V:
        found = self.seen.get(word, _MISSING)  # a sentinel, not None: None is an answer too
        if found is _MISSING:
            found = self.fn(word)
            if len(word) <= MAX_KEY:
                if len(self.seen) >= self.size:
                    self.seen.clear()
                self.seen[word] = found
        return cast(V, found)


_MISSING = object()
