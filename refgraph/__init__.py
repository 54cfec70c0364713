"""refgraph: catch context rewrites that corrupt an agent's memory, structurally and offline.

>>> import refgraph
>>> G = refgraph.build_graph("MAX_RETRIES=3", mode="fast")
>>> sorted(d["kind"] for _, d in G.nodes(data=True))
['block', 'claim', 'identifier', 'quantity', 'referent', 'sentence']
"""

# First: decides whether the compiled build or the pure-Python sources run (refgraph.native).
from . import native as native
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
