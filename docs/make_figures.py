"""Regenerate the README's example figure: ``make figures`` (or run this file with the venv).

The pair is the README's "Check a rewrite" example; fast mode keeps the picture independent of
the trained pipeline's version. The figure is deterministic for a given matplotlib.
"""

from __future__ import annotations

from pathlib import Path

import refgraph
from refgraph.render import write_figure

BEFORE = """\
- The request timeout is 30 seconds.
- Do not call `deploy` before the integration tests pass.
- Failover is not required unless the primary is unreachable for 5 minutes.
"""
AFTER = """\
- The request timeout is 30.
- Failover is required when the primary is unreachable for 5 minutes.
- Call `deploy` once the build is green.
"""
OUT = Path(__file__).resolve().parent / "img" / "diff-example.png"
# A busy rewrite (18 findings): how the figure holds up when colours must repeat.
_FACTS = [("request timeout", "30 seconds", "30"), ("upload limit", "25 MB", "25"),
          ("disk quota", "500 GB", "50 GB"), ("error budget", "0.1%", "1%"),
          ("cache TTL", "10 minutes", "10"), ("pool size", "40 connections", "400 connections"),
          ("lock lease", "15 seconds", "15"), ("rate limit", "200 req/s", "20 req/s"),
          ("backup window", "2 hours", "2"), ("heap cap", "8 GB", "80 GB"),
          ("token lifetime", "3600 seconds", "3600"), ("queue depth", "5000 messages",
                                                      "500 messages"),
          ("DNS TTL", "300 seconds", "300"), ("drain window", "90 seconds", "9 seconds"),
          ("log retention", "30 days", "30"), ("batch size", "64 rows", "640 rows"),
          ("probe delay", "5 seconds", "5"), ("grace period", "45 minutes", "4 minutes")]
MANY_BEFORE = "".join(f"- The {name} is {value}.\n" for name, value, _ in _FACTS)
MANY_AFTER = "".join(f"- The {name} is {changed}.\n" for name, _, changed in _FACTS)
MANY_OUT = OUT.with_name("diff-many.png")


def main() -> None:
    OUT.parent.mkdir(parents=True, exist_ok=True)
    for before, after, out in ((BEFORE, AFTER, OUT), (MANY_BEFORE, MANY_AFTER, MANY_OUT)):
        report = refgraph.analyze(before, after, intent="summarize", mode="fast")
        write_figure(report, out)
        print(f"{out.relative_to(Path.cwd()) if out.is_relative_to(Path.cwd()) else out}: "
              f"{report.verdict} {report.codes} ({len(report.findings)} findings)")


if __name__ == "__main__":
    main()
