"""The examples in docs/contracts.md and docs/graph.md run and hold."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"


def _examples() -> list[tuple[str, str]]:
    found = []
    for doc in ("contracts.md", "graph.md"):
        text = (DOCS / doc).read_text(encoding="utf-8")
        for i, m in enumerate(re.finditer(r"contract-example:\n```python\n(.*?)```", text,
                                          re.DOTALL)):
            found.append((f"{doc}#{i}", m.group(1)))
    return found


@pytest.mark.parametrize(("where", "code"), _examples(), ids=[w for w, _ in _examples()])
def test_contract_example_holds(where: str, code: str) -> None:
    exec(compile(code, where, "exec"), {})


def test_there_are_contract_examples() -> None:
    assert len(_examples()) >= 2


def test_readme_python_example_runs(monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    root = DOCS.parent
    readme = (root / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", readme, re.DOTALL)
    assert blocks
    monkeypatch.chdir(root)
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})
        printed = capsys.readouterr().out
        expected = [line[2:] for line in block.splitlines() if line.startswith("# ")]
        assert printed.splitlines() == expected
