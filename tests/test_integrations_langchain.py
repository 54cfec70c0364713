"""The LangChain hook: a real ``create_agent`` loop whose summarization middleware applies
only the summaries refgraph accepts (fake chat model, summaries from plain functions)."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable

import pytest
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from refgraph import GateRejected, Ledger
from refgraph.integrations.langchain import GuardedSummarization

HISTORY: list[BaseMessage] = [
    HumanMessage("Set the request timeout to 30 seconds."),
    AIMessage("Done: the timeout is 30 seconds."),
    HumanMessage("Also allow a retry budget of 3."),
    AIMessage("Retry budget set to 3."),
    HumanMessage("Now deploy it."),
]


def _model() -> GenericFakeChatModel:
    return GenericFakeChatModel(messages=itertools.cycle([AIMessage(content="Deploying.")]))


def _faithful(messages: list[BaseMessage]) -> str:
    return "The user set the request timeout to 30 seconds and a retry budget of 3."


def _unit_lost(messages: list[BaseMessage]) -> str:
    return "The user set the request timeout to 30 and a retry budget of 3."


def _middleware(summarizer: Callable[[list[BaseMessage]], str],
                **kwargs: object) -> GuardedSummarization:
    return GuardedSummarization(_model(), summarizer=summarizer, trigger=("messages", 4),
                                keep=("messages", 1), mode="fast", **kwargs)


def _run(mw: GuardedSummarization) -> list[BaseMessage]:
    agent = create_agent(_model(), tools=[], middleware=[mw])
    out: list[BaseMessage] = agent.invoke({"messages": list(HISTORY)})["messages"]
    return out


def test_a_faithful_summary_replaces_the_history() -> None:
    mw = _middleware(_faithful)
    out = _run(mw)
    assert mw.last is not None
    assert mw.last.action == "accept"
    assert len(out) == 3  # the summary, the kept last turn, the model's reply
    assert "30 seconds" in str(out[0].content)
    assert out[1].content == "Now deploy it."


def test_a_summary_that_loses_a_unit_is_not_applied() -> None:
    mw = _middleware(_unit_lost)
    out = _run(mw)
    assert mw.last is not None
    assert (mw.last.action, mw.last.codes) == ("keep", ["RG201"])
    assert [m.content for m in out[:5]] == [m.content for m in HISTORY]  # nothing lost
    # the rejected summary can be read back from the ledger
    (d,) = mw.ledger.decisions("langchain-summarization")
    assert "timeout to 30 and" in mw.ledger.get(d.after_sha)


def test_below_the_trigger_nothing_is_checked() -> None:
    mw = GuardedSummarization(_model(), summarizer=_unit_lost, trigger=("messages", 50),
                              mode="fast")
    _run(mw)
    assert mw.last is None
    assert mw.ledger.decisions() == []


def test_raise_stops_the_run_with_the_report() -> None:
    mw = _middleware(_unit_lost, on_reject="raise")
    with pytest.raises(GateRejected) as err:
        _run(mw)
    assert err.value.report.codes == ["RG201"]


def test_the_async_hook_is_guarded_too() -> None:
    ledger = Ledger(":memory:")
    mw = _middleware(_unit_lost, ledger=ledger, name="async")
    agent = create_agent(_model(), tools=[], middleware=[mw])
    asyncio.run(agent.ainvoke({"messages": list(HISTORY)}))
    assert [d.action for d in ledger.decisions("async")] == ["keep"]


def test_a_pruned_tool_result_keeps_its_call_id_as_the_handle() -> None:
    history: list[BaseMessage] = [
        HumanMessage("How large is the logs bucket?"),
        AIMessage("", tool_calls=[{"name": "du", "args": {"path": "gs://logs"}, "id": "call_7"}]),
        ToolMessage("gs://logs: 1.8 TB in 30 folders", tool_call_id="call_7"),
        AIMessage("The bucket holds 1.8 TB."),
        HumanMessage("Archive it."),
    ]

    def cites(messages: list[BaseMessage]) -> str:
        return "du of gs://logs (call_7): 1.8 TB in 30 folders."

    mw = _middleware(cites)
    agent = create_agent(_model(), tools=[], middleware=[mw])
    agent.invoke({"messages": history})
    assert mw.last is not None
    assert mw.last.action == "accept", mw.last.codes
