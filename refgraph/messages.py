"""Message lists in: OpenAI, Anthropic and LangChain chat messages as one context.

An agent holds its context as a list of messages, not as a string. :func:`render` writes the
list as the turn syntax the analyzer reads (``user: ...``, ``assistant[call_7]: ...``,
``tool[call_7]: ...``, docs/contracts.md section 2) and records where each message lies, so
that:

* each message is a turn of its own: text inside it that looks like a turn label, a heading or
  a fence never splits it into another message (:func:`refgraph.blocks.split_blocks` with
  ``messages``);
* a tool call and its result share one handle, the call id, so a pruned call is one finding;
* evidence offsets map back to ``(message index, offset in the message's content)``.

Accepted shapes, mixed freely in one list:

* OpenAI chat messages: ``role`` (``system``, ``developer``, ``user``, ``assistant``,
  ``tool``, ``function``), ``content`` as a string, ``None`` or a list of parts
  (``{"type": "text", "text": ...}``; ``input_text``, ``output_text`` and ``refusal`` parts
  too; images and files are skipped), ``tool_calls`` and ``tool_call_id``;
* Anthropic messages: ``content`` parts ``text``, ``thinking``, ``tool_use`` (``id``,
  ``name``, ``input``) and ``tool_result`` (``tool_use_id``, ``content``, ``is_error``);
* LangChain ``BaseMessage`` objects (anything with ``type`` and ``content`` attributes:
  ``human``, ``ai``, ``system``, ``tool``, ``function``, ``chat``), with ``tool_calls`` and
  ``tool_call_id``. langchain-core is not imported here.

A message that holds several tool calls or results (an Anthropic ``user`` message with two
``tool_result`` parts) becomes one span per call, each with the message's index.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from .blocks import MessageSpan
from .errors import InputError

__all__ = ["MessageSpan", "Rendered", "render"]

# Roles as the turn syntax spells them (refgraph.model.ROLES reads them back).
_ROLES = {"system": "system", "developer": "system", "user": "user", "human": "user",
          "assistant": "assistant", "ai": "assistant", "model": "assistant", "tool": "tool",
          "function": "tool"}
_TEXT_PARTS = {"text": "text", "input_text": "text", "output_text": "text",
               "refusal": "refusal", "thinking": "thinking"}
# Parts that carry no text the analyzer can read (an image, a file, audio).
_SKIPPED_PARTS = frozenset({"image", "image_url", "input_image", "file", "input_file",
                            "document", "input_audio", "audio", "redacted_thinking"})
_MAX_ID = 80  # a turn label's id is at most this long (refgraph.blocks.TURN_LABEL)


@dataclass(frozen=True, slots=True)
class _Piece:
    index: int
    role: str
    turn_id: str
    text: str


@dataclass(frozen=True, slots=True)
class Rendered:
    """A message list as text: ``spans[k]`` is where one message (or one call or result of it)
    lies in ``text``."""

    text: str
    spans: tuple[MessageSpan, ...]
    starts: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "starts", tuple(s.start for s in self.spans))

    def locate(self, offset: int) -> tuple[int, int] | None:
        """``(message index, offset within that message's content)`` of a text offset, or
        None when it falls between messages. An offset in a message's label (evidence that
        cites the whole message) is offset 0 of its content."""
        k = bisect.bisect_right(self.starts, offset) - 1
        if k < 0:
            return None
        s = self.spans[k]
        if offset > s.end:
            return None
        return s.index, max(0, offset - s.start - s.label)


def render(messages: object, what: str = "messages") -> Rendered:
    """Render a message list (see the module docstring) as the analyzer's turn syntax.

    >>> r = render([{"role": "user", "content": "Do not deploy."},
    ...             {"role": "tool", "tool_call_id": "call_7", "content": "0 rows"}])
    >>> print(r.text)
    user: Do not deploy.
    <BLANKLINE>
    tool[call_7]: 0 rows
    >>> r.locate(r.text.index("0 rows"))
    (1, 0)
    """
    if isinstance(messages, str | bytes | bytearray) or not isinstance(messages, Sequence):
        raise InputError(f"{what} must be a list of messages, not {type(messages).__name__}")
    chunks: list[str] = []
    spans: list[MessageSpan] = []
    pos = 0
    for piece in _pieces(messages, what):
        label = f"{piece.role}[{piece.turn_id}]:" if piece.turn_id else f"{piece.role}:"
        body = piece.text.strip("\n")
        # A body that opens with a fence, heading, list or JSON starts on its own line, as it
        # would in a hand-written context; the label is a line of its own then.
        sep = "\n" if body[:1] in ("`", "~", "#", "-", "*", "{", "[", "|") else " "
        head = label + (sep if body else "")
        if chunks:
            chunks.append("\n\n")
            pos += 2
        chunk = head + body
        chunks.append(chunk)
        spans.append(MessageSpan(piece.index, pos, pos + len(chunk), piece.role,
                                 piece.turn_id, len(head)))
        pos += len(chunk)
    return Rendered("".join(chunks), tuple(spans))


def _pieces(messages: Sequence[object], what: str) -> Iterator[_Piece]:
    for i, m in enumerate(messages):
        where = f"{what}[{i}]"
        if isinstance(m, dict):
            yield from _dict_pieces(i, m, where)
        elif hasattr(m, "type") and hasattr(m, "content"):
            yield from _langchain_pieces(i, m, where)
        else:
            raise InputError(f"{where} is a {type(m).__name__}, not a message (a dict with "
                             "'role' and 'content', or a LangChain message)")


def _dict_pieces(i: int, m: dict[str, Any], where: str) -> Iterator[_Piece]:
    role = _role(m.get("role"), where)
    content = m.get("content")
    if role == "tool":
        call = m.get("tool_call_id")
        yield from _result(i, call, content, where)
        return
    yield from _content(i, role, content, where)
    for k, call in enumerate(m.get("tool_calls") or ()):
        if not isinstance(call, dict):
            raise InputError(f"{where}.tool_calls[{k}] must be an object")
        fn = call.get("function") or {}
        name = fn.get("name") if isinstance(fn, dict) else None
        args = fn.get("arguments") if isinstance(fn, dict) else None
        yield _call(i, call.get("id"), name, args, f"{where}.tool_calls[{k}]")


def _langchain_pieces(i: int, m: Any, where: str) -> Iterator[_Piece]:
    kind = str(getattr(m, "type", ""))
    raw_role = getattr(m, "role", None) if kind == "chat" else kind
    role = _role(raw_role, where)
    content = getattr(m, "content", None)
    if role == "tool":
        yield from _result(i, getattr(m, "tool_call_id", None), content, where)
        return
    yield from _content(i, role, content, where)
    for k, call in enumerate(getattr(m, "tool_calls", None) or ()):
        if not isinstance(call, dict):
            raise InputError(f"{where}.tool_calls[{k}] must be a dict")
        yield _call(i, call.get("id"), call.get("name"), call.get("args"),
                    f"{where}.tool_calls[{k}]")


def _role(value: object, where: str) -> str:
    if not isinstance(value, str) or value.lower() not in _ROLES:
        raise InputError(f"{where} has role {value!r}: use one of "
                         f"{', '.join(sorted(_ROLES))}")
    return _ROLES[value.lower()]


def _content(i: int, role: str, content: object, where: str) -> Iterator[_Piece]:
    """The text of a message's content, and a piece per tool call or result part in it."""
    if content is None or isinstance(content, str):
        if content or role != "assistant":  # an assistant turn that only calls tools: no text
            yield _Piece(i, role, "", content or "")
        return
    if not isinstance(content, Sequence):
        raise InputError(f"{where}.content must be a string or a list of parts, not "
                         f"{type(content).__name__}")
    texts: list[str] = []
    calls: list[_Piece] = []
    for k, part in enumerate(content):
        at = f"{where}.content[{k}]"
        if isinstance(part, str):
            texts.append(part)
            continue
        if not isinstance(part, dict):
            raise InputError(f"{at} must be a string or an object, not {type(part).__name__}")
        kind = part.get("type")
        if kind in _TEXT_PARTS:
            value = part.get(_TEXT_PARTS[kind], part.get("text"))
            if not isinstance(value, str):
                raise InputError(f"{at} is a {kind} part without a string {_TEXT_PARTS[kind]!r}")
            texts.append(value)
        elif kind == "tool_use":
            calls.append(_call(i, part.get("id"), part.get("name"), part.get("input"), at))
        elif kind == "tool_result":
            calls.extend(_result(i, part.get("tool_use_id"), part.get("content"), at,
                                 error=bool(part.get("is_error"))))
        elif kind in _SKIPPED_PARTS:
            continue
        else:
            raise InputError(f"{at} has unknown part type {kind!r}")
    text = "\n\n".join(t.strip("\n") for t in texts if t.strip())
    if text or not calls:
        yield _Piece(i, role, "", text)
    yield from calls


def _call(i: int, call_id: object, name: object, args: object, where: str) -> _Piece:
    """A tool call, as the assistant's turn that issued it: ``assistant[call_7]:
    get_weather({"city": "Paris"})``."""
    cid = _call_id(call_id, where)
    if not isinstance(name, str) or not name:
        raise InputError(f"{where} names no tool")
    if isinstance(args, str):
        try:  # OpenAI sends the arguments as a JSON string
            args = json.loads(args) if args.strip() else {}
        except ValueError:
            return _Piece(i, "assistant", cid, f"{name}({args})")
    shown = json.dumps(args, ensure_ascii=False, separators=(", ", ": ")) if args else ""
    return _Piece(i, "assistant", cid, f"{name}({shown})")


def _result(i: int, call_id: object, content: object, where: str, *,
            error: bool = False) -> Iterator[_Piece]:
    """A tool's result, as ``tool[call_7]: ...`` (the call's id is its handle)."""
    cid = _call_id(call_id, where) if call_id is not None else ""
    parts = list(_content(i, "tool", content, where))
    text = "\n\n".join(p.text for p in parts if p.text)
    if error:
        text = f"error: {text}" if text else "error"
    yield _Piece(i, "tool", cid, text)


def _call_id(value: object, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{where} has no tool call id")
    if len(value) > _MAX_ID or "]" in value or "\n" in value:
        raise InputError(f"{where} has tool call id {value[:40]!r}: at most {_MAX_ID} "
                         "characters, without ']' or a newline")
    return value.strip()
