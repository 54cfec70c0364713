"""Figure files: bytes that are the same for the same report.

PNG and SVG go through matplotlib's Agg and SVG canvases (no GUI backend). SVG ids and the
date stamp are pinned, so re-rendering an unchanged report rewrites an identical file.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Literal, TypeAlias

from ..io import write_output
from ..report import Report
from .diffview import Focus
from .figure import draw_diff

ImageFormat: TypeAlias = Literal["png", "svg"]


def figure_bytes(report: Report, fmt: ImageFormat = "png", *, focus: Focus = "findings",
                 max_nodes: int = 60, dpi: int = 110) -> bytes:
    """The graph-diff figure of ``report`` as PNG or SVG bytes."""
    if fmt not in ("png", "svg"):
        raise ValueError(f"figure format must be 'png' or 'svg', not {fmt!r}")
    import matplotlib

    # svg.fonttype "path": glyphs as outlines, so the file needs no font and holds no text
    # an SVG viewer could misread as markup.
    with matplotlib.rc_context({"svg.hashsalt": "refgraph", "svg.fonttype": "path"}):
        art = draw_diff(report, focus=focus, max_nodes=max_nodes)
        buf = io.BytesIO()
        metadata = {"Date": None} if fmt == "svg" else {"Software": None}
        art.figure.savefig(buf, format=fmt, dpi=dpi, metadata=metadata, facecolor="white",
                           bbox_inches="tight", pad_inches=0.15)
    return buf.getvalue()


def write_figure(report: Report, path: str | Path, fmt: ImageFormat | None = None, *,
                 focus: Focus = "findings", max_nodes: int = 60) -> Path:
    """Write the figure to ``path``, atomically (see :func:`refgraph.io.write_output`); the
    format follows ``fmt`` or else the file suffix."""
    p = Path(path)
    chosen = fmt or ("svg" if p.suffix.lower() == ".svg" else "png")
    write_output(p, figure_bytes(report, chosen, focus=focus, max_nodes=max_nodes), str(p))
    return p

