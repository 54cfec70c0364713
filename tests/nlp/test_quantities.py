"""Quantities: number, unit (pint-normalised), scale, bound, range, what is measured."""

from __future__ import annotations

import pytest
from spacy.language import Language

from tests.conftest import extract, quote

CASES = [
    # text, quote, magnitude, unit, base_magnitude, bound
    ("The timeout is 30 seconds.", "30 seconds", 30.0, "second", 30.0, "="),
    ("Set it to 2000 ms.", "2000 ms", 2000.0, "millisecond", 2.0, "="),
    ("The cache holds 1.5 GB of data.", "1.5 GB", 1.5, "gigabyte", 1.2e10, "="),
    ("Throttle at 5 req/s per client.", "5 req/s", 5.0, "request / second", 5.0, "="),
    ("The probe reads 40 °C at noon.", "40 °C", 40.0, "degree_Celsius", 313.15, "="),
    ("Errors rose by 15% overnight.", "15%", 15.0, "percent", 0.15, "="),
    ("The budget is $20 million this year.", "$20 million", 2e7, "USD", 2e7, "="),
    ("Refunds over €500 need approval.", "over €500", 500.0, "EUR", 500.0, ">"),
    ("We saw more than 40 users.", "more than 40 users", 40.0, "user", 40.0, ">"),
    ("Retry at most 3 times.", "at most 3", 3.0, None, 3.0, "<="),
    ("Latency must be <= 2 s.", "<= 2 s", 2.0, "second", 2.0, "<="),
    ("It took about 40 minutes.", "about 40 minutes", 40.0, "minute", 2400.0, "~"),
    ("Use three retries.", "three retries", 3.0, "retry", 3.0, "="),
    ("Keep 40 or more replicas warm.", "40 or more replicas", 40.0, "replica", 40.0, ">="),
]


@pytest.mark.parametrize(("text", "q", "magnitude", "unit", "base", "bound"), CASES)
def test_quantity_value_unit_bound(nlp: Language, text: str, q: str, magnitude: float,
                                   unit: str | None, base: float, bound: str) -> None:
    found = extract(nlp, text, "quantity")
    assert [quote(text, r) for r in found] == [q]
    a = found[0].attrs
    assert a["magnitude"] == pytest.approx(magnitude)
    assert a.get("unit") == unit
    assert a["base_magnitude"] == pytest.approx(base)
    assert a["bound"] == bound


@pytest.mark.parametrize(("text", "low", "high", "unit"), [
    ("Lag stayed between 2 and 4 s.", 2.0, 4.0, "second"),
    ("Batches take 2-4 minutes.", 2.0, 4.0, "minute"),
    ("Expect 10 to 20 GB per day.", 10.0, 20.0, "gigabyte / day"),
])
def test_quantity_range(nlp: Language, text: str, low: float, high: float, unit: str) -> None:
    (q,) = extract(nlp, text, "quantity")
    assert (q.attrs["magnitude"], q.attrs["magnitude_high"], q.attrs["unit"]) == (low, high, unit)


@pytest.mark.parametrize(("text", "measured"), [
    ("The timeout is 30 seconds.", "timeout"),
    ("MAX_RETRIES=3", "MAX_RETRIES"),
    ("timeout: 30s", "timeout"),
    ("We set a budget of 5 GB.", "budget"),
])
def test_quantity_measured_thing(nlp: Language, text: str, measured: str) -> None:
    (q,) = extract(nlp, text, "quantity")
    assert q.attrs["measured"] == measured


def test_unitless_number_has_no_unit(nlp: Language) -> None:
    """Seed 001: "the timeout is 30" keeps its number and loses its unit."""
    (q,) = extract(nlp, "The timeout is 30.", "quantity")
    assert "unit" not in q.attrs
    assert "base_unit" not in q.attrs
    assert q.attrs["magnitude"] == 30.0
    assert q.attrs["measured"] == "timeout"


def test_equal_quantities_written_differently_normalise_alike(nlp: Language) -> None:
    (a,) = extract(nlp, "The timeout is two seconds.", "quantity")
    (b,) = extract(nlp, "The timeout is 2000 ms.", "quantity")
    assert (a.attrs["base_magnitude"], a.attrs["base_unit"]) == pytest.approx(
        (b.attrs["base_magnitude"], b.attrs["base_unit"]))


@pytest.mark.parametrize("text", [
    "Released v1.2.3 on 2026-11-28 at 10:02:11.",
    "See issue #4471 and ticket 88213.",
    "Connect to 10.0.0.12:5432 now.",
    "It happened on Nov 3, 2026.",
    "Commit 9f2c1ab4 fixed it; see call_17 and src/app/v2/main.py.",
    "The one that failed was restarted.",
])
def test_digits_that_are_not_quantities(nlp: Language, text: str) -> None:
    assert extract(nlp, text, "quantity") == []


def test_currencies_are_distinct_dimensions(nlp: Language) -> None:
    (usd,) = extract(nlp, "It costs $5.", "quantity")
    (eur,) = extract(nlp, "It costs €5.", "quantity")
    assert usd.attrs["base_unit"] != eur.attrs["base_unit"]


def test_quantities_in_code_and_logs(nlp: Language) -> None:
    text = "2026-11-28 10:02:12 INFO 41 passed, 1 failed in 12.4s"
    qs = extract(nlp, text, "quantity")
    assert [quote(text, q) for q in qs] == ["41", "1", "12.4s"]
    assert qs[-1].attrs["unit"] == "second"


@pytest.mark.parametrize(("text", "magnitude", "unit"), [
    ("The beam drifts 2.48×10−5 per turn.", 2.48e-05, None),
    ("Shares fell 5pc on Monday.", 5.0, "percent"),
    ("A 30-second timeout.", 30.0, "second"),
    ("It costs $15/hour.", 15.0, "USD / hour"),
    ("In the 1960s the rate was low.", 1960.0, None),
    ("About 4e14 atoms.", 4e14, None),
])
def test_quantity_notations(nlp: Language, text: str, magnitude: float,
                            unit: str | None) -> None:
    (q,) = extract(nlp, text, "quantity")
    assert q.attrs["magnitude"] == pytest.approx(magnitude)
    assert q.attrs.get("unit") == unit


@pytest.mark.parametrize("text", ["Order the I7-860BOX kit.", "We shipped it in 2019.",
                                  "Upgrade to Python 3 first."])
def test_codes_years_and_names_are_not_quantities(nlp: Language, text: str) -> None:
    assert extract(nlp, text, "quantity") == []


@pytest.mark.parametrize(("text", "unit"), [("Refunds arrive within 5 business days.", "day"),
                                            ("Wait 3 full minutes.", "minute")])
def test_adjective_between_number_and_unit(nlp: Language, text: str, unit: str) -> None:
    (q,) = extract(nlp, text, "quantity")
    assert q.attrs["unit"] == unit
