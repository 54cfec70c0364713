"""Exceptions raised by refgraph.

Each error subclasses both :class:`RefgraphError` and the builtin a caller would expect to catch
(the pint habit)::

    RefgraphError
    ├── InputError (ValueError)            bad text or file: not UTF-8, binary, a directory, missing
    ├── PipelineUnavailable (RuntimeError) the requested spaCy pipeline is not installed
    ├── LedgerError (RuntimeError)         the ledger cannot record; the buffer is unchanged
    └── RewriteRejected                    a patch was refused; nothing was written
        ├── StaleBase          RG401       its base revision is unknown
        ├── AmbiguousAnchor    RG402       its anchor is at no place or at several
        ├── EditConflict       RG403       an edit since its base changed the lines it replaces
        └── GateRejected                   the analyzer found blocking findings (refgraph.gate)

Warnings: ``RefgraphWarning`` (UserWarning) > ``FastModeFallback``: accurate mode fell back
to fast because the trained English pipeline is not installed.
"""

from __future__ import annotations


class RefgraphError(Exception):
    """Root of every error refgraph raises on purpose."""


class InputError(RefgraphError, ValueError):
    """The input cannot be analysed (wrong type, not UTF-8, binary, unreadable)."""


class PipelineUnavailable(RefgraphError, RuntimeError):
    """The trained English pipeline for accurate mode is not installed."""


class RefgraphWarning(UserWarning):
    """Root of refgraph's warnings."""


class FastModeFallback(RefgraphWarning):
    """Accurate mode was asked for, the trained English pipeline is not installed, and fast
    mode runs instead (set ``REFGRAPH_REQUIRE_ACCURATE=1`` to make this an error)."""


class LedgerError(RefgraphError, RuntimeError):
    """The ledger could not record a revision (locked, disk full); nothing was written."""


class RewriteRejected(RefgraphError):
    """A patch was not applied; nothing was written. ``code`` is the finding code (RG4xx/RG5xx).

    ``str(exc)`` says why and what to do (usually: re-author against revision N).
    """

    code = "RG400"

    def __init__(self, message: str, *, live_revision: int | None = None) -> None:
        super().__init__(f"{self.code} {message}")
        self.live_revision = live_revision


class StaleBase(RewriteRejected):
    """RG401: the patch names a base revision this buffer never had (or no longer knows)."""

    code = "RG401"


class AmbiguousAnchor(RewriteRejected):
    """RG402: the patch's anchor (``old`` text or a hunk's lines) is at no place, or at several."""

    code = "RG402"


class EditConflict(RewriteRejected):
    """RG403: an edit recorded since the base changed lines the patch removes or replaces."""

    code = "RG403"
