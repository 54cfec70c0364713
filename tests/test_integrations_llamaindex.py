"""The LlamaIndex hook: a ChatSummaryMemoryBuffer that stores only the summaries refgraph
accepts, with LlamaIndex's MockLLM and a fixed-answer CustomLLM (no network)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from llama_index.core.chat_engine import SimpleChatEngine
from llama_index.core.llms import (
    ChatMessage,
    CompletionResponse,
    CustomLLM,
    LLMMetadata,
    MockLLM,
)
from llama_index.core.llms.callbacks import llm_completion_callback

from refgraph import GateRejected
from refgraph.integrations.llamaindex import GuardedChatSummaryMemoryBuffer


class Fixed(CustomLLM):
    """An LLM that answers every prompt with ``text`` (the summary under test)."""

    text: str = ""

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(context_window=4096, num_output=256)

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kw: Any) -> CompletionResponse:
        return CompletionResponse(text=self.text)

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False,
                        **kw: Any) -> Iterator[CompletionResponse]:
        yield CompletionResponse(text=self.text)


def _history() -> list[ChatMessage]:
    return [ChatMessage(role="user", content="Set the request timeout to 30 seconds."),
            ChatMessage(role="assistant", content="Done: the timeout is 30 seconds."),
            ChatMessage(role="user", content="Also allow a retry budget of 3."),
            ChatMessage(role="assistant", content="Retry budget set to 3."),
            ChatMessage(role="user", content="Now deploy it.")]


def _memory(llm: Any, **kwargs: Any) -> GuardedChatSummaryMemoryBuffer:
    # a word count for tokens: LlamaIndex's default tokenizer would fetch its encoding
    return GuardedChatSummaryMemoryBuffer.from_defaults(
        llm=llm, chat_history=_history(), token_limit=6, tokenizer_fn=str.split, mode="fast",
        **kwargs)


def test_a_summary_that_loses_a_unit_is_not_stored() -> None:
    mem = _memory(Fixed(text="The user set the request timeout to 30 and a retry budget of 3."))
    got = mem.get()
    assert mem.guard.last is not None
    assert (mem.guard.last.action, mem.guard.last.codes) == ("keep", ["RG201"])
    assert [m.content for m in got] == [m.content for m in _history()]
    assert len(mem.get_all()) == 5  # the stored history is unchanged too


def test_a_faithful_summary_replaces_the_old_turns() -> None:
    mem = _memory(Fixed(text="The user set the request timeout to 30 seconds and a retry "
                             "budget of 3."))
    got = mem.get()
    assert mem.guard.last is not None
    assert mem.guard.last.action == "accept"
    assert [m.content for m in got][1:] == ["Now deploy it."]
    assert len(mem.get_all()) == 2


def test_mock_llm_summary_in_a_chat_engine() -> None:
    """LlamaIndex's own MockLLM echoes its prompt, which keeps every fact: accepted."""
    llm = MockLLM()
    mem = _memory(llm, ledger=":memory:", name="engine")
    engine = SimpleChatEngine.from_defaults(llm=llm, memory=mem)
    engine.chat("And what next?")
    actions = [d.action for d in mem.guard.ledger.decisions("engine")]
    assert actions
    assert set(actions) == {"accept"}


def test_raise_carries_the_report() -> None:
    mem = _memory(Fixed(text="The user set the request timeout to 30 and a retry budget of 3."),
                  on_reject="raise")
    with pytest.raises(GateRejected) as err:
        mem.get()
    assert err.value.report.codes == ["RG201"]


def test_nothing_to_summarize_is_not_checked() -> None:
    mem = GuardedChatSummaryMemoryBuffer.from_defaults(
        llm=Fixed(text="unused"), chat_history=_history(), token_limit=1000,
        tokenizer_fn=str.split, mode="fast")
    assert len(mem.get()) == 5
    assert mem.guard.last is None
