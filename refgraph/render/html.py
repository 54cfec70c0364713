"""The side-by-side review: one self-contained HTML file (or a Jupyter fragment) per report.

Before and after sit side by side with removed, added and moved text marked; each finding is
listed with its code, message and fix and links to its evidence, highlighted on both sides; the
graph-diff figure is embedded as a data-URI image. No script, no external font, stylesheet or
image: the file opens offline, and a Content-Security-Policy forbids anything else.

The texts come from tools and models, so every character of them goes through ``html.escape``
(carriage returns as ``&#13;``, which an HTML parser would otherwise fold into line feeds): the
page shows the text exactly as written. spaCy's displaCy is not used: it re-spaces tokens and
does not escape span labels.
"""

from __future__ import annotations

import base64
import bisect
import hashlib
from dataclasses import dataclass
from html import escape as _html_escape
from pathlib import Path

from ..findings import Finding, Side
from ..io import write_output
from ..report import Report
from .figure import FINDING_COLOURS
from .textdiff import Mark, diff_marks

# Bidirectional controls reorder how text around them is displayed (Trojan Source): a review
# shows each as a visible code point instead, so what the reviewer reads is what is stored.
_BIDI = {c: f"[U+{c:04X}]" for c in (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F),
                                      *range(0x2066, 0x206A))}


def escape(s: str, quote: bool = True) -> str:
    """HTML-escaped ``s`` with every bidirectional control made visible (``[U+202E]``)."""
    return _html_escape(s.translate(_BIDI), quote=quote)


_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
_QUOTE_WIDTH = 60


def review_html(report: Report, *, before_name: str = "before", after_name: str = "after",
                figure: bool = True) -> str:
    """A complete HTML document reviewing ``report``.

    >>> import refgraph
    >>> r = refgraph.analyze("Limit: 30 seconds.", "Limit: 30 <i>s</i>.", mode="fast")
    >>> page = review_html(r, figure=False)
    >>> "&lt;i&gt;s&lt;/i&gt;" in page and "<i>" not in page
    True
    """
    body = review_fragment(report, before_name=before_name, after_name=after_name,
                           figure=figure)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{_CSP}\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>refgraph review: {escape(report.verdict)}</title></head>\n"
            f"<body>\n{body}\n</body></html>\n")


def write_html(report: Report, path: str | Path, *, before_name: str = "before",
               after_name: str = "after") -> Path:
    """Write :func:`review_html` to ``path`` (UTF-8), atomically (see
    :func:`refgraph.io.write_output`)."""
    write_output(path, review_html(report, before_name=before_name,
                                   after_name=after_name).encode("utf-8"), str(path))
    return Path(path)


def review_fragment(report: Report, *, before_name: str = "before",
                    after_name: str = "after", figure: bool = True) -> str:
    """The review as one ``<div>`` with its own scoped styles (what Jupyter shows inline)."""
    digest = hashlib.sha256("\0".join([report.before, report.after, *report.codes])
                            .encode("utf-8", "surrogatepass")).hexdigest()
    p = f"rg{digest[:8]}"  # ids stay unique when a notebook shows several reports
    two_sides = report.after_graph is not None
    marks: dict[Side, list[Mark]] = {"before": [], "after": []}
    if two_sides:
        marks["before"], marks["after"] = diff_marks(report.before, report.after)
    texts: dict[Side, str] = {"before": report.before, "after": report.after}
    names: dict[Side, str] = {"before": before_name, "after": after_name}
    sides: tuple[Side, ...] = ("before", "after") if two_sides else ("before",)
    columns = "".join(
        f"<div class=\"rg-side\"><h3>{escape(side)}: <span class=\"rg-file\">"
        f"{escape(names[side])}</span></h3>"
        f"<div class=\"rg-text\" data-side=\"{side}\">"
        f"{_render_side(p, side, texts[side], marks[side], report.findings)}</div></div>"
        for side in sides)
    fig = _figure(report) if figure and two_sides else ""
    counts = {k: sum(f.severity == k for f in report.findings)
              for k in ("error", "warning", "info")}
    summary = ", ".join(f"{n} {k}" for k, n in counts.items() if n) or "no findings"
    return (f"<div class=\"rg-review\" id=\"{p}\">\n<style>{_STYLE}</style>\n"
            f"<h2>refgraph review: <span class=\"rg-verdict rg-v-{escape(report.verdict)}\">"
            f"{escape(report.verdict)}</span></h2>\n"
            f"<p class=\"rg-meta\">intent {escape(report.intent)}, mode {escape(report.mode)}"
            f", {summary}</p>\n"
            f"{_findings_list(p, report, names)}\n"
            f"{_LEGEND if two_sides else ''}\n"
            f"<div class=\"rg-sides rg-n{len(sides)}\">{columns}</div>\n{fig}</div>")


@dataclass(frozen=True, slots=True)
class _Ev:
    finding: int
    index: int
    start: int
    end: int


def _render_side(p: str, side: Side, text: str, marks: list[Mark],
                 findings: list[Finding]) -> str:
    """The text cut at every mark and evidence boundary, each piece wrapped and escaped."""
    evs = [_Ev(i, j, e.start, e.end) for i, f in enumerate(findings)
           for j, e in enumerate(f.evidence) if e.side == side]
    cuts = sorted({0, len(text), *(m.start for m in marks), *(m.end for m in marks),
                   *(e.start for e in evs), *(e.end for e in evs)})
    mark_starts = [m.start for m in marks]
    out: list[str] = []
    for s, e in zip(cuts, [*cuts[1:], cuts[-1]], strict=True):
        out += [f"<span class=\"rg-anchor\" id=\"{p}-f{ev.finding}-e{ev.index}\"></span>"
                for ev in evs if ev.start == s]
        k = bisect.bisect_right(mark_starts, s) - 1
        mark = marks[k] if k >= 0 and marks[k].start <= s < marks[k].end else None
        if mark is not None and mark.kind == "moved" and mark.start == s:
            out.append(f"<span class=\"rg-anchor\" id=\"{p}-mv{mark.pair}-{side}\"></span>")
        if e <= s:
            continue
        piece = _escape_text(text[s:e])
        covering = [ev for ev in evs if ev.start <= s and e <= ev.end]
        diff_cls = {"removed": " rg-rm", "added": " rg-add", "moved": " rg-mv"}.get(
            mark.kind if mark else "", "")
        if covering:
            first = covering[0].finding
            title = "; ".join(f"{findings[ev.finding].code}: {findings[ev.finding].message}"
                              for ev in covering)
            out.append(f"<a class=\"rg-ev rg-c{first % len(FINDING_COLOURS)}{diff_cls}\" "
                       f"href=\"#{p}-f{first}\" title=\"{escape(title)}\">{piece}</a>")
        elif mark is not None and mark.kind == "moved":
            other = "after" if side == "before" else "before"
            out.append(f"<a class=\"rg-mv\" href=\"#{p}-mv{mark.pair}-{other}\" "
                       f"title=\"moved: go to the {other} side\">{piece}</a>")
        elif mark is not None:
            tag = "del" if mark.kind == "removed" else "ins"
            out.append(f"<{tag} class=\"{diff_cls.strip()}\">{piece}</{tag}>")
        else:
            out.append(piece)
    return "".join(out)


def _escape_text(s: str) -> str:
    return escape(s, quote=True).replace("\r", "&#13;")


def _findings_list(p: str, report: Report, names: dict[Side, str]) -> str:
    if not report.findings:
        return "<p class=\"rg-none\">No findings.</p>"
    starts = {side: [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
              for side, text in (("before", report.before), ("after", report.after))}
    items = []
    for i, f in enumerate(report.findings):
        links = []
        for j, e in enumerate(f.evidence):
            line = bisect.bisect_right(starts[e.side], e.start)
            col = e.start - starts[e.side][line - 1] + 1
            quote = " ".join(e.quote.split())
            if len(quote) > _QUOTE_WIDTH:
                quote = quote[: _QUOTE_WIDTH - 1] + "…"
            where = (f"{e.side} {line}:{col}" if names[e.side] == e.side
                     else f"{e.side} {names[e.side]}:{line}:{col}")
            links.append(f"<li><a href=\"#{p}-f{i}-e{j}\">{escape(where)}</a> "
                         f"<q>{_escape_text(quote)}</q></li>")
        items.append(
            f"<li id=\"{p}-f{i}\" class=\"rg-finding rg-c{i % len(FINDING_COLOURS)} "
            f"rg-s-{escape(f.severity)}\"><span class=\"rg-code\">{escape(f.code)}</span> "
            f"<b>{escape(f.name)}</b> <span class=\"rg-sev\">{escape(f.severity)}</span>"
            f"<div>{_escape_text(f.message)}</div>"
            f"<div class=\"rg-hint\">fix: {_escape_text(f.hint)}</div>"
            f"<ul class=\"rg-evs\">{''.join(links)}</ul></li>")
    return f"<ol class=\"rg-findings\">{''.join(items)}</ol>"


def _figure(report: Report) -> str:
    from .output import figure_bytes  # loads matplotlib: only when a figure is wanted

    data = base64.b64encode(figure_bytes(report, "svg")).decode("ascii")
    # An SVG shown through <img> cannot run scripts or load anything, whatever it holds.
    return (f"<figure class=\"rg-figure\"><img alt=\"graph diff: before and after referents"
            f"\" src=\"data:image/svg+xml;base64,{data}\"><figcaption>Referent graphs: before "
            "on the left, after on the right; rings and dashed arrows mark each finding's "
            "nodes.</figcaption></figure>")


_LEGEND = ("<p class=\"rg-legend\"><del class=\"rg-rm\">removed</del> "
           "<ins class=\"rg-add\">added</ins> <span class=\"rg-mv\">moved</span> "
           "<span class=\"rg-ev rg-c2\">finding evidence</span> (click a finding's place to "
           "jump to it, a highlighted span to read its finding)</p>")
_COLOURS = "".join(
    f".rg-review .rg-c{i}{{--rg-c:{c}}}" for i, c in enumerate(FINDING_COLOURS))
_STYLE = (
    ".rg-review{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;"
    "color:#1b1b1b;max-width:1400px}"
    ".rg-review h2{font-size:18px;margin:4px 0}.rg-review h3{font-size:14px;margin:6px 0}"
    ".rg-review .rg-meta,.rg-review .rg-legend{color:#555;margin:4px 0}"
    ".rg-review .rg-verdict{padding:1px 6px;border-radius:3px;color:#fff;background:#555}"
    ".rg-review .rg-v-reject,.rg-review .rg-v-refuse{background:#b23b00}"
    ".rg-review .rg-v-apply{background:#00795a}.rg-review .rg-v-apply-with-log{"
    "background:#8a6d00}"
    ".rg-review .rg-findings{padding-left:22px}"
    ".rg-review .rg-finding{border-left:4px solid var(--rg-c);padding:2px 8px;margin:6px 0}"
    ".rg-review .rg-code{font-family:ui-monospace,Menlo,Consolas,monospace;font-weight:bold;"
    "color:var(--rg-c)}"
    ".rg-review .rg-sev{font-size:12px;color:#555}.rg-review .rg-s-error .rg-sev{"
    "color:#b23b00;font-weight:bold}"
    ".rg-review .rg-hint{color:#333;font-style:italic}"
    ".rg-review .rg-evs{margin:2px 0;padding-left:18px;font-size:13px}"
    ".rg-review .rg-sides{display:grid;gap:12px}.rg-review .rg-n2{grid-template-columns:"
    "minmax(0,1fr) minmax(0,1fr)}"
    ".rg-review .rg-file{font-weight:normal;font-family:ui-monospace,Menlo,Consolas,"
    "monospace}"
    ".rg-review .rg-text{white-space:pre-wrap;overflow-wrap:anywhere;font:12.5px/1.55 "
    "ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;border:1px solid #ddd;"
    "padding:8px;background:#fcfcfc;max-height:75vh;overflow:auto}"
    ".rg-review .rg-rm{background:#fbd9c9;text-decoration:line-through;"
    "text-decoration-color:#d55e00}"
    ".rg-review .rg-add{background:#c8eedf;text-decoration:none}"
    ".rg-review .rg-mv{background:#dce9f7;text-decoration:underline dashed #0072b2;"
    "color:inherit}"
    ".rg-review .rg-ev{outline:2px solid var(--rg-c);outline-offset:0;"
    "background:#fff1c4;color:inherit;text-decoration:none}"
    ".rg-review .rg-ev.rg-rm{text-decoration:line-through}"
    ".rg-review .rg-anchor:target+*{box-shadow:0 0 0 4px #ffd75e}"
    ".rg-review .rg-finding:target{background:#fff8dd}"
    ".rg-review .rg-figure{margin:12px 0}.rg-review .rg-figure img{max-width:100%;"
    "height:auto;border:1px solid #eee}"
    ".rg-review figcaption{color:#555;font-size:13px}"
    + _COLOURS)
