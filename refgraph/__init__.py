"""refgraph: catch context rewrites that corrupt an agent's memory, structurally and offline.

>>> import refgraph
>>> G = refgraph.build_graph("MAX_RETRIES=3", mode="fast")
>>> sorted(d["kind"] for _, d in G.nodes(data=True))
['block', 'claim', 'identifier', 'quantity', 'referent', 'sentence']
"""

# Imports are lazy (PEP 562, refgraph.lazy): `import refgraph` and the CLI's `--version`,
# `rules` and `rule X` load no spaCy; each public name is imported on first use.

from __future__ import annotations

from typing import TYPE_CHECKING

# First: decides whether the compiled build or the pure-Python sources run (refgraph.native).
from . import native as native
from .lazy import install

if TYPE_CHECKING:  # what type checkers and IDEs see; at run time each is imported on use
    from .analyze import Analyzer, analyze, analyze_messages, lint
    from .audit import AuditResult, audit
    from .blocks import Block, BlockKind, split_blocks
    from .buffer import ContextBuffer, Revision, Snapshot
    from .errors import (
        AmbiguousAnchor,
        EditConflict,
        InputError,
        PipelineUnavailable,
        RefgraphError,
        RewriteRejected,
        StaleBase,
    )
    from .findings import Evidence, Finding
    from .gate import Committed, Gate, GateRefused, GateRejected
    from .graph import build_graph, to_node_link
    from .guard import Guarded, guard
    from .ledger import Decision, Ledger
    from .merge import three_way_apply
    from .model import EdgeKind, NodeKind, RefGraph, RefKind
    from .nlp import load_pipeline
    from .parse import Parser
    from .patch import Hunk, Patch
    from .report import Report

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    "AmbiguousAnchor": "errors",
    "Analyzer": "analyze",
    "AuditResult": "audit",
    "Block": "blocks",
    "BlockKind": "blocks",
    "Committed": "gate",
    "ContextBuffer": "buffer",
    "Decision": "ledger",
    "EdgeKind": "model",
    "EditConflict": "errors",
    "Evidence": "findings",
    "Finding": "findings",
    "Gate": "gate",
    "GateRefused": "gate",
    "GateRejected": "gate",
    "Guarded": "guard",
    "Hunk": "patch",
    "InputError": "errors",
    "Ledger": "ledger",
    "NodeKind": "model",
    "Parser": "parse",
    "Patch": "patch",
    "PipelineUnavailable": "errors",
    "RefGraph": "model",
    "RefKind": "model",
    "RefgraphError": "errors",
    "Report": "report",
    "Revision": "buffer",
    "RewriteRejected": "errors",
    "Snapshot": "buffer",
    "StaleBase": "errors",
    "analyze": "analyze",
    "analyze_messages": "analyze",
    "audit": "audit",
    "build_graph": "graph",
    "guard": "guard",
    "lint": "analyze",
    "load_pipeline": "nlp",
    "split_blocks": "blocks",
    "three_way_apply": "merge",
    "to_node_link": "graph",
}

__all__ = [
    "AmbiguousAnchor",
    "Analyzer",
    "AuditResult",
    "Block",
    "BlockKind",
    "Committed",
    "ContextBuffer",
    "Decision",
    "EdgeKind",
    "EditConflict",
    "Evidence",
    "Finding",
    "Gate",
    "GateRefused",
    "GateRejected",
    "Guarded",
    "Hunk",
    "InputError",
    "Ledger",
    "NodeKind",
    "Parser",
    "Patch",
    "PipelineUnavailable",
    "RefGraph",
    "RefKind",
    "RefgraphError",
    "Report",
    "Revision",
    "RewriteRejected",
    "Snapshot",
    "StaleBase",
    "__version__",
    "analyze",
    "analyze_messages",
    "audit",
    "build_graph",
    "guard",
    "lint",
    "load_pipeline",
    "split_blocks",
    "three_way_apply",
    "to_node_link",
]

__getattr__, __dir__ = install(__name__, _EXPORTS, __all__)
