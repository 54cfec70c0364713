"""Small helpers the rules share: word lists, overlap tests, and where content went."""

from __future__ import annotations

import re
from functools import cache

from ..resources import load_json
from .context import Context, Side

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*(?:[eE][-+]?\d+)?")


@cache
def lexicon(name: str) -> frozenset[str]:
    """A word list from ``models/lexicon/analysis.json``."""
    return frozenset(str(w) for w in load_json("lexicon", "analysis.json")[name])


def has_phrase(text_lower: str, phrases: frozenset[str]) -> str | None:
    """The first phrase of ``phrases`` found in ``text_lower`` at word boundaries."""
    m = _alternation(phrases).search(text_lower)
    return m.group(1) if m else None


@cache
def _alternation(phrases: frozenset[str]) -> re.Pattern[str]:
    """One compiled pattern per word list, longest phrases first."""
    alts = "|".join(re.escape(p) for p in sorted(phrases, key=len, reverse=True))
    return re.compile(r"(?<![\w])(" + alts + r")(?![\w])")


def coverage(needed: frozenset[str], present: frozenset[str]) -> float:
    """Share of ``needed`` words that are in ``present`` (1.0 when nothing is needed)."""
    if not needed:
        return 1.0
    return len(needed & present) / len(needed)


def numbers_in(text: str) -> list[float]:
    """Numerals as written in ``text`` ("20 million" -> [20.0])."""
    out = []
    for m in _NUMBER.finditer(text):
        raw = m.group().replace(",", "")
        try:
            out.append(float(raw))
        except ValueError:
            continue  # "0.4.2": a version string
    return out


def region_after(ctx: Context, i: int) -> list[int]:
    """After units that carry content of before unit ``i`` (its rewrites and merges)."""
    out = set(ctx.after_units_from(i)) | set(ctx.after_units_citing(i))
    return sorted(out)


def region_words(side: Side, units: list[int]) -> frozenset[str]:
    out: set[str] = set()
    for j in units:
        out |= side.units[j].words
    return frozenset(out)


def close(a: float, b: float, rel: float = 1e-6) -> bool:
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-12)
