"""The reference model for a whole task suite at one base URL, as ``pagesight eval --model
openai:… --base-url URL`` talks to it: every task run, in whatever worker process, sends its
requests to the same address.

    tasks = {task.goal: suite.steps_path(task).read_text() for task in suite.tasks}
    with SuiteReference(tasks) as reference:
        main(["eval", "orbit", "--model", "openai:gpt-4.1-mini",
              "--base-url", reference.base_url, "--api-key", "x"])

A run's first request (no assistant message yet) starts a conversation for the task whose
goal it states (the longest goal found in its messages); each later request goes on with the
conversation that made the tool calls its last assistant message holds (tool call ids are
unique to this process). So concurrent runs of one task, repeats included, never cross.
Everything else is :class:`~pagesight.testing.reference.ReferenceModel`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from starlette.requests import Request

from pagesight.testing.reference import (
    ActDialect,
    Dialect,
    ReferenceModel,
    message_text,
    read_intents,
)
from pagesight.testing.server import Refused, ScriptedServer


class SuiteReference(ReferenceModel):
    """``tasks``: each task's goal and its steps (the intents). ``dialect``: makes the format
    every conversation answers in (the ``llm`` planner's ``act`` by default)."""

    paths = ("/v1/chat/completions", *ReferenceModel.paths)

    def __init__(
        self,
        tasks: Mapping[str, str],
        *,
        dialect: Callable[[], Dialect] = ActDialect,
        api_key: str | None = None,
        port: int = 0,
    ) -> None:
        super().__init__(api_key=api_key, port=port)
        self._intents = {goal: read_intents(steps) for goal, steps in tasks.items()}
        self._dialect = dialect
        self._by_call: dict[str, str] = {}
        self._answering: dict[int, str] = {}

    @property
    def base_url(self) -> str:
        return f"{self.origin}/v1"

    def receive(self, request: Request, raw: bytes, request_id: str) -> Any:
        if "key" in request.path_params:
            return super().receive(request, raw, request_id)
        body = ScriptedServer.receive(self, request, raw, request_id)
        messages = body.get("messages") or []
        calls = [
            call["id"]
            for message in messages
            if message.get("role") == "assistant"
            for call in message.get("tool_calls") or []
        ]
        if calls:
            key = self._by_call.get(calls[-1])
            if key is None:
                raise Refused(404, f"no conversation made the tool call {calls[-1]!r}")
        else:
            key = self.conversation(self._intents[self._goal(messages)], self._dialect()).key
        self._key_of[id(body)] = key
        self._answering[id(body)] = key
        return body

    def _goal(self, messages: list[dict[str, Any]]) -> str:
        text = "\n".join(message_text(m) for m in messages)
        found = [goal for goal in self._intents if goal in text]
        if not found:
            raise Refused(404, "the request states none of the suite's goals")
        return max(found, key=len)

    def render(
        self, reply: Any, body: dict[str, Any], usage: tuple[int, int], cache: tuple[int, int]
    ) -> Any:
        rendered = super().render(reply, body, usage, cache)
        key = self._answering.pop(id(body), None)
        if key is not None:
            for call in rendered["choices"][0]["message"].get("tool_calls") or []:
                self._by_call[call["id"]] = key
        return rendered
