"""Benchmark refgraph's spaCy extraction (quantities, negation, causal connectives) on public data.

Run ``python benchmarks/extraction.py [--data DIR] [--mode fast|accurate|both] [--json OUT]
[--split all|dev|test] [--only KEY]... [--misses] [--no-conventions]``.
The data live outside the repo (default ``../shared/data`` next to the repo root); nothing is
copied. A missing dataset folder (or file) is reported as skipped. Every dataset is parsed with
``load_pipeline(mode)`` and scored only from ``refgraph.nlp.records(doc)``.

Held-back split (``--split``): the rows of the quantity datasets (quantulum3, its ambiguity
file, NewsQuant, Recognizers) are cut in two halves by a hash of the row's text (sha256, first
byte even -> ``dev``, odd -> ``test``). Rules are developed by looking at misses on ``dev`` only
(``--misses`` refuses any other split); ``test`` is the honest estimate for unseen text and
``all`` (the default) is both. CD-SCO and the Causal News Corpus are not split: their dev/test
files are already separate. ``--only KEY`` (quantulum3, newsquant, cdsco, causal) runs a subset.

What is measured and how predictions are matched to gold:

quantulum3 (``quantulum3-tests/quantities.json``; ``quantities.ambiguity.json`` is a second row)
    Each gold ``surface`` is located in the sentence (first occurrence not taken by another gold
    quantity). A predicted ``quantity`` record matches a gold quantity when the character spans
    overlap and the value agrees: ``magnitude`` (or ``magnitude_high``) equals the gold ``value``
    (relative tolerance 1e-6), or, for a gold range with ``uncertainty``, its mean, low or high
    end; a value also agrees when the two base magnitudes are equal ("a dozen" = 12). Matching is
    greedy and one-to-one in gold order. "value+unit" additionally needs the unit: the gold unit
    name is mapped to a pint expression of refgraph's registry (see ``gold_unit``) and compared
    with ``refgraph.units.same_unit`` or, failing that, as the same base unit with the same
    factor ("kilometer / hour" = "kilometer_per_hour", "mL" = "cm³"). A gold "dimensionless" (or
    a counted noun that is no unit, "3 solutions") accepts a unitless prediction or a counted unit
    ("5 requests"). Gold units refgraph's registry cannot express (e.g. "dime", "shekel") never
    match on unit. A second prediction inside a matched gold range whose value is the range's
    other end ("3 to 4 L" read as two values) is absorbed: neither a hit nor a false alarm.
    Recall = matched gold / gold; precision = matched predictions / (predictions - absorbed).

    Convention mapping (quantulum3 only, see ``optional_by_convention``): quantulum3 labels every
    bare number as a "dimensionless" quantity, years ("in 1979") and the numbers of names
    ("Voyager 2") included. NewsQuant labels neither (its rows mark "in 2019" or "S&P 500" as no
    quantity), and refgraph's contract reads them as dates and names. Rather than let either
    convention win silently, a quantulum3 gold quantity in one of these two textual categories
    is *optional*: a prediction on it is neither a hit nor a false alarm, and missing it is no
    miss. The categories are a 4-digit integer 1000-2100, and an integer right after a word
    with a capital letter that is not the sentence's first word; the row "gold left optional"
    says how many gold quantities this takes out. NewsQuant is scored as labelled.

NewsQuant and the Recognizers-Text sets (``newsquant-cqe``)
    There are no character offsets, so matching is by value within a sentence: greedy and
    one-to-one in gold order, the first unused prediction whose value agrees as above (a gold
    range "a-b" accepts a, b or their mean). value+unit is a separate matching that also needs the
    unit, with ``normalized_unit`` mapped as for quantulum3 ("-" means unitless). The four
    Recognizers files (age, currency, dimension, temperature) are pooled into one row.

CD-SCO (*SEM 2012 negation, ``conandoyle-neg-cdsco``; test file, and the dev file as a 2nd row)
    Each sentence is rebuilt by joining the gold tokens with single spaces; a predicted cue's
    tokens are the gold tokens its characters overlap (for an affixal cue such as "un" of "unable",
    the token holding the affix). A predicted cue matches a gold cue instance when it covers the
    same tokens: one token set contains the other, so "can not" / "no one" cover the gold cues
    "not" / "no", and "neither" is part of the discontinuous gold cue "neither ... nor". Further
    predicted cues inside an already matched instance ("nor") are absorbed. Cue precision =
    matched predictions / (predictions - absorbed); recall = matched instances / instances. The
    row "cue F1, exact tokens" drops the first case (a predicted "can not" then misses the gold
    "not" and is a false alarm), which is closer to the strict *SEM cue measure.
    Predicted scope tokens = gold tokens overlapping ``[scope_start, scope_end)``, minus tokens
    wholly covered by a predicted cue and minus whole-token gold cue tokens (the gold scope never
    holds them). For each matched gold instance the scope tokens (union over its matched
    predictions) are compared with the gold scope tokens (affixal parts such as "pleasant" count
    as the token); the scope tokens of a missed gold instance are all false negatives. Scopes of
    false-alarm cues are not counted (the cue precision already charges them), as in a
    per-instance *SEM-style score. Tokens made only of punctuation are left out of both the gold
    and the predicted scope: the CD-SCO guidelines never put punctuation in a scope, and refgraph
    reports a scope as one character range, which cannot skip an inner comma.

Causal News Corpus V2 (dev split, ``causal-news-corpus/V2``)
    subtask1: a sentence is predicted causal when at least one ``causal`` record exists;
    precision, recall, F1 and accuracy against ``label``. subtask2: for every relation row with a
    ``<SIG0>`` span, the signal is found when a predicted connective (``causal`` record span)
    overlaps the characters of the gold signal's whitespace tokens; reported as recall.

Targets (accurate mode) are printed next to the scores; timing is wall-clock seconds per dataset,
parsing included (the first use of a pipeline also pays for loading it, reported separately).
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import math
import re
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from refgraph.errors import PipelineUnavailable
from refgraph.nlp import load_pipeline, records
from refgraph.units import lookup_unit, normalise, registry, same_unit

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DATA = (REPO / ".." / "shared" / "data").resolve()
MODES = ("fast", "accurate")
REL_TOL = 1e-6

STDERR = Console(stderr=True)

# ---------------------------------------------------------------------------------------------
# Extraction: run a pipeline over texts and keep only plain data of the record kinds we score.


@dataclass(frozen=True, slots=True)
class PredQuantity:
    start: int
    end: int
    values: tuple[float, ...]  # magnitude, and magnitude_high for a range
    unit: str | None
    base: float | None
    text: str


@dataclass(frozen=True, slots=True)
class PredNegation:
    start: int
    end: int
    cue: str
    cue_kind: str
    scope_start: int
    scope_end: int


@dataclass(frozen=True, slots=True)
class PredCausal:
    start: int
    end: int
    connective: str


@dataclass(slots=True)
class Extraction:
    quantities: list[PredQuantity] = field(default_factory=list)
    negations: list[PredNegation] = field(default_factory=list)
    causals: list[PredCausal] = field(default_factory=list)


def _float(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _int(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def extract(nlp: Any, texts: Sequence[str], label: str) -> list[Extraction]:
    """Parse ``texts`` (duplicates parsed once) and return their scored records, in order."""
    unique = list(dict.fromkeys(texts))
    parsed: dict[str, Extraction] = {}
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TimeElapsedColumn(), console=STDERR, transient=True,
                        disable=not STDERR.is_terminal)
    with progress:
        task = progress.add_task(label, total=len(unique))
        for text, doc in zip(unique, nlp.pipe(unique, batch_size=64), strict=True):
            parsed[text] = _collect(doc)
            progress.advance(task)
    return [parsed[t] for t in texts]


def _collect(doc: Any) -> Extraction:
    out = Extraction()
    for r in records(doc):
        a = r.attrs
        if r.kind == "quantity":
            mag = _float(a.get("magnitude"))
            if mag is None:
                continue
            high = _float(a.get("magnitude_high"))
            unit = a.get("unit")
            out.quantities.append(PredQuantity(
                r.start, r.end, (mag,) if high is None else (mag, high),
                unit if isinstance(unit, str) and unit else None,
                _float(a.get("base_magnitude")), doc.text[r.start:r.end]))
        elif r.kind == "negation":
            out.negations.append(PredNegation(
                r.start, r.end, str(a.get("cue", doc.text[r.start:r.end])).lower(),
                str(a.get("cue_kind", "")), _int(a.get("scope_start"), r.start),
                _int(a.get("scope_end"), r.end)))
        elif r.kind == "causal":
            out.causals.append(PredCausal(r.start, r.end, str(a.get("connective", ""))))
    return out


# ---------------------------------------------------------------------------------------------
# Scores


@dataclass(slots=True)
class PR:
    """Counts for precision/recall when gold hits and prediction hits can differ (absorption)."""

    gold: int = 0
    gold_hit: int = 0
    pred: int = 0
    pred_hit: int = 0

    def add(self, other: PR) -> None:
        self.gold += other.gold
        self.gold_hit += other.gold_hit
        self.pred += other.pred
        self.pred_hit += other.pred_hit

    @property
    def precision(self) -> float:
        return self.pred_hit / self.pred if self.pred else 0.0

    @property
    def recall(self) -> float:
        return self.gold_hit / self.gold if self.gold else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


@dataclass(frozen=True, slots=True)
class Row:
    """One score; ``n`` counts the gold items behind it (quantities, cues, tokens, sentences)."""

    dataset: str
    metric: str
    value: float
    n: int


class Skip(Exception):
    """A dataset (or file) is missing: print one line instead of scoring it."""


def _need(path: Path) -> Path:
    if not path.exists():
        raise Skip(f"not found: {path}")
    return path


# ---------------------------------------------------------------------------------------------
# Held-back split of the quantity datasets

SPLITS = ("all", "dev", "test")


@dataclass(slots=True)
class Options:
    """How a run scores: which split of the quantity rows, and where to collect misses."""

    split: str = "all"
    misses: list[str] | None = None  # filled with miss descriptions when not None (dev only)
    conventions: bool = True  # False: score quantulum3 exactly as labelled (no optional gold)


def in_split(text: str, split: str) -> bool:
    """Whether a quantity row belongs to ``split``: the first byte of sha256(text) is even for
    dev, odd for test, so the split is fixed, about half and half, and independent of order."""
    if split == "all":
        return True
    dev = hashlib.sha256(text.encode("utf-8")).digest()[0] % 2 == 0
    return dev == (split == "dev")


# ---------------------------------------------------------------------------------------------
# Gold units -> refgraph's pint registry

NONE = "none"  # gold is unitless: accept a unitless or counted prediction
NOUN = "noun"  # gold "unit" is a counted noun that is no unit ("3 solutions"): same as NONE
UNKNOWN = "unknown"  # a real unit or currency refgraph's registry lacks: never matches on unit
PINT = "pint"


@dataclass(frozen=True, slots=True)
class GoldUnit:
    kind: str
    expr: str | None = None  # pint expression when kind == PINT
    scale: float = 1.0  # "dozen" -> a unitless 12


_EXPLICIT: dict[str, GoldUnit] = {
    "dimensionless": GoldUnit(NONE), "-": GoldUnit(NONE), "": GoldUnit(NONE),
    "count": GoldUnit(NONE), "dozen": GoldUnit(NONE, scale=12.0),
    "gross": GoldUnit(NONE, scale=144.0), "baker's dozen": GoldUnit(NONE, scale=13.0),
    "percentage": GoldUnit(PINT, "percent"), "pound-mass": GoldUnit(PINT, "pound"),
    "minute of arc": GoldUnit(PINT, "arcminute"), "second of arc": GoldUnit(PINT, "arcsecond"),
    "dollar": GoldUnit(PINT, "USD"), "united states dollar": GoldUnit(PINT, "USD"),
    "euro": GoldUnit(PINT, "EUR"), "pound sterling": GoldUnit(PINT, "GBP"),
    "japanese yen": GoldUnit(PINT, "JPY"), "chinese yuan": GoldUnit(PINT, "CNY"),
    "indian rupee": GoldUnit(PINT, "INR"), "rupee": GoldUnit(PINT, "INR"),
    "swiss franc": GoldUnit(PINT, "CHF"), "canadian dollar": GoldUnit(PINT, "CAD"),
    "australian dollar": GoldUnit(PINT, "AUD"), "bitcoin": GoldUnit(PINT, "BTC"),
    "cent": GoldUnit(PINT, "US_cent"), "penny": GoldUnit(PINT, "penny"),
    "ton": GoldUnit(PINT, "metric_ton"), "metric ton": GoldUnit(PINT, "metric_ton"),
    "degree": GoldUnit(PINT, "degree"), "point": GoldUnit(PINT, "point_score"),
    "count per week": GoldUnit(PINT, "1 / week"), "count per minute": GoldUnit(PINT, "1 / minute"),
    "basis point": GoldUnit(PINT, "basis_point"), "part per million": GoldUnit(PINT, "ppm"),
    "parts-per-billion": GoldUnit(UNKNOWN), "brake horsepower": GoldUnit(PINT, "horsepower"),
    "pound-foot": GoldUnit(PINT, "force_pound * foot"),
    "barrel of oil": GoldUnit(PINT, "oil_barrel"),
}
# Words pint parses into surprising units ("unit" -> micro-nit, "section" -> square survey mile).
_NOT_UNITS = frozenset({"unit", "section", "league", "hand", "pick", "home", "man", "side"})
_CURRENCY_WORDS = frozenset({
    "dollar", "yen", "yuan", "franc", "krone", "kuna", "rand", "ringgit", "shekel", "peso",
    "lira", "rupee", "markka", "guilde", "guilder", "peseta", "colón", "lari", "kip", "satoshi",
    "mark", "sen", "dime", "dram", "euro", "pound"})


def _valid(expr: str) -> bool:
    return normalise(1.0, expr) is not None


def _one_unit(name: str) -> str | None:
    """A pint expression for one (possibly multi-word) unit name, or None."""
    name = name.strip()
    if not name or name in _NOT_UNITS:
        return None
    if name in _EXPLICIT:
        gu = _EXPLICIT[name]
        return gu.expr if gu.kind == PINT else None
    for cand in (name, name.replace(" ", "_"), name.replace("-", "_")):
        hit = lookup_unit(cand)
        if hit and _valid(hit):
            return hit
        try:
            parsed = str(registry().parse_units(cand))
        except Exception:  # pint raises several unrelated types for unknown names
            parsed = ""
        if parsed and parsed != "dimensionless" and _valid(parsed):
            return parsed
    for word, power in (("square ", 2), ("cubic ", 3)):
        if name.startswith(word):
            inner = _one_unit(name[len(word):])
            return f"({inner}) ** {power}" if inner else None
    if name.startswith("inverse "):
        inner = _one_unit(name[len("inverse "):])
        return f"1 / ({inner})" if inner else None
    words = name.split()
    if len(words) > 1:  # "candela second", "watt hour": a product
        parts = [_one_unit(w) for w in words]
        if all(parts):
            return " * ".join(f"({p})" for p in parts)
    return None


def gold_unit(name: str) -> GoldUnit:
    """Map a quantulum3 / CQE unit name to refgraph's registry (see the module docstring)."""
    key = re.sub(r"\s+", " ", name.strip())
    if key in _EXPLICIT:
        return _EXPLICIT[key]
    key = re.sub(r" of age$", "", key)  # "year of age"
    if key.startswith("%"):  # CQE writes "% US population" for a percentage of something
        return GoldUnit(PINT, "percent")
    parts = key.split(" per ")
    exprs = [_one_unit(p) for p in parts]
    if exprs[0] is not None:
        # Denominators that are no unit ("dollar per share") are dropped: "$2 a share" is USD.
        dens = [e for e in exprs[1:] if e is not None]
        expr = " / ".join([f"({exprs[0]})", *(f"({d})" for d in dens)]) if dens else exprs[0]
        if _valid(expr):
            return GoldUnit(PINT, expr)
    if any(w in _CURRENCY_WORDS for w in re.split(r"[\s-]+", parts[0].lower())):
        return GoldUnit(UNKNOWN)
    if len(parts) == 1 and lookup_unit(key.split()[-1]) is None:
        return GoldUnit(NOUN)
    return GoldUnit(UNKNOWN) if exprs[0] is not None else GoldUnit(NOUN)


def is_counted(unit: str) -> bool:
    """A refgraph counted unit (``request``, ``person``): its own non-physical dimension."""
    try:
        dims = dict(registry().Quantity(1.0, unit).dimensionality)
    except Exception:
        return False
    physical = {"[length]", "[time]", "[mass]", "[current]", "[temperature]", "[substance]",
                "[luminosity]", "[information]"}
    return bool(dims) and all(k not in physical and not k.startswith("[currency") for k in dims)


def unit_ok(gold: GoldUnit, pred: str | None) -> bool:
    if gold.kind in (NONE, NOUN):
        return pred is None or is_counted(pred)
    if gold.kind == PINT and gold.expr is not None and pred is not None:
        return units_equal(gold.expr, pred)
    return False


def units_equal(a: str, b: str) -> bool:
    """``same_unit``, or the same base unit with an equal factor (km/h and kilometer_per_hour)."""
    if same_unit(a, b):
        return True
    na, nb = normalise(1.0, a), normalise(1.0, b)
    return (na is not None and nb is not None and na.base_unit == nb.base_unit
            and _close(na.base_magnitude, nb.base_magnitude))


# ---------------------------------------------------------------------------------------------
# Quantity matching (shared by quantulum3 and NewsQuant)


@dataclass(frozen=True, slots=True)
class GoldQuantity:
    values: tuple[float, ...]  # accepted values: the value, or a range's mean, low and high
    unit: GoldUnit
    unit_name: str
    span: tuple[int, int] | None = None
    surface: str = ""
    is_range: bool = False
    optional: bool = False  # a convention conflict (see the module docstring): neutral either way


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=REL_TOL, abs_tol=1e-9)


def value_ok(gold: GoldQuantity, pred: PredQuantity) -> bool:
    if any(_close(g, p) for g in gold.values for p in pred.values):
        return True
    if pred.base is None:
        return False
    if gold.unit.kind == PINT and gold.unit.expr:
        norm = normalise(gold.values[0], gold.unit.expr)
        return norm is not None and _close(norm.base_magnitude, pred.base)
    return gold.unit.scale != 1.0 and _close(gold.values[0] * gold.unit.scale, pred.base)


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


@dataclass(slots=True)
class QuantityMatch:
    counts: PR
    pairs: list[tuple[int, int]]  # (gold index, prediction index)
    missed: list[int]  # gold indices
    false_alarms: list[int]  # prediction indices
    absorbed: list[int]


def match_quantities(golds: Sequence[GoldQuantity], preds: Sequence[PredQuantity], *,
                     need_unit: bool) -> QuantityMatch:
    """Greedy one-to-one matching in gold order (span overlap when gold has spans)."""
    used: set[int] = set()
    pairs: list[tuple[int, int]] = []
    missed: list[int] = []

    def fits(g: GoldQuantity, p: PredQuantity) -> bool:
        if g.span is not None and not _overlap(g.span, (p.start, p.end)):
            return False
        if not value_ok(g, p):
            return False
        return not need_unit or unit_ok(g.unit, p.unit)

    optional: list[int] = []  # predictions paired with an optional gold quantity
    for gi, g in enumerate(golds):
        pi = next((i for i, p in enumerate(preds) if i not in used and fits(g, p)), None)
        if pi is None:
            if not g.optional:
                missed.append(gi)
        else:
            used.add(pi)
            if g.optional:
                optional.append(pi)
            else:
                pairs.append((gi, pi))
    matched_ranges = [golds[gi] for gi, _ in pairs if golds[gi].is_range]
    absorbed = [i for i, p in enumerate(preds) if i not in used
                and any(fits(g, p) for g in matched_ranges)]
    false_alarms = [i for i in range(len(preds)) if i not in used and i not in absorbed]
    n_gold = sum(not g.optional for g in golds)
    counts = PR(n_gold, len(pairs), len(preds) - len(absorbed) - len(optional), len(pairs))
    return QuantityMatch(counts, pairs, missed, false_alarms, [*absorbed, *optional])


def _quantity_rows(dataset: str, golds: Sequence[Sequence[GoldQuantity]],
                   preds: Sequence[Extraction], *, prf_unit: bool) -> list[Row]:
    by_value, by_unit = PR(), PR()
    for g, p in zip(golds, preds, strict=True):
        by_value.add(match_quantities(g, p.quantities, need_unit=False).counts)
        by_unit.add(match_quantities(g, p.quantities, need_unit=True).counts)
    n = by_value.gold
    rows = [Row(dataset, "value precision", by_value.precision, n),
            Row(dataset, "value recall", by_value.recall, n),
            Row(dataset, "value F1", by_value.f1, n)]
    if prf_unit:
        rows += [Row(dataset, "value+unit precision", by_unit.precision, n),
                 Row(dataset, "value+unit recall", by_unit.recall, n)]
    rows.append(Row(dataset, "value+unit F1", by_unit.f1, n))
    optional = sum(q.optional for g in golds for q in g)
    if optional:  # reported so the convention mapping is never silent
        rows.append(Row(dataset, "gold left optional (share)", optional / (n + optional),
                        optional))
    return rows


def describe_misses(name: str, sents: Sequence[QSentence], preds: Sequence[Extraction]
                    ) -> list[str]:
    """One line per sentence with a value miss or false alarm (for error analysis on dev)."""
    out: list[str] = []
    for s, p in zip(sents, preds, strict=True):
        m = match_quantities(s.golds, p.quantities, need_unit=False)
        mu = match_quantities(s.golds, p.quantities, need_unit=True)
        unit_only = [gi for gi in mu.missed if gi not in m.missed]
        if not (m.missed or m.false_alarms or unit_only):
            continue
        out.append(f"[{name}] {s.text}")
        for gi in m.missed:
            g = s.golds[gi]
            out.append(f"    MISS {g.surface!r} {g.values[0]:g} {g.unit_name}")
        for pi in m.false_alarms:
            q = p.quantities[pi]
            out.append(f"    FALSE {q.text!r} {q.values} {q.unit}")
        for gi in unit_only:
            g = s.golds[gi]
            got = [q for q in p.quantities if value_ok(g, q)]
            out.append(f"    UNIT {g.surface!r} gold={g.unit_name} ({g.unit.kind} {g.unit.expr})"
                       f" got={[q.unit for q in got]}")
    return out


# --- quantulum3


@dataclass(frozen=True, slots=True)
class QSentence:
    text: str
    golds: tuple[GoldQuantity, ...]


def load_quantulum(path: Path, *, conventions: bool = True) -> list[QSentence]:
    out: list[QSentence] = []
    for item in json.loads(_need(path).read_text(encoding="utf-8")):
        text: str = item["req"]
        taken: list[tuple[int, int]] = []
        golds: list[GoldQuantity] = []
        for q in item["res"]:
            surface: str = q["surface"]
            span = _locate(text, surface, taken)
            taken.append(span)
            value = float(q["value"])
            unc = q.get("uncertainty")
            values: tuple[float, ...] = (value,)
            if unc:
                values = (value, value - float(unc), value + float(unc))
            unit = gold_unit(q["unit"])
            golds.append(GoldQuantity(values, unit, q["unit"], span, surface,
                                      is_range=bool(unc),
                                      optional=conventions and optional_by_convention(
                                          text, span, unit, value)))
        out.append(QSentence(text, tuple(golds)))
    return out


_ARTICLE = re.compile(r"(?i)an?\s")
_NAME_BEFORE = re.compile(r"(?<![\w&])([\w&]*[A-Z][\w&]*)[ \t]+$")


def optional_by_convention(text: str, span: tuple[int, int], unit: GoldUnit,
                           value: float) -> bool:
    """A quantulum3 gold quantity that is a year, part of a name, or "a/an" + unit.

    quantulum3 labels every bare number, "in 1979" and "Voyager 2" included; NewsQuant never
    labels years or the numbers of names ("S&P 500", "iPhone 11"), and refgraph's contract
    reads them as dates and names, not measurements. Such a gold quantity is left optional:
    found or not, it counts neither as a hit, a miss nor a false alarm. The categories are
    textual, not refgraph's own rules: a 4-digit integer 1000-2100, or an integer right after
    a word holding a capital letter that is not the sentence's first word. Likewise "a
    kibibyte", "an hour" (value 1 written with the article): quantulum3 labels them, NewsQuant
    does not ("more than a decade", "in around a minute" carry no gold), and refgraph does not
    read an article as a number.
    """
    surface = text[span[0]:span[1]]
    if _ARTICLE.match(surface) and value == 1.0:
        return True
    if unit.kind != NONE or unit.scale != 1.0 or not surface.isdigit():
        return False
    if len(surface) == 4 and 1000 <= int(surface) <= 2100:
        return True
    before = text[:span[0]]
    m = _NAME_BEFORE.search(before)
    return m is not None and any(c.isalpha() for c in before[:m.start()])


def _locate(text: str, surface: str, taken: Sequence[tuple[int, int]]) -> tuple[int, int]:
    start = text.find(surface)
    while start >= 0 and (start, start + len(surface)) in taken:
        start = text.find(surface, start + 1)
    if start < 0:
        start = max(text.find(surface), 0)
    return start, start + len(surface)


def eval_quantulum(folder: Path, nlp: Any, opts: Options, fname: str, name: str) -> list[Row]:
    sents = [s for s in load_quantulum(folder / fname, conventions=opts.conventions)
             if in_split(s.text, opts.split)]
    preds = extract(nlp, [s.text for s in sents], name)
    if opts.misses is not None:
        opts.misses.extend(describe_misses(name, sents, preds))
    return _quantity_rows(name, [s.golds for s in sents], preds, prf_unit=True)


# --- NewsQuant / Recognizers

_RANGE = re.compile(r"^\s*(-?[\d.]+)\s*-\s*(-?[\d.]+)\s*$")


def newsquant_values(value: str) -> tuple[tuple[float, ...], bool]:
    m = _RANGE.match(value)
    if m:
        lo, hi = float(m.group(1)), float(m.group(2))
        return (lo, hi, (lo + hi) / 2), True
    return (float(value),), False


def load_newsquant(paths: Iterable[Path]) -> list[QSentence]:
    out: list[QSentence] = []
    for path in paths:
        for item in json.loads(_need(path).read_text(encoding="utf-8")):
            golds = []
            for q in item["quantities"]:
                values, is_range = newsquant_values(str(q["value"]))
                unit = str(q.get("normalized_unit", "-"))
                golds.append(GoldQuantity(values, gold_unit(unit), unit, None,
                                          str(q.get("unit", "")), is_range))
            out.append(QSentence(item["text"], tuple(golds)))
    return out


RECOGNIZERS = ("age-model.json", "currency-model.json", "dimension-model.json",
               "temperature-model.json")


def eval_newsquant(folder: Path, nlp: Any, opts: Options, files: Sequence[str],
                   name: str) -> list[Row]:
    sents = [s for s in load_newsquant(folder / f for f in files) if in_split(s.text, opts.split)]
    preds = extract(nlp, [s.text for s in sents], name)
    if opts.misses is not None:
        opts.misses.extend(describe_misses(name, sents, preds))
    return _quantity_rows(name, [s.golds for s in sents], preds, prf_unit=False)


# ---------------------------------------------------------------------------------------------
# Negation: CD-SCO


@dataclass(frozen=True, slots=True)
class NegInstance:
    cue: frozenset[int]  # token indices of the cue (affixal: the token holding it)
    whole_cue: frozenset[int]  # cue tokens that are entirely cue ("not", not "un"+"known")
    scope: frozenset[int]
    cue_text: str


@dataclass(frozen=True, slots=True)
class NegSentence:
    sid: str
    tokens: tuple[str, ...]
    offsets: tuple[tuple[int, int], ...]
    instances: tuple[NegInstance, ...]

    @property
    def text(self) -> str:
        return " ".join(self.tokens)


def load_cdsco(path: Path) -> list[NegSentence]:
    sentences: list[NegSentence] = []
    block: list[list[str]] = []

    def flush() -> None:
        if not block:
            return
        tokens = tuple(r[3] for r in block)
        offsets, pos = [], 0
        for tok in tokens:
            offsets.append((pos, pos + len(tok)))
            pos += len(tok) + 1
        n_inst = 0 if block[0][7] == "***" else (len(block[0]) - 7) // 3
        insts = []
        for k in range(n_inst):
            col = 7 + 3 * k
            cue = frozenset(i for i, r in enumerate(block) if r[col] != "_")
            whole = frozenset(i for i in cue if block[i][col].lower() == tokens[i].lower())
            scope = frozenset(i for i, r in enumerate(block) if r[col + 1] != "_")
            text = " ".join(block[i][col] for i in sorted(cue))
            insts.append(NegInstance(cue, whole, scope, text.lower()))
        sentences.append(NegSentence(f"{block[0][0]}/{block[0][1]}", tokens, tuple(offsets),
                                     tuple(insts)))
        block.clear()

    for line in _need(path).read_text(encoding="utf-8").splitlines():
        if line.strip():
            block.append(line.split("\t"))
        else:
            flush()
    flush()
    return sentences


def _is_punct(token: str) -> bool:
    return not any(c.isalnum() for c in token)


def _tokens_overlapping(sent: NegSentence, start: int, end: int) -> set[int]:
    return {i for i, (s, e) in enumerate(sent.offsets) if s < end and start < e}


def _tokens_covered(sent: NegSentence, start: int, end: int) -> set[int]:
    return {i for i, (s, e) in enumerate(sent.offsets) if start <= s and e <= end}


@dataclass(slots=True)
class NegationScore:
    cue: PR = field(default_factory=PR)
    scope_tp: int = 0
    scope_fp: int = 0
    scope_fn: int = 0
    # For error analysis: missed gold instances, unmatched predictions, imperfect scopes.
    missed: list[tuple[NegSentence, int]] = field(default_factory=list)
    false_alarms: list[tuple[NegSentence, PredNegation]] = field(default_factory=list)
    scope_errors: list[tuple[NegSentence, int, frozenset[int], set[int]]] = field(
        default_factory=list)

    @property
    def scope(self) -> PR:
        return PR(self.scope_tp + self.scope_fn, self.scope_tp, self.scope_tp + self.scope_fp,
                  self.scope_tp)


def score_negation(sentences: Sequence[NegSentence], preds: Sequence[Extraction], *,
                   exact: bool = False) -> NegationScore:
    """Score cues and scopes; ``exact`` accepts only predicted cue tokens inside the gold cue."""
    score = NegationScore()
    for sent, ext in zip(sentences, preds, strict=True):
        matched: dict[int, list[PredNegation]] = {}
        absorbed = 0
        for p in ext.negations:
            toks = _tokens_overlapping(sent, p.start, p.end)
            fits = [k for k, g in enumerate(sent.instances)
                    if toks and (toks <= g.cue or (not exact and g.cue <= toks))]
            free = [k for k in fits if k not in matched]
            if free:
                matched[free[0]] = [p]
            elif fits:
                matched[fits[0]].append(p)
                absorbed += 1
            else:
                score.false_alarms.append((sent, p))
        n_pred = len(ext.negations) - absorbed
        score.cue.add(PR(len(sent.instances), len(matched), n_pred, len(matched)))
        for k, g in enumerate(sent.instances):
            if k not in matched:
                score.scope_fn += sum(1 for i in g.scope if not _is_punct(sent.tokens[i]))
                score.missed.append((sent, k))
                continue
            pred_scope: set[int] = set()
            for p in matched[k]:
                pred_scope |= _tokens_overlapping(sent, p.scope_start, p.scope_end)
            for p in matched[k]:
                pred_scope -= _tokens_covered(sent, p.start, p.end)
            pred_scope -= g.whole_cue
            pred_scope = {i for i in pred_scope if not _is_punct(sent.tokens[i])}
            gold_scope = {i for i in g.scope if not _is_punct(sent.tokens[i])}
            score.scope_tp += len(pred_scope & gold_scope)
            score.scope_fp += len(pred_scope - gold_scope)
            score.scope_fn += len(gold_scope - pred_scope)
            if pred_scope != g.scope:
                score.scope_errors.append((sent, k, g.scope, pred_scope))
    return score


def eval_cdsco(folder: Path, nlp: Any, opts: Options, fname: str, name: str) -> list[Row]:
    sents = load_cdsco(folder / fname)
    preds = extract(nlp, [x.text for x in sents], name)
    s = score_negation(sents, preds)
    strict = score_negation(sents, preds, exact=True).cue
    sc = s.scope
    return [Row(name, "cue precision", s.cue.precision, s.cue.gold),
            Row(name, "cue recall", s.cue.recall, s.cue.gold),
            Row(name, "cue F1", s.cue.f1, s.cue.gold),
            Row(name, "cue F1, exact tokens", strict.f1, strict.gold),
            Row(name, "scope-token precision", sc.precision, sc.gold),
            Row(name, "scope-token recall", sc.recall, sc.gold),
            Row(name, "scope-token F1", sc.f1, sc.gold)]


# ---------------------------------------------------------------------------------------------
# Causal News Corpus

_TAG = re.compile(r"</?(ARG\d|SIG\d)>")


def signal_tokens(marked: str) -> tuple[list[str], set[int]]:
    """Whitespace tokens of ``text_w_pairs`` without tags, and the indices inside ``<SIG0>``."""
    chars: list[str] = []
    flags: list[bool] = []
    in_sig = False
    pos = 0
    for m in _TAG.finditer(marked):
        chunk = marked[pos:m.start()]
        chars.extend(chunk)
        flags.extend([in_sig] * len(chunk))
        if m.group(1) == "SIG0":
            in_sig = not m.group(0).startswith("</")
        pos = m.end()
    chars.extend(marked[pos:])
    flags.extend([in_sig] * (len(marked) - pos))
    tokens: list[str] = []
    sig: set[int] = set()
    current: list[str] = []
    flagged = False
    for ch, fl in zip([*chars, " "], [*flags, False], strict=True):
        if ch.isspace():
            if current:
                if flagged:
                    sig.add(len(tokens))
                tokens.append("".join(current))
            current, flagged = [], False
        else:
            current.append(ch)
            flagged = flagged or fl
    return tokens, sig


def whitespace_offsets(text: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]


def _read_csv(path: Path) -> list[dict[str, str]]:
    with _need(path).open(encoding="utf-8-sig", newline="") as fh:
        return list(csv.DictReader(fh))


@dataclass(frozen=True, slots=True)
class SignalRow:
    text: str  # the text that is parsed
    signal: tuple[int, int]  # char span of the gold signal tokens in ``text``
    signal_text: str


def load_signals(path: Path) -> list[SignalRow]:
    out: list[SignalRow] = []
    for row in _read_csv(path):
        if "<SIG0>" not in row["text_w_pairs"]:
            continue
        tokens, sig = signal_tokens(row["text_w_pairs"])
        text = row["text"]
        offsets = whitespace_offsets(text)
        if [text[s:e] for s, e in offsets] != tokens:  # keep the marked tokens if they differ
            text = " ".join(tokens)
            offsets = whitespace_offsets(text)
        lo, hi = min(sig), max(sig)
        out.append(SignalRow(text, (offsets[lo][0], offsets[hi][1]),
                             " ".join(tokens[i] for i in sorted(sig))))
    return out


def eval_causal_sentences(folder: Path, nlp: Any, opts: Options) -> list[Row]:
    rows1 = _read_csv(folder / "V2" / "dev_subtask1.csv")
    preds = extract(nlp, [r["text"] for r in rows1], "CNC subtask1")
    tp = fp = fn = tn = 0
    for r, p in zip(rows1, preds, strict=True):
        gold, guess = r["label"].strip() == "1", bool(p.causals)
        tp += gold and guess
        fp += guess and not gold
        fn += gold and not guess
        tn += not gold and not guess
    pr = PR(tp + fn, tp, tp + fp, tp)
    name = "CNC dev subtask1"
    return [Row(name, "causal precision", pr.precision, pr.gold),
            Row(name, "causal recall", pr.recall, pr.gold),
            Row(name, "causal F1", pr.f1, pr.gold),
            Row(name, "accuracy", (tp + tn) / len(rows1) if rows1 else 0.0, len(rows1))]


def eval_causal_signals(folder: Path, nlp: Any, opts: Options) -> list[Row]:
    sigs = load_signals(folder / "V2" / "dev_subtask2.csv")
    preds = extract(nlp, [s.text for s in sigs], "CNC subtask2")
    found = sum(any(_overlap(s.signal, (c.start, c.end)) for c in p.causals)
                for s, p in zip(sigs, preds, strict=True))
    return [Row("CNC dev subtask2", "signal recall", found / len(sigs) if sigs else 0.0,
                len(sigs))]


# ---------------------------------------------------------------------------------------------
# Driver


Part = tuple[str, Callable[[Path, Any, Options], list[Row]]]  # (label for a skip line, scorer)


@dataclass(frozen=True, slots=True)
class Dataset:
    key: str
    folder: str
    parts: tuple[Part, ...]  # each scorer gets (dataset folder, nlp, options); a missing file
    # skips it


DATASETS = (
    Dataset("quantulum3", "quantulum3-tests", (
        ("quantities.json", partial(eval_quantulum, fname="quantities.json", name="quantulum3")),
        ("quantities.ambiguity.json", partial(eval_quantulum, fname="quantities.ambiguity.json",
                                              name="quantulum3 ambiguity")))),
    Dataset("newsquant", "newsquant-cqe", (
        ("NewsQuant", partial(eval_newsquant, files=("NewsQuant.json",), name="NewsQuant")),
        ("Recognizers", partial(eval_newsquant, files=RECOGNIZERS, name="Recognizers (4 sets)")))),
    Dataset("cdsco", "conandoyle-neg-cdsco", (
        ("test", partial(eval_cdsco, fname="SEM-2012-SharedTask-CD-SCO-test-merge-GOLD.txt",
                         name="CD-SCO test")),
        ("dev", partial(eval_cdsco, fname="SEM-2012-SharedTask-CD-SCO-dev-09032012.txt",
                        name="CD-SCO dev")))),
    Dataset("causal", "causal-news-corpus", (
        ("subtask1", eval_causal_sentences), ("subtask2", eval_causal_signals))),
)

# (dataset row, metric) -> (threshold, label); targets apply to accurate mode.
TARGETS: dict[tuple[str, str], tuple[float, str]] = {
    ("quantulum3", "value recall"): (0.95, ">= 0.95"),
    ("quantulum3", "value precision"): (0.90, ">= 0.90"),
    ("NewsQuant", "value F1"): (0.85, ">= 0.85"),
    ("CD-SCO test", "cue F1"): (0.90, ">= 0.90 (11-word list 0.851)"),
    ("CD-SCO test", "scope-token F1"): (0.75, ">= 0.75"),
    ("CD-SCO dev", "cue F1"): (0.90, ">= 0.90"),
    ("CD-SCO dev", "scope-token F1"): (0.75, ">= 0.75"),
}


@dataclass(slots=True)
class Results:
    modes: list[str]
    values: dict[tuple[str, str], dict[str, float]] = field(default_factory=dict)
    n: dict[tuple[str, str], int] = field(default_factory=dict)
    order: list[tuple[str, str]] = field(default_factory=list)
    seconds: dict[str, dict[str, float]] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)

    def add(self, mode: str, row: Row) -> None:
        key = (row.dataset, row.metric)
        if key not in self.values:
            self.values[key] = {}
            self.order.append(key)
        self.values[key][mode] = row.value
        self.n[key] = row.n

    def timing(self, label: str, mode: str, seconds: float) -> None:
        self.seconds.setdefault(label, {})[mode] = seconds


def run(data: Path, modes: Sequence[str], opts: Options | None = None,
        only: Sequence[str] = ()) -> Results:
    opts = opts or Options()
    res = Results(list(modes))
    present = []
    for ds in DATASETS:
        if only and ds.key not in only:
            continue
        if (data / ds.folder).is_dir():
            present.append(ds)
        else:
            res.skipped.append(f"{ds.folder}: skipped (folder not found in {data})")
    for mode in modes:
        t0 = time.perf_counter()
        try:
            nlp = load_pipeline("fast" if mode == "fast" else "accurate")
        except PipelineUnavailable as exc:
            res.skipped.append(f"mode {mode}: skipped ({exc})")
            continue
        res.timing("pipeline load", mode, time.perf_counter() - t0)
        for ds in present:
            t0 = time.perf_counter()
            for label, scorer in ds.parts:
                try:
                    rows = scorer(data / ds.folder, nlp, opts)
                except Skip as exc:
                    msg = f"{ds.folder} {label}: skipped ({exc})"
                    if msg not in res.skipped:
                        res.skipped.append(msg)
                    continue
                for row in rows:
                    res.add(mode, row)
            res.timing(ds.key, mode, time.perf_counter() - t0)
    return res


def render(res: Results) -> str:
    modes = [m for m in MODES if m in res.modes]
    header = ["dataset", "metric", "n", *modes, "target (accurate)", "met"]
    body: list[list[str]] = []
    for key in res.order:
        vals = res.values[key]
        target = TARGETS.get(key)
        met = ""
        if target and "accurate" in vals:
            met = "yes" if vals["accurate"] >= target[0] else "NO"
        body.append([key[0], key[1], str(res.n.get(key, "")),
                     *(f"{vals[m]:.3f}" if m in vals else "-" for m in modes),
                     target[1] if target else "", met])
    for label, per_mode in res.seconds.items():
        body.append([label, "time (s)", "",
                     *(f"{per_mode[m]:.1f}" if m in per_mode else "-" for m in modes), "", ""])
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]
    numeric = {2, *range(3, 3 + len(modes))}

    def line(cells: Sequence[str]) -> str:
        padded = [c.rjust(w) if i in numeric else c.ljust(w)
                  for i, (c, w) in enumerate(zip(cells, widths, strict=True))]
        return "| " + " | ".join(padded) + " |"

    rule = "|" + "|".join(("-" * (w + 1) + ":") if i in numeric else ("-" * (w + 2))
                          for i, w in enumerate(widths)) + "|"
    lines = [line(header), rule, *(line(r) for r in body)]
    lines += [f"- {s}" for s in res.skipped]
    return "\n".join(lines)


def to_json(res: Results, data: Path) -> dict[str, Any]:
    return {
        "data": str(data),
        "modes": res.modes,
        "results": [{"dataset": k[0], "metric": k[1], "n": res.n.get(k),
                     "values": res.values[k],
                     "target": TARGETS[k][0] if k in TARGETS else None} for k in res.order],
        "seconds": res.seconds,
        "skipped": res.skipped,
    }


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA,
                    help=f"folder holding the datasets (default: {DEFAULT_DATA})")
    ap.add_argument("--mode", choices=("fast", "accurate", "both"), default="both")
    ap.add_argument("--json", type=Path, default=None, metavar="OUT",
                    help="also write the scores as JSON to OUT")
    ap.add_argument("--split", choices=SPLITS, default="all",
                    help="rows of the quantity datasets to score: the dev half (for error "
                         "analysis), the held-back test half, or all (default)")
    ap.add_argument("--only", action="append", default=[], metavar="KEY",
                    choices=[d.key for d in DATASETS],
                    help="score only this dataset (repeatable; default: all)")
    ap.add_argument("--misses", action="store_true",
                    help="print quantity misses and false alarms after the table "
                         "(only with --split dev: the test half stays unseen)")
    ap.add_argument("--no-conventions", action="store_true",
                    help="score quantulum3 exactly as labelled: no gold is left optional")
    args = ap.parse_args(argv)
    if args.misses and args.split != "dev":
        ap.error("--misses needs --split dev")
    data: Path = args.data.resolve()
    if not data.is_dir():
        print(f"data folder not found: {data}; every dataset skipped")
        return 0
    modes = list(MODES) if args.mode == "both" else [args.mode]
    opts = Options(args.split, [] if args.misses else None, not args.no_conventions)
    res = run(data, modes, opts, args.only)
    print(f"split: {args.split}")
    print(render(res))
    if opts.misses:
        print("\n".join(["", "misses:", *opts.misses]))
    if args.json is not None:
        args.json.write_text(json.dumps(to_json(res, data), indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
