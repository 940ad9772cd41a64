"""A scripted fake of Anthropic's messages API (``POST /v1/messages``): point the
``anthropic`` SDK (or pagesight's ``anthropic:`` models) at ``base_url``.

    with FakeAnthropic([Reply.calling("click", ref=3)], api_key="sk-ant-test") as fake:
        model = AnthropicMessages(model="claude-haiku-4-5", base_url=fake.base_url,
                                  api_key="sk-ant-test")

Its prompt cache works as Anthropic's does, where the request asks: the API reads a request
as its tools, its system prompt, then its messages' content blocks, and a block marked
``cache_control`` ends a prefix to cache (a breakpoint). The longest breakpoint's prefix
seen before (by an earlier request of the same model, answered by this fake) is read from
the cache (``cache_read_input_tokens``); the rest up to the last breakpoint is written to it
(``cache_creation_input_tokens``); ``input_tokens`` is what is left after the last
breakpoint — the three add up to the request's input. A prefix is measured as compact JSON
without its ``cache_control`` marks, a token a 4 characters, and one under 1,024 tokens (the
minimum of most Claude models) is not cached. Nothing expires while the fake runs.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from starlette.requests import Request

from pagesight.testing.script import Reply
from pagesight.testing.server import ScriptedServer

_ids = itertools.count(1)
CACHE_MINIMUM = 1024
"""The shortest prefix, in tokens, the fake caches."""
_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
    529: "overloaded_error",
}


class FakeAnthropic(ScriptedServer):
    """Messages, scripted. ``api_key``: the key it requires (``x-api-key`` or a bearer
    token), if any."""

    paths = ("/v1/messages",)

    def authorised(self, request: Request) -> bool:
        # The SDK sends its key as x-api-key (older versions) or as a bearer token.
        given = request.headers.get("x-api-key")
        return self.api_key in (given, request.headers.get("authorization", "")[7:])

    def prompt_cache(self, body: dict[str, Any], input_tokens: int) -> tuple[int, int]:
        # Each breakpoint's prefix, in tokens; those long enough to cache.
        prefixes = [(p, len(p) // 4) for p in _breakpoints(body)]
        prefixes = [(p, tokens) for p, tokens in prefixes if tokens >= CACHE_MINIMUM]
        if not prefixes:
            return (0, 0)
        read = max((tokens for p, tokens in prefixes if p in self.prompts), default=0)
        written = prefixes[-1][1] - read
        self.prompts.extend(p for p, _ in prefixes if p not in self.prompts)
        read = min(read, input_tokens)
        return read, min(written, input_tokens - read)

    def render(
        self, reply: Reply, body: dict[str, Any], usage: tuple[int, int], cache: tuple[int, int]
    ) -> Any:
        content: list[dict[str, Any]] = []
        if reply.text:
            content.append({"type": "text", "text": reply.text})
        content += [
            {"type": "tool_use", "id": f"toolu_{next(_ids):04d}", "name": name, "input": args}
            for name, args in reply.tool_calls
        ]
        return {
            "id": f"msg_{next(_ids):04d}",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", "fake"),
            "content": content,
            "stop_reason": "tool_use" if reply.tool_calls else "end_turn",
            "stop_sequence": None,
            "usage": {
                # The API counts the input in three parts: read afresh, read, written.
                "input_tokens": max(usage[0] - cache[0] - cache[1], 0),
                "cache_read_input_tokens": cache[0],
                "cache_creation_input_tokens": cache[1],
                "output_tokens": usage[1],
            },
        }

    def error_body(self, status: int, message: str) -> Any:
        kind = _ERROR_TYPES.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}


def _breakpoints(body: dict[str, Any]) -> list[str]:
    """The prefix of the request up to each block marked ``cache_control``, in order: the
    model's name, then the tools, the system prompt's blocks and the messages' blocks (each
    with its role) as compact JSON, without the marks."""
    blocks: list[tuple[Any, bool]] = [(body.get("model"), False)]
    blocks += [(tool, _marked(tool)) for tool in _listed(body.get("tools"))]
    system = body.get("system")
    blocks += [(block, _marked(block)) for block in _listed(system)]
    for message in _listed(body.get("messages")):
        role = message.get("role") if isinstance(message, dict) else None
        content = message.get("content") if isinstance(message, dict) else message
        blocks += [({"role": role, "block": block}, _marked(block)) for block in _listed(content)]
    prefixes, text = [], ""
    for block, marked in blocks:
        text += json.dumps(_unmarked(block), ensure_ascii=False, separators=(",", ":"))
        if marked:
            prefixes.append(text)
    return prefixes


def _listed(value: Any) -> list[Any]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def _marked(block: Any) -> bool:
    return isinstance(block, dict) and block.get("cache_control") is not None


def _unmarked(block: Any) -> Any:
    if isinstance(block, dict):
        return {k: _unmarked(v) for k, v in block.items() if k != "cache_control"}
    if isinstance(block, list):
        return [_unmarked(item) for item in block]
    return block
