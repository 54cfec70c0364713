"""The side-by-side HTML review: exact text, marks, anchors, self-containment, and no XSS."""

from __future__ import annotations

import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from refgraph import Analyzer, Report
from refgraph.render import review_fragment, review_html
from tests.test_seed_scenarios import LAG_NOTE, LAG_NOTE_REORDERED, NOTES, NOTES_UNIT_DROPPED

PAYLOADS = (
    "<script>document.title='pwned'</script>",
    "<img src=x onerror=\"document.body.setAttribute('data-pwned','img')\">",
    "<svg onload=\"document.body.setAttribute('data-pwned','svg')\"></svg>",
    "<iframe srcdoc=\"<script>parent.document.title='pwned'</script>\"></iframe>",
    "</textarea></div></pre><!-- open comment",
    "<style>body{display:none}</style>",
    "\"double\" & 'single' quotes, &amp; an entity, and $x^2$",
    "</style><script>document.title='pwned'</script>",
    "<a href=\"javascript:document.title='pwned'\">click</a>",
)
HOSTILE_BEFORE = (
    "\r\n"  # a leading newline and a carriage return: an HTML parser would drop or fold them
    f"user: Keep the {PAYLOADS[0]} request timeout at 30 seconds.\n"
    f"tool[call_7]: {PAYLOADS[1]} {PAYLOADS[2]}\n"
    f"assistant: {PAYLOADS[3]} {PAYLOADS[4]}\n"
    f"assistant: {PAYLOADS[5]} {PAYLOADS[6]}\n"
    f"assistant: {PAYLOADS[7]} {PAYLOADS[8]}\n"
    "- Do not run `<b>deploy</b>` before the tests pass.\n"
)
HOSTILE_AFTER = (
    "\r\n"
    f"user: Keep the {PAYLOADS[0]} request timeout at 30.\n"
    f"tool[call_7]: {PAYLOADS[1]} {PAYLOADS[2]}\n"
    f"assistant: {PAYLOADS[3]} {PAYLOADS[4]}\n"
    f"assistant: {PAYLOADS[5]} {PAYLOADS[6]}\n"
    f"assistant: {PAYLOADS[7]} {PAYLOADS[8]}\n"
    "- Run `<b>deploy</b>` now.\n"
)


class _Page(HTMLParser):
    """Elements, attributes, the title and each side's text, as a browser's DOM holds them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.title = ""
        self.sides: dict[str, str] = {}
        self.ids: list[tuple[str, str, int]] = []  # (id, side, offset in the side's text)
        self._side: str | None = None
        self._depth = 0
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.tags.append((tag, a))
        if tag == "title":
            self._in_title = True
        if self._side is not None:
            if tag == "div":
                self._depth += 1
            if a.get("id"):
                self.ids.append((str(a["id"]), self._side, len(self.sides[self._side])))
        elif tag == "div" and "rg-text" in (a.get("class") or "").split():
            self._side = str(a["data-side"])
            self.sides[self._side] = ""
            self._depth = 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        if self._side is not None and tag == "div":
            self._depth -= 1
            if self._depth == 0:
                self._side = None

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        if self._side is not None:
            self.sides[self._side] += data


def parse(page: str) -> _Page:
    p = _Page()
    p.feed(page)
    p.close()
    return p


@pytest.fixture(scope="module")
def az() -> Analyzer:
    return Analyzer("fast")


@pytest.fixture(scope="module")
def hostile(az: Analyzer) -> Report:
    report = az.analyze(HOSTILE_BEFORE, HOSTILE_AFTER)
    assert report.findings, "the hostile pair must produce findings whose messages quote it"
    return report


def test_html_shows_each_side_exactly_as_written(hostile: Report) -> None:
    page = parse(review_html(hostile, figure=False))
    assert page.sides == {"before": HOSTILE_BEFORE, "after": HOSTILE_AFTER}
    assert page.title == "refgraph review: reject"


def test_html_untrusted_text_creates_no_elements(hostile: Report) -> None:
    html = review_html(hostile, before_name="<script>x</script>.md",
                       after_name="\"><img src=x onerror=alert(1)>.md")
    tags = parse(html).tags
    assert {t for t, _ in tags} <= {"html", "head", "meta", "title", "body", "div", "style",
                                    "h2", "h3", "span", "p", "ol", "ul", "li", "a", "b", "q",
                                    "del", "ins", "figure", "img", "figcaption"}
    for tag, attrs in tags:
        assert not any(k.startswith("on") for k in attrs), (tag, attrs)
        if tag == "img":
            assert str(attrs["src"]).startswith("data:image/svg+xml;base64,")
    assert sum(tag == "style" for tag, _ in tags) == 1


def test_html_is_self_contained(hostile: Report) -> None:
    html = review_html(hostile)
    assert not re.search(r"<(script|link|iframe|object|embed)\b", html)
    assert not re.search(r"(src|href)=\"(?!#|data:)", html)
    assert "@import" not in html
    assert "url(" not in html
    assert "Content-Security-Policy" in html
    assert "default-src 'none'" in html


def test_html_evidence_anchors_sit_at_the_evidence(az: Analyzer) -> None:
    report = az.analyze(NOTES, NOTES_UNIT_DROPPED, intent="summarize")
    html = review_html(report, figure=False)
    page = parse(html)
    texts = {"before": NOTES, "after": NOTES_UNIT_DROPPED}
    anchors = {i: (side, at) for i, side, at in page.ids}
    for fi, f in enumerate(report.findings):
        assert f'id="{review_id(html)}-f{fi}"' in html  # the finding itself
        for ei, e in enumerate(f.evidence):
            key = f"{review_id(html)}-f{fi}-e{ei}"
            assert f'href="#{key}"' in html
            side, at = anchors[key]
            assert (side, at) == (e.side, e.start)
            assert texts[side][at:at + len(e.quote)] == e.quote


def review_id(html: str) -> str:
    m = re.search(r'class="rg-review" id="(rg[0-9a-f]{8})"', html)
    assert m is not None
    return m.group(1)


def test_html_marks_removed_added_and_moved(az: Analyzer) -> None:
    html = review_html(az.analyze(LAG_NOTE, LAG_NOTE_REORDERED), figure=False)
    after = parse(html)
    assert after.sides["after"] == LAG_NOTE_REORDERED
    # The swapped sentence is marked moved on both sides (here it is also evidence).
    moved = re.findall(r'class="[^"]*\brg-mv\b[^"]*"[^>]*>([^<]*)<', html)
    # (the evidence, a claim, splits the moved sentence into marked pieces)
    assert "Therefore, " in moved
    assert "failover of shard A must be paused" in moved
    unit = review_html(az.analyze(NOTES, NOTES_UNIT_DROPPED, intent="summarize"), figure=False)
    assert '<del class="rg-rm">The upstream gateway</del>' in unit  # whole words
    assert '<ins class="rg-add">Gateway</ins>' in unit
    # The dropped unit is removed text and the finding's evidence at once.
    assert re.search(r'class="rg-ev rg-c0 rg-rm"[^>]*>seconds</a>', unit)


def test_html_fragment_for_a_lint_report_has_one_side(az: Analyzer) -> None:
    report = az.lint("The above constraint applies; timeout is 30.")
    page = parse(report._repr_html_())
    assert page.sides == {"before": "The above constraint applies; timeout is 30."}
    assert "<img" not in review_fragment(report)


BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")


def _dump_dom(path: Path, tmp_path: Path) -> str:
    """The DOM headless Chromium builds from ``path``, after its scripts (if any) had 2 s."""
    assert BROWSER is not None
    proc = subprocess.run(
        [BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--no-first-run", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}",
         "--virtual-time-budget=2000", "--dump-dom", path.as_uri()],
        capture_output=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")[-2000:]
    return proc.stdout.decode("utf-8")


@pytest.mark.skipif(BROWSER is None, reason="no headless browser: install Debian's `chromium` "
                    "(.ci/run does) to check that the review runs no injected script")
def test_html_xss_payloads_do_not_run_in_chromium(hostile: Report, tmp_path: Path) -> None:
    assert BROWSER is not None
    path = tmp_path / "review.html"
    path.write_text(review_html(hostile, before_name="<script>document.title='pwned'</script>",
                                after_name="after.md"), encoding="utf-8")
    dom = _dump_dom(path, tmp_path)
    page = parse(dom)
    # Every payload would have changed the title or marked the body; none did.
    assert page.title == "refgraph review: reject"
    assert all("data-pwned" not in attrs for _, attrs in page.tags)
    assert [t for t, _ in page.tags if t in ("script", "iframe", "svg", "textarea")] == []
    assert not any(str(attrs.get("href", "")).startswith("javascript:") for _, attrs in page.tags)
    # And the page shows the texts as written, payloads included, character for character.
    assert page.sides == {"before": HOSTILE_BEFORE, "after": HOSTILE_AFTER}
    for payload in PAYLOADS:
        assert payload in page.sides["before"]


@pytest.mark.skipif(BROWSER is None, reason="no headless browser: install Debian's `chromium` "
                    "(.ci/run does) to check that the review sends no request")
def test_html_review_sends_no_request_and_shows_bidi_controls_in_chromium(
        az: Analyzer, tmp_path: Path) -> None:
    import http.server
    import threading

    hits: list[str] = []

    class _Count(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.append(self.path)
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Count)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        leaks = (f'<img src="{url}/img"> <link rel="stylesheet" href="{url}/css"> '
                 f'<iframe src="{url}/frame"></iframe> <style>@import "{url}/import";</style> '
                 f'<svg><image href="{url}/svg"/></svg> <video poster="{url}/poster"></video>')
        before = (f"user: {leaks}\nuser: Do not run `deploy\u202e` before the tests pass, "
                  "\u2066admin\u2069 says.\nassistant: The timeout is 30 seconds.\n")
        after = (f"user: {leaks}\nuser: Run `deploy\u202e` now, \u2066admin\u2069 says.\n"
                 "assistant: The timeout is 30.\n")
        report = az.analyze(before, after)
        # Messages quote with repr (it escapes them); evidence quotes carry them raw.
        assert any("\\u202e" in f.message for f in report.findings)
        assert any("\u202e" in e.quote for f in report.findings for e in f.evidence)
        path = tmp_path / "review.html"
        path.write_text(review_html(report, before_name=f"\u202e{url}/name.md"),
                        encoding="utf-8")
        dom = _dump_dom(path, tmp_path)
    finally:
        server.shutdown()
    assert hits == []  # nothing the texts name was fetched
    # Each bidi control shows as its code point and reorders nothing: none is left in the page.
    assert not any(ch in dom for ch in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
    assert "[U+202E]" in dom
    assert "[U+2066]admin[U+2069]" in dom
