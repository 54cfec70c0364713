"""Negation cues with scope; conditionals with antecedent/consequent polarity."""

from __future__ import annotations

import pytest
from spacy.language import Language

from tests.conftest import extract, quote


@pytest.mark.parametrize(("text", "cues"), [
    ("The field was not present.", ["not"]),
    ("We don't retry.", ["n't"]),
    ("No rows matched.", ["No"]),
    ("It never fails and nothing breaks.", ["never", "nothing"]),
    ("Run it without the cache.", ["without"]),
    ("Neither A nor B is set.", ["Neither", "nor"]),
    ("The client cannot connect.", ["cannot"]),
    ("The server is unable to start.", ["un"]),
    ("The flag is useless here.", ["less"]),
])
def test_negation_cues(nlp: Language, text: str, cues: list[str]) -> None:
    assert [quote(text, r) for r in extract(nlp, text, "negation")] == cues


@pytest.mark.parametrize("text", [
    "Understand the unit tests until lunch.",
    "The university is unique.",
    "Unless noted, the serverless build is stateless.",
])
def test_words_that_only_look_negative(nlp: Language, text: str) -> None:
    assert [r for r in extract(nlp, text, "negation") if r.attrs["cue_kind"] == "affix"] == []


def test_negation_scope_covers_the_clause_not_the_next(nlp: Language) -> None:
    text = "The cache is not warm, but the pool is ready."
    (neg,) = extract(nlp, text, "negation")
    scope = text[neg.attrs["scope_start"]:neg.attrs["scope_end"]]
    assert "warm" in scope
    assert "cache" in scope
    assert "pool" not in scope


def test_seed_polarity_inversion_is_visible(nlp: Language) -> None:
    """Seed 001: "not required unless Y is absent" vs "required when Y is absent"."""
    before = "X is not required unless Y is absent."
    after = "X is required when Y is absent."
    (cb,) = extract(nlp, before, "conditional")
    (ca,) = extract(nlp, after, "conditional")
    assert cb.attrs["cond_kind"] == "unless"
    assert ca.attrs["cond_kind"] == "when"
    assert cb.attrs["consequent_polarity"] == "negative"
    assert ca.attrs["consequent_polarity"] == "positive"
    assert before[cb.attrs["antecedent_start"]:cb.attrs["antecedent_end"]] == "Y is absent"
    assert before[cb.attrs["consequent_start"]:cb.attrs["consequent_end"]] == "X is not required"


def test_conditional_at_sentence_start(nlp: Language) -> None:
    text = "If the cache is cold, do not retry."
    (c,) = extract(nlp, text, "conditional")
    assert text[c.attrs["antecedent_start"]:c.attrs["antecedent_end"]] == "the cache is cold"
    assert text[c.attrs["consequent_start"]:c.attrs["consequent_end"]] == "do not retry"
    assert (c.attrs["antecedent_polarity"], c.attrs["consequent_polarity"]) == (
        "positive", "negative")


def test_only_if_and_temporal_before(nlp: Language) -> None:
    (c,) = extract(nlp, "Deploy only if the tests pass.", "conditional")
    assert c.attrs["cond_kind"] == "only-if"
    assert extract(nlp, "We met before noon.", "conditional") == []
    (b,) = extract(nlp, "Do not call deploy before tests pass.", "conditional")
    assert b.attrs["cond_kind"] == "before"


def test_exception_cue_is_dropped_only_after_a_negation_in_its_own_sentence(
        nlp: Language) -> None:
    text = "No rows matched. Retry all shards except shard 3."
    assert [quote(text, r) for r in extract(nlp, text, "negation")] == ["No", "except"]
    text = "Nothing ran except the smoke test."
    assert [quote(text, r) for r in extract(nlp, text, "negation")] == ["Nothing"]


def test_affix_candidates_are_what_the_full_regex_finds() -> None:
    import random

    from refgraph.nlp.negation import _AFFIX_CANDIDATE, _affix_candidates

    rng = random.Random(1)
    words = ["unable", "careless", "carelessly", "xunable", "3unable", "un", "unaware_x",
             "Dislike", "\u0130mpossible", "\u0131nlet", "lessless", "helpless.", "UNLESS",
             "uselessness", "iLLegal", "\u017fomele\u017fs", "le\u017fs", "x_careless",
             "irksome", "disjointless", " ", ",", "-", "_", "1", "\n", "a"]
    for _ in range(2000):
        text = "".join(rng.choice(words) for _ in range(rng.randint(1, 12)))
        assert [m.span() for m in _affix_candidates(text)] == \
            [m.span() for m in _AFFIX_CANDIDATE.finditer(text)], text


@pytest.mark.parametrize("text", [
    "| order_id | STRING | no |",
    "| retries | no | yes |",
    "nullable: no",
    "- cached: no\n- sharded: yes",
    "Reply yes or no.",
    "actually no, let me check",
    "Oh no, the build failed again.",
])
def test_no_as_a_value_or_interjection_is_not_negation(nlp: Language, text: str) -> None:
    assert [r for r in extract(nlp, text, "negation") if r.attrs["cue"] == "no"] == []


@pytest.mark.parametrize("text", [
    "No, the cache is cold.",
    "No rows matched the filter.",
    "The answer is no.",
])
def test_no_that_negates(nlp: Language, text: str) -> None:
    assert [r.attrs["cue"] for r in extract(nlp, text, "negation")] == ["no"]


def test_negated_subordinate_clause_is_in_scope(nlp: Language) -> None:
    text = ("Not before the GRACE_WINDOW ends, and not at all while they have an open "
            "support escalation.")
    first, second = extract(nlp, text, "negation")
    scope1 = text[first.attrs["scope_start"]:first.attrs["scope_end"]]
    scope2 = text[second.attrs["scope_start"]:second.attrs["scope_end"]]
    assert "before the GRACE_WINDOW ends" in scope1
    assert "escalation" not in scope1
    assert "at all while they have an open support escalation" in scope2
    assert "GRACE_WINDOW" not in scope2
