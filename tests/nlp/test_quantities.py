"""Quantities: number, unit (pint-normalised), scale, bound, range, what is measured."""

from __future__ import annotations

import sys

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


@pytest.mark.parametrize(("text", "q", "magnitude", "unit", "bound"), [
    # tolerances: the central value, approximately
    ("The p99 latency was 5.2 ± 0.3 ms after the fix.", "5.2 ± 0.3 ms", 5.2, "millisecond", "~"),
    ("Warm-up takes 3.0 +/- 0.5 s on CI.", "3.0 +/- 0.5 s", 3.0, "second", "~"),
    # powers written with a caret, and "N and a half"
    ("The context window is 2^15 tokens.", "2^15 tokens", 32768.0, "token", "="),
    ("Each page holds 4x2^10 bytes.", "4x2^10 bytes", 4096.0, "byte", "="),
    ("The migration ran for two and a half hours.", "two and a half hours", 2.5, "hour", "="),
    ("Allow 1 and a half days for review.", "1 and a half days", 1.5, "day", "="),
    # spelled numbers in groups, stacked scale words
    ("The table has three million, two hundred and forty rows.",
     "three million, two hundred and forty rows", 3000240.0, "row", "="),
    ("The bucket holds 4 hundred million objects.", "4 hundred million", 4e8, None, "="),
    # currencies written with a country prefix or glued code, and a trillion suffix
    ("The vendor quoted A$1,200 for the licence.", "A$1,200", 1200.0, "AUD", "="),
    ("Hosting costs HK$7,800 a month.", "HK$7,800 a month", 7800.0, "HKD / month", "="),
    ("The budget is AUD1.5m this year.", "AUD1.5m", 1.5e6, "AUD", "="),
    ("Their market cap is $2.1T.", "$2.1T", 2.1e12, "USD", "="),
    # a negative glued to "minus-", vague plurals, a suspended hyphen
    ("The freezer dropped to minus-20 degrees Celsius.", "minus-20 degrees Celsius", -20.0,
     "degree_Celsius", "="),
    ("The crawler sent hundreds of requests.", "hundreds of requests", 100.0, "request", ">="),
    ("We keep tens of thousands of rows.", "tens of thousands of rows", 1e4, "row", ">="),
    # inch marks
    ("Use the 27\" monitor for the demo.", "27\"", 27.0, "inch", "="),
])
def test_more_notations(nlp: Language, text: str, q: str, magnitude: float, unit: str | None,
                        bound: str) -> None:
    found = extract(nlp, text, "quantity")
    assert [quote(text, r) for r in found] == [q]
    a = found[0].attrs
    assert a["magnitude"] == pytest.approx(magnitude)
    assert a.get("unit") == unit
    assert a["bound"] == bound


@pytest.mark.parametrize(("text", "unit"), [
    ("The floor plan covers 32 m2 of office.", "meter ** 2"),
    ("The tank holds 4 cubic metres of water.", "meter ** 3"),
    ("The site spans 116 sq mi.", "mile ** 2"),
    ("The region is 12 km squared.", "kilometer ** 2"),
    ("The pulse rate is 4e3 s-1.", "1 / second"),
    ("Gravity is 9.81 m/s2 here.", "meter / second ** 2"),
])
def test_units_with_powers(nlp: Language, text: str, unit: str) -> None:
    (q,) = extract(nlp, text, "quantity")
    assert q.attrs["unit"] == unit


def test_coordinated_numbers_share_the_unit(nlp: Language) -> None:
    text = "Try 45 or 50 ms, then 2, 4 and 8 GB, on a 7- or 8-inch screen."
    qs = extract(nlp, text, "quantity")
    assert [(quote(text, q), q.attrs.get("unit")) for q in qs] == [
        ("45", "millisecond"), ("50 ms", "millisecond"), ("2", "gigabyte"), ("4", "gigabyte"),
        ("8 GB", "gigabyte"), ("7-", "inch"), ("8-inch", "inch")]


def test_a_change_and_a_level_are_not_a_range(nlp: Language) -> None:
    text = "Error rate rose 0.7 percent to 6,327.80 per day."
    qs = extract(nlp, text, "quantity")
    assert quote(text, qs[0]) == "0.7 percent"
    assert all("magnitude_high" not in q.attrs for q in qs)


def test_one_counting_a_noun_is_a_quantity(nlp: Language) -> None:
    text = "Keep one replica warm; no one else needs it."
    (q,) = extract(nlp, text, "quantity")
    assert quote(text, q) == "one replica"


@pytest.mark.parametrize("text", [
    "Benchmarks ran on x86-64 with GPT-4 and utf-8 input.",
    "The S&P 500 fell while the FTSE 100 rose.",
    "The iPhone 11 returned HTTP 500 twice.",
    "The 49ers fans enabled 2fa.",
    "The job 007 started at 0401 GMT.",
    "The freeze runs Oct 18-22.",
    "Between 2014 and 2017 the team grew; for 2019 the plan changed.",
])
def test_more_digits_that_are_not_quantities(nlp: Language, text: str) -> None:
    assert extract(nlp, text, "quantity") == []


def test_a_closing_quote_is_no_inch_mark(nlp: Language) -> None:
    qs = extract(nlp, 'Set the label to "8" and the name to "3".', "quantity")
    assert [q.attrs["magnitude"] for q in qs] == [8.0, 3.0]
    assert all("unit" not in q.attrs for q in qs)


def test_overflowing_base_value_keeps_the_unit(nlp: Language) -> None:
    (q,) = extract(nlp, "The orbit is 1e308 km away.", "quantity")
    a = q.attrs
    assert (a["magnitude"], a["unit"], a["base_unit"]) == (1e308, "kilometer", "meter")
    assert a["base_magnitude"] == sys.float_info.max  # saturated: node data are never inf


@pytest.mark.parametrize("text", [
    "The timeout is 30 s.  Retry\ttwice:\nİstanbul ΟΔΟΣ one-off 5GB, x=3 (2½ hours) — ok",
    "",
    "  leading and trailing  ",
])
def test_view_reads_tokens_as_spacy_does(nlp: Language, text: str) -> None:
    from refgraph.nlp.view import ALPHA, NUM, PUNCT, SPACE, view

    doc = nlp(text)
    v = view(doc)
    for i, tok in enumerate(doc):
        assert (v.tok(i), v.low(i), bool(v.ws[i])) == (tok.text, tok.lower_, tok.whitespace_ == " ")
        assert v.ends[i] == tok.idx + len(tok.text)
        f = v.flags(i)
        assert (bool(f & PUNCT), bool(f & ALPHA), bool(f & NUM), bool(f & SPACE)) == (
            tok.is_punct, tok.is_alpha, tok.like_num, tok.is_space)
        assert v.is_sent_start(i) == (tok.is_sent_start is True)


def test_number_word_candidates_match_the_plain_alternation() -> None:
    import re

    from refgraph.nlp.numbers import lexicon

    lex = lexicon()
    words = sorted([*lex["spelled"], *lex["vague"]], key=len, reverse=True)
    plain = re.compile(r"[0-9½¼¾⅓⅔⅕⅛⅜⅝⅞]+|\b(?:" + "|".join(map(re.escape, words)) + r")\b",
                       re.IGNORECASE)
    text = ("Twenty-one of A Hundred, a\thundred, ONE, ſix, İone, fourteenth, tens of "
            "thousands, 2½ and 3¼, sevens seventy seventeen, onex xone, a dozen_x, 7a.")
    assert [m.span() for m in lex["spelled_re"].finditer(text)] == \
        [m.span() for m in plain.finditer(text)]


@pytest.mark.parametrize(("text", "magnitude", "unit"), [
    ("Throughput is flat around 410k tok/s.", 410_000.0, "token / second"),
    ("Titrated at 2.31 M last month.", 2.31, None),  # a molarity, not a million
    ("Revenue was 4.5 bn.", 4.5e9, None),
    ("Add 0.1 M HCl.", 0.1, None),  # molar, not a million
])
def test_scales_and_units_of_summaries(nlp: Language, text: str, magnitude: float,
                                       unit: str | None) -> None:
    (q,) = extract(nlp, text, "quantity")
    assert q.attrs["magnitude"] == magnitude
    assert q.attrs.get("unit") == unit
