"""``python -m refgraph.rules`` prints docs/findings.md."""

from . import render_markdown

print(render_markdown(), end="")
