"""``analyze``: is a rewrite compression or corruption? ``lint``: what is suspect in one text.

Both graphs are built through one :class:`~refgraph.parse.Parser` (so unchanged blocks are
parsed once), aligned, and handed to the rules of the catalogue; findings then pass a policy
(code -> severity or off) and the one-cause-one-finding filter, and the verdict follows from
their severities (docs/contracts.md section 5).
"""

from __future__ import annotations

import dataclasses
import re
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Literal, TypeAlias

from .align import Alignment, UnitStatus, align, align_claims
from .blocks import MessageSpan
from .errors import InputError
from .findings import SEVERITIES, Finding, Severity
from .gcpause import gc_paused
from .graph import build_graph, check_text
from .io import MAX_CHARS
from .messages import Rendered, render
from .nlp.pipeline import MODES, Mode
from .options import DEFAULT_MIN_CONFIDENCE as DEFAULT_MIN_CONFIDENCE
from .parse import Parser
from .report import Report, verdict_for
from .rules import (
    BY_CODE,
    INDEPENDENT,
    INTENTS,
    RECOVERABLE,
    RULES,
    SPECIFICITY,
    Context,
    Rule,
    Side,
)

PolicyValue: TypeAlias = Severity | Literal["off"]
MAX_PER_CODE = 100  # findings listed per code; the rest are counted in one more (see capped)
_GRAPH_CACHE = 8  # texts whose graph and units are kept: an agent's next before is its last after


# The line the gate leaves where it externalized a pruned block, and what recognises one: kept
# together so the two cannot drift apart.
HANDLE_FORMAT = "[pruned: ledger:{sha}, {words} words]"
LEDGER_HANDLE = re.compile(r"\[pruned: ledger:[0-9a-f]{8,64}, \d+ words?\]")

class Analyzer:
    """A loaded pipeline, its parse cache and a policy, reused across analyses.

    >>> az = Analyzer("fast")
    >>> az.analyze("The timeout is 30 seconds.", "The timeout is 30.").codes
    ['RG201']
    """

    def __init__(self, mode: Mode = "accurate", *,
                 policy: Mapping[str, PolicyValue] | None = None,
                 min_confidence: float = DEFAULT_MIN_CONFIDENCE,
                 max_chars: int = MAX_CHARS) -> None:
        if mode not in MODES:
            raise InputError(f"unknown mode {mode!r}: use 'accurate' or 'fast'")
        self.min_confidence = _check_confidence(min_confidence)
        if isinstance(max_chars, bool) or not isinstance(max_chars, int) or max_chars < 1:
            raise InputError(f"max_chars must be a positive integer, not {max_chars!r}")
        self.max_chars = max_chars  # the longest text analyzed; longer is an InputError
        self.parser = Parser(mode)
        self.mode: Mode = self.parser.mode  # "fast" when accurate mode fell back
        # progress(side, blocks_done, blocks_total) while a side's uncached blocks are parsed
        # (the CLI sets it for long inputs)
        self.progress: Callable[[str, int, int], None] | None = None
        self.policy: dict[str, PolicyValue] = {r.code: r.severity for r in RULES}
        # Codes the caller set: only these override a finding's own severity (a rule may give
        # one finding a lower severity than its default, e.g. a closure whose subject left).
        self._overridden: set[str] = set()
        for code, value in (policy or {}).items():
            if code.upper() not in BY_CODE:
                raise InputError(f"policy names unknown code {code!r}")
            if value not in (*SEVERITIES, "off"):
                raise InputError(f"policy for {code} must be error, warning, info or off, "
                                 f"not {value!r}")
            self.policy[code.upper()] = value
            self._overridden.add(code.upper())
        self._sides: OrderedDict[tuple[str, str, tuple[MessageSpan, ...] | None], Side] = \
            OrderedDict()
        self._lock = threading.Lock()  # the graph cache, shared by threads that share this

    # public -------------------------------------------------------------------------------------
    def analyze(self, before: str, after: str, *, intent: str = "rewrite",
                declared_span: tuple[int, int] | None = None,
                select: Iterable[str] | None = None, ignore: Iterable[str] | None = None,
                count_tokens: Callable[[str], int] | None = None,
                justification: str | None = None,
                protected: Sequence[tuple[int, int]] = (),
                externalized: Sequence[tuple[int, int]] = (),
                min_confidence: float | None = None,
                deadline: float | None = None) -> Report:
        """Compare ``before`` and ``after`` and return a :class:`~refgraph.report.Report`.

        Findings whose ``confidence`` is below ``min_confidence`` (default: the analyzer's)
        are left out of the report's findings, codes and verdict, and kept in
        ``Report.suppressed``.

        ``justification`` is the patch's stated reason (RG503 reads it); ``protected`` are
        character ranges of before that must not change (RG406); ``externalized`` are character
        ranges of before whose text was moved to a ledger, so closure findings about what was in
        them (RG101, RG102, RG303, RG501-RG503) are dropped: it is reconstructible, not lost.

        ``deadline`` (seconds, off by default) bounds the whole analysis: once it has passed,
        checked between parse batches of 64 blocks and between rules, the analysis stops and
        the report says so (``Report.complete`` is False, ``Report.incomplete`` says where it
        stopped); its verdict weighs the findings made so far and is never plain ``apply``.
        """
        with gc_paused():  # see below: the graphs make cyclic-GC passes costly
            return self._analyze(before, after, intent, declared_span, select, ignore,
                                 count_tokens, justification, protected, externalized,
                                 min_confidence, deadline=deadline)

    def analyze_messages(self, before: Sequence[object], after: Sequence[object], *,
                         intent: str = "rewrite", select: Iterable[str] | None = None,
                         ignore: Iterable[str] | None = None,
                         count_tokens: Callable[[str], int] | None = None,
                         justification: str | None = None,
                         min_confidence: float | None = None,
                         deadline: float | None = None) -> Report:
        """Compare two message lists (OpenAI, Anthropic or LangChain messages; see
        :mod:`refgraph.messages`) and return a :class:`~refgraph.report.Report`.

        Each message is one turn that nothing inside it splits; a tool call and its result
        share the call id as their handle. Each evidence span also carries ``message`` (the
        message's index in its list) and ``offset`` (where the span starts in that message's
        content); its ``start``/``end`` index ``Report.before``/``Report.after``, the rendered
        lists.

        >>> az = Analyzer("fast")
        >>> r = az.analyze_messages(
        ...     [{"role": "user", "content": "The timeout is 30 seconds."}],
        ...     [{"role": "user", "content": "The timeout is 30."}])
        >>> r.codes, r.findings[0].evidence[0].message
        (['RG201'], 0)
        """
        rb, ra = render(before, "before"), render(after, "after")
        with gc_paused():
            report = self._analyze(rb.text, ra.text, intent, None, select, ignore,
                                   count_tokens, justification, (), (), min_confidence,
                                   rb.spans, ra.spans, deadline=deadline)
        sides = {"before": rb, "after": ra}
        report.findings = [_located(f, sides) for f in report.findings]
        report.suppressed = [_located(f, sides) for f in report.suppressed]
        return report

    def _analyze(self, before: str, after: str, intent: str,
                 declared_span: tuple[int, int] | None, select: Iterable[str] | None,
                 ignore: Iterable[str] | None,
                 count_tokens: Callable[[str], int] | None,
                 justification: str | None = None,
                 protected: Sequence[tuple[int, int]] = (),
                 externalized: Sequence[tuple[int, int]] = (),
                 min_confidence: float | None = None,
                 before_messages: Sequence[MessageSpan] | None = None,
                 after_messages: Sequence[MessageSpan] | None = None, *,
                 deadline: float | None = None) -> Report:
        t0 = time.perf_counter()
        if deadline is not None and (isinstance(deadline, bool) or
                                     not isinstance(deadline, int | float) or deadline < 0):
            raise InputError(f"deadline must be a number of seconds >= 0, not {deadline!r}")
        due = None if deadline is None else t0 + deadline
        floor = self.min_confidence if min_confidence is None else \
            _check_confidence(min_confidence)
        before = check_text(before, "before", self.max_chars)
        after = check_text(after, "after", self.max_chars)
        if intent not in INTENTS:
            raise InputError(f"unknown intent {intent!r}: use one of {', '.join(INTENTS)}")
        span = _check_span(declared_span, len(before))
        guarded = tuple(_check_span(r, len(before), "protected") or (0, 0) for r in protected)
        moved = tuple(_check_span(r, len(before), "externalized") or (0, 0) for r in externalized)
        if justification is not None:
            justification = check_text(justification, "justification")
        rules = self._rules(select, ignore, lint=False)
        try:
            sb = self._side("before", before, before_messages, due)
            sa = self._side("after", after, after_messages, due)
            # The justification is read as a text of its own (its graph names handles, if any).
            just = self._side("before", justification, None, due) if justification else None
        except _Overdue as late:
            return Report("apply-with-log", intent, self.mode, [], before, after,
                          stats={"graph_ms": round((time.perf_counter() - t0) * 1000, 2)},
                          min_confidence=floor,
                          incomplete=f"the deadline of {deadline} s passed while parsing "
                                     f"{late.side}; no rule ran")
        t1 = time.perf_counter()
        unchecked: list[str] = []
        # The graphs are large and long-lived: a cyclic-GC pass over them mid-analysis costs
        # more than the rules themselves, and nothing here makes cycles worth collecting.
        with gc_paused():
            al = align(sb.units, sa.units)
            al.claims = align_claims(sb.claims, sa.claims)
            ctx = Context(sb, sa, al, intent=intent, declared_span=span, justification=just,
                          protected=guarded)
            if intent == "prune":
                count = count_tokens or self._count_tokens
                ctx.tokens_before, ctx.tokens_after = count(before), count(after)
            findings: list[Finding] = []
            for k, rule in enumerate(rules):
                if due is not None and time.perf_counter() > due:
                    unchecked = [r.code for r in rules[k:]]
                    break
                findings.extend(rule.check(ctx))
            if moved:
                findings = [f for f in findings if not _externalized(f, moved)]
            if "[pruned: ledger:" in after:
                handles = [m.span() for m in LEDGER_HANDLE.finditer(after)]
                findings = [f for f in findings if not _in_handles(f, handles)]
            findings = self.apply_policy(_one_per_cause(findings))
            suppressed = capped([f for f in findings if f.confidence < floor])
            findings = capped([f for f in findings if f.confidence >= floor])
        t2 = time.perf_counter()
        stats = {"units_before": len(sb.units), "units_after": len(sa.units),
                 **{f"units_{s.value}": n for s, n in _status_counts(al).items()},
                 "graph_ms": round((t1 - t0) * 1000, 2), "rules_ms": round((t2 - t1) * 1000, 2)}
        if intent == "prune":
            stats["tokens_before"], stats["tokens_after"] = ctx.tokens_before, ctx.tokens_after
        verdict = verdict_for(findings)
        incomplete = ""
        if unchecked:
            incomplete = (f"the deadline of {deadline} s passed; rules not run: "
                          f"{', '.join(unchecked)}")
            verdict = "apply-with-log" if verdict == "apply" else verdict
        return Report(verdict, intent, self.mode, findings, before, after,
                      sb.G, sa.G, al, stats, suppressed, floor, incomplete)

    def lint(self, text: str, *, select: Iterable[str] | None = None,
             ignore: Iterable[str] | None = None) -> Report:
        """Flag what is suspect in one text (a memory with no ``before``)."""
        text = check_text(text, "text", self.max_chars)
        side = self._side("before", text)
        findings: list[Finding] = []
        for rule in self._rules(select, ignore, lint=True):
            findings.extend(rule.check_text(side))
        findings.sort(key=lambda f: (f.evidence[0].start if f.evidence else 0, f.code))
        findings = capped(self.apply_policy(findings))
        return Report(verdict_for(findings), "lint", self.mode, findings, text, "", side.G,
                      None, None, {"units": len(side.units)})

    # internals ----------------------------------------------------------------------------------
    def _side(self, name: Literal["before", "after"], text: str,
              messages: Sequence[MessageSpan] | None = None, due: float | None = None) -> Side:
        # A rendered message list splits by its messages, not by its lines: another graph.
        spans = None if messages is None else tuple(messages)
        key = (name, text, spans)
        with self._lock:
            side = self._sides.get(key)
            if side is not None:
                self._sides.move_to_end(key)
                return side
            other = self._sides.get(("after" if name == "before" else "before", text, spans))
        # Built outside the lock: threads sharing an analyzer build graphs at the same time
        # (two that miss the same text both build it; the cache keeps one).
        progress = self.progress

        def step(done: int, total: int) -> None:
            if progress is not None:
                progress(name, done, total)
            if due is not None and time.perf_counter() > due and done < total:
                raise _Overdue(name)  # the blocks parsed so far stay cached

        G = other.G if other is not None else build_graph(
            text, mode=self.mode, parser=self.parser, messages=spans,
            progress=step if progress is not None or due is not None else None)
        side = Side.build(name, text, G)
        with self._lock:
            self._sides[key] = side
            self._sides.move_to_end(key)
            while len(self._sides) > _GRAPH_CACHE:
                self._sides.popitem(last=False)
        return side

    def _count_tokens(self, text: str) -> int:
        return len(self.parser.nlp.tokenizer(text))

    def _rules(self, select: Iterable[str] | None, ignore: Iterable[str] | None,
               *, lint: bool) -> list[Rule]:
        sel = _prefixes(select, "select")
        ign = _prefixes(ignore, "ignore")
        out = []
        for r in RULES:
            if r.guard or r.lint != lint or self.policy[r.code] == "off":
                continue
            if sel and not r.code.startswith(sel):
                continue
            if ign and r.code.startswith(ign):
                continue
            out.append(r())
        return out

    def apply_policy(self, findings: list[Finding]) -> list[Finding]:
        """``findings`` with this analyzer's policy applied: a code set "off" is dropped, one
        given another severity gets it (also for findings made outside :meth:`analyze`, as the
        gate's RG406)."""
        out = []
        for f in findings:
            sev = self.policy[f.code] if f.code in self._overridden else f.severity
            if sev == "off":
                continue
            if sev != f.severity:
                f = dataclasses.replace(f, severity=sev)
            out.append(f)
        return out


class _Overdue(Exception):
    """The analysis deadline passed while ``side`` was parsed."""

    def __init__(self, side: str) -> None:
        super().__init__(side)
        self.side = side


def _located(f: Finding, sides: Mapping[str, Rendered]) -> Finding:
    """``f`` with each evidence span's message index and offset in that message."""
    evidence = []
    for e in f.evidence:
        at = sides[e.side].locate(e.start)
        evidence.append(e if at is None else dataclasses.replace(e, message=at[0], offset=at[1]))
    return dataclasses.replace(f, evidence=tuple(evidence))


def _check_confidence(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise InputError(f"min_confidence must be a number from 0 to 1, not {value!r}")
    return float(value)


def _prefixes(codes: Iterable[str] | None, what: str) -> tuple[str, ...]:
    if codes is None:
        return ()
    if isinstance(codes, str):
        codes = [c for c in codes.split(",") if c.strip()]
    out = []
    for c in codes:
        c = c.strip().upper()
        if not c.startswith("RG") or not any(code.startswith(c) for code in BY_CODE):
            raise InputError(f"{what}: no finding code matches {c!r} (see `refgraph rules`)")
        out.append(c)
    return tuple(out)


def _check_span(span: object, n: int, what: str = "declared_span") -> tuple[int, int] | None:
    if span is None:
        return None
    if not (isinstance(span, tuple | list) and len(span) == 2
            and all(isinstance(x, int) and not isinstance(x, bool) for x in span)):
        raise InputError(f"{what} must be a (start, end) pair of ints")
    s, e = int(span[0]), int(span[1])
    if not 0 <= s <= e <= n:
        raise InputError(f"{what} {s}:{e} is not within before (0:{n})")
    return s, e


def _in_handles(f: Finding, handles: list[tuple[int, int]]) -> bool:
    """True when everything ``f`` cites is inside ledger handle lines of after: the handle's
    key and word count are bookkeeping, not claims the rewrite invented."""
    return bool(f.evidence) and all(
        e.side == "after" and any(s <= e.start and e.end <= t for s, t in handles)
        for e in f.evidence)


def _externalized(f: Finding, moved: tuple[tuple[int, int], ...]) -> bool:
    """True when ``f`` is a closure finding about text that now lives in the ledger: each span
    it cites in before overlaps an externalized range (a unit can be wider than the lines that
    were moved: "the block holding call_1" when only call_1's line went to the ledger)."""
    if f.code not in RECOVERABLE:
        return False
    cited = [e for e in f.evidence if e.side == "before"]
    return bool(cited) and all(any(s < max(e.end, e.start + 1) and e.start < t
                                   for s, t in moved) for e in cited)


def capped(findings: list[Finding], cap: int = MAX_PER_CODE) -> list[Finding]:
    """At most ``cap`` findings of each code, the surest first; the rest of a code become one
    finding that counts them and carries the proof of the surest of them. A text with
    thousands of slips of one kind (a flood of pasted turns) stays a readable report of
    bounded size, and nothing is dropped without saying so."""
    by_code: dict[str, list[int]] = {}
    for k, f in enumerate(findings):
        by_code.setdefault(f.code, []).append(k)
    over = {code: ks for code, ks in by_code.items() if len(ks) > cap}
    if not over:
        return findings
    dropped: set[int] = set()
    extra: list[Finding] = []
    for code, ks in over.items():
        ranked = sorted(ks, key=lambda k: (-findings[k].confidence, k))
        rest = ranked[cap:]
        dropped.update(rest)
        first = findings[rest[0]]
        worst = min((findings[k].severity for k in rest), key=SEVERITIES.index)
        extra.append(dataclasses.replace(
            first, severity=worst,
            message=f"{len(rest)} more {code} findings are not listed (at most {cap} per "
                    f"code); the surest of them: {first.message}",
            hint=f"Fix the {cap} listed, then check again to see the next ones. "
                 f"{first.hint}"))
    return [f for k, f in enumerate(findings) if k not in dropped] + extra


def _one_per_cause(findings: list[Finding]) -> list[Finding]:
    """Keep the most specific finding where findings cite overlapping spans. A finding is
    masked only by a more specific one at least as sure: a weak guess of one code must not
    hide a proven finding of another (and what is kept does not depend on the threshold)."""
    findings = _one_per_conflict(findings)
    rank = {c: k for k, c in enumerate(SPECIFICITY)}
    order = sorted(range(len(findings)),
                   key=lambda k: (rank.get(findings[k].code, len(rank)), k))
    kept: list[int] = []
    claimed = _Claimed()
    for k in order:
        f = findings[k]
        if f.code not in INDEPENDENT and any(
                claimed.masks(e.side, e.start, e.end, f.code, f.confidence) for e in f.evidence):
            continue
        kept.append(k)
        if f.code not in INDEPENDENT:
            for e in f.evidence:
                claimed.add(e.side, e.start, e.end, f.code, f.confidence)
    return [findings[k] for k in sorted(kept)]


class _Claimed:
    """The spans kept findings cite, bucketed by position so that a finding is compared with
    the kept ones near it, not with all of them (thousands of findings stay linear). An empty
    span counts as one character."""

    BUCKET = 256

    def __init__(self) -> None:
        self.buckets: dict[tuple[str, int], list[tuple[int, int, str, float]]] = {}

    def _range(self, s: int, t: int) -> range:
        return range(s // self.BUCKET, (max(t, s + 1) - 1) // self.BUCKET + 1)

    def add(self, side: str, s: int, t: int, code: str, conf: float) -> None:
        for b in self._range(s, t):
            self.buckets.setdefault((side, b), []).append((s, max(t, s + 1), code, conf))

    def masks(self, side: str, s: int, t: int, code: str, conf: float) -> bool:
        """Whether a kept finding of another code, at least as sure, cites an overlapping
        span on ``side``."""
        t = max(t, s + 1)
        return any(c != code and cs < t and s < ct and cc >= conf
                   for b in self._range(s, t) for cs, ct, c, cc in self.buckets.get((side, b), ()))


def _one_per_conflict(findings: list[Finding]) -> list[Finding]:
    """One finding per after-claim a code convicts: "timeout 30" in after, where a tool's
    output and the assistant's note both said "30 seconds", is one slip, reported with the
    surest proof (the first, when equally sure). Closure findings are left alone: two lost
    results may have the same dependent in after and are two losses."""
    best: dict[tuple[str, tuple[tuple[int, int], ...]], int] = {}
    keyed: dict[int, tuple[str, tuple[tuple[int, int], ...]]] = {}
    for k, f in enumerate(findings):
        spans = tuple((e.start, e.end) for e in f.evidence
                      if e.side == "after" and e.role == "conflict")
        if not spans:
            continue
        key = keyed[k] = (f.code, spans)
        if key not in best or f.confidence > findings[best[key]].confidence:
            best[key] = k
    return [f for k, f in enumerate(findings) if k not in keyed or best[keyed[k]] == k]


def _status_counts(al: Alignment) -> dict[UnitStatus, int]:
    c = Counter(al.before_status)
    c.update(s for s in al.after_status if s is UnitStatus.ADDED)
    return dict(c)


_analyzers: dict[str, Analyzer] = {}


def _default(mode: str) -> Analyzer:
    if mode not in MODES:
        raise InputError(f"unknown mode {mode!r}: use 'accurate' or 'fast'")
    if mode not in _analyzers:
        _analyzers[mode] = Analyzer(mode)
    return _analyzers[mode]


def analyze(before: str, after: str, *, intent: str = "rewrite", mode: str = "accurate",
            declared_span: tuple[int, int] | None = None, select: Iterable[str] | None = None,
            ignore: Iterable[str] | None = None,
            count_tokens: Callable[[str], int] | None = None,
            min_confidence: float | None = None, deadline: float | None = None) -> Report:
    """One-shot front of :class:`Analyzer` (a process-wide analyzer per mode keeps the caches).

    >>> analyze("Do not deploy on Fridays.", "Deploy on Fridays.", mode="fast").verdict
    'reject'
    """
    return _default(mode).analyze(before, after, intent=intent, declared_span=declared_span,
                                  select=select, ignore=ignore, count_tokens=count_tokens,
                                  min_confidence=min_confidence, deadline=deadline)


def analyze_messages(before: Sequence[object], after: Sequence[object], *,
                     intent: str = "rewrite", mode: str = "accurate",
                     select: Iterable[str] | None = None, ignore: Iterable[str] | None = None,
                     count_tokens: Callable[[str], int] | None = None,
                     min_confidence: float | None = None) -> Report:
    """One-shot front of :meth:`Analyzer.analyze_messages`.

    >>> r = analyze_messages([{"role": "user", "content": "Do not deploy on Fridays."}],
    ...                      [{"role": "user", "content": "Deploy on Fridays."}], mode="fast")
    >>> r.verdict
    'reject'
    """
    return _default(mode).analyze_messages(before, after, intent=intent, select=select,
                                           ignore=ignore, count_tokens=count_tokens,
                                           min_confidence=min_confidence)


def lint(text: str, *, mode: str = "accurate", select: Iterable[str] | None = None,
         ignore: Iterable[str] | None = None) -> Report:
    """One-shot front of :meth:`Analyzer.lint`."""
    return _default(mode).lint(text, select=select, ignore=ignore)
