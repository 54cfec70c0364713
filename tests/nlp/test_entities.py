"""Mentions with disambiguating keys."""

from __future__ import annotations

from spacy.language import Language

from tests.conftest import extract


def _keys(nlp: Language, text: str) -> list[str]:
    return [str(r.attrs["key"]) for r in extract(nlp, text, "mention")]


def test_replicas_of_different_shards_have_different_keys(nlp: Language) -> None:
    """Seed 001: "the primary replica" in two shards are two entities."""
    keys = _keys(nlp, "The primary replica of shard A is db-7 and the primary replica of "
                      "shard B is db-9.")
    assert "replica[of=shard a;primary]" in keys
    assert "replica[of=shard b;primary]" in keys


def test_merged_replica_has_a_bare_key(nlp: Language) -> None:
    keys = _keys(nlp, "The primary replica is db-7.")
    assert "replica[primary]" in keys


def test_people_disambiguated_by_parenthetical(nlp: Language) -> None:
    keys = _keys(nlp, "Ask Sam (billing) and then Sam (support) about it.")
    assert "sam[(billing)]" in keys
    assert "sam[(support)]" in keys


def test_plural_and_singular_share_a_head(nlp: Language) -> None:
    a = extract(nlp, "The replicas are lagging.", "mention")
    b = extract(nlp, "The replica is lagging.", "mention")
    assert a[0].attrs["head"] == b[0].attrs["head"] == "replica"


def test_quantities_and_identifiers_are_not_mentions(nlp: Language) -> None:
    keys = _keys(nlp, "Set MAX_RETRIES to 3 within 40 minutes.")
    assert not any("MAX_RETRIES" in k or "minute" in k for k in keys)


def test_a_date_the_recognizer_missed_is_a_date(nlp: Language) -> None:
    """b6: "Tue 4 Mar 2025" heads on a month's name; it is a date, not a thing two emails
    could be merged into."""
    got = [r for r in extract(nlp, "From: Ben\nDate: Tue 4 Mar 2025\n\nThanks.", "mention")
           if str(r.attrs.get("head")) == "mar"]
    assert all(r.attrs.get("ent_label") == "DATE" for r in got)
