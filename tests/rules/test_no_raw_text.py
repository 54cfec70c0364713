"""Rules compare graph data: no rule module reads raw text with a regex, loads a lexicon or
imports spaCy. The words a concept needs are the front end's data (``models/``)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import refgraph.rules

RULES_DIR = Path(refgraph.rules.__file__).parent
MODULES = sorted(RULES_DIR.glob("*.py"))
_FORBIDDEN = {"re", "regex", "spacy"}
_LOADERS = {"load_json", "load_words", "load_word_list", "model_path"}
_MAX_LITERALS = 12  # a set of graph attribute values (kinds, roles) is short; a word list is not


def _is_code(s: str) -> bool:
    """A finding code ("RG201"): the catalogue's order lists them, they are no words."""
    return len(s) == 5 and s.startswith("RG") and s[2:].isdigit()


def _imports(tree: ast.Module) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            out.add(mod.split(".")[0] if node.level == 0 else mod)
            out.update(a.name for a in node.names)
    return out


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_rule_module_reads_no_raw_text(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = _imports(tree)
    assert not names & _FORBIDDEN, f"{path.name} imports {names & _FORBIDDEN}"
    assert not names & _LOADERS, f"{path.name} loads a lexicon ({names & _LOADERS})"
    assert "resources" not in names, f"{path.name} reaches the front end"
    assert "nlp" not in names, f"{path.name} reaches the front end"
    exports = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Assign)
               and any(isinstance(t, ast.Name) and t.id == "__all__" for t in n.targets)}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Set, ast.List, ast.Tuple)) and id(node) not in exports:
            strings = [e for e in node.elts if isinstance(e, ast.Constant)
                       and isinstance(e.value, str) and not _is_code(e.value)]
            assert len(strings) <= _MAX_LITERALS, (
                f"{path.name}:{node.lineno} holds a word list of {len(strings)} strings")


def test_the_check_sees_a_regex_import(tmp_path: Path) -> None:
    bad = ast.parse("import re\nWORDS = {" + ", ".join(f"'w{i}'" for i in range(20)) + "}\n")
    assert "re" in _imports(bad)
    sets = [n for n in ast.walk(bad) if isinstance(n, ast.Set)]
    assert len(sets[0].elts) > _MAX_LITERALS
