"""Each OpenAI-compatible provider asks its server for the reply constraint it really enforces
(OpenAI: strict tools; vLLM, llama.cpp, LM Studio: ``tool_choice: "required"``; Ollama: a
``response_format`` JSON schema of one tool call), through the real SDK against the fake
server, which records every request body; ``strict=False`` asks for none of it; and Ollama's
reply in that JSON shape becomes a real tool call — the whole demo task on Orbit CRM, with
real Chromium, answered that way."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from model_support import GOAL, SAVED, capable
from pagesight import Agent, Browser
from pagesight.agent.registry import ToolRegistry
from pagesight.demo import OrbitApp
from pagesight.messages import Message, ModelReply
from pagesight.models import connect, resolve
from pagesight.planners.llm.planner import ModelPlanner
from pagesight.testing import FakeOpenAI, Reply
from pagesight.testing.script import Script

TOOLS = ToolRegistry.discover().specs()
MESSAGES = (
    Message(role="system", content="You drive a browser."),
    Message(role="user", content='goal: save\n\npage now:\n[3] button "Save"'),
)
ASKED = ("tool_choice", "response_format")  # request fields a constraint may add


def _ask(
    provider: str, script: list[Script], *, strict: bool | None = None
) -> tuple[ModelReply, dict[str, Any], FakeOpenAI]:
    with FakeOpenAI(script) as fake:
        # Ollama's URL as OLLAMA_HOST usually holds it, a bare host:port: the spec must
        # reach its OpenAI-compatible API under /v1.
        env = {"OLLAMA_HOST": fake.origin.removeprefix("http://")}
        base = None if provider == "ollama" else fake.base_url
        spec = resolve(f"{provider}:some-model", api_key="k", base_url=base, env=env)
        model = connect(spec, strict=strict)
        reply = asyncio.run(model.complete(MESSAGES, TOOLS))
    (body,) = fake.requests
    return reply, body, fake


def _functions(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["function"]["name"]: t["function"] for t in body["tools"]}


def test_openai_asks_for_strict_tools_only() -> None:
    _, body, _ = _ask("openai", [Reply.calling("click", ref=3)])
    assert _functions(body)["click"]["strict"] is True
    assert not set(ASKED) & set(body)


@pytest.mark.parametrize("provider", ["vllm", "llamacpp", "lmstudio"])
def test_grammar_tool_servers_are_told_a_tool_call_is_required(provider: str) -> None:
    reply, body, _ = _ask(provider, [Reply.calling("click", ref=3)])
    assert body["tool_choice"] == "required"
    assert "response_format" not in body  # llama.cpp refuses a grammar beside tools
    assert not any("strict" in f for f in _functions(body).values())
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [("click", {"ref": 3})]


def test_ollama_is_sent_a_json_schema_of_one_call_of_its_tools() -> None:
    _, body, fake = _ask("ollama", [Reply.calling("click", ref=3)])
    assert fake.requests  # it reached /v1/chat/completions from a bare OLLAMA_HOST
    assert "tool_choice" not in body  # Ollama ignores it
    # The tools are still sent (its chat template shows them to the model), as they are.
    assert set(_functions(body)) == {t.name for t in TOOLS}
    assert not any("strict" in f for f in _functions(body).values())
    fmt = body["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["name"] == "tool_call"
    schema = fmt["json_schema"]["schema"]
    options = {o["properties"]["name"]["const"]: o for o in schema["anyOf"]}
    assert set(options) == {t.name for t in TOOLS}
    for spec in TOOLS:
        option = options[spec.name]
        assert option["required"] == ["name", "arguments"]
        assert option["additionalProperties"] is False
        arguments = {k: v for k, v in spec.input_schema.items() if k != "$defs"}
        assert option["properties"]["arguments"] == arguments
    # batch's items point at #/$defs/BatchAction: the definition moved to the root with it.
    batch = options["batch"]["properties"]["arguments"]["properties"]["actions"]
    assert batch["items"] == {"$ref": "#/$defs/BatchAction"}
    assert schema["$defs"]["BatchAction"]["required"] == ["tool"]


def test_ollama_reply_in_that_shape_becomes_a_tool_call() -> None:
    as_json = Reply.structured({"name": "input", "arguments": {"ref": 4, "text": "hi"}})
    reply, _, _ = _ask("ollama", [as_json])
    (call,) = reply.tool_calls
    assert (call.name, call.arguments, reply.text) == ("input", {"ref": 4, "text": "hi"}, None)
    assert call.id
    # A call Ollama parsed itself is read as any tool call; JSON that is no call of a tool
    # stays text, for the planner to read or refuse.
    reply, _, _ = _ask("ollama", [Reply.calling("click", ref=3)])
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [("click", {"ref": 3})]
    reply, _, _ = _ask("ollama", [Reply.structured({"name": "nope", "arguments": {}})])
    assert not reply.tool_calls and reply.text == '{"name": "nope", "arguments": {}}'


@pytest.mark.parametrize("provider", ["openai", "vllm", "llamacpp", "lmstudio", "ollama"])
def test_strict_false_asks_for_nothing(provider: str) -> None:
    as_json = Reply.structured({"name": "click", "arguments": {"ref": 3}})
    reply, body, _ = _ask(provider, [as_json], strict=False)
    assert not set(ASKED) & set(body)
    assert not any("strict" in f for f in _functions(body).values())
    assert not reply.tool_calls  # the JSON is left as text, for the planner's own reading


def test_openrouter_is_asked_nothing_by_default() -> None:
    _, body, _ = _ask("openrouter", [Reply.calling("click", ref=3)])
    assert not set(ASKED) & set(body)
    assert not any("strict" in f for f in _functions(body).values())


def _as_constrained_json(body: dict[str, Any]) -> Reply:
    """The capable model's next step as Ollama's schema makes it write it: one call as JSON
    text, several as one ``batch``."""
    calls = capable(body).tool_calls
    if len(calls) == 1:
        ((name, arguments),) = calls
        return Reply.structured({"name": name, "arguments": arguments})
    actions = [{"tool": name, "arguments": arguments} for name, arguments in calls]
    return Reply.structured({"name": "batch", "arguments": {"actions": actions}})


def test_ollama_the_demo_task_answered_as_schema_json(browser: Browser, tmp_path: Path) -> None:
    script: list[Script] = [_as_constrained_json] * 3
    with OrbitApp.start() as app, FakeOpenAI(script) as fake:
        spec = resolve("ollama:qwen2.5:7b", base_url=fake.origin, env={})
        agent = Agent(
            browser,
            ModelPlanner(connect(spec)),
            max_steps=6,
            out=tmp_path / "run",
            tool_profile="full",
        )
        result = agent.run(app.url, GOAL)
        rows = app.query("SELECT job_title, location FROM contacts WHERE name = 'Alice Chen'")
    assert result.stop_reason == "done", result.message
    assert rows == SAVED
    assert len(fake.requests) == 3
    assert all(r["response_format"]["type"] == "json_schema" for r in fake.requests)
    # The JSON reply went back into the history as a real tool call, answered by its id.
    history = fake.requests[1]["messages"]
    assistant, tool = history[-2], history[-1]
    assert assistant["content"] is None
    (call,) = assistant["tool_calls"]
    assert call["function"]["name"] == "click"
    assert tool == {**tool, "role": "tool", "tool_call_id": call["id"]}
    batch = fake.requests[2]["messages"][-2]["tool_calls"][0]["function"]
    assert batch["name"] == "batch"
