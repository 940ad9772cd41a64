"""Anthropic's messages API, through the official ``anthropic`` SDK.

The system prompt goes in ``system``; a tool call is a ``tool_use`` block of the assistant,
answered by a ``tool_result`` block (with any screenshot as a base64 image block inside it)
in the next user turn; tools are sent with the registry's schemas as ``input_schema``.
Consecutive user content (tool results, then the page) is joined into one turn, as the API
alternates user and assistant.

Prompt caching: the API reads a request as tools, system prompt, messages, and caches it up
to a block marked ``cache_control``. The tools and the system prompt are the same every
round of a run (the planner builds the system prompt once, the registry lists its tools in
one order), so the last tool and the system prompt are marked: the first round writes that
prefix to the cache (``cache_creation_input_tokens``, billed at 1.25x the input rate) and
the rounds after it, within the cache's five minutes, read it back
(``cache_read_input_tokens``, at 0.1x). A prefix shorter than the model's minimum (1,024 to
4,096 tokens) is not cached, and nothing is charged for trying.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pagesight.errors import InvalidOption, ModelNotConfigured
from pagesight.messages import Message, ModelReply, ToolCall, ToolSpec
from pagesight.models import prices
from pagesight.models.base import (
    check_options,
    malformed,
    one_line,
    parse_arguments,
    token_count,
    translate,
)
from pagesight.models.retry import with_retries

if TYPE_CHECKING:
    import anthropic

_CACHED = {"type": "ephemeral"}
"""A prompt-cache breakpoint (``cache_control``) of the default, 5-minute kind: the request
up to and including the block it marks is cached, and read back by a later request that
starts the same way."""


class AnthropicMessages:
    """A :class:`~pagesight.models.model.Model` on Anthropic's messages API (or a server
    speaking it at ``base_url``). ``max_tokens``: the most the model may answer (the API
    requires it); ``timeout`` and ``retries`` as for
    :class:`~pagesight.models.openai_chat.OpenAIChat`."""

    def __init__(
        self,
        *,
        model: str,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 60.0,
        retries: int = 2,
        max_tokens: int = 4096,
        temperature: float | None = None,
    ) -> None:
        check_options(model=model, timeout=timeout, retries=retries)
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
            raise InvalidOption(
                "max_tokens", f"max_tokens must be a positive int, not {max_tokens!r}"
            )
        try:
            import anthropic
        except ImportError as exc:
            raise ModelNotConfigured(
                "Anthropic models need the anthropic SDK: pip install 'pagesight[anthropic]'"
            ) from exc
        self._sdk = anthropic
        self.model = model
        self.base_url = base_url
        self.timeout = float(timeout)
        self.retries = retries
        self.max_tokens = max_tokens
        self.temperature = temperature
        self._api_key = api_key

    @property
    def where(self) -> str:
        return f"anthropic model {self.model!r} at {self.base_url or 'api.anthropic.com'}"

    async def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelReply:
        """The model's reply to ``messages``, offered ``tools``; ModelError when the server
        refuses, keeps failing, times out, or answers in another shape."""
        system = "\n\n".join(m.content for m in messages if m.role == "system")
        request: dict[str, Any] = {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "messages": anthropic_messages(messages),
        }
        # The API reads tools, then the system prompt, then the messages: the first two are
        # the same every round of a run, so each ends at a cache breakpoint, and the rounds
        # after the first read that prefix from the prompt cache (see the module's notes).
        if system:
            request["system"] = [{"type": "text", "text": system, "cache_control": _CACHED}]
        if tools:
            request["tools"] = [
                {"name": t.name, "description": t.description, "input_schema": t.input_schema}
                for t in tools
            ]
            request["tools"][-1]["cache_control"] = _CACHED
        if self.temperature is not None:
            request["temperature"] = self.temperature
        reply = await with_retries(lambda: self._call(request), retries=self.retries)
        return self._reply(reply)

    async def _call(self, request: dict[str, Any]) -> Any:
        try:
            async with self._connect() as client:
                return await client.messages.create(**request)
        except Exception as exc:
            raise translate(
                exc,
                self._sdk,
                where=self.where,
                timeout=self.timeout,
                key_hint="ANTHROPIC_API_KEY or --api-key",
                model=self.model,
                api_key=self._api_key,
            ) from exc

    def _connect(self) -> anthropic.AsyncAnthropic:
        # A client per call, closed with it (see OpenAIChat._connect).
        return self._sdk.AsyncAnthropic(
            api_key=self._api_key, base_url=self.base_url, timeout=self.timeout, max_retries=0
        )

    def _reply(self, reply: Any) -> ModelReply:
        texts: list[str] = []
        calls: list[ToolCall] = []
        try:
            for block in reply.content:
                if block.type == "text":
                    texts.append(block.text)
                elif block.type == "tool_use":
                    calls.append(
                        ToolCall(
                            id=block.id, name=block.name, arguments=parse_arguments(block.input)
                        )
                    )
        except (AttributeError, TypeError) as exc:
            raise malformed(self.where, f"no content blocks: {one_line(reply)}") from exc
        reported = getattr(reply, "usage", None)
        usage = None
        if reported is not None:
            # The API counts the input in three parts, none holding another: read afresh
            # (input_tokens), read from the cache, written to it. Usage counts all of it.
            fresh = token_count(reported, "input_tokens")
            cached = token_count(reported, "cache_read_input_tokens")
            written = token_count(reported, "cache_creation_input_tokens")
            usage = prices.usage(
                "anthropic",
                self.model,
                fresh + cached + written,
                token_count(reported, "output_tokens"),
                cached=cached,
                written=written,
            )
        return ModelReply(tool_calls=tuple(calls), text="\n".join(texts) or None, usage=usage)


def anthropic_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """The non-system messages as the messages API takes them: user and assistant turns,
    tool results as blocks of the user turn after the call."""
    turns: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "system":
            continue
        if message.role == "assistant":
            blocks: list[dict[str, Any]] = []
            if message.content:
                blocks.append({"type": "text", "text": message.content})
            blocks += [
                {"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments}
                for c in message.tool_calls
            ]
            turns.append({"role": "assistant", "content": blocks or [_text("(no reply)")]})
            continue
        if message.role == "tool":
            content = [_text(message.content or "(no output)"), *map(image_block, message.images)]
            blocks = [
                {"type": "tool_result", "tool_use_id": message.tool_call_id, "content": content}
            ]
        else:
            blocks = [_text(message.content), *map(image_block, message.images)]
        if turns and turns[-1]["role"] == "user":
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": "user", "content": blocks})
    return turns


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def image_block(png: bytes) -> dict[str, Any]:
    return {
        "type": "image",
        "source": {
            "type": "base64",
            "media_type": "image/png",
            "data": base64.b64encode(png).decode("ascii"),
        },
    }
