"""The words every layer that talks to a model shares: a message and a tool call, a tool as
a model is shown it, a model's reply and what it cost.

Providers (:mod:`pagesight.models`) send and read these; the LLM planner
(:mod:`pagesight.planners.llm`) keeps a context of them; the agent's registry describes its
tools with :class:`ToolSpec`. It sits at the bottom, beside the errors: it imports nothing
of pagesight but the token count.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, Literal

import pydantic

from pagesight.tokens import count_tokens

_ids = itertools.count(1)
"""One count for every tool call id pagesight makes (see :func:`call_id`)."""
_PER_MESSAGE = 4
"""Tokens a chat format spends on a message's role and separators (OpenAI's figure)."""

Role = Literal["system", "user", "assistant", "tool"]


def call_id(prefix: str = "call") -> str:
    """A tool call id no other call made in this process has (``call_7``, ``text_8``): for
    the calls a script writes (:meth:`ModelReply.calling`) and those a planner gives an id
    of their own, counted together, so that no two calls a model is shown share one."""
    return f"{prefix}_{next(_ids)}"


@dataclass(frozen=True, kw_only=True)
class ToolCall:
    """A model's call of a tool: ``id`` to answer it by, the tool's name, its arguments."""

    id: str
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "arguments": self.arguments}


@dataclass(frozen=True, kw_only=True)
class Message:
    role: Role
    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    """An assistant message's tool calls."""
    tool_call_id: str | None = None
    """A tool message: the call it answers."""
    images: tuple[bytes, ...] = ()
    """PNG screenshots shown with the message (the set-of-marks screenshot once the
    observation has turned to vision); a provider sends them as images."""
    stub: str | None = None
    """What the message collapses to once a newer observation arrives (``None``: it holds
    no observation and stays as it is)."""

    @property
    def tokens(self) -> int:
        calls = sum(count_tokens(f"{c.name} {c.arguments}") for c in self.tool_calls)
        images = sum(image_tokens(png) for png in self.images)
        return _PER_MESSAGE + count_tokens(self.content) + calls + images


def image_tokens(png: bytes) -> int:
    """About what a model is charged for a PNG: its pixels / 750 (Anthropic's published
    estimate; OpenAI's tiles come to about the same for a 1280x800 screenshot), read off
    the PNG's header."""
    if len(png) < 24 or not png.startswith(b"\x89PNG"):
        return 0
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    return -(-width * height // 750)


@dataclass(frozen=True, kw_only=True)
class ToolSpec:
    """A tool as a model or an MCP client is shown it."""

    name: str
    description: str
    input_schema: dict[str, Any]
    arguments: type[pydantic.BaseModel] | None = field(default=None, compare=False, repr=False)
    """The pydantic model the schema was derived from: a planner checks a model's call with
    it before the call becomes a Decision (``None``: a spec made by hand, checked only when
    the tool runs)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": self.input_schema,
        }


@dataclass(frozen=True, kw_only=True)
class Usage:
    """What a model call cost, as its provider reported it; ``cost`` in US dollars when the
    price is known, else ``None``.

    ``input_tokens`` counts every input token of the call, cached or not: OpenAI's
    ``prompt_tokens`` (which holds its ``cached_tokens``), Anthropic's ``input_tokens`` +
    ``cache_read_input_tokens`` + ``cache_creation_input_tokens`` (which its API reports
    apart). ``cached_input_tokens`` and ``cache_write_tokens`` are parts of it: those read
    from the provider's prompt cache (billed at the cached rate) and those written to it
    (Anthropic's cache writes, billed at the write rate). The rest of the input was read
    afresh, at the input rate."""

    input_tokens: int = 0
    output_tokens: int = 0
    cost: float | None = None
    cached_input_tokens: int = 0
    """Of ``input_tokens``, those read from the prompt cache (OpenAI's
    ``prompt_tokens_details.cached_tokens``, Anthropic's ``cache_read_input_tokens``)."""
    cache_write_tokens: int = 0
    """Of ``input_tokens``, those written to the prompt cache (Anthropic's
    ``cache_creation_input_tokens``; an OpenAI-compatible server's ``cache_write_tokens``)."""

    def __add__(self, other: Usage) -> Usage:
        cost = None if self.cost is None or other.cost is None else self.cost + other.cost
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cost=cost,
            cached_input_tokens=self.cached_input_tokens + other.cached_input_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "input_tokens": self.input_tokens,
            "cached_input_tokens": self.cached_input_tokens,
            "cache_write_tokens": self.cache_write_tokens,
            "output_tokens": self.output_tokens,
            "cost": self.cost,
        }


@dataclass(frozen=True, kw_only=True)
class ModelReply:
    """What a model answered: its tool calls, any text, and the usage it reported."""

    tool_calls: tuple[ToolCall, ...] = ()
    text: str | None = None
    usage: Usage | None = None

    @classmethod
    def calling(cls, name: str, /, **arguments: Any) -> ModelReply:
        """A reply with one tool call (for scripts): ``ModelReply.calling("click", ref=3)``."""
        return cls(tool_calls=(ToolCall(id=call_id(), name=name, arguments=arguments),))

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "tool_calls": [c.to_dict() for c in self.tool_calls],
        }
