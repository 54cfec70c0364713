"""Agent-context text, not just prose: Markdown, code fences, JSON, logs, chat turns, paths."""

from __future__ import annotations

import pytest

from refgraph import build_graph

CONTEXT = """## Status

- [x] migrate `orders` table
- [ ] raise `pool_size` to 20

user: why is checkout slow?

tool[call_7]: {"p99_ms": 2300, "pool_size": 10, "errors": 0}
2026-11-28T10:02:11Z WARN pool exhausted after 30 s (src/db/pool.py:88)

```python
POOL_SIZE = 10  # see https://docs.example.com/pool
```
"""


@pytest.mark.parametrize("mode", ["fast", "accurate"])
def test_mixed_agent_context(mode: str) -> None:
    G = build_graph(CONTEXT, mode=mode)
    blocks = [d["block_kind"] for _, d in sorted(G.nodes(data=True), key=lambda x: x[1]["start"])
              if d["kind"] == "block"]
    # The log line follows the tool result with no blank line: it is part of that turn.
    assert blocks == ["heading", "bullet", "bullet", "turn", "turn", "code"]
    ids = {(d["name"], d["role"]) for _, d in G.nodes(data=True) if d["kind"] == "identifier"}
    assert {("POOL_SIZE", "define"), ("pool_size", "use")} <= ids
    handles = {d["value"] for _, d in G.nodes(data=True) if d["kind"] == "handle"}
    assert {"src/db/pool.py:88", "https://docs.example.com/pool", "call_7"} <= handles
    quantities = {(d["magnitude"], d.get("unit")) for _, d in G.nodes(data=True)
                  if d["kind"] == "quantity"}
    assert (30.0, "second") in quantities
    assert (10.0, None) in quantities
    assert (2026.0, None) not in quantities  # the log timestamp is not a quantity
    for _, d in G.nodes(data=True):
        assert CONTEXT[d["start"]:d["end"]] == d["text"]
