"""``guard``: check every result of an agent's compaction step before the agent sees it.

>>> import refgraph
>>> def compact(messages):  # a compaction step that drops the unit
...     return [{"role": "user", "content": "The timeout is 30."}]
>>> safe = refgraph.guard(compact, mode="fast")
>>> before = [{"role": "user", "content": "The timeout is 30 seconds."}]
>>> safe(before) == before  # rejected: the original comes back
True
>>> safe.last.action, safe.last.codes
('keep', ['RG201'])

The wrapped function takes the same arguments as ``compact`` and returns what it returns (a
message list, or a string for a string). Each check is a :class:`~refgraph.ledger.Decision` in
the guard's ledger, with both texts, so a rejected compaction can still be read back.
"""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Generic, Literal, TypeAlias, TypeVar

from .analyze import Analyzer, _default
from .errors import InputError
from .gate import GateRejected
from .ledger import Decision, Ledger
from .messages import render
from .report import Report
from .rules import INTENTS

OnReject: TypeAlias = Literal["keep", "retry", "raise"]
ON_REJECT: tuple[OnReject, ...] = ("keep", "retry", "raise")
T = TypeVar("T")
_names = itertools.count(1)


def feedback_for(report: Report, *, limit: int = 8) -> str:
    """The findings of a rejected compaction, worded for the model that wrote it."""
    lines = ["Your compaction was rejected: it changes what the original says. Fix these and "
             "write it again:"]
    for f in report.findings[:limit]:
        quotes = "; ".join(f'{e.side}: "{_clip(e.quote)}"' for e in f.evidence[:2])
        lines.append(f"- {f.message} ({quotes}). {f.hint}")
    if len(report.findings) > limit:
        lines.append(f"- and {len(report.findings) - limit} more of the same kinds.")
    return "\n".join(lines)


def _clip(text: str, width: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width - 1] + "…"


class Guarded(Generic[T]):
    """``compact`` wrapped by :func:`guard`; call it as you would call ``compact``.

    ``last`` is the last decision made and ``last_report`` the report it was made on;
    ``ledger`` holds them all (``ledger.decisions(name)``).
    """

    def __init__(self, compact: Callable[..., T], *, intent: str, on_reject: OnReject,
                 retries: int, analyzer: Analyzer, ledger: Ledger, name: str,
                 select: Iterable[str] | None, ignore: Iterable[str] | None,
                 feedback: Callable[[Report], str]) -> None:
        self.compact = compact
        self.intent = intent
        self.on_reject = on_reject
        self.retries = retries
        self.analyzer = analyzer
        self.ledger = ledger
        self.name = name
        self.select = tuple(select) if select is not None else None
        self.ignore = tuple(ignore) if ignore is not None else None
        self.feedback = feedback
        self.last: Decision | None = None
        self.last_report: Report | None = None
        self.calls = 0
        self.__wrapped__ = compact
        self.__doc__ = getattr(compact, "__doc__", None)

    def check(self, before: object, after: object) -> Report:
        """The analyzer's report on one compaction (strings or message lists)."""
        if isinstance(before, str) and isinstance(after, str):
            return self.analyzer.analyze(before, after, intent=self.intent, select=self.select,
                                         ignore=self.ignore)
        if isinstance(before, str) or isinstance(after, str):
            raise InputError("compact must return what it was given: a string for a string, "
                             "a message list for a message list")
        return self.analyzer.analyze_messages(_seq(before, "before"), _seq(after, "compact's "
                                              "result"), intent=self.intent,
                                              select=self.select, ignore=self.ignore)

    def __call__(self, messages: Any, /, *args: Any, **kwargs: Any) -> T:
        attempt = 0
        while True:
            attempt += 1
            result = self.compact(messages, *args, **kwargs)
            decision = self.review(messages, result, attempt=attempt,
                                   may_retry=attempt <= self.retries)
            if decision.action == "accept":
                return result
            if decision.action == "retry":
                assert self.last_report is not None
                kwargs = {**kwargs, "feedback": self.feedback(self.last_report)}
                continue
            return messages  # type: ignore[no-any-return]

    def review(self, before: object, after: object, *, attempt: int = 1,
               may_retry: bool = False) -> Decision:
        """Check one compaction, record the decision and return it; for framework hooks that
        compact by themselves (:mod:`refgraph.integrations`). ``action`` is ``accept``,
        ``keep``, or ``retry`` when ``on_reject="retry"`` and ``may_retry``; with
        ``on_reject="raise"`` a rejection raises :class:`~refgraph.gate.GateRejected`. A first
        attempt is a new call."""
        if attempt == 1:
            self.calls += 1
        report = self.last_report = self.check(before, after)
        if report.verdict != "reject":
            action = "accept"
        elif self.on_reject == "retry" and may_retry:
            action = "retry"
        elif self.on_reject == "raise":
            self._log(attempt, report, "raise")
            raise GateRejected(f"{self.name}: the compaction was rejected "
                               f"({', '.join(report.codes)}); the original is unchanged", report)
        else:
            action = "keep"
        self._log(attempt, report, action)
        assert self.last is not None
        return self.last

    def _log(self, attempt: int, report: Report, action: str) -> None:
        self.last = self.ledger.record_decision(
            self.name, call=self.calls, attempt=attempt, verdict=report.verdict, action=action,
            before=report.before, after=report.after, codes=report.codes,
            report=report.to_dict())

    def __repr__(self) -> str:
        return (f"<Guarded {self.name}: intent={self.intent} on_reject={self.on_reject} "
                f"mode={self.analyzer.mode}; {self.calls} calls>")


def _seq(value: object, what: str) -> Sequence[object]:
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        return value
    render(value, what)  # raises the message renderer's one-line InputError
    raise InputError(f"{what} must be a message list")  # pragma: no cover - render raised


def guard(compact: Callable[..., T], *, intent: str = "summarize",
          on_reject: OnReject = "keep", retries: int = 2, mode: str = "accurate",
          analyzer: Analyzer | None = None, ledger: Ledger | str | None = None,
          name: str | None = None, select: Iterable[str] | None = None,
          ignore: Iterable[str] | None = None,
          feedback: Callable[[Report], str] = feedback_for) -> Guarded[T]:
    """Wrap ``compact(messages, ...) -> messages`` so that every result is checked.

    - ``on_reject="keep"``: a rejected result is dropped and ``messages`` is returned as given.
    - ``on_reject="retry"``: ``compact`` is called again with ``feedback=`` the findings as
      text (``feedback(report)``), at most ``retries`` more times, then the original is kept.
      ``compact`` must take a ``feedback`` keyword argument.
    - ``on_reject="raise"``: a :class:`~refgraph.gate.GateRejected` (a ``RewriteRejected``)
      carrying the report is raised.

    Every check is recorded in ``ledger`` (a :class:`~refgraph.ledger.Ledger` or a path; by
    default one in memory, ``guarded.ledger``) under ``name`` (default: compact's name).
    """
    if on_reject not in ON_REJECT:
        raise InputError(f"on_reject must be one of {', '.join(ON_REJECT)}, not {on_reject!r}")
    if not isinstance(retries, int) or isinstance(retries, bool) or retries < 0:
        raise InputError(f"retries must be a whole number >= 0, not {retries!r}")
    if not callable(compact):
        raise InputError("guard wraps a function: compact(messages) -> messages")
    if on_reject == "retry" and not _takes_feedback(compact):
        raise InputError("on_reject='retry' calls compact(messages, feedback=...): give "
                         "compact a feedback keyword argument")
    if intent not in INTENTS:
        raise InputError(f"unknown intent {intent!r}: use one of {', '.join(INTENTS)}")
    if analyzer is None:
        analyzer = _default(mode)  # the process-wide analyzer: one model load, shared caches
    if not isinstance(ledger, Ledger):
        ledger = Ledger(":memory:" if ledger is None else ledger)
    label = name or getattr(compact, "__qualname__", None) or f"guard-{next(_names)}"
    return Guarded(compact, intent=intent, on_reject=on_reject, retries=retries,
                   analyzer=analyzer, ledger=ledger, name=label, select=select, ignore=ignore,
                   feedback=feedback)


def reviewer(*, intent: str = "summarize", on_reject: OnReject = "keep",
             mode: str = "accurate", analyzer: Analyzer | None = None,
             ledger: Ledger | str | None = None, name: str = "review",
             select: Iterable[str] | None = None,
             ignore: Iterable[str] | None = None) -> Guarded[Any]:
    """A guard for a hook that compacts by itself and asks only for the verdict: call
    ``.review(before, after)`` (the adapters in :mod:`refgraph.integrations` do)."""
    return guard(_as_given, intent=intent, on_reject=on_reject, mode=mode, analyzer=analyzer,
                 ledger=ledger, name=name, select=select, ignore=ignore)


def _as_given(messages: Any) -> Any:  # pragma: no cover - a reviewer is never called
    return messages


def _takes_feedback(fn: Callable[..., object]) -> bool:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return True  # a builtin or C callable: trust the caller
    return any((p.name == "feedback" and p.kind != p.POSITIONAL_ONLY) or p.kind == p.VAR_KEYWORD
               for p in params)
