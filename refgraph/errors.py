"""Exceptions raised by refgraph.

Each error subclasses both :class:`RefgraphError` and the builtin a caller would expect to catch
(the pint habit)::

    RefgraphError
    ├── InputError (ValueError)            bad text or file: not UTF-8, binary, a directory, missing
    └── PipelineUnavailable (RuntimeError) the requested spaCy pipeline is not installed
"""

from __future__ import annotations


class RefgraphError(Exception):
    """Root of every error refgraph raises on purpose."""


class InputError(RefgraphError, ValueError):
    """The input cannot be analysed (wrong type, not UTF-8, binary, unreadable)."""


class PipelineUnavailable(RefgraphError, RuntimeError):
    """The trained English pipeline for accurate mode is not installed."""
