"""The claim component (``refgraph_claims``) read through the graph, in both modes: one claim
per clause with its predicate, polarity, strength, force, mood, frame and source, and the
``arg`` / ``conditions`` / ``supports`` edges between claims and what they are about."""

from __future__ import annotations

import pytest

from refgraph.claims import Claim, claims_of
from refgraph.graph import build_graph
from refgraph.model import EdgeKind, NodeKind


def _claims(text: str, mode: str) -> list[Claim]:
    return claims_of(build_graph(text, mode=mode)).claims  # type: ignore[arg-type]


def _one(text: str, mode: str) -> Claim:
    (c,) = _claims(text, mode)
    return c


@pytest.mark.parametrize(("text", "negative"), [
    ("The migration finished.", False),
    ("The migration did not finish.", True),
    ("The cluster is unreachable.", True),  # a negative affix on a known base
    ("The health check failed.", True),  # an antonym of its class ("pass")
    ("The worker failed to connect.", True),  # a negative implicative
    ("No rows matched the filter.", True),  # a negative quantifier
    ("It is not true that the job did not run.", False),  # two cues cancel
])
def test_polarity_is_the_parity_of_the_cues(text: str, negative: bool, mode: str) -> None:
    assert any(c.negative == negative for c in _claims(text, mode))
    assert all(c.negative == negative for c in _claims(text, mode) if c.pred_key != "true")


@pytest.mark.parametrize(("text", "force"), [
    ("You must rotate the key.", "obligation"),
    ("Never rotate the key.", "prohibition"),
    ("Agents are not allowed to rotate the key.", "prohibition"),
    ("You are allowed to rotate the key.", "permission"),
    ("You don't need to rotate the key.", "exemption"),
    ("You should rotate the key.", "advice"),
    ("The key was rotated.", ""),
])
def test_force(text: str, force: str, mode: str) -> None:
    assert _one(text, mode).force == force


def test_mood_question_order_counterfactual(mode: str) -> None:
    assert _one("Did the backup finish?", mode).mood == "question"
    assert _one("Restart the worker.", mode).mood == "imperative"
    c = _one("No VAT should have been charged.", mode)
    assert c.mood == "counterfactual"
    assert not c.asserted  # what ought to have happened is no statement of what did


def test_hedges_lower_strength_and_frames_attribute(mode: str) -> None:
    assert _one("The cache is stale.", mode).strength == 1.0
    assert _one("The cache is probably stale.", mode).strength < 1.0
    framed = [c for c in _claims("Dana said the cache is stale.", mode) if c.frame]
    assert [c.frame for c in framed] == ["report"]
    assert framed[0].reported_by == "dana"
    believed = [c for c in _claims("I think the cache is stale.", mode) if c.frame]
    assert believed[0].strength < 1.0  # an attitude of anyone is a belief


def test_source_is_the_turn_that_says_it(mode: str) -> None:
    text = ("user: Do not delete the staging bucket.\n"
            "tool[call_7]: 0 objects found in staging.\n"
            "Mira [D1:3]: I moved the files yesterday.")
    by = {c.text: c.source for c in _claims(text, mode)}
    assert by["Do not delete the staging bucket"] == "user"
    assert [s for t, s in by.items() if "objects" in t] == ["tool:call_7"]
    # names are keyed lower-case
    assert [s for t, s in by.items() if "moved" in t] == ["speaker:mira"]


def test_args_conditions_and_supports_are_edges(mode: str) -> None:
    text = "Deploy only if `ci_green` is set. The disk is full, so the export failed."
    G = build_graph(text, mode=mode)  # type: ignore[arg-type]
    claims = {n for n, d in G.nodes(data=True) if d["kind"] == NodeKind.CLAIM.value}
    conds = [(u, v, d) for u, v, k, d in G.edges(keys=True, data=True)
             if k == EdgeKind.CONDITIONS.value]
    assert conds
    u, v, d = conds[0]
    assert u in claims
    assert v in claims
    assert d["cond_kind"] == "only-if"
    args = [(G.nodes[v]["kind"], d["role"]) for u, v, k, d in G.edges(keys=True, data=True)
            if k == EdgeKind.ARG.value and u in claims]
    assert (NodeKind.IDENTIFIER.value, "subj") in args or \
        (NodeKind.IDENTIFIER.value, "other") in args or (NodeKind.IDENTIFIER.value, "obj") in args
    sup = [(G.nodes[u]["text"], G.nodes[v]["text"]) for u, v, k in G.edges(keys=True)
           if k == EdgeKind.SUPPORTS.value]
    assert ("The disk is full", "the export failed") in sup


def test_signature_keys_a_quantity_by_unit_not_value(mode: str) -> None:
    a = _one("The timeout is 30 seconds.", mode)
    b = _one("The timeout is 45 seconds.", mode)
    assert a.signature == b.signature
    assert a.signature != _one("The timeout is 30 MB.", mode).signature


def test_what_asserts_nothing_and_what_forbids_nothing(mode: str) -> None:
    (ask,) = [c for c in _claims("Let's run the script to see if we can reproduce the bug.",
                                  mode) if "reproduce" in c.text]
    assert not ask.asserted  # an embedded question asks
    assert _one("Close the ticket.", mode).force == ""  # folds to "not open", forbids nothing
    over = _one("We may fail over to us-east-2.", mode)
    assert not over.negative  # "fail over" moves to a standby; it does not fail
    assert _one("Can't wait to see the new office!", mode).force == ""
    assert _one("You cannot delete the bucket.", mode).force == "prohibition"
    assert _one("The assistant suspects cold caches.", mode).strength < 1.0


def test_a_greeting_is_no_part_of_a_name(mode: str) -> None:
    G = build_graph("Hey Sam, good to see you. Alright Sam, let's go.", mode=mode)  # type: ignore[arg-type]
    keys = {d["key"] for _, d in G.nodes(data=True) if d["kind"] == NodeKind.MENTION.value}
    assert keys == {"sam"}


def test_a_noun_frame_embeds_its_that_clause(mode: str) -> None:
    """b4: "in the hope that the server executes it" asserts nothing about the server."""
    got = _claims("Idea: upload a Perl script through this form in the hope that the server "
                  "executes it.", mode)
    assert [c.frame for c in got if "server" in c.text] == ["volition"]
