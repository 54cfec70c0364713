"""The gate: every patch is rebased onto the live revision and analyzed before it is written.

``Gate(buffer, policy=..., ledger=..., budget=...)``. ``gate.submit(patch)``:

1. resolve and rebase the patch onto the live revision (:meth:`ContextBuffer.prepare`); a stale
   base, an ambiguous anchor or an edit conflict is raised as it is (RG401-RG403);
2. with ``externalize`` on, a prune's removed lines go to the ledger and the buffer keeps a
   one-line handle in their place;
3. analyze live text -> candidate text with the patch's intent, its declared span and
   justification, and the protected regions (RG406) as they stand in the live revision;
4. commit only if the live revision has not moved meanwhile; if it has, do 1-3 again, once, while
   holding the buffer's lock, so the second check cannot be overtaken.

Blocking findings raise :class:`GateRejected` (or :class:`GateRefused` when a ``budget`` is
set, the live context is over it, and the prune cannot reach it without a blocking finding),
with the report attached; nothing is written.
"""

from __future__ import annotations

import threading
from collections import Counter, deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from .analyze import HANDLE_FORMAT, Analyzer, PolicyValue
from .buffer import Candidate, ContextBuffer, Revision
from .errors import InputError, RewriteRejected
from .findings import Evidence, Finding
from .ledger import Ledger, payload_sha
from .nlp.pipeline import Mode
from .patch import Patch
from .rebase import LineEdit, apply_hunks, conflicts, map_range
from .report import Report, Verdict, verdict_for
from .rules.guard import ProtectedRegionEdit

_HANDLE_DIGITS = 12


class GateRejected(RewriteRejected):
    """The analyzer found blocking findings in the candidate; ``report`` holds them."""

    code = "RG400"

    def __init__(self, message: str, report: Report, *, live_revision: int | None = None,
                 verdict: str = "reject") -> None:
        super().__init__(message, live_revision=live_revision)
        self.report = report
        self.findings = report.findings
        self.verdict = verdict
        self.codes = report.codes


class GateRefused(GateRejected):
    """A prune cannot reach the token budget without a blocking finding: escalate."""


@dataclass(frozen=True, slots=True)
class Committed:
    """What :meth:`Gate.submit` wrote."""

    revision: int
    report: Report
    handles: tuple[str, ...] = ()  # ledger keys of externalized payloads
    rechecked: bool = False  # the live revision moved while checking, so it was checked twice


@dataclass(slots=True)
class Protected:
    """A protected region: lines ``[start, end)`` of the live revision, tracked through edits."""

    name: str
    start: int
    end: int


@dataclass(slots=True)
class _Stats:
    submitted: int = 0
    applied: int = 0
    refused: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    window: deque[bool] = field(default_factory=deque)  # True: rejected or refused


class Gate:
    """Guards a :class:`ContextBuffer`: see the module docstring.

    ``policy`` maps codes to ``error|warning|info|off`` as for :class:`~refgraph.Analyzer`;
    ``externalize`` turns destructive prunes into recoverable ones (needs a ``ledger``);
    ``count_tokens`` sizes texts for the ``budget`` (default: the pipeline's tokenizer).
    """

    def __init__(self, buffer: ContextBuffer, *, policy: Mapping[str, PolicyValue] | None = None,
                 ledger: Ledger | None = None, budget: int | None = None,
                 mode: str = "fast", analyzer: Analyzer | None = None,
                 externalize: bool = False, count_tokens: Callable[[str], int] | None = None,
                 window: int = 100, quiet_warning_after: int = 50,
                 buffer_id: str = "main") -> None:
        if not isinstance(buffer, ContextBuffer):
            raise InputError("Gate guards a refgraph.ContextBuffer")
        if budget is not None and (not isinstance(budget, int) or budget < 0):
            raise InputError("budget must be a non-negative number of tokens")
        if externalize and ledger is None:
            raise InputError("externalize needs a ledger to keep the pruned text in")
        self.buffer = buffer
        self.ledger = ledger
        self.budget = budget
        self.externalize = externalize
        if analyzer is not None and policy is not None:
            raise InputError("give a policy or an analyzer (which has its own), not both")
        self.analyzer = analyzer or Analyzer(_mode(mode), policy=policy)
        self.count_tokens = count_tokens or self.analyzer._count_tokens
        self._protected: list[Protected] = []
        self._stats = _Stats()
        self._window = window
        self._quiet_after = quiet_warning_after
        self._stats_lock = threading.Lock()
        if ledger is not None:
            ledger.attach(buffer, buffer_id)
        buffer.subscribe(self._track)

    # protected regions --------------------------------------------------------------------------
    def protect(self, start_line: int, end_line: int, name: str = "protected") -> Protected:
        """Protect lines ``[start_line, end_line)`` of the live revision from every patch."""
        with self.buffer.lock:
            n = len(self.buffer.lines)
            if not (isinstance(start_line, int) and isinstance(end_line, int)
                    and 0 <= start_line < end_line <= n):
                raise InputError(f"protected range {start_line}:{end_line} is not within the "
                                 f"{n} lines of r{self.buffer.revision}")
            region = Protected(name, start_line, end_line)
            self._protected.append(region)
            return region

    @property
    def protected(self) -> list[Protected]:
        """The protected regions, in live line numbers."""
        return list(self._protected)

    def _track(self, rev: Revision, _buffer: ContextBuffer) -> None:
        # Every recorded edit moves the regions: found by position, never by a marker string.
        for region in self._protected:
            region.start, region.end = map_range(region.start, region.end, rev.edits)

    # submitting ---------------------------------------------------------------------------------
    def submit(self, patch: Patch) -> Committed:
        """Check ``patch`` against the live revision and commit it, or raise why not."""
        with self._stats_lock:
            self._stats.submitted += 1
        try:
            cand, report, handles = self._check(patch)
            with self.buffer.lock:
                rechecked = cand.live_revision != self.buffer.revision
                if rechecked:  # moved while we analyzed: once more, now holding the lock
                    cand, report, handles = self._check(patch)
                revision = self.buffer.commit(cand)
        except RewriteRejected as exc:
            self._count(exc)
            raise
        self._count(None)
        return Committed(revision, report, handles, rechecked)

    def _check(self, patch: Patch) -> tuple[Candidate, Report, tuple[str, ...]]:
        with self.buffer.lock:
            cand = self.buffer.prepare(patch)
            live_lines = list(self.buffer.lines)
            regions = [(r.start, r.end) for r in self._protected]
            base_to_live = self.buffer.edits_since(cand.base_revision)
        handles: tuple[str, ...] = ()
        moved: list[tuple[int, int]] = []
        if self.externalize and patch.intent == "prune":
            cand, handles, moved = _externalize(cand, live_lines)
        live_text = "\n".join(live_lines)
        offsets = _line_offsets(live_lines)
        span = None
        if patch.declared_span is not None:
            s, e = map_range(*patch.declared_span, base_to_live)
            start = offsets[min(s, len(live_lines))]
            span = (start, _end(offsets, live_text, e, start))
        report = self.analyzer.analyze(
            live_text, cand.text, intent=patch.intent, declared_span=span,
            justification=patch.justification,
            externalized=[(offsets[s], _end(offsets, live_text, e, offsets[s]))
                          for s, e in moved],
            count_tokens=self.count_tokens)
        # Protected regions are decided on lines, by the rebase rule itself (an edit that
        # changes a protected line or inserts strictly inside the region), not on a text diff.
        if regions and self.analyzer.policy.get(ProtectedRegionEdit.code) != "off":
            hits = self.analyzer.apply_policy(_protected_hits(regions, cand, live_text, offsets))
            if hits:
                findings = sorted([*report.findings, *hits],
                                  key=lambda f: (f.evidence[0].start if f.evidence else 0,
                                                 f.code))
                report = replace(report, findings=findings, verdict=verdict_for(findings))
        over = False
        if self.budget is not None and patch.intent == "prune":
            # The analyzer sized both sides for RG404 with the same count_tokens: reuse them.
            report.stats["budget"] = self.budget
            report.stats["budget_met"] = report.stats["tokens_after"] <= self.budget
            over = report.stats["tokens_before"] > self.budget
        if report.verdict == "reject":
            cls = GateRefused if over else GateRejected
            verdict: Verdict = "refuse" if over else "reject"
            what = (f"the prune cannot reach the budget of {self.budget} tokens without a "
                    "blocking finding; escalate" if over else "blocking findings")
            report = replace(report, verdict=verdict)
            raise cls(f"{what}: {', '.join(report.codes)}; nothing was written: fix them and "
                      f"re-author against r{cand.live_revision}", report,
                      live_revision=cand.live_revision, verdict=verdict)
        return cand, report, handles

    # health -------------------------------------------------------------------------------------
    def _count(self, exc: RewriteRejected | None) -> None:
        with self._stats_lock:
            st = self._stats
            if exc is None:
                st.applied += 1
            elif isinstance(exc, GateRefused):
                st.refused += 1
            elif isinstance(exc, GateRejected):
                st.rejected.update(exc.codes)
            else:
                st.rejected[exc.code] += 1
            st.window.append(exc is not None)
            while len(st.window) > self._window:
                st.window.popleft()

    def stats(self) -> dict[str, Any]:
        """Applied, rejected per code, refused, and the rejection rate over the last ``window``
        submissions; ``warning`` when none of many was rejected (a gate that never refuses is
        not checking)."""
        with self._stats_lock:
            st = self._stats
            n = len(st.window)
            rate = sum(st.window) / n if n else 0.0
            warning = None
            if n >= self._quiet_after and rate == 0:
                warning = (f"no rewrite rejected in the last {n}: check that the gate sees every "
                           "patch and that its policy blocks anything")
            return {"submitted": st.submitted, "applied": st.applied, "refused": st.refused,
                    "rejected": dict(sorted(st.rejected.items())),
                    "window": n, "rejection_rate": round(rate, 4), "warning": warning}


def _mode(mode: str) -> Mode:
    if mode == "fast":
        return "fast"
    if mode == "accurate":
        return "accurate"
    raise InputError(f"unknown mode {mode!r}: use 'accurate' or 'fast'")


def _line_offsets(lines: list[str]) -> list[int]:
    out = [0]
    for line in lines:
        out.append(out[-1] + len(line) + 1)
    return out


def _end(offsets: list[int], text: str, line: int, start: int) -> int:
    """Character offset just past line ``line - 1`` (its newline excluded), never before
    ``start`` (an empty line range is an empty character range)."""
    if line <= 0:
        return start
    return max(start, min(len(text), offsets[min(line, len(offsets) - 1)] - 1))


def _protected_hits(regions: list[tuple[int, int]], cand: Candidate, live_text: str,
                    offsets: list[int]) -> list[Finding]:
    """RG406 findings: candidate edits that change a protected line or insert inside one."""
    rule = ProtectedRegionEdit()
    out: list[Finding] = []
    new_text = cand.text
    new_offsets = _line_offsets(list(cand.lines))
    for a, b in regions:
        if a >= b:
            continue  # a region a tool edit emptied: nothing left to protect
        shift = 0
        for d in cand.edits:  # sorted, disjoint, in live coordinates
            if conflicts(LineEdit(a, b, ()), d):  # the rebase rule, applied to the region
                n0 = d.start + shift
                c0, c1 = max(a, d.start), min(b, max(d.end, d.start + 1))
                s0 = offsets[c0]
                s1 = _end(offsets, live_text, c1, s0)
                t0 = new_offsets[min(n0, len(cand.lines))]
                t1 = _end(new_offsets, new_text, n0 + len(d.new_lines), t0)
                out.append(rule.finding(
                    f"the patch changes protected lines {a + 1}-{b} (line {c0 + 1})",
                    Evidence("before", s0, s1, live_text[s0:s1]),
                    Evidence("after", t0, t1, new_text[t0:t1])))
                break
            shift += d.delta
    return out


def _externalize(cand: Candidate, live: list[str]
                 ) -> tuple[Candidate, tuple[str, ...], list[tuple[int, int]]]:
    """The candidate with each removed block replaced by a ledger handle line (the payload is
    stored by the ledger when the revision is recorded, under the same sha256)."""
    edits: list[LineEdit] = []
    handles: list[str] = []
    moved: list[tuple[int, int]] = []
    for d in cand.edits:
        removed = tuple(live[d.start:d.end])
        if not "".join(removed).strip():
            edits.append(d)
            continue
        sha = payload_sha(removed)
        words = len(" ".join(removed).split())
        line = HANDLE_FORMAT.format(sha=sha[:_HANDLE_DIGITS], words=words)
        edits.append(LineEdit(d.start, d.end, (*d.new_lines, line)))
        handles.append(sha)
        moved.append((d.start, d.end))
    hunks = tuple(replace(h, new_lines=e.new_lines) for h, e in zip(cand.hunks, edits,
                                                                     strict=True))
    lines = tuple(apply_hunks(live, edits))
    return replace(cand, hunks=hunks, edits=tuple(edits), lines=lines), tuple(handles), moved
