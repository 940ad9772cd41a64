"""A scripted fake of OpenAI's chat-completions API (``POST /v1/chat/completions``), the API
every OpenAI-compatible server speaks: point the ``openai`` SDK (or pagesight's
``openai:``/``ollama:``/``vllm:`` models) at ``base_url``.

    with FakeOpenAI([Reply.calling("click", ref=3), Reply.calling("done")]) as fake:
        model = OpenAIChat(model="gpt-4.1-mini", base_url=fake.base_url, api_key="sk-test")
        ...
        fake.requests[0]["tools"]      # what the client sent
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
_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "invalid_request_error",
    404: "not_found_error",
    429: "rate_limit_exceeded",
}


class FakeOpenAI(ScriptedServer):
    """Chat completions, scripted. ``api_key``: the bearer token it requires, if any."""

    paths = ("/v1/chat/completions",)

    @property
    def base_url(self) -> str:
        return f"{self.origin}/v1"

    def authorised(self, request: Request) -> bool:
        return request.headers.get("authorization") == f"Bearer {self.api_key}"

    def render(self, reply: Reply, body: dict[str, Any], usage: tuple[int, int]) -> Any:
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
            },
        }

    def error_body(self, status: int, message: str) -> Any:
        kind = _ERROR_TYPES.get(status, "server_error")
        return {"error": {"message": message, "type": kind, "param": None, "code": None}}
