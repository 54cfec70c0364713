"""Deictic references with the description used to find their antecedent."""

from __future__ import annotations

import pytest
from spacy.language import Language

from tests.conftest import extract, quote


@pytest.mark.parametrize(("text", "q", "head", "modifiers"), [
    ("Apply the above constraint.", "the above constraint", "constraint", None),
    ("Raise that retry budget to 5.", "that retry budget", "budget", "retry"),
    ("This table lists every shard.", "This table", "table", None),
    ("Reuse the previous schema check.", "the previous schema check", "check", "schema"),
    ("See the aforementioned limit.", "the aforementioned limit", "limit", None),
])
def test_deictic_descriptions(nlp: Language, text: str, q: str, head: str,
                              modifiers: str | None) -> None:
    found = [r for r in extract(nlp, text, "deictic") if r.attrs.get("head")]
    assert [quote(text, r) for r in found] == [q]
    assert found[0].attrs["head"] == head
    assert found[0].attrs.get("modifiers") == modifiers


@pytest.mark.parametrize(("text", "q"), [
    ("As noted, the pool is small.", "As noted"),
    ("As mentioned above, skip it.", "As mentioned above"),
    ("Prefer the latter.", "the latter"),
])
def test_discourse_deixis(nlp: Language, text: str, q: str) -> None:
    assert quote(text, extract(nlp, text, "deictic")[0]) == q


def test_complementizer_that_is_not_deictic(nlp: Language) -> None:
    assert extract(nlp, "We know that retries fail often.", "deictic") == []


def test_pronouns_only_in_accurate_mode(nlp: Language, mode: str) -> None:
    text = "The cache expired. It was rebuilt."
    pronouns = [r for r in extract(nlp, text, "deictic") if r.attrs["deictic_kind"] == "pronoun"]
    assert [quote(text, r) for r in pronouns] == (["It"] if mode == "accurate" else [])


@pytest.mark.parametrize(("text", "q", "head", "modifiers"), [
    ("That retry budget leaves 3 attempts.", "That retry budget", "budget", "retry"),
    ("That status page loads slowly.", "That status page", "page", "status"),
    ("That users table lists every shard.", "That users table", "table", "user"),
    ("Those retries hit the cap.", "Those retries", "retry", None),
    ("That retry budget timed out twice.", "That retry budget", "budget", "retry"),
])
def test_demonstrative_phrase_stops_before_its_verb(nlp: Language, text: str, q: str, head: str,
                                                    modifiers: str | None) -> None:
    found = [r for r in extract(nlp, text, "deictic") if r.attrs.get("head")]
    assert [quote(text, r) for r in found] == [q]
    assert found[0].attrs["head"] == head
    assert found[0].attrs.get("modifiers") == modifiers


def test_pronoun_this_before_a_verb_has_no_description(nlp: Language) -> None:
    assert [r for r in extract(nlp, "This leaves 3 attempts.", "deictic")
            if r.attrs.get("head")] == []


@pytest.mark.parametrize(("text", "q"), [
    ("Mirror eu-2 timed out twice, so that retry budget leaves 3 attempts for eu-3.",
     "that retry budget"),
    ("We retried, so that budget is spent.", "that budget"),
    ("Keep it, so that flag is set for the next run.", "that flag"),
])
def test_so_then_demonstrative(nlp: Language, text: str, q: str) -> None:
    found = [r for r in extract(nlp, text, "deictic") if r.attrs.get("head")]
    assert [quote(text, r) for r in found] == [q]


@pytest.mark.parametrize("text", [
    "Set the flag, so that we can retry later.",
    "Flush the cache so that data is fresh.",
    "Restart it so that users can log in.",
    "Pin the version so that CI passes.",
    "Drain it so that the pool empties.",
])
def test_purpose_so_that_is_not_deictic(nlp: Language, text: str) -> None:
    assert [r for r in extract(nlp, text, "deictic") if r.attrs["word"] == "that"] == []
