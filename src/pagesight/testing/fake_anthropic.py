"""A scripted fake of Anthropic's messages API (``POST /v1/messages``): point the
``anthropic`` SDK (or pagesight's ``anthropic:`` models) at ``base_url``.

    with FakeAnthropic([Reply.calling("click", ref=3)], api_key="sk-ant-test") as fake:
        model = AnthropicMessages(model="claude-haiku-4-5", base_url=fake.base_url,
                                  api_key="sk-ant-test")
"""

from __future__ import annotations

import itertools
from typing import Any

from starlette.requests import Request

from pagesight.testing.script import Reply
from pagesight.testing.server import ScriptedServer

_ids = itertools.count(1)
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

    def render(self, reply: Reply, body: dict[str, Any], usage: tuple[int, int]) -> Any:
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
            "usage": {"input_tokens": usage[0], "output_tokens": usage[1]},
        }

    def error_body(self, status: int, message: str) -> Any:
        kind = _ERROR_TYPES.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}
