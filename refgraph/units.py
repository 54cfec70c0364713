"""refgraph's one pint registry and the unit lexicon that maps written units to it.

Definitions are data (``models/units.txt``): currencies and counted things are their own
dimensions, so 5 USD is never 5 EUR and 5 requests are never 5 rows. Conversions are cached per
unit, so normalising a quantity costs a dict lookup after the first time.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from typing import Any, NamedTuple

import pint

from .memo import WordMemo
from .resources import load_json, model_path


@cache
def registry() -> Any:
    """The shared :class:`pint.UnitRegistry` with refgraph's definitions loaded."""
    ureg: Any = pint.UnitRegistry(on_redefinition="ignore", autoconvert_offset_to_baseunit=True)
    ureg.load_definitions(str(model_path("units.txt")))
    return ureg


class Normalised(NamedTuple):  # a tuple: one is made per quantity, faster than a dataclass
    unit: str  # canonical pint unit, e.g. "millisecond", "request / second"
    base_magnitude: float
    base_unit: str  # e.g. "second", "bit", "USD", "dimensionless"


@cache
def counted_units() -> frozenset[str]:
    """The counted things of ``models/units.txt`` (its "Counted things" section): a count of
    rows is a number of rows, not a measurement in a unit."""
    out: set[str] = set()
    inside = False
    for line in model_path("units.txt").read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            inside = line.lower().startswith("# counted things")
            continue
        if inside and "=" in line:
            out.add(line.split("=", 1)[0].strip())
    return frozenset(out)


@cache
def _lexicon() -> tuple[dict[str, str], dict[str, str], frozenset[str]]:
    data = load_json("lexicon", "units.json")
    return data["cased"], data["words"], frozenset(data["never"])


def unit_words() -> dict[str, str]:
    """The lexicon's word forms ("seconds", "miles per hour") -> pint unit expression."""
    return _lexicon()[1]


_POWER = re.compile(r"^(.+?)(?:\^?([23])|([²³])|\^?[-−]([1-3])|⁻([¹²³]))$")
_SUPERSCRIPT = {"¹": "1", "²": "2", "³": "3"}


def lookup_unit(surface: str) -> str | None:
    """The pint expression for a written unit (``"ms"`` -> ``"millisecond"``), or None.

    A unit with a power is read too: "km2", "m²", "km^3", "s-1", "s⁻¹".
    """
    return _looked_up(surface)


def _lookup_unit(surface: str) -> str | None:
    cased, words, never = _lexicon()
    hit = cased.get(surface) or words.get(surface.lower())
    if hit:
        return hit
    if surface.count("/") == 1 and not surface.startswith("/") and not surface.endswith("/"):
        # "%/month", "GB/day": a rate of two units the lexicon knows
        top, bottom = (lookup_unit(part) for part in surface.split("/"))
        if top and bottom and "/" not in top and "/" not in bottom:
            return f"{top} / {bottom}"
        return None
    power = _POWER.match(surface)
    if power:
        base_text = power.group(1)
        if len(base_text) == 1 and base_text.isupper():
            return None  # "A3", "B2": a paper size or a grade, not amperes cubed
        base = lookup_unit(base_text)
        if base is None or "/" in base or "*" in base:
            return None
        pos = power.group(2) or _SUPERSCRIPT.get(power.group(3) or "")
        exponent = pos if pos else "-" + (power.group(4) or _SUPERSCRIPT[power.group(5)])
        return f"{base} ** {exponent}"
    low = surface.lower()
    if low in never or not low.isalpha():
        return None
    if len(low) >= 4:
        return _pint_name(low)
    if 2 <= len(surface) <= 4 and not surface.islower() and not surface.isupper():
        return _pint_name(surface)  # mixed-case symbols: "eV", "GeV", "mSv"
    return None


# Remembered per surface: the quantity reader asks about the same few words (and the words
# after every number) over and over.
_looked_up = WordMemo(_lookup_unit)


@cache
def _pint_words() -> frozenset[str]:
    """Every unit name, symbol and alias pint defines, lower-cased (prefixes are tried apart)."""
    ureg = registry()
    words: set[str] = set()
    for name, definition in ureg._units.items():  # pint keeps no public list of aliases
        words.add(name.lower())
        symbol = getattr(definition, "symbol", None)
        if symbol:
            words.add(symbol.lower())
        for alias in getattr(definition, "aliases", ()) or ():
            words.add(alias.lower())
    return frozenset(words)


_PREFIXES = ("yotta", "zetta", "exa", "peta", "tera", "giga", "mega", "kilo", "hecto", "deca",
             "deka", "deci", "centi", "milli", "micro", "nano", "pico", "femto", "atto")


def _maybe_unit(word: str) -> bool:
    """Cheap test before the (slow) pint parser: is this plausibly a unit name or symbol?"""
    known = _pint_words()
    low = word.lower()
    for cand in (low, low[:-1] if low.endswith("s") else low, low[:-2] if low.endswith("es")
                 else low):
        if cand in known:
            return True
        for prefix in _PREFIXES:
            if cand.startswith(prefix) and cand[len(prefix):] in known:
                return True
    # Short mixed-case symbols ("eV", "GeV", "mSv") are prefix + symbol: let pint decide.
    return len(word) <= 4 and not word.islower() and not word.isupper()


@lru_cache(maxsize=4096)
def _pint_name(word: str) -> str | None:
    # Fall back to pint's own names ("fortnights", "hectopascals"); words pint reads as units
    # but English does not ("are", "counts") are excluded by the lexicon's "never" list.
    if not _maybe_unit(word):
        return None
    try:
        unit = registry().parse_units(word)
    except Exception:  # pint raises several unrelated types for unknown names
        return None
    name = str(unit)
    return name if name and name != "dimensionless" else None


@lru_cache(maxsize=8192)
def _factor(unit: str) -> tuple[str, float, str, bool]:
    ureg = registry()
    q = ureg.Quantity(1.0, unit)
    canonical = str(q.units)
    offset = not q._is_multiplicative  # degC, degF: conversion is affine, not a factor
    base = q.to_base_units()
    return canonical, float(base.magnitude), str(base.units), offset


def normalise(magnitude: float, unit: str) -> Normalised | None:
    """Convert ``magnitude unit`` to base units; None when pint cannot parse ``unit``."""
    try:
        canonical, factor, base_unit, offset = _factor(unit)
    except Exception:
        return None
    if offset:
        base = registry().Quantity(magnitude, unit).to_base_units()
        return Normalised(canonical, float(base.magnitude), str(base.units))
    return Normalised(canonical, magnitude * factor, base_unit)


def same_unit(a: str, b: str) -> bool:
    """Whether two unit expressions denote the same unit (``"s"`` and ``"second"``)."""
    try:
        return bool(_factor(a)[:3] == _factor(b)[:3])
    except Exception:
        return False
