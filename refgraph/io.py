"""Reading user files: one clear :class:`InputError` for every way a file can be unusable."""

from __future__ import annotations

import contextlib
import json
import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import Any

from .errors import InputError

_TEXT_CONTROL = {9, 10, 12, 13, 27}

MAX_CHARS = 5_000_000
"""The largest text refgraph takes by default (about 1.2M tokens): a context window holds
less, and a bound keeps one runaway input (``/dev/zero``, a log piped by mistake) from
holding the gate. Every entry point takes ``max_chars=`` to change it."""


def check_size(text: str, what: str, max_chars: int = MAX_CHARS) -> str:
    """``text``, or an :class:`InputError` when it is longer than ``max_chars``."""
    if len(text) > max_chars:
        raise InputError(f"{what} is {len(text):,} characters, more than the limit of "
                         f"{max_chars:,} (max_chars / --max-chars raises it)")
    return text


def read_text(path: str, *, max_chars: int = MAX_CHARS) -> str:
    """Read ``path`` (``-`` for stdin) as UTF-8 text, exactly as stored (no newline changes).
    Reading stops past ``max_chars`` characters' worth of bytes, for files, pipes and devices
    alike, and that is an :class:`InputError`."""
    limit = 4 * max_chars + 4  # UTF-8 spends at most 4 bytes on a character
    if path == "-":
        if sys.stdin is None:
            raise InputError("standard input is closed")
        where = "standard input"
        data = sys.stdin.buffer.read(limit + 1)
    else:
        p = Path(path)
        where = path if len(path) <= 200 else path[:197] + "..."
        try:
            if p.is_dir():
                raise InputError(f"{where}: is a directory, not a file")
            with p.open("rb") as f:
                data = f.read(limit + 1)
        except FileNotFoundError:
            raise InputError(f"{where}: no such file") from None
        except OSError as exc:  # permissions, a name too long, a device error ...
            raise InputError(f"{where}: cannot read ({exc.strerror or exc})") from None
    if len(data) > limit:
        raise InputError(f"{where}: more than {max_chars:,} characters, the limit "
                         "(--max-chars raises it)")
    return check_size(decode_text(data, where), where, max_chars)


def read_messages(path: str, *, max_chars: int = MAX_CHARS) -> list[Any]:
    """Read a JSON message list from ``path`` (``-`` for stdin): a list, or an object whose
    ``messages`` is one (a logged request's layout)."""
    shown = "standard input" if path == "-" else path if len(path) <= 200 else path[:197] + "..."
    try:
        data = json.loads(read_text(path, max_chars=max_chars))
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


def is_utf8(encoding: str | None) -> bool:
    return (encoding or "").lower().replace("-", "").replace("_", "") in ("utf8", "utf8sig")


def for_stdout(text: str, *, is_json: bool = False) -> str:
    """``text`` as standard output's encoding can hold it: unchanged on UTF-8; elsewhere a
    character it lacks becomes an escape, ``\\u00eb`` inside JSON (still valid JSON, the same
    value) and ``\\xeb`` in text, instead of a ``UnicodeEncodeError``."""
    enc = getattr(sys.stdout, "encoding", None) or "utf-8"
    if is_utf8(enc):
        return text
    try:
        text.encode(enc)
        return text
    except UnicodeEncodeError:
        pass
    if is_json:  # non-ASCII characters stand only inside JSON strings, where \uXXXX means them
        return "".join(c if ord(c) < 128 else _json_escape(c) for c in text)
    return text.encode(enc, "backslashreplace").decode(enc)


def _json_escape(c: str) -> str:
    n = ord(c)
    if n < 0x10000:
        return f"\\u{n:04x}"
    n -= 0x10000
    return f"\\u{0xD800 + (n >> 10):04x}\\u{0xDC00 + (n & 0x3FF):04x}"


def write_output(path: str | Path, data: bytes, what: str = "output") -> None:
    """Write ``data`` to ``path`` so that nothing is lost silently.

    ``-`` is standard output. A regular file (or a new one) is written atomically: a fresh
    temporary file in the same directory, fsync, then rename, so a crash leaves the old file or
    the new one, never half of one; a symlink's target is replaced and the file's mode kept.
    Anything else that exists (a device, a FIFO) is written in place, never replaced. Every
    failure (disk full, permission, a missing directory) is an :class:`InputError` naming
    ``what``, and leaves no partial file behind.
    """
    if str(path) == "-":
        try:
            sys.stdout.flush()
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
        except OSError as exc:
            raise InputError(f"{what}: cannot write to standard output: "
                             f"{exc.strerror or exc}") from None
        return
    out = Path(path)
    try:
        mode = out.stat().st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise InputError(f"{what}: cannot write: {exc.strerror or exc}") from None
    if mode is not None and stat.S_ISDIR(mode):
        raise InputError(f"{what}: is a directory, not a file")
    if mode is not None and not stat.S_ISREG(mode):
        try:  # a device or a FIFO: written where it is
            with out.open("wb", buffering=0) as f:
                view = memoryview(data)
                while view:
                    view = view[f.write(view) or 0:]
        except OSError as exc:
            raise InputError(f"{what}: cannot write: {exc.strerror or exc}") from None
        return
    target = out.resolve()  # a symlinked OUT: write the file it points at
    if not target.parent.is_dir():
        raise InputError(f"{what}: no such directory {str(target.parent)!r}")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".refgraph-tmp",
                                   dir=target.parent)
    except OSError as exc:
        raise InputError(f"{what}: cannot write: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if mode is not None:
            os.chmod(tmp, stat.S_IMODE(mode))
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise InputError(f"{what}: cannot write: {exc.strerror or exc}") from None


def replaceable(path: Path) -> bool:
    """Whether ``path`` is a regular file or nothing yet: what may be replaced atomically or
    resumed from. A device or a FIFO is neither (reading one blocks; renaming over it would
    destroy it)."""
    return not path.exists() or path.is_file()


class LineSink:
    """An append-only file of result lines (``refgraph batch --out``): each line is flushed
    as it is written, so a resumed run skips what is on disk. A write that fails (disk full,
    a removed directory) truncates the file back to its last whole line, removes a file this
    run created and left empty, and is an :class:`InputError`; closing fsyncs. A device or a
    FIFO is written in place; ``None`` writes to standard output."""

    def __init__(self, path: Path | None, what: str = "--out") -> None:
        self.what, self.path = what, path
        self.regular = path is None or replaceable(path)
        self.created = path is not None and not path.exists()
        if path is None:
            self.good = 0
            return
        try:
            self.f = path.open("ab")
        except OSError as exc:
            raise InputError(f"{what}: cannot write: {exc.strerror or exc}") from None
        self.good = self.f.tell() if self.regular else 0

    def write(self, line: str) -> None:
        try:
            if self.path is None:
                sys.stdout.write(for_stdout(line, is_json=True) + "\n")
                sys.stdout.flush()
                return
            self.f.write(line.encode("utf-8") + b"\n")
            self.f.flush()
        except OSError as exc:
            self._undo()
            raise InputError(f"{self.what}: cannot write: {exc.strerror or exc}") from None
        if self.path is not None and self.regular:
            self.good = self.f.tell()

    def _undo(self) -> None:
        if self.path is None or not self.regular:
            return
        with contextlib.suppress(OSError):  # the buffered rest failed; truncating drops it
            self.f.close()
        try:
            if self.created and self.good == 0:
                self.path.unlink(missing_ok=True)
            else:
                os.truncate(self.path, self.good)
        except OSError:
            pass  # nothing more can be done; the error being raised says what failed

    def close(self) -> None:
        if self.path is None or self.f.closed:
            return
        try:
            self.f.flush()
            if self.regular:
                os.fsync(self.f.fileno())
            self.f.close()
        except OSError as exc:
            self._undo()
            raise InputError(f"{self.what}: cannot write: {exc.strerror or exc}") from None
