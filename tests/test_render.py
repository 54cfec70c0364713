"""The graph-diff figure: what it shows for each seed failure, focus, determinism, safe labels."""

from __future__ import annotations

import io
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import matplotlib
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

import refgraph
from refgraph import Analyzer, Report
from refgraph.cli import main
from refgraph.render import DiffView, ViewNode, build_view, draw_diff, figure_bytes
from tests.test_seed_scenarios import (
    LAG_NOTE,
    LAG_NOTE_REORDERED,
    NOTES,
    NOTES_UNIT_DROPPED,
    PLAN,
    PLAN_PRUNED,
    RETRIES,
    RETRIES_PRUNED,
    RUNBOOK,
    RUNBOOK_PRUNED,
    SHARDS,
    SHARDS_MERGED,
)


@pytest.fixture(scope="module")
def az() -> Analyzer:
    return Analyzer("fast")


def _view(report: Report, **kw: object) -> DiffView:
    assert report.before_graph is not None
    assert report.after_graph is not None
    return build_view(report.findings, report.before_graph, report.after_graph,
                      **kw)  # type: ignore[arg-type]


def _tied(view: DiffView, side: str, code: str) -> list[ViewNode]:
    return [n for n in view.nodes.values() if n.side == side
            and any(view.findings[i].code == code for i in n.findings)]


def test_render_unit_dropped_links_removed_to_added(az: Analyzer) -> None:
    view = _view(az.analyze(NOTES, NOTES_UNIT_DROPPED, intent="summarize"))
    (b,) = _tied(view, "before", "RG201")
    (a,) = _tied(view, "after", "RG201")
    assert (b.status, b.label, a.status, a.label) == ("removed", "amount: 30 seconds", "added",
                                                      "amount: 30")
    assert (0, b.id, a.id) in view.links


def test_render_dangling_deictic_shows_the_lost_antecedent(az: Analyzer) -> None:
    view = _view(az.analyze(PLAN, PLAN_PRUNED, intent="prune"))
    after = _tied(view, "after", "RG102")
    assert [n.label for n in after] == ["points to: the above constraint → ?"]
    before = {n.kind: n for n in _tied(view, "before", "RG102")}
    assert before["constraint"].status == "removed"
    # The kept before copy of the pointer is drawn, on the same row, but wears no ring: only
    # what the evidence names does.
    (twin,) = [n for (side, _), n in view.nodes.items()
               if side == "before" and n.kind == "deictic" and n.row == after[0].row]
    assert twin.status == "kept"
    assert twin.findings == ()
    # The before copy still points at its antecedent.
    assert any(e.side == "before" and e.kind == "refers_to"
               and e.source == twin.id and e.target == before["constraint"].id
               for e in view.edges)


def test_render_orphaned_use_and_lost_definition(az: Analyzer) -> None:
    view = _view(az.analyze(RETRIES, RETRIES_PRUNED, intent="prune"))
    labels = {(n.side, n.status, n.label) for n in _tied(view, "before", "RG101")}
    assert ("before", "removed", "defines: MAX_RETRIES") in labels
    assert [(n.status, n.label) for n in _tied(view, "after", "RG101")] == [
        ("kept", "name: MAX_RETRIES")]


def test_render_merged_entities_both_point_at_one(az: Analyzer) -> None:
    view = _view(az.analyze(SHARDS, SHARDS_MERGED, intent="summarize"))
    before = _tied(view, "before", "RG103")
    assert sorted(n.label for n in before) == ["thing: primary replica of shard A",
                                               "thing: primary replica of shard B"]
    (after,) = _tied(view, "after", "RG103")
    assert {(b, a) for _, b, a in view.links} == {(n.id, after.id) for n in before}


def test_render_reversed_causal_edge_is_highlighted(az: Analyzer) -> None:
    view = _view(az.analyze(LAG_NOTE, LAG_NOTE_REORDERED))
    hot = [e for e in view.edges if e.findings and e.kind == "supports"]
    assert [e.side for e in hot] == ["before"]
    assert view.node("before", hot[0].target).label.startswith("says: failover of shard A")
    assert any(n.status == "moved" for n in view.nodes.values())


def test_render_vanished_constraint(az: Analyzer) -> None:
    view = _view(az.analyze(RUNBOOK, RUNBOOK_PRUNED, intent="prune"))
    kinds = {(n.kind, n.status) for n in _tied(view, "before", "RG303")}
    assert ("constraint", "removed") in kinds


def _long_pair() -> tuple[str, str]:
    blocks = [f"- Worker {i} polls queue q{i} every {i + 2} seconds and retries at most {i} "
              f"times with `backoff_{i}`." for i in range(40)]
    before = "\n".join(blocks) + "\n"
    after = before.replace("every 7 seconds", "every 7")
    return before, after


def test_render_focus_keeps_a_large_context_legible(az: Analyzer) -> None:
    before, after = _long_pair()
    report = az.analyze(before, after)
    assert report.codes == ["RG201"]
    focused = _view(report)
    assert focused.total > 300
    assert 2 <= len(focused.nodes) <= 20
    assert {n.label for n in focused.nodes.values() if n.findings} == {"amount: 7 seconds",
                                                                       "amount: 7"}
    everything = _view(report, focus="all", max_nodes=80)
    assert len(everything.nodes) == 80
    # The findings' nodes come first, so a cap never hides them.
    assert {n.label for n in everything.nodes.values() if n.findings} == {"amount: 7 seconds",
                                                                          "amount: 7"}


def test_render_without_findings_shows_what_changed(az: Analyzer) -> None:
    report = az.analyze("The timeout is 30 seconds.\n\nBackups run nightly at 02:00.\n",
                        "The timeout is 30 seconds.\n\nThe nightly backup is at 02:00.\n")
    assert report.findings == []
    view = _view(report)
    assert view.nodes
    assert {n.status for n in view.nodes.values()} & {"removed", "added"}
    assert "timeout" not in " ".join(n.label for n in view.nodes.values())


def test_render_is_deterministic(az: Analyzer) -> None:
    report = az.analyze(RUNBOOK, RUNBOOK_PRUNED, intent="prune")
    assert _view(report) == _view(report)
    assert figure_bytes(report, "png") == figure_bytes(report, "png")
    again = Analyzer("fast").analyze(RUNBOOK, RUNBOOK_PRUNED, intent="prune")
    assert figure_bytes(report, "svg") == figure_bytes(again, "svg")


def _boxes(art: refgraph.render.DiffArtists) -> list[tuple[str, object]]:
    canvas = FigureCanvasAgg(art.figure)
    canvas.draw()
    renderer = canvas.get_renderer()
    return [(k[1], t.get_window_extent(renderer)) for k, t in art.labels.items()]


@pytest.mark.parametrize(("before", "after", "intent"), [
    (PLAN, PLAN_PRUNED, "prune"), (RUNBOOK, RUNBOOK_PRUNED, "prune"),
    (LAG_NOTE, LAG_NOTE_REORDERED, "rewrite"), (SHARDS, SHARDS_MERGED, "summarize")])
def test_render_labels_do_not_overlap_and_legend_hides_nothing(
        az: Analyzer, before: str, after: str, intent: str) -> None:
    art = draw_diff(az.analyze(before, after, intent=intent), focus="all", max_nodes=40)
    boxes = _boxes(art)
    for i, (_, a) in enumerate(boxes):
        for _, b in boxes[i + 1:]:
            assert not a.overlaps(b)  # type: ignore[attr-defined]
    assert art.legend is not None
    legend = art.legend.get_window_extent()
    assert all(not legend.overlaps(box) for _, box in boxes)  # type: ignore[attr-defined]
    for collection in art.markers.values():
        for x, y in art.ax.transData.transform(collection.get_offsets()):
            assert not legend.contains(x, y)


def test_render_dollar_signs_stay_literal(az: Analyzer) -> None:
    before = "Run `cost_$a$_total` and `$\\frac{a$` first. The timeout is 30 seconds.\n"
    report = az.analyze(before, before.replace("30 seconds", "30"))
    with matplotlib.rc_context({"svg.fonttype": "none"}):  # keep text as text in the SVG
        art = draw_diff(report, focus="all")
        labels = [t.get_text() for t in art.texts]
        assert "name: cost_$a$_total" in labels
        assert "name: $\\frac{a$" in labels
        assert all(not t.get_parse_math() and not t.get_usetex() for t in art.texts)
        buf = io.BytesIO()
        art.figure.savefig(buf, format="svg")  # mathtext would fail on "$\\frac{a$"
    svg = buf.getvalue().decode("utf-8")
    assert "cost_$a$_total" in svg
    assert "$\\frac{a$" in svg


def test_render_lint_report_has_no_diff() -> None:
    with pytest.raises(ValueError, match="lint report"):
        draw_diff(refgraph.lint("The timeout is 30.", mode="fast"))


def test_render_import_refgraph_loads_no_matplotlib() -> None:
    code = ("import sys, refgraph, refgraph.render; "
            "sys.exit(1 if 'matplotlib' in sys.modules else 0)")
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def test_report_repr_is_a_compact_summary(az: Analyzer) -> None:
    report = az.analyze(RUNBOOK, RUNBOOK_PRUNED, intent="prune")
    text = repr(report)
    assert text.startswith("<Report reject: RG303 (1 error); intent=prune mode=fast;")
    assert "terraform" not in text
    assert "\n" not in text
    assert repr(refgraph.lint("All good.", mode="fast")).startswith(
        "<Report apply: - (no findings); intent=lint")


# CLI -------------------------------------------------------------------------------------------

def _pair(tmp_path: Path) -> tuple[str, str]:
    b, a = tmp_path / "before.md", tmp_path / "after.md"
    b.write_text(NOTES, encoding="utf-8")
    a.write_text(NOTES_UNIT_DROPPED, encoding="utf-8")
    return str(b), str(a)


def test_cli_check_writes_png_svg_and_html(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    b, a = _pair(tmp_path)
    png, svg, page = tmp_path / "d.png", tmp_path / "d.svg", tmp_path / "r.html"
    code = main(["check", b, a, "--mode", "fast", "--png", str(png), "--svg", str(svg),
                 "--html", str(page)])
    assert code == 1
    assert "RG201" in capsys.readouterr().out
    assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    root = ET.fromstring(svg.read_bytes())
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert not list(root.iter("{http://www.w3.org/2000/svg}script"))
    html = page.read_text("utf-8")
    assert "RG201" in html
    assert b in html
    assert "data:image/svg+xml;base64," in html


@pytest.mark.parametrize(("flag", "where", "why"), [
    ("--png", "{tmp}/missing/out.png", "no such directory"),
    ("--svg", "{tmp}", "is a directory"),
    ("--html", "/proc/refgraph-review.html", "cannot write"),
])
def test_cli_check_bad_output_path_is_one_line_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: str, where: str,
        why: str) -> None:
    b, a = _pair(tmp_path)
    code = main(["check", b, a, "--mode", "fast", flag, where.format(tmp=tmp_path)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("refgraph: error: ")
    assert err.count("\n") == 1
    assert why in err
    assert "Traceback" not in err
