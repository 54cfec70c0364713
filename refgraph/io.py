"""Reading user files: one clear :class:`InputError` for every way a file can be unusable."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from .errors import InputError

_TEXT_CONTROL = {9, 10, 12, 13, 27}


def read_text(path: str) -> str:
    """Read ``path`` (``-`` for stdin) as UTF-8 text, exactly as stored (no newline changes)."""
    if path == "-":
        if sys.stdin is None:
            raise InputError("standard input is closed")
        data = sys.stdin.buffer.read()
        where = "standard input"
    else:
        p = Path(path)
        shown = path if len(path) <= 200 else path[:197] + "..."
        try:
            if p.is_dir():
                raise InputError(f"{shown}: is a directory, not a file")
            data = p.read_bytes()
        except FileNotFoundError:
            raise InputError(f"{shown}: no such file") from None
        except OSError as exc:  # permissions, a name too long, a device error ...
            raise InputError(f"{shown}: cannot read ({exc.strerror or exc})") from None
        where = shown
    return decode_text(data, where)


def read_messages(path: str) -> list[Any]:
    """Read a JSON message list from ``path`` (``-`` for stdin): a list, or an object whose
    ``messages`` is one (a logged request's layout)."""
    shown = "standard input" if path == "-" else path if len(path) <= 200 else path[:197] + "..."
    try:
        data = json.loads(read_text(path))
    except ValueError as exc:
        raise InputError(f"{shown}: not JSON ({exc})") from None
    if isinstance(data, dict) and isinstance(data.get("messages"), list):
        data = data["messages"]
    if not isinstance(data, list):
        raise InputError(f"{shown}: expected a JSON list of messages (or an object with a "
                         f"'messages' list), got {type(data).__name__}")
    return data


def decode_text(data: bytes, where: str = "input") -> str:
    """UTF-8 text from bytes; binary data (NUL bytes, mostly control bytes) is refused."""
    if b"\x00" in data[:65536]:
        raise InputError(f"{where}: looks binary (contains NUL bytes), expected UTF-8 text")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{where}: not valid UTF-8 (bad byte at offset {exc.start})") from None
    sample = text[:4096]
    if sample:
        control = sum(1 for c in sample if ord(c) < 32 and ord(c) not in _TEXT_CONTROL)
        if control / len(sample) > 0.1:
            raise InputError(f"{where}: looks binary (many control characters), expected text")
    return text
