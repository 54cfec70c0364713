"""Project configuration: ``refgraph.toml`` or a ``[tool.refgraph]`` table in ``pyproject.toml``.

Found upward from the working directory, as ruff finds its own: in each directory,
``refgraph.toml`` first, then a ``pyproject.toml`` that has a ``[tool.refgraph]`` table.

.. code-block:: toml

    [tool.refgraph]
    mode = "fast"
    select = ["RG1", "RG2", "RG3"]
    ignore = ["RG304"]
    policy = { RG104 = "warning", RG502 = "off" }
    min-confidence = 0.7
    max-chars = 5000000

Unknown keys and wrong types are an :class:`~refgraph.errors.InputError` naming the file.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from .analyze import Analyzer, PolicyValue
from .errors import InputError
from .findings import SEVERITIES
from .nlp.pipeline import MODES, Mode
from .rules import BY_CODE

KEYS = ("mode", "select", "ignore", "policy", "min-confidence", "max-chars")


@dataclass(frozen=True, slots=True)
class Config:
    """Settings read from a file; ``None``/empty means "not set" (the defaults apply)."""

    mode: Mode | None = None
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    policy: Mapping[str, PolicyValue] = field(default_factory=dict)
    min_confidence: float | None = None
    max_chars: int | None = None
    path: Path | None = None  # the file it came from

    def analyzer(self) -> Analyzer:
        """An analyzer with this configuration's mode, policy and confidence floor."""
        kwargs: dict[str, Any] = {}
        if self.min_confidence is not None:
            kwargs["min_confidence"] = self.min_confidence
        if self.max_chars is not None:
            kwargs["max_chars"] = self.max_chars
        return Analyzer(self.mode or "accurate", policy=self.policy, **kwargs)


def find_config(start: str | Path | None = None) -> Path | None:
    """The configuration file that applies in ``start`` (default: the working directory)."""
    here = Path.cwd() if start is None else Path(start)
    here = here.resolve()
    for folder in (here, *here.parents):
        own = folder / "refgraph.toml"
        if own.is_file():
            return own
        pyproject = folder / "pyproject.toml"
        if pyproject.is_file() and "refgraph" in _read(pyproject).get("tool", {}):
            return pyproject
    return None


def load_config(path: str | Path | None = None, *, isolated: bool = False) -> Config:
    """The configuration in ``path``, or the one :func:`find_config` finds; an empty one when
    ``isolated`` or when there is none."""
    if isolated:
        return Config()
    if path is None:
        found = find_config()
        if found is None:
            return Config()
        path = found
    p = Path(path)
    if not p.is_file():
        raise InputError(f"--config {path}: no such file")
    data = _read(p)
    if p.name == "pyproject.toml":
        table = data.get("tool", {}).get("refgraph")
        if table is None:
            raise InputError(f"{p}: has no [tool.refgraph] table")
        return _parse(table, p, "[tool.refgraph]")
    return _parse(data, p, "the file")


def _read(p: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(p.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{p}: cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{p}: not valid TOML: {exc}") from None


def _parse(table: object, p: Path, where: str) -> Config:
    if not isinstance(table, dict):
        raise InputError(f"{p}: {where} must be a table")
    unknown = sorted(set(table) - set(KEYS))
    if unknown:
        raise InputError(f"{p}: unknown key {unknown[0]!r} in {where}: use "
                         f"{', '.join(KEYS)}")
    mode = table.get("mode")
    if mode is not None and mode not in MODES:
        raise InputError(f"{p}: mode must be 'accurate' or 'fast', not {mode!r}")
    select = table.get("select")
    floor = table.get("min-confidence")
    if floor is not None and (isinstance(floor, bool) or not isinstance(floor, int | float)
                              or not 0 <= floor <= 1):
        raise InputError(f"{p}: min-confidence must be a number from 0 to 1, not {floor!r}")
    limit = table.get("max-chars")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)
                              or limit < 1):
        raise InputError(f"{p}: max-chars must be a positive integer, not {limit!r}")
    return Config(mode=cast(Mode | None, mode),
                  select=None if select is None else _codes(select, "select", p),
                  ignore=_codes(table.get("ignore", []), "ignore", p),
                  policy=parse_policy(table.get("policy", {}), str(p)),
                  min_confidence=None if floor is None else float(floor), max_chars=limit,
                  path=p)


def _codes(value: object, key: str, p: Path) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
        raise InputError(f"{p}: {key} must be a list of codes or prefixes, like [\"RG2\"]")
    for c in value:
        if not any(code.startswith(c.upper()) for code in BY_CODE):
            raise InputError(f"{p}: {key} names {c!r}, which is no code or prefix")
    return tuple(c.upper() for c in value)


def parse_policy(value: object, where: str) -> dict[str, PolicyValue]:
    """``{"RG304": "warning"}`` or ``"RG304=warning,RG104=off"``, checked against the catalogue."""
    if isinstance(value, str):
        pairs: list[tuple[object, object]] = []
        for part in filter(None, (s.strip() for s in value.split(","))):
            name, sep, level = part.partition("=")
            if not sep:
                raise InputError(f"{where}: policy {part!r} is not CODE=SEVERITY")
            pairs.append((name.strip(), level.strip()))
    elif isinstance(value, dict):
        pairs = list(value.items())
    else:
        raise InputError(f"{where}: policy must be a table of CODE = SEVERITY")
    out: dict[str, PolicyValue] = {}
    for key, sev in pairs:
        code = str(key)
        if not isinstance(key, str) or code.upper() not in BY_CODE:
            raise InputError(f"{where}: policy names unknown code {code!r}")
        if sev not in (*SEVERITIES, "off"):
            raise InputError(f"{where}: policy for {code} must be error, warning, info or off, "
                             f"not {sev!r}")
        out[code.upper()] = cast(PolicyValue, sev)
    return out
