"""The plain-data output of refgraph's spaCy components.

Every component appends records (kind, exact character offsets, flat scalar attributes) to
``doc._.rg_records`` and token-aligned spans to ``doc.spans["rg_<name>"]``. The graph is built
from records only, so nothing spaCy-specific leaks into it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import compress
from operator import itemgetter
from typing import Any

from spacy.tokens import Doc

from ..model import NodeKind, Scalar
from .view import NO_SPANS_KEY

_KEY = "rg_records"


def _raw(doc: Doc) -> list[list[Any]]:
    # Plain lists in user_data: doc.to_bytes() (msgpack) keeps working, and components append
    # without going through the ``doc._`` wrapper on every record.
    raw: list[list[Any]] | None = doc.user_data.get(_KEY)
    if raw is None:
        raw = []
        doc.user_data[_KEY] = raw
    return raw


if not Doc.has_extension("rg_records"):
    Doc.set_extension("rg_records", getter=_raw)


@dataclass(slots=True)
class Record:
    """One extracted thing: ``kind`` is a :class:`NodeKind` value; offsets index the doc text."""

    kind: str
    start: int
    end: int
    attrs: dict[str, Scalar] = field(default_factory=dict)

    def shifted(self, by: int) -> Record:
        """The same record with offsets (and every ``*_start``/``*_end`` attribute) moved."""
        attrs = {
            k: (v + by if isinstance(v, int) and not isinstance(v, bool) and _is_offset(k) else v)
            for k, v in self.attrs.items()
        }
        return Record(self.kind, self.start + by, self.end + by, attrs)


def _is_offset(key: str) -> bool:
    return key.endswith("_start") or key.endswith("_end")


def raw_records(doc: Doc) -> list[list[Any]]:
    """The stored ``[kind, start, end, attrs]`` lists, without building Record objects."""
    return _raw(doc)


_KIND = itemgetter(0)


def raw_records_of(doc: Doc, kinds: frozenset[str]) -> Iterator[list[Any]]:
    """The stored records whose kind is in ``kinds`` (filtered in C: most are of others)."""
    raw = _raw(doc)
    return compress(raw, map(kinds.__contains__, map(_KIND, raw)))


def records(doc: Doc) -> list[Record]:
    """The records the components wrote to ``doc._.rg_records``, as :class:`Record` objects."""
    return [Record(kind, start, end, attrs) for kind, start, end, attrs in _raw(doc)]


_VALUES = {k: k.value for k in NodeKind}


def add(doc: Doc, span_key: str, kind: NodeKind, start: int, end: int, /, label: str = "",
        **attrs: Scalar | None) -> None:
    """Record one extraction and mirror it as a span in ``doc.spans[key]``.

    ``None`` attributes are dropped: the graph leaves absent values out.
    """
    add_attrs(doc, span_key, kind, start, end, {k: v for k, v in attrs.items() if v is not None},
              label)


def add_attrs(doc: Doc, span_key: str, kind: NodeKind, start: int, end: int,
              attrs: dict[str, Scalar], label: str = "") -> None:
    """:func:`add` for a caller that holds the attributes as a dict with no ``None`` value:
    the dict is stored as it is (the caller hands it over). Packing keyword arguments and
    filtering them again cost four times as much as storing the record, once per record.
    """
    data = doc.user_data
    raw = data.get(_KEY)
    if raw is None:
        raw = data[_KEY] = []
    raw.append([_VALUES[kind], start, end, attrs])  # a plain str, not ``kind.value``
    if data.get(NO_SPANS_KEY):
        return  # the graph builder reads records only; spans are for people and spaCy tools
    span = doc.char_span(start, end, label=label or kind.value, alignment_mode="expand")
    if span is not None:
        if span_key in doc.spans:
            doc.spans[span_key].append(span)
        else:
            doc.spans[span_key] = [span]


def ensure_group(doc: Doc, key: str) -> None:
    """Make ``doc.spans[key]`` exist even when nothing was found, so consumers can rely on it.

    Not on docs made only to build a graph: like ``add``, it skips the spans nobody reads
    (a span group per component and doc costs more than a small component's rules).
    """
    if doc.user_data.get(NO_SPANS_KEY):
        return
    if key not in doc.spans:
        doc.spans[key] = []


__all__ = ["Record", "add", "add_attrs", "ensure_group", "raw_records", "raw_records_of",
           "records"]
