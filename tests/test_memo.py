"""The bounded word memo shared by components and the graph."""

from __future__ import annotations

from refgraph.memo import MAX_KEY, WordMemo


def test_remembers_short_words_and_forgets_past_its_size() -> None:
    calls: list[str] = []

    def upper(word: str) -> str:
        calls.append(word)
        return word.upper()

    memo = WordMemo(upper, size=2)
    assert [memo("a"), memo("a"), memo("b")] == ["A", "A", "B"]
    assert calls == ["a", "b"]
    memo("c")  # a third word empties the memo first
    assert list(memo.seen) == ["c"]


def test_long_words_are_computed_each_time_and_never_kept() -> None:
    memo = WordMemo(len)
    long = "x" * (MAX_KEY + 1)
    assert memo(long) == MAX_KEY + 1
    assert memo("y" * MAX_KEY) == MAX_KEY
    assert long not in memo.seen
    assert len(memo.seen) == 1


def test_false_answers_are_remembered() -> None:
    calls: list[str] = []

    def empty(word: str) -> bool:
        calls.append(word)
        return not word

    memo = WordMemo(empty)
    assert memo("a") is False
    assert memo("a") is False
    assert calls == ["a"]


def test_none_answers_are_remembered() -> None:
    calls: list[str] = []

    def nothing(word: str) -> None:
        calls.append(word)

    memo = WordMemo(nothing)
    assert memo("a") is None
    assert memo("a") is None
    assert calls == ["a"]
