"""Pictures of a report: the graph-diff figure and the side-by-side HTML review.

Nothing here imports matplotlib at module level: :func:`draw_diff` and the writers load it when
called, so ``import refgraph`` stays light.
"""

from .diffview import DiffView, ViewEdge, ViewNode, build_view
from .figure import DiffArtists, draw_diff
from .html import review_fragment, review_html, write_html
from .output import figure_bytes, write_figure

__all__ = [
    "DiffArtists",
    "DiffView",
    "ViewEdge",
    "ViewNode",
    "build_view",
    "draw_diff",
    "figure_bytes",
    "review_fragment",
    "review_html",
    "write_figure",
    "write_html",
]
