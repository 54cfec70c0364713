"""Batch audits: many logged compactions, checked in worker processes or on a Dask cluster.

>>> from refgraph.audit import audit
>>> pairs = [{"id": "a", "before": "The timeout is 30 seconds.", "after": "The timeout is 30."},
...          {"id": "b", "before": "Retries: 3.", "after": "Retries: 3."}]
>>> [(r.id, r.verdict, r.codes) for r in audit(pairs, mode="fast")]
[('a', 'reject', ['RG201']), ('b', 'apply', [])]

Pairs are grouped into chunks by their ``before`` text, so pairs that share a context run in one
worker and reuse its parse cache; each worker loads the pipeline once. With ``jobs=1`` and no
``client`` everything runs in this process, in input order; otherwise results come as chunks
finish (each carries its ``id``).
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .analyze import Analyzer
from .errors import InputError, RefgraphError
from .io import MAX_CHARS
from .rules import INTENTS

RESULT_SCHEMA = "refgraph.audit/1"
CHUNK_PAIRS = 32  # pairs per chunk: small enough to balance two workers, large enough to batch


@dataclass(frozen=True, slots=True)
class Settings:
    """What every worker needs to build its analyzer (plain data: it crosses processes)."""

    mode: str = "accurate"
    intent: str = "rewrite"
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] | None = None
    min_confidence: float | None = None
    policy: tuple[tuple[str, str], ...] = ()
    max_chars: int = MAX_CHARS


@dataclass(slots=True)
class AuditResult:
    """One pair's outcome: its verdict and findings, or the error that kept it from a verdict."""

    id: str
    verdict: str = ""
    codes: list[str] = field(default_factory=list)
    findings: list[dict[str, Any]] = field(default_factory=list)
    intent: str = ""
    mode: str = ""
    seconds: float = 0.0
    error: str = ""

    def to_dict(self) -> dict[str, Any]:
        if self.error:
            return {"schema": RESULT_SCHEMA, "id": self.id, "error": self.error}
        return {"schema": RESULT_SCHEMA, "id": self.id, "verdict": self.verdict,
                "codes": self.codes, "intent": self.intent, "mode": self.mode,
                "seconds": round(self.seconds, 4), "findings": self.findings}


def read_pairs(path: str | Path, *, max_chars: int = MAX_CHARS) -> Iterator[dict[str, Any]]:
    """The pairs of a JSON-lines file, each checked: an object with ``id``, ``before`` and
    ``after`` (strings or message lists) and optional ``intent`` and ``declared_span``. A bad
    line is an :class:`InputError` naming the file and line; blank lines are skipped. A line
    is read to at most twice ``max_chars`` (before and after) and a margin for its JSON, so a
    file without newlines (a device) cannot be read without bound."""
    line_limit = 2 * 6 * max_chars + 65536  # JSON escapes a character in at most 6
    p = Path(path)
    try:
        f = p.open(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    seen: set[str] = set()
    with f:
        try:
            for n, line in enumerate(iter(lambda: f.readline(line_limit + 1), ""), 1):
                if len(line) > line_limit:
                    raise InputError(f"{path}:{n}: line longer than {line_limit:,} characters")
                if not line.strip():
                    continue
                try:
                    pair = json.loads(line)
                except ValueError as exc:
                    raise InputError(f"{path}:{n}: not JSON ({exc})") from None
                pair = check_pair(pair, f"{path}:{n}")
                if pair["id"] in seen:
                    raise InputError(f"{path}:{n}: id {pair['id']!r} appears twice")
                seen.add(pair["id"])
                yield pair
        except UnicodeDecodeError:
            raise InputError(f"{path}: not UTF-8 text") from None


def check_pair(pair: object, where: str) -> dict[str, Any]:
    """``pair`` as audit reads it (``id`` as a string), or an InputError saying what is wrong."""
    if not isinstance(pair, Mapping):
        raise InputError(f"{where}: expected an object with id, before and after")
    missing = [k for k in ("id", "before", "after") if k not in pair]
    if missing:
        raise InputError(f"{where}: missing {', '.join(missing)}")
    if not isinstance(pair["id"], (str, int)) or isinstance(pair["id"], bool):
        raise InputError(f"{where}: id must be a string or an integer")
    for side in ("before", "after"):
        if not isinstance(pair[side], (str, list)):
            raise InputError(f"{where}: {side} must be a string or a message list")
    if isinstance(pair["before"], str) != isinstance(pair["after"], str):
        raise InputError(f"{where}: before and after must both be strings or both lists")
    intent = pair.get("intent")
    if intent is not None and intent not in INTENTS:
        raise InputError(f"{where}: unknown intent {intent!r}")
    return {**pair, "id": str(pair["id"])}


def chunks(pairs: Sequence[Mapping[str, Any]], size: int = CHUNK_PAIRS
           ) -> list[list[Mapping[str, Any]]]:
    """``pairs`` in chunks of about ``size``, pairs with the same ``before`` in one chunk (a
    worker parses a shared context once), in order of first appearance."""
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for p in pairs:
        groups.setdefault(_context_key(p["before"]), []).append(p)
    out: list[list[Mapping[str, Any]]] = []
    current: list[Mapping[str, Any]] = []
    for group in groups.values():
        if current and len(current) + len(group) > size:
            out.append(current)
            current = []
        current.extend(group)
    if current:
        out.append(current)
    return out


def _context_key(before: object) -> str:
    text = before if isinstance(before, str) else json.dumps(before, sort_keys=True,
                                                             default=str)
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()


# One analyzer per worker process (and per settings), loaded on first use.
_ANALYZERS: dict[Settings, Analyzer] = {}


def _analyzer(settings: Settings) -> Analyzer:
    az = _ANALYZERS.get(settings)
    if az is None:
        kwargs: dict[str, Any] = {"policy": dict(settings.policy),
                                  "max_chars": settings.max_chars}
        if settings.min_confidence is not None:
            kwargs["min_confidence"] = settings.min_confidence
        az = _ANALYZERS[settings] = Analyzer(settings.mode, **kwargs)  # type: ignore[arg-type]
    return az


def run_chunk(chunk: Sequence[Mapping[str, Any]], settings: Settings) -> list[AuditResult]:
    """Audit one chunk in this process (what a worker or a Dask task runs)."""
    az = _analyzer(settings)
    out = []
    for pair in chunk:
        t0 = time.perf_counter()
        pid = str(pair["id"])
        intent = str(pair.get("intent") or settings.intent)
        try:
            if isinstance(pair["before"], str):
                span = pair.get("declared_span")
                report = az.analyze(pair["before"], pair["after"], intent=intent,
                                    declared_span=tuple(span) if span is not None else None,
                                    select=settings.select, ignore=settings.ignore)
            else:
                report = az.analyze_messages(pair["before"], pair["after"], intent=intent,
                                             select=settings.select, ignore=settings.ignore)
        except RefgraphError as exc:  # one bad pair is its own result, not the batch's end
            out.append(AuditResult(pid, error=str(exc)))
            continue
        out.append(AuditResult(pid, report.verdict, report.codes,
                               report.to_dict()["findings"], intent, report.mode,
                               time.perf_counter() - t0))
    return out


def audit(pairs: Iterable[Mapping[str, Any]], *, mode: str = "accurate",
          intent: str = "rewrite", jobs: int = 1, client: Any = None,
          select: Iterable[str] | None = None, ignore: Iterable[str] | None = None,
          min_confidence: float | None = None, policy: Mapping[str, str] | None = None,
          max_chars: int = MAX_CHARS, chunk_pairs: int = CHUNK_PAIRS,
          progress: Callable[[int, int], None] | None = None) -> Iterator[AuditResult]:
    """Audit every pair (mappings with ``id``, ``before``, ``after``, optional ``intent`` and
    ``declared_span``); yield one :class:`AuditResult` per pair.

    ``jobs`` worker processes (1: this process), or ``client``, a ``distributed.Client``:
    chunks are submitted to its cluster. ``progress(done, total)`` is called after each chunk.
    """
    if not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1:
        raise InputError(f"jobs must be a whole number >= 1, not {jobs!r}")
    if intent not in INTENTS:
        raise InputError(f"unknown intent {intent!r}: use one of {', '.join(INTENTS)}")
    todo = [check_pair(p, f"pair {k}") for k, p in enumerate(pairs)]
    settings = Settings(mode, intent, tuple(select) if select is not None else None,
                        tuple(ignore) if ignore is not None else None, min_confidence,
                        tuple(sorted((policy or {}).items())), max_chars)
    parts = chunks(todo, chunk_pairs)
    done = 0

    def tick(n: int) -> None:
        nonlocal done
        done += n
        if progress is not None:
            progress(done, len(todo))

    if client is not None:
        yield from _on_dask(client, parts, settings, tick)
    elif jobs == 1:
        for part in parts:
            results = run_chunk(part, settings)
            tick(len(results))
            yield from results
    else:
        yield from _in_processes(parts, settings, jobs, tick)


def _in_processes(parts: list[list[Mapping[str, Any]]], settings: Settings, jobs: int,
                  tick: Callable[[int], None]) -> Iterator[AuditResult]:
    # fork shares the imported modules with the workers (each still loads its own pipeline);
    # where there is no fork, spawn
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    ctx = multiprocessing.get_context(method)
    with ProcessPoolExecutor(max_workers=min(jobs, len(parts) or 1), mp_context=ctx,
                             initializer=_warm, initargs=(settings,)) as pool:
        futures = [pool.submit(run_chunk, part, settings) for part in parts]
        for fut in as_completed(futures):
            results = fut.result()
            tick(len(results))
            yield from results


def _warm(settings: Settings) -> None:
    _analyzer(settings)  # the pipeline loads before the first chunk, once per worker


def _on_dask(client: Any, parts: list[list[Mapping[str, Any]]], settings: Settings,
             tick: Callable[[int], None]) -> Iterator[AuditResult]:
    from distributed import as_completed as dask_completed  # refgraph[dask]

    futures = [client.submit(run_chunk, part, settings, pure=False) for part in parts]
    for fut in dask_completed(futures):  # type: ignore[no-untyped-call]
        results = fut.result()
        tick(len(results))
        yield from results


def done_ids(path: str | Path) -> set[str]:
    """The ids already in a results file (``--out``), to resume a batch; a torn last line (an
    interrupted write) is ignored and will be redone."""
    p = Path(path)
    if not p.exists():
        return set()
    ids = set()
    with p.open(encoding="utf-8") as f:
        for line in f:
            try:
                d = json.loads(line)
            except ValueError:
                continue
            if isinstance(d, dict) and "id" in d:
                ids.add(str(d["id"]))
    return ids


def drop_torn_line(path: str | Path) -> None:
    """Cut a results file back to its last complete line: an interrupted write leaves half a
    line, which a resumed batch must not append to."""
    p = Path(path)
    if not p.exists():
        return
    with p.open("rb+") as f:
        data = f.read()
        if data and not data.endswith(b"\n"):
            f.truncate(data.rfind(b"\n") + 1)


def summary(results: Sequence[AuditResult], seconds: float) -> str:
    """The table printed after a batch: verdicts, findings per code, pairs per second."""
    verdicts = Counter(r.verdict or "error" for r in results)
    codes = Counter(f["code"] for r in results for f in r.findings)
    lines = ["| verdict | pairs |", "|---|---:|"]
    lines += [f"| {v} | {n} |" for v, n in sorted(verdicts.items())]
    lines += ["", "| code | findings |", "|---|---:|"]
    lines += [f"| {c} | {n} |" for c, n in sorted(codes.items())] or ["| - | 0 |"]
    rate = len(results) / seconds if seconds > 0 else 0.0
    lines += ["", f"{len(results)} pairs in {seconds:.1f} s ({rate:.1f} pairs/s)"]
    return "\n".join(lines)
