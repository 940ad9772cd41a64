"""The llm planner (ModelPlanner on a provider, through the real SDK) completes the demo task
on Orbit CRM against each scripted fake server — OpenAI's chat completions and Anthropic's
messages — with the saved state read from SQLite, and the tokens and cost the fake reported
summed in summary.json. Each run also meets a failure on the way (a 429 with Retry-After, a
500, a tool call with invalid arguments) and gets past it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from model_support import GOAL, SAVED, capable, cost, model_tokens
from pagesight import Agent, Browser
from pagesight.demo import OrbitApp
from pagesight.models.anthropic_messages import AnthropicMessages
from pagesight.models.openai_chat import OpenAIChat
from pagesight.planners.llm.planner import ModelPlanner
from pagesight.testing import Failure, FakeAnthropic, FakeOpenAI, Reply
from pagesight.testing.script import Script


def _summary(folder: Path) -> dict[str, Any]:
    summary: dict[str, Any] = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    return summary


def test_openai_the_demo_task_past_a_rate_limit_and_bad_arguments(
    browser: Browser, tmp_path: Path
) -> None:
    def strict(body: dict[str, Any]) -> Reply:
        return capable(body, strict=True)

    script: list[Script] = [
        # A tool call whose arguments are not JSON: the tool refuses it, the model is told.
        Reply.invalid_arguments("click", '{"ref": 10, "element": "Alice'),
        Failure.rate_limited(0.2),  # retried after the 0.2 s it asks for
        strict,
        strict,
        strict,
    ]
    with OrbitApp.start() as app, FakeOpenAI(script, api_key="sk-test") as fake:
        model = OpenAIChat(
            model="gpt-4.1-mini", base_url=fake.base_url, api_key="sk-test", strict=True
        )
        # The full profile: every action a tool of its own, strict schemas and batches.
        agent = Agent(
            browser, ModelPlanner(model), max_steps=8, out=tmp_path / "run", tool_profile="full"
        )
        result = agent.run(app.url, GOAL)
        rows = app.query("SELECT job_title, location FROM contacts WHERE name = 'Alice Chen'")
    assert result.stop_reason == "done", result.message
    assert rows == SAVED
    # The request after the bad call answered it with the schema's refusal, by its id.
    first = fake.requests[0]
    assert first["model"] == "gpt-4.1-mini"
    assert first["messages"][0]["role"] == "system"
    tools = {t["function"]["name"]: t["function"] for t in first["tools"]}
    assert tools["click"]["strict"] is True
    assert set(tools["click"]["parameters"]["required"]) == set(
        tools["click"]["parameters"]["properties"]
    )
    assert "strict" not in tools["batch"]  # an object open to any keys cannot be strict
    second = fake.requests[1]["messages"]
    call = second[-2]["tool_calls"][0]
    assert (call["function"]["name"], call["function"]["arguments"]) == (
        "click",
        '{"_unparsed": "{\\"ref\\": 10, \\"element\\": \\"Alice"}',
    )
    answer = second[-1]
    assert answer["role"] == "tool" and answer["tool_call_id"] == call["id"]
    assert "invalid_arguments" in answer["content"] or "_unparsed" in answer["content"]
    # The 429 was retried with the very same request.
    assert fake.requests[2] == fake.requests[1]
    # The batch of the edit form came back as three tool calls answered by three tool
    # messages, the page after the last.
    last = fake.requests[-1]["messages"]
    assert [m["role"] for m in last[-4:]] == ["assistant", "tool", "tool", "tool"]
    assert [c["function"]["name"] for c in last[-4]["tool_calls"]] == ["input", "select", "click"]
    summary = _summary(result.folder)
    assert summary["model_tokens"] == model_tokens(fake)
    assert summary["cost"] == pytest.approx(cost(fake, "openai:gpt-4.1-mini"))


def test_anthropic_the_demo_task_past_a_server_error(browser: Browser, tmp_path: Path) -> None:
    script: list[Script] = [capable, Failure.server_error(529), capable, capable]
    with OrbitApp.start() as app, FakeAnthropic(script, api_key="sk-ant-test") as fake:
        model = AnthropicMessages(
            model="claude-haiku-4-5", base_url=fake.base_url, api_key="sk-ant-test"
        )
        # The full profile: every action a tool of its own, strict schemas and batches.
        agent = Agent(
            browser, ModelPlanner(model), max_steps=8, out=tmp_path / "run", tool_profile="full"
        )
        result = agent.run(app.url, GOAL)
        rows = app.query("SELECT job_title, location FROM contacts WHERE name = 'Alice Chen'")
    assert result.stop_reason == "done", result.message
    assert rows == SAVED
    first = fake.requests[0]
    assert first["model"] == "claude-haiku-4-5" and first["max_tokens"] == 4096
    assert "drive a web browser" in first["system"][0]["text"]
    assert {t["name"] for t in first["tools"]} >= {"click", "input", "select", "done"}
    click = next(t for t in first["tools"] if t["name"] == "click")
    assert click["input_schema"]["properties"]["ref"]["type"] == "integer"
    # The 529 was retried with the same request; then the tool_use was answered by a
    # tool_result of the same id in the next user turn.
    assert fake.requests[2] == fake.requests[1]
    turns = fake.requests[1]["messages"]
    assert [t["role"] for t in turns] == ["user", "assistant", "user"]
    (use,) = [b for b in turns[1]["content"] if b["type"] == "tool_use"]
    assert use["name"] == "click"
    (result_block,) = turns[2]["content"]
    assert result_block["type"] == "tool_result" and result_block["tool_use_id"] == use["id"]
    assert 'h1 "Edit contact: Alice Chen"' in result_block["content"][0]["text"]
    # The API alternates user and assistant: the batch's three tool results (and anything
    # after them) share one user turn.
    for body in fake.requests:
        roles = [t["role"] for t in body["messages"]]
        assert roles == ["user", "assistant"] * (len(roles) // 2) + ["user"], roles
    batch_turn = fake.requests[-1]["messages"][-1]["content"]
    assert [b["type"] for b in batch_turn] == ["tool_result"] * 3
    summary = _summary(result.folder)
    assert summary["model_tokens"] == model_tokens(fake)
    assert summary["cost"] == pytest.approx(cost(fake, "anthropic:claude-haiku-4-5"))
