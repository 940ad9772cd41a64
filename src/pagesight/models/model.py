"""The one extension point a model provider implements, and a fake of it.

:class:`Model` is what the LLM planner and the text layer ask; the providers
(:class:`~pagesight.models.openai_chat.OpenAIChat`,
:class:`~pagesight.models.anthropic_messages.AnthropicMessages`) implement it, and
:class:`ScriptedModel` plays a script instead, so a planner's context can be tested with no
network — in the spirit of httpx's MockTransport and pydantic-ai's TestModel.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

from pagesight.messages import Message, ModelReply, ToolSpec


class Model(Protocol):
    async def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelReply:
        """The model's reply to ``messages``, offered ``tools``."""
        ...


class ScriptedModel:
    """A fake model that answers with the next reply of ``script`` — a ModelReply, or a
    function of the messages sent that returns one. ``requests`` keeps every message list it
    was sent (as the model would have read it). Past the end it calls no tool."""

    def __init__(
        self, script: Iterable[ModelReply | Callable[[Sequence[Message]], ModelReply]]
    ) -> None:
        self._script = list(script)
        self.requests: list[tuple[Message, ...]] = []
        self.tools: list[tuple[ToolSpec, ...]] = []

    async def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelReply:
        self.requests.append(tuple(messages))
        self.tools.append(tuple(tools))
        if len(self.requests) > len(self._script):
            return ModelReply(text="(the script has no more replies)")
        item = self._script[len(self.requests) - 1]
        return item(messages) if callable(item) else item
