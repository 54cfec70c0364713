"""The referent graph's vocabulary: node and edge kinds, and the plain-data record type.

Graph nodes hold plain scalars only (str, int, float, bool), so graphs pickle and export to
node-link JSON and GraphML. Kinds are str-valued enums; the graph stores their ``.value``.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, TypeAlias

import networkx as nx

if TYPE_CHECKING:
    RefGraph: TypeAlias = nx.MultiDiGraph[str]
else:
    RefGraph: TypeAlias = nx.MultiDiGraph

Scalar: TypeAlias = str | int | float | bool

SCHEMA = "refgraph.graph/2"

# Turn labels and the role each names: a summary's "agent" or "AI" is the assistant.
ROLES: dict[str, str] = {
    "user": "user", "human": "user",
    "assistant": "assistant", "ai": "assistant", "agent": "assistant", "bot": "assistant",
    "model": "assistant",
    "system": "system",
    "tool": "tool", "observation": "tool", "function": "tool",
}


class NodeKind(StrEnum):
    """What a node in the referent graph stands for."""

    BLOCK = "block"  # paragraph, heading, bullet, chat turn, code block, JSON or log line
    SENTENCE = "sentence"
    IDENTIFIER = "identifier"  # MAX_RETRIES, retry_budget, os.path.join, --dry-run, $HOME, `deploy`
    HANDLE = "handle"  # a way to re-fetch a fact: path, URL, tool-call id, store key
    QUANTITY = "quantity"
    NEGATION = "negation"
    CONDITIONAL = "conditional"
    CONSTRAINT = "constraint"  # prohibition, obligation, precondition, limit
    DEICTIC = "deictic"  # "the above constraint", "that retry budget", "as noted", pronouns
    HEDGE = "hedge"  # may, likely, approximately, should, must
    MENTION = "mention"  # a noun phrase or named entity, with a disambiguating key
    CAUSAL = "causal"  # a causal or inferential connective
    CLAIM = "claim"  # one clause: predicate, polarity, modality, force, source, arguments
    REFERENT = "referent"  # the thing itself: one per identifier name, entity key or handle


class EdgeKind(StrEnum):
    """How two nodes relate. Stored as the edge attribute ``kind`` and used as the edge key."""

    CONTAINS = "contains"  # block -> sentence -> span node
    DEFINES = "defines"  # identifier occurrence -> referent it binds
    USES = "uses"  # identifier or mention occurrence -> referent it uses
    REFERS_TO = "refers_to"  # deictic -> antecedent occurrence
    SCOPES = "scopes"  # negation or conditional -> node inside its scope
    GOVERNS = "governs"  # constraint -> referent, quantity or claim it restricts
    MEASURES = "measures"  # quantity -> referent it measures
    SUPPORTS = "supports"  # premise claim -> conclusion claim
    SIGNALS = "signals"  # causal connective -> claim
    ARG = "arg"  # claim -> mention, identifier, handle, quantity or deictic inside it (role)
    NEGATES = "negates"  # negation cue -> the claim whose polarity it counts in
    QUALIFIES = "qualifies"  # hedge or modal -> claim
    CONDITIONS = "conditions"  # consequent claim -> antecedent claim (marker, cond_kind)


class RefKind(StrEnum):
    """Which namespace a referent node belongs to (the middle part of ``ref:{kind}:{key}``)."""

    IDENTIFIER = "identifier"
    HANDLE = "handle"
    ENTITY = "entity"
    TERM = "term"  # a thing measured or governed that is named by ordinary words


def referent_id(ref_kind: RefKind, key: str) -> str:
    """The node id of a referent: ``ref:{kind}:{key}``."""
    return f"ref:{ref_kind.value}:{key}"
