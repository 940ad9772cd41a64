"""A scripted fake of OpenAI's chat-completions API (``POST /v1/chat/completions``), the API
every OpenAI-compatible server speaks: point the ``openai`` SDK (or pagesight's
``openai:``/``ollama:``/``vllm:`` models) at ``base_url``.

    with FakeOpenAI([Reply.calling("click", ref=3), Reply.calling("done")]) as fake:
        model = OpenAIChat(model="gpt-4.1-mini", base_url=fake.base_url, api_key="sk-test")
        ...
        fake.requests[0]["tools"]      # what the client sent

Its prompt cache works as OpenAI's does, by itself: a request's prompt (its model, tools
and response format, then its messages, as compact JSON, a token a 4 characters) that
starts the way an earlier one's did reads that shared prefix from the cache — once it is
1,024 tokens or more, in whole blocks of 128 — and reports it as
``usage.prompt_tokens_details.cached_tokens``, a part of ``prompt_tokens``. Nothing is
charged for writing. Every request answered is remembered, for as long as the fake runs.
"""

from __future__ import annotations

import itertools
import json
import time
from typing import Any

from starlette.requests import Request

from pagesight.testing.script import Reply
from pagesight.testing.server import ScriptedServer

_ids = itertools.count(1)
CACHE_MINIMUM = 1024
"""The shortest prefix, in tokens, OpenAI's prompt cache reads."""
CACHE_BLOCK = 128
"""What a cache hit is counted in: whole blocks of this many tokens."""
_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "invalid_request_error",
    404: "not_found_error",
    429: "rate_limit_exceeded",
}


class FakeOpenAI(ScriptedServer):
    """Chat completions, scripted. ``api_key``: the bearer token it requires, if any."""

    paths: tuple[str, ...] = ("/v1/chat/completions",)

    @property
    def base_url(self) -> str:
        return f"{self.origin}/v1"

    def authorised(self, request: Request) -> bool:
        return request.headers.get("authorization") == f"Bearer {self.api_key}"

    def prompt_cache(self, body: dict[str, Any], input_tokens: int) -> tuple[int, int]:
        prompt = _prompt(body)
        shared = max((_shared(prompt, seen) for seen in self.prompts), default=0)
        self.prompts.append(prompt)
        tokens = shared // 4
        cached = tokens // CACHE_BLOCK * CACHE_BLOCK if tokens >= CACHE_MINIMUM else 0
        return min(cached, input_tokens), 0

    def render(
        self, reply: Reply, body: dict[str, Any], usage: tuple[int, int], cache: tuple[int, int]
    ) -> Any:
        calls = [
            {
                "id": f"call_{next(_ids)}",
                "type": "function",
                "function": {
                    "name": name,
                    "arguments": args if isinstance(args, str) else json.dumps(args),
                },
            }
            for name, args in reply.tool_calls
        ]
        message: dict[str, Any] = {"role": "assistant", "content": reply.text}
        if calls:
            message["tool_calls"] = calls
        return {
            "id": f"chatcmpl-{next(_ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "fake"),
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if calls else "stop",
                }
            ],
            "usage": {
                "prompt_tokens": usage[0],
                "completion_tokens": usage[1],
                "total_tokens": usage[0] + usage[1],
                "prompt_tokens_details": {
                    "cached_tokens": cache[0],
                    "audio_tokens": 0,
                    # What OpenAI-compatible servers that charge for writes (OpenRouter) add.
                    **({"cache_write_tokens": cache[1]} if cache[1] else {}),
                },
            },
        }

    def error_body(self, status: int, message: str) -> Any:
        kind = _ERROR_TYPES.get(status, "server_error")
        return {"error": {"message": message, "type": kind, "param": None, "code": None}}


def _shared(a: str, b: str) -> int:
    """How many characters ``a`` and ``b`` start with alike."""
    low, high = 0, min(len(a), len(b))
    while low < high:  # a binary search: comparing slices is fast, a loop of characters not
        middle = (low + high + 1) // 2
        low, high = (middle, high) if a[:middle] == b[:middle] else (low, middle - 1)
    return low


def _prompt(body: dict[str, Any]) -> str:
    """The request's prompt in the order OpenAI's cache reads it (the model's, then the
    tools, then the messages), as one string."""
    messages = body.get("messages")
    parts = [
        body.get("model"),
        body.get("tools"),
        body.get("response_format"),
        *(messages if isinstance(messages, list) else [messages]),
    ]
    return "".join(json.dumps(part, ensure_ascii=False, separators=(",", ":")) for part in parts)
