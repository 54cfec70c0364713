"""refgraph: catch context rewrites that corrupt an agent's memory, structurally and offline.

>>> import refgraph
>>> G = refgraph.build_graph("MAX_RETRIES=3", mode="fast")
>>> sorted(d["kind"] for _, d in G.nodes(data=True))
['block', 'identifier', 'quantity', 'referent', 'sentence']
"""

from .blocks import Block, BlockKind, split_blocks
from .errors import InputError, PipelineUnavailable, RefgraphError
from .graph import build_graph, to_node_link
from .model import EdgeKind, NodeKind, RefGraph, RefKind
from .nlp import load_pipeline
from .parse import Parser

__version__ = "0.1.0"

__all__ = [
    "Block",
    "BlockKind",
    "EdgeKind",
    "InputError",
    "NodeKind",
    "Parser",
    "PipelineUnavailable",
    "RefGraph",
    "RefKind",
    "RefgraphError",
    "__version__",
    "build_graph",
    "load_pipeline",
    "split_blocks",
    "to_node_link",
]
