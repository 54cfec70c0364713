"""LangChain: a ``SummarizationMiddleware`` whose summaries are checked before they replace
the history (``pip install "refgraph[langchain]"``).

LangChain's middleware summarizes older messages when a conversation grows past its trigger
and swaps them for one "Here is a summary ..." message. :class:`GuardedSummarization` is that
middleware with one change: before the swap, refgraph compares the history with what would
replace it. A rejected summary is not applied (``on_reject="keep"``: the full history goes to
the model, and the next turn tries again) or raises :class:`~refgraph.gate.GateRejected`
(``on_reject="raise"``). Every check is a :class:`~refgraph.ledger.Decision` in ``ledger``.

Use it where ``SummarizationMiddleware`` goes (tests/test_integrations_langchain.py runs
this in a real agent loop)::

    from langchain.agents import create_agent
    from refgraph.integrations.langchain import GuardedSummarization

    summarize = GuardedSummarization(model, trigger=("messages", 40), keep=("messages", 10))
    agent = create_agent(model, tools, middleware=[summarize])
    agent.invoke({"messages": history})
    summarize.last.action, summarize.last.codes   # ('keep', ['RG201']) for a lost unit
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from langchain.agents.middleware import SummarizationMiddleware
from langchain_core.messages import RemoveMessage

from ..analyze import Analyzer
from ..guard import Guarded, reviewer
from ..ledger import Decision, Ledger


class GuardedSummarization(SummarizationMiddleware):
    """``SummarizationMiddleware(model, **kwargs)`` that applies only summaries refgraph
    accepts.

    ``on_reject``: ``"keep"`` (default) leaves the history as it was; ``"raise"`` raises
    :class:`~refgraph.gate.GateRejected`. ``mode``, ``analyzer``, ``ledger``, ``name``,
    ``select`` and ``ignore`` are :func:`refgraph.guard`'s. The other arguments are
    LangChain's (``trigger``, ``keep``, ``summarizer``, ...).
    """

    def __init__(self, model: Any, *, on_reject: Literal["keep", "raise"] = "keep",
                 mode: str = "accurate", analyzer: Analyzer | None = None,
                 ledger: Ledger | str | None = None, name: str = "langchain-summarization",
                 select: Iterable[str] | None = None, ignore: Iterable[str] | None = None,
                 **kwargs: Any) -> None:
        super().__init__(model, **kwargs)
        # this middleware compacts, then asks the guard to review what it made
        self.guard: Guarded[Any] = reviewer(on_reject=on_reject, mode=mode, analyzer=analyzer,
                                            ledger=ledger, name=name, select=select,
                                            ignore=ignore)

    @property
    def ledger(self) -> Ledger:
        """Where every decision is recorded (``ledger.decisions(name)``)."""
        return self.guard.ledger

    @property
    def last(self) -> Decision | None:
        """The last decision made, or None before the first summary."""
        return self.guard.last

    def before_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        return self._vetted(state, super().before_model(state, runtime))

    async def abefore_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        return self._vetted(state, await super().abefore_model(state, runtime))

    def _vetted(self, state: Any, update: dict[str, Any] | None) -> dict[str, Any] | None:
        if update is None:
            return None  # below the trigger: nothing was summarized
        after = [m for m in update["messages"] if not isinstance(m, RemoveMessage)]
        decision = self.guard.review(list(state["messages"]), after)  # raises on "raise"
        return update if decision.action == "accept" else None

