"""Draw a :class:`~refgraph.render.diffview.DiffView` with matplotlib.

matplotlib is imported inside the functions, so importing refgraph (or refgraph.render) never
loads it. Figures are built on ``matplotlib.figure.Figure`` directly, not through pyplot: no
GUI backend is touched, and a loop that renders many reports leaks no global figures.

All text here comes from the analysed contexts, so it is untrusted: every text artist is
created with ``parse_math=False`` and ``usetex=False`` ("$5 and $10" must not turn into math).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..report import Report
from .diffview import DiffView, Focus, ViewNode, build_view

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.collections import PathCollection
    from matplotlib.figure import Figure
    from matplotlib.legend import Legend
    from matplotlib.patches import FancyArrowPatch
    from matplotlib.text import Text

# Okabe-Ito colours (distinguishable with the common colour-vision deficiencies); status is
# also carried by the marker shape, so nothing depends on colour alone.
STATUS_STYLE: dict[str, tuple[str, str, str]] = {  # status -> (colour, marker, legend label)
    "kept": ("#7f7f7f", "o", "kept"),
    "moved": ("#7f7f7f", "D", "kept, moved"),
    "removed": ("#d55e00", "X", "removed (before only)"),
    "added": ("#009e73", "P", "added (after only)"),
}
FINDING_COLOURS = ("#0072b2", "#cc79a7", "#e69f00", "#56b4e9", "#000000")
# With more findings than colours, the marker tells them apart: colour x marker repeats only
# after 5 x 8 = 40 findings, and each finding is numbered besides.
FINDING_MARKERS = ("o", "s", "^", "D", "v", "p", "h", "*")
_X = {"before": 0.0, "after": 1.0}
_ROW_INCHES = 0.32


@dataclass(slots=True)
class DiffArtists:
    """What :func:`draw_diff` drew, for callers that restyle or test the figure."""

    figure: Figure
    ax: Axes
    view: DiffView
    markers: dict[str, PathCollection] = field(default_factory=dict)  # by status
    rings: list[PathCollection] = field(default_factory=list)
    edges: list[FancyArrowPatch] = field(default_factory=list)
    labels: dict[tuple[str, str], Text] = field(default_factory=dict)  # (side, node id)
    texts: list[Text] = field(default_factory=list)  # every text artist drawn
    legend: Legend | None = None


def finding_colour(i: int) -> str:
    return FINDING_COLOURS[i % len(FINDING_COLOURS)]


def finding_marker(i: int) -> str:
    """Finding ``i``'s marker: it changes each time the colours come round again."""
    return FINDING_MARKERS[(i // len(FINDING_COLOURS)) % len(FINDING_MARKERS)]


def draw_diff(report: Report, *, ax: Axes | None = None, focus: Focus = "findings",
              max_nodes: int = 60) -> DiffArtists:
    """Draw the before and after referent graphs of ``report`` as one picture.

    Parameters
    ----------
    report : Report
        From :func:`refgraph.analyze` (a lint report has no ``after`` graph to compare).
    ax : matplotlib Axes, optional
        Where to draw; a new figure sized to the content when omitted.
    focus : "findings" or "all"
        "findings" keeps the findings' nodes, their copies and neighbours (or, with no
        findings, what changed); "all" draws every node up to ``max_nodes``.
    max_nodes : int
        Cap on drawn nodes over both sides; the title says how many were left out.

    Returns
    -------
    DiffArtists
        The figure, the axes, the view (nodes, rows, edges) and the artists.

    Examples
    --------
    >>> import refgraph
    >>> from refgraph.render import draw_diff
    >>> r = refgraph.analyze("The timeout is 30 seconds.", "The timeout is 30.", mode="fast")
    >>> art = draw_diff(r)
    >>> sorted((n.side, n.status, n.label) for n in art.view.nodes.values() if n.findings)
    [('after', 'added', 'amount: 30'), ('before', 'removed', 'amount: 30 seconds')]
    """
    if report.before_graph is None or report.after_graph is None:
        raise ValueError("draw_diff needs a report from analyze(); a lint report has one side")
    view = build_view(report.findings, report.before_graph, report.after_graph, focus=focus,
                      max_nodes=max_nodes)
    if ax is None:
        from matplotlib.figure import Figure

        legend_rows = (len(view.findings) + 7 + 2) // 3
        fig = Figure(figsize=(12, 1.2 + _ROW_INCHES * max(view.rows, 2) + 0.2 * legend_rows),
                     layout="constrained")
        ax = fig.add_subplot()
    art = DiffArtists(ax.figure, ax, view)  # type: ignore[arg-type]
    _draw(art, report)
    return art


def _text(art: DiffArtists, x: float, y: float, s: str, **kw: Any) -> Text:
    t = art.ax.text(x, y, s, parse_math=False, usetex=False, **kw)
    art.texts.append(t)
    return t


def _draw(art: DiffArtists, report: Report) -> None:
    ax, view = art.ax, art.view
    ax.set_axis_off()
    top, bottom = 0.9, -max(view.rows - 1, 1) - 0.6
    ax.set_xlim(-1.15, 2.15)
    ax.set_ylim(bottom, top)
    shown = f"{len(view.nodes)} of {view.total} nodes"
    codes = ", ".join(report.codes) or "no findings"
    title = ax.set_title(f"refgraph: {report.verdict} ({codes}); {shown}, intent "
                         f"{report.intent}", loc="left", fontsize=10, parse_math=False,
                         usetex=False)
    art.texts.append(title)
    for side in ("before", "after"):
        _text(art, _X[side], 0.55, side, ha="center", va="bottom", fontsize=11,
              fontweight="bold")
    if not view.nodes:
        _text(art, 0.5, -0.5, "nothing to draw: no findings and no referent changed",
              ha="center", va="center", fontsize=10, color="#555555")
    _draw_edges(art)
    _draw_links(art)
    _draw_nodes(art)
    _draw_legend(art)


def _xy(n: ViewNode) -> tuple[float, float]:
    return _X[n.side], -float(n.row)


def _draw_nodes(art: DiffArtists) -> None:
    ax, view = art.ax, art.view
    by_status: dict[str, list[ViewNode]] = {}
    for n in view.nodes.values():
        by_status.setdefault(n.status, []).append(n)
    for status, (colour, marker, _) in STATUS_STYLE.items():
        ns = by_status.get(status, [])
        if ns:
            xs, ys = zip(*(_xy(n) for n in ns), strict=True)
            art.markers[status] = ax.scatter(xs, ys, s=70, c=colour, marker=marker,
                                             edgecolors="white", linewidths=0.6, zorder=4)
    for n in view.nodes.values():
        x, y = _xy(n)
        for k, i in enumerate(n.findings):  # one ring per finding, nested outwards
            art.rings.append(ax.scatter([x], [y], s=230 + 170 * k, facecolors="none",
                                        marker=finding_marker(i),
                                        edgecolors=finding_colour(i), linewidths=2.0,
                                        zorder=3))
        left = n.side == "before"
        colour = "#222222" if n.findings else "#444444"
        art.labels[(n.side, n.id)] = _text(
            art, x - 0.05 if left else x + 0.05, y, n.label, ha="right" if left else "left",
            va="center", fontsize=8.5, color=colour,
            fontweight="bold" if n.findings else "normal")
        if n.findings:  # the codes in the gap, next to the node they concern
            # numbered as in the legend, with what the evidence quotes on this side
            codes = "  ".join(f"{i + 1} {view.findings[i].code} {_quote(view, i, n.side)}"
                              .rstrip() for i in n.findings)
            # Above the label, on the outer side: the gap belongs to the edges.
            _text(art, x - 0.05 if left else x + 0.05, y + 0.2, codes,
                  ha="right" if left else "left", va="bottom", fontsize=7,
                  color=finding_colour(n.findings[0]), fontweight="bold")


def _draw_edges(art: DiffArtists) -> None:
    """Relations of one side as curves bulging into the gap, so they never cross labels."""
    from matplotlib.patches import FancyArrowPatch
    from matplotlib.path import Path

    for e in art.view.edges:
        u, v = art.view.node(e.side, e.source), art.view.node(e.side, e.target)
        (x0, y0), (x1, y1) = _xy(u), _xy(v)
        bulge = min(0.06 + 0.03 * abs(y1 - y0), 0.42) * (1 if e.side == "before" else -1)
        path = Path([(x0, y0), (x0 + 2 * bulge, (y0 + y1) / 2), (x1, y1)],
                    [Path.MOVETO, Path.CURVE3, Path.CURVE3])
        hot = bool(e.findings)
        patch = FancyArrowPatch(path=path, arrowstyle="-|>", mutation_scale=8 if hot else 6,
                                color=finding_colour(e.findings[0]) if hot else "#b5b5b5",
                                linewidth=2.0 if hot else 0.8,
                                linestyle=":" if e.kind == "same" else "-",
                                zorder=2 if hot else 1)
        art.ax.add_patch(patch)
        art.edges.append(patch)


def _draw_links(art: DiffArtists) -> None:
    """Across the gap: what each finding says became what, and where kept nodes moved to."""
    from matplotlib.patches import FancyArrowPatch

    view = art.view
    for b, a in view.moves:
        p = FancyArrowPatch(_xy(view.node("before", b)), _xy(view.node("after", a)),
                            arrowstyle="-", color="#9a9a9a", linestyle=(0, (4, 3)),
                            linewidth=0.9, shrinkA=6, shrinkB=6, zorder=1)
        art.ax.add_patch(p)
        art.edges.append(p)
    for i, b, a in view.links:
        p = FancyArrowPatch(_xy(view.node("before", b)), _xy(view.node("after", a)),
                            arrowstyle="-|>", mutation_scale=10, color=finding_colour(i),
                            linestyle=(0, (6, 3)), linewidth=1.6, shrinkA=9, shrinkB=9,
                            zorder=2)
        art.ax.add_patch(p)
        art.edges.append(p)


def _draw_legend(art: DiffArtists) -> None:
    """Below the axes, outside them, so it can never cover a node."""
    from matplotlib.lines import Line2D

    handles: list[Any] = [
        Line2D([], [], linestyle="", marker=m, color=c, markersize=7, label=label)
        for c, m, label in STATUS_STYLE.values()]
    handles += [
        Line2D([], [], color="#b5b5b5", label="relation in one side (arrow)"),
        Line2D([], [], color="#b5b5b5", linestyle=":", label="same referent"),
        Line2D([], [], color="#9a9a9a", linestyle=(0, (4, 3)),
               label="became (kept, at another place)"),
        Line2D([], [], color="#333333", linestyle=(0, (6, 3)), marker=">",
               label="became, as a finding says (its colour)"),
    ]
    for i, f in enumerate(art.view.findings):
        handles.append(Line2D([], [], color=finding_colour(i), linestyle=(0, (6, 3)),
                              marker=finding_marker(i), markerfacecolor="none", markersize=8,
                              label=f"{i + 1}  {f.code} {f.name} [{f.severity}]"))
    leg = art.ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0),
                        ncol=3, fontsize=8, frameon=False, handlelength=2.6)
    for t in leg.get_texts():
        t.set_parse_math(False)
        t.set_usetex(False)
        art.texts.append(t)
    art.legend = leg


def _quote(view: DiffView, i: int, side: str) -> str:
    """Finding ``i``'s first evidence quote on ``side``, clipped, quoted; "" if none."""
    q = next((e.quote for e in view.findings[i].evidence if e.side == side), "")
    return repr(_clip(q)) if q else ""


def _clip(text: str, width: int = 40) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"
