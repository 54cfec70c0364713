"""``build_graph``: a context text in, a networkx referent graph out.

Blocks are parsed through the incremental :class:`~refgraph.parse.Parser`; ``refgraph.fragments``
assembles plain nodes and edges from the cached records, in one pass over the blocks plus a
resolution pass for references, so building is linear in the number of extracted things.
What each block contributes is kept with its parse as a fragment, so a re-build after a
rewrite re-derives only the blocks that changed. Schema: ``docs/graph.md``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import networkx as nx

from .blocks import Block, MessageSpan, split_blocks
from .errors import InputError
from .fragments import Assembly, Fragment, fragment_key
from .gcpause import gc_paused
from .io import MAX_CHARS, check_size, decode_text
from .model import SCHEMA, RefGraph
from .nlp.pipeline import Mode
from .parse import ParsedBlock, Parser

_parsers: dict[str, Parser] = {}
_SURROGATE = re.compile("[\ud800-\udfff]")


def default_parser(mode: Mode) -> Parser:
    """The process-wide parser (and parse cache) for ``mode``."""
    if mode not in _parsers:
        _parsers[mode] = Parser(mode)
    return _parsers[mode]


def check_text(text: object, what: str = "text", max_chars: int = MAX_CHARS) -> str:
    """Return ``text`` if it is a ``str`` of at most ``max_chars`` characters; else raise
    :class:`InputError` with a clear message."""
    if isinstance(text, bytes | bytearray):
        return check_size(decode_text(bytes(text), what), what, max_chars)  # UTF-8 only
    if not isinstance(text, str):
        raise InputError(f"{what} must be a str, not {type(text).__name__}")
    bad = _SURROGATE.search(text)
    if bad:
        raise InputError(f"{what} holds an unpaired surrogate (U+{ord(bad.group()):04X}) at "
                         f"index {bad.start()}: not valid Unicode text")
    return check_size(text, what, max_chars)


def build_graph(text: str, *, mode: Mode = "accurate", parser: Parser | None = None,
                progress: Callable[[int, int], None] | None = None,
                messages: Sequence[MessageSpan] | None = None,
                max_chars: int = MAX_CHARS) -> RefGraph:
    """Build the referent graph of ``text``.

    Parameters
    ----------
    text : str
        The context, exactly as the agent holds it. Offsets in the graph index this string.
    mode : {"accurate", "fast"}
        Trained English pipeline plus rules, or ``spacy.blank("en")`` plus rules.
    parser : Parser, optional
        Reuse a parser (and its block cache); by default a process-wide one per mode.
    progress : callable, optional
        Called as ``progress(done, total)`` while blocks are parsed (for progress bars).
    messages : sequence of MessageSpan, optional
        Where the messages of a rendered message list lie in ``text``
        (:func:`refgraph.messages.render`): each is a turn of its own that nothing inside it
        splits.
    max_chars : int, optional
        The longest text taken (default 5,000,000 characters); longer is an ``InputError``.

    Returns
    -------
    networkx.MultiDiGraph
        Nodes and edges with flat scalar data (see ``docs/graph.md``).

    Examples
    --------
    >>> G = build_graph("The timeout is 30 seconds.", mode="fast")
    >>> [d["unit"] for _, d in G.nodes(data=True) if d["kind"] == "quantity"]
    ['second']
    """
    text = check_text(text, max_chars=max_chars)
    parser = parser or default_parser(mode)
    with gc_paused():  # one pause for parsing and assembly (see refgraph.gcpause)
        blocks = split_blocks(text, messages)
        parsed = parser.parse(blocks, progress=progress)
        return assemble(text, blocks, parsed, mode=parser.mode)


def assemble(text: str, blocks: list[Block], parsed: list[ParsedBlock], *, mode: str) -> RefGraph:
    """Nodes and edges from parsed blocks (pure: no parsing happens here).

    Each parsed block keeps its fragment (see the module docstring), so assembling blocks that
    were assembled before costs a copy of their node data, not a re-derivation.
    """
    G: RefGraph = nx.MultiDiGraph(schema=SCHEMA, mode=mode, length=len(text))
    with gc_paused():
        asm = Assembly(G)
        for block, pb in zip(blocks, parsed, strict=True):
            frag = pb.fragment
            if not isinstance(frag, Fragment) or frag.key != fragment_key(block):
                frag = Fragment.build(block, pb)
                pb.fragment = frag
            asm.add(block, frag)
        asm.resolve_references()
    return G


def to_node_link(G: RefGraph) -> dict[str, Any]:
    """The graph as a JSON-ready node-link dict (``networkx.node_link_data``, edges="edges")."""
    data: dict[str, Any] = nx.node_link_data(G, edges="edges")
    return data
