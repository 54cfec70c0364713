"""Small helpers the rules share: word lists, overlap tests, and where content went."""

from __future__ import annotations

import re
from collections.abc import Iterator
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
    """Numerals as written in ``text``, and scaled by a scale word or suffix right after them:
    "20 million" -> [20.0, 20000000.0], "63.25M" -> [63.25, 63250000.0]. A summary that writes
    63,250,000 as 63.25M invents no number."""
    out = []
    for value, scaled in _numerals(text):
        out.append(value)
        if scaled is not None:
            out.append(scaled)
    return out


def scaled_numbers_in(text: str) -> list[float]:
    """Only the numerals of ``text`` that carry a scale word or suffix, scaled, sorted."""
    return sorted(scaled for _, scaled in _numerals(text) if scaled is not None)


def _numerals(text: str) -> Iterator[tuple[float, float | None]]:
    """Each numeral of ``text`` with its value scaled by what follows it (None if nothing)."""
    for m in _NUMBER.finditer(text):
        try:
            value = float(m.group().replace(",", ""))
        except ValueError:
            continue  # "0.4.2": a version string
        yield value, scaled_value(text, m.end(), value)


def scaled_value(text: str, end: int, value: float) -> float | None:
    """``value`` times the scale word or suffix right after ``text[:end]`` ("63.25" + "M"), or
    None when there is none."""
    scale = _SCALE.match(text, end)
    return value * _FACTORS[scale.group(1).lower()] if scale else None


_SCALE = re.compile(r"\s?(k|K|M|MM|mn|B|bn|thousand|million|billion|trillion)(?![^\W\d_])")
_FACTORS = {"k": 1e3, "thousand": 1e3, "m": 1e6, "mm": 1e6, "mn": 1e6, "million": 1e6,
            "b": 1e9, "bn": 1e9, "billion": 1e9, "trillion": 1e12}


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
