"""Block splitting: kinds, exact offsets, stable and distinct ids."""

from __future__ import annotations

from refgraph import BlockKind, split_blocks

TEXT = """# Plan
The timeout is 30 seconds.
It applies to all calls.

- do not call `deploy` before tests pass
  (continued on a second line)
- MAX_RETRIES=3
user: please fix it

tool[call_17]: {"rows": 0}
assistant: ok
```python
x = 1

y = 2
```
2026-01-01 10:00:00 INFO started
{"event": "done"}
"""


def test_block_kinds_and_offsets() -> None:
    blocks = split_blocks(TEXT)
    assert [b.kind for b in blocks] == [
        BlockKind.HEADING, BlockKind.PARAGRAPH, BlockKind.BULLET, BlockKind.BULLET,
        BlockKind.TURN, BlockKind.TURN, BlockKind.TURN, BlockKind.CODE, BlockKind.LOG,
        BlockKind.JSON]
    for b in blocks:
        assert TEXT[b.start:b.end] == b.text
        assert b.text == b.text.strip("\n")
    assert "second line" in blocks[2].text
    assert blocks[5].role == "tool"
    assert blocks[5].turn_id == "call_17"
    assert blocks[7].text.count("\n") == 4  # the blank line stays inside the fence


def test_crlf_and_trailing_text_kept_exactly() -> None:
    text = "First para.\r\nSame para.\r\n\r\nSecond."
    blocks = split_blocks(text)
    assert [text[b.start:b.end] for b in blocks] == ["First para.\r\nSame para.", "Second."]


def test_ids_stable_when_block_moves_and_distinct_when_repeated() -> None:
    a = split_blocks("Alpha.\n\nBeta.")
    b = split_blocks("Intro.\n\nBeta.\n\nAlpha.\n\nAlpha.")
    assert a[0].id == b[2].id  # Alpha moved: same id
    assert b[2].id != b[3].id  # Alpha repeated: distinct ids
    assert b[2].hash == b[3].hash


def test_empty_and_blank_text() -> None:
    assert split_blocks("") == []
    assert split_blocks("\n\n  \n") == []


def test_unclosed_fence_runs_to_end() -> None:
    blocks = split_blocks("```\ncode\nmore")
    assert [b.kind for b in blocks] == [BlockKind.CODE]
    assert blocks[0].text == "```\ncode\nmore"


def test_bracketed_log_level_is_a_log_not_json() -> None:
    assert [b.kind for b in split_blocks("[INFO] ok\n[WARN] slow")] == [BlockKind.LOG] * 2


def test_fence_with_info_string_does_not_close() -> None:
    text = "```\nprint(1)\n```python\nstill code\n```\nafter"
    blocks = split_blocks(text)
    assert [b.kind for b in blocks] == [BlockKind.CODE, BlockKind.PARAGRAPH]
    assert blocks[0].text.endswith("still code\n```")


def test_prose_label_is_not_a_turn() -> None:
    blocks = split_blocks("Model: gpt-4o\n\nFirst.\n\nSecond.")
    assert [b.kind for b in blocks] == [BlockKind.PARAGRAPH] * 3


def test_speaker_labels_in_bold_or_with_accents_and_message_headers() -> None:
    text = ("Amara: the period is 2.01 s.\nChloé: I got 2.03 s.\nAmara: fine.\nChloé: ok.\n")
    assert [b.role for b in split_blocks(text)] == ["amara", "chloé", "amara", "chloé"]
    bold = "**Hana:** it idles.\n**Kenji:** agreed.\n**Hana:** then cap it.\n**Kenji:** yes."
    assert [b.role for b in split_blocks(bold)] == ["hana", "kenji", "hana", "kenji"]
    ticket = ("[Tomasz Kowalczyk, 4 Dec 09:12]\nWe were charged twice.\n\nPlease refund one.\n\n"
              "[Dana Whitfield (Support), 4 Dec 10:05]\nChecking now.\n\n"
              "[File: /testbed/x.py (9 lines total)]")
    blocks = split_blocks(ticket)
    assert [b.role for b in blocks] == ["tomasz kowalczyk", "dana whitfield"]
    assert blocks[0].text.endswith("Please refund one.")  # the message runs to the next one
