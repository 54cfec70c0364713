"""LlamaIndex: a ``ChatSummaryMemoryBuffer`` whose summaries are checked before they replace
the history (``pip install "refgraph[llamaindex]"``).

The buffer summarizes the messages that no longer fit its token limit into one system message
when the chat history is read (``memory.get()``). :class:`GuardedChatSummaryMemoryBuffer` reads
it the same way, then compares the stored history with what would replace it: a rejected
summary is not stored (``on_reject="keep"``: the full history is returned and kept) or raises
:class:`~refgraph.gate.GateRejected` (``on_reject="raise"``). Every check is a
:class:`~refgraph.ledger.Decision` in ``memory.guard.ledger``. Use it where the buffer goes
(tests/test_integrations_llamaindex.py runs this with LlamaIndex's ``MockLLM``)::

    from refgraph.integrations.llamaindex import GuardedChatSummaryMemoryBuffer

    memory = GuardedChatSummaryMemoryBuffer.from_defaults(llm=llm, token_limit=2000)
    engine = SimpleChatEngine.from_defaults(llm=llm, memory=memory)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from llama_index.core.llms import ChatMessage
from llama_index.core.memory import ChatSummaryMemoryBuffer
from pydantic import PrivateAttr

from ..analyze import Analyzer
from ..guard import Guarded, reviewer
from ..ledger import Ledger

# LlamaIndex's roles as refgraph's message renderer names them
_ROLES = {"chatbot": "assistant", "model": "assistant", "developer": "developer"}


class GuardedChatSummaryMemoryBuffer(ChatSummaryMemoryBuffer):
    """``ChatSummaryMemoryBuffer`` that stores only summaries refgraph accepts; build it with
    :meth:`from_defaults` (LlamaIndex's arguments, plus :func:`refgraph.guard`'s)."""

    _guard: Guarded[Any] | None = PrivateAttr(default=None)

    @classmethod
    def from_defaults(cls, *args: Any, on_reject: Literal["keep", "raise"] = "keep",
                      mode: str = "accurate", analyzer: Analyzer | None = None,
                      ledger: Ledger | str | None = None, name: str = "llamaindex-memory",
                      select: Iterable[str] | None = None,
                      ignore: Iterable[str] | None = None,
                      **kwargs: Any) -> GuardedChatSummaryMemoryBuffer:
        memory = super().from_defaults(*args, **kwargs)
        assert isinstance(memory, GuardedChatSummaryMemoryBuffer)
        memory._guard = reviewer(on_reject=on_reject, mode=mode, analyzer=analyzer,
                                 ledger=ledger, name=name, select=select, ignore=ignore)
        return memory

    @property
    def guard(self) -> Guarded[Any]:
        """The guard that reviews every summary (``.last``, ``.ledger``)."""
        if self._guard is None:  # built without from_defaults: the defaults
            self._guard = reviewer(name="llamaindex-memory")
        return self._guard

    def get(self, input: str | None = None, initial_token_count: int = 0,
            **kwargs: Any) -> list[ChatMessage]:
        before = list(self.get_all())
        after: list[ChatMessage] = super().get(input, initial_token_count, **kwargs)
        if [_plain(m) for m in after] == [_plain(m) for m in before]:
            return after  # it all fit: nothing was summarized or dropped
        decision = self.guard.review([_plain(m) for m in before], [_plain(m) for m in after])
        if decision.action == "accept":
            return after
        self.set(before)  # rejected: the history stays as it was
        return before


def _plain(m: ChatMessage) -> dict[str, Any]:
    role = str(getattr(m.role, "value", m.role))
    out: dict[str, Any] = {"role": _ROLES.get(role, role), "content": m.content or ""}
    call = m.additional_kwargs.get("tool_call_id")
    if call:
        out["tool_call_id"] = str(call)
    return out

