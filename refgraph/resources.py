"""Locate the data files under ``models/`` (lexicons, patterns, unit definitions)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

_HERE = Path(__file__).resolve().parent


@cache
def models_dir() -> Path:
    """``refgraph/models`` in a built wheel, else the repository's ``models/``."""
    for candidate in (_HERE / "models", _HERE.parent / "models"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("refgraph's models/ directory is missing from this installation")


def model_path(*parts: str) -> Path:
    return models_dir().joinpath(*parts)


@cache
def load_json(*parts: str) -> Any:
    with model_path(*parts).open(encoding="utf-8") as fh:
        return json.load(fh)


@cache
def load_words(*parts: str) -> frozenset[str]:
    """A word list: one entry per line, ``#`` starts a comment."""
    words = set()
    for line in model_path(*parts).read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            words.add(line)
    return frozenset(words)


@cache
def load_word_list(file: str, key: str) -> frozenset[str]:
    """The words stored as a list under ``key`` of the lexicon file ``file``
    (``models/lexicon/<file>``): one concept's words, defined once, as data."""
    return frozenset(str(w) for w in load_json("lexicon", file)[key])
