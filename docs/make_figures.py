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


def main() -> None:
    report = refgraph.analyze(BEFORE, AFTER, intent="summarize", mode="fast")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    write_figure(report, OUT)
    print(f"{OUT.relative_to(Path.cwd()) if OUT.is_relative_to(Path.cwd()) else OUT}: "
          f"{report.verdict} {report.codes}")


if __name__ == "__main__":
    main()
