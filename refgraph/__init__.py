"""refgraph: catch context rewrites that corrupt an agent's memory, structurally and offline.

>>> import refgraph
>>> G = refgraph.build_graph("MAX_RETRIES=3", mode="fast")
>>> sorted(d["kind"] for _, d in G.nodes(data=True))
['block', 'identifier', 'quantity', 'referent', 'sentence']
"""

from .analyze import Analyzer, analyze, lint
from .blocks import Block, BlockKind, split_blocks
from .errors import InputError, PipelineUnavailable, RefgraphError
from .findings import Evidence, Finding
from .graph import build_graph, to_node_link
from .model import EdgeKind, NodeKind, RefGraph, RefKind
from .nlp import load_pipeline
from .parse import Parser
from .report import Report

__version__ = "0.1.0"

__all__ = [
    "Analyzer",
    "Block",
    "BlockKind",
    "EdgeKind",
    "Evidence",
    "Finding",
    "InputError",
    "NodeKind",
    "Parser",
    "PipelineUnavailable",
    "RefGraph",
    "RefKind",
    "RefgraphError",
    "Report",
    "__version__",
    "analyze",
    "build_graph",
    "lint",
    "load_pipeline",
    "split_blocks",
    "to_node_link",
]
