"""The providers through the real SDKs against the scripted fakes on 127.0.0.1: what each
request holds (tool calls both ways, images, strict schemas), usage and cost, the retries
(429 with Retry-After, 500), and the failures that end a call with one line (a long
Retry-After, 401, a malformed body, a timeout); and ``PROVIDER:MODEL`` with its key, URL and
SDK resolved before anything runs."""

from __future__ import annotations

import asyncio
import base64
import sys
from collections.abc import Sequence
from typing import Any

import pytest

from pagesight import InvalidOption, ModelError, ModelNotConfigured
from pagesight.agent.registry import ToolRegistry
from pagesight.messages import Message, ModelReply, ToolCall, ToolSpec
from pagesight.models import PRICES, add_price, connect, parse_model, resolve
from pagesight.models.anthropic_messages import AnthropicMessages
from pagesight.models.openai_chat import OpenAIChat
from pagesight.models.retry import retry_after
from pagesight.testing import Failure, FakeAnthropic, FakeOpenAI, Hang, Reply
from pagesight.testing.script import Script
from pagesight.testing.server import ScriptedServer

PNG = b"\x89PNG\r\n\x1a\n fake image bytes"
TOOLS = ToolRegistry.discover().specs()
CONVERSATION = (
    Message(role="system", content="You drive a browser."),
    Message(role="user", content='goal: save\n\npage now:\n[3] button "Save"'),
    Message(
        role="assistant",
        content="",
        tool_calls=(ToolCall(id="call_a", name="click", arguments={"ref": 3}),),
    ),
    Message(role="tool", content="click [3] -> dom_change", tool_call_id="call_a", images=(PNG,)),
)
Fake = type[FakeOpenAI] | type[FakeAnthropic]
APIS: list[Fake] = [FakeOpenAI, FakeAnthropic]


def _model(fake: ScriptedServer, **options: Any) -> OpenAIChat | AnthropicMessages:
    if isinstance(fake, FakeOpenAI):
        return OpenAIChat(model="gpt-4.1-mini", base_url=fake.base_url, api_key="k", **options)
    return AnthropicMessages(
        model="claude-haiku-4-5", base_url=fake.base_url, api_key="k", **options
    )


def _ask(
    api: Fake,
    script: Sequence[Script],
    messages: Sequence[Message] = CONVERSATION,
    tools: Sequence[ToolSpec] = TOOLS,
    **options: Any,
) -> tuple[ModelReply | ModelError, ScriptedServer]:
    with api(script, api_key="k") as fake:
        model = _model(fake, **options)
        try:
            reply: ModelReply | ModelError = asyncio.run(model.complete(messages, tools))
        except ModelError as exc:
            reply = exc
    return reply, fake


def _error(outcome: ModelReply | ModelError) -> str:
    assert isinstance(outcome, ModelError), outcome
    message = str(outcome)
    assert "\n" not in message
    return message


def _reply(outcome: ModelReply | ModelError) -> ModelReply:
    assert isinstance(outcome, ModelReply), outcome
    return outcome


def test_openai_request_maps_tool_calls_results_and_images() -> None:
    outcome, fake = _ask(FakeOpenAI, [Reply.calling("input", ref=4, text="hi")])
    reply = _reply(outcome)
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [
        ("input", {"ref": 4, "text": "hi"})
    ]
    (body,) = fake.requests
    system, user, assistant, tool, images = body["messages"]
    assert (system["role"], user["role"]) == ("system", "user")
    assert assistant["tool_calls"] == [
        {
            "id": "call_a",
            "type": "function",
            "function": {"name": "click", "arguments": '{"ref": 3}'},
        }
    ]
    assert tool == {"role": "tool", "tool_call_id": "call_a", "content": "click [3] -> dom_change"}
    # A tool message cannot hold an image: the screenshot follows it in a user message.
    assert images["role"] == "user"
    url = images["content"][1]["image_url"]["url"]
    assert base64.b64decode(url.removeprefix("data:image/png;base64,")) == PNG
    # Each tool as a function with the registry's schema; strict only when asked for.
    click = next(t["function"] for t in body["tools"] if t["function"]["name"] == "click")
    assert click["parameters"] == next(t.input_schema for t in TOOLS if t.name == "click")
    assert "strict" not in click


def test_openai_strict_schemas_and_their_nulls_dropped() -> None:
    nulls = Reply.calling("click", ref=3, element=None, double_click=None, button=None)
    outcome, fake = _ask(FakeOpenAI, [nulls], strict=True)
    (call,) = _reply(outcome).tool_calls
    assert call.arguments == {"ref": 3}  # the tool's defaults apply
    click = next(
        t["function"] for t in fake.requests[0]["tools"] if t["function"]["name"] == "click"
    )
    schema = click["parameters"]
    assert click["strict"] is True and schema["additionalProperties"] is False
    assert set(schema["required"]) == set(schema["properties"]) >= {"ref", "double_click"}
    assert {"type": "null"} in schema["properties"]["double_click"]["anyOf"]
    assert "default" not in str(schema)


def test_anthropic_request_maps_tool_calls_results_and_images() -> None:
    outcome, fake = _ask(FakeAnthropic, [Reply(text="thinking", tool_calls=(("done", {}),))])
    reply = _reply(outcome)
    assert reply.text == "thinking" and [c.name for c in reply.tool_calls] == ["done"]
    (body,) = fake.requests
    assert body["max_tokens"] == 4096
    # The system prompt, a block ending at a prompt-cache breakpoint, as the last tool is.
    assert body["system"] == [
        {"type": "text", "text": "You drive a browser.", "cache_control": {"type": "ephemeral"}}
    ]
    assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    assert not any("cache_control" in tool for tool in body["tools"][:-1])
    _, assistant, results = body["messages"]
    assert assistant == {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "call_a", "name": "click", "input": {"ref": 3}}],
    }
    (block,) = results["content"]
    assert (results["role"], block["type"], block["tool_use_id"]) == (
        "user",
        "tool_result",
        "call_a",
    )
    text, image = block["content"]
    assert text == {"type": "text", "text": "click [3] -> dom_change"}
    assert image["source"]["media_type"] == "image/png"
    assert base64.b64decode(image["source"]["data"]) == PNG
    click = next(t for t in body["tools"] if t["name"] == "click")
    assert click["input_schema"] == next(t.input_schema for t in TOOLS if t.name == "click")


@pytest.mark.parametrize("api", APIS)
def test_structured_output_and_usage_with_cost(api: Fake) -> None:
    outcome, _ = _ask(api, [Reply(text='{"answer": "30 days"}', usage=(1200, 34))])
    reply = _reply(outcome)
    assert reply.text == '{"answer": "30 days"}'
    assert reply.usage is not None
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (1200, 34)
    price = PRICES["gpt-4.1-mini" if api is FakeOpenAI else "claude-haiku-4-5"]
    assert reply.usage.cost == pytest.approx((1200 * price.input + 34 * price.output) / 1e6)


def test_an_unknown_model_has_tokens_but_no_cost_until_priced() -> None:
    with FakeOpenAI([Reply(text="a", usage=(1000, 10))] * 2) as fake:
        model = OpenAIChat(model="my-finetune-7b", base_url=fake.base_url, provider="vllm")
        first = asyncio.run(model.complete(CONVERSATION, ()))
        assert first.usage is not None and first.usage.cost is None
        add_price("vllm:my-finetune-7b", input=1.0, output=2.0)
        try:
            second = asyncio.run(model.complete(CONVERSATION, ()))
        finally:
            del PRICES["vllm:my-finetune-7b"]
    assert second.usage is not None and second.usage.cost == pytest.approx(0.00102)
    with pytest.raises(InvalidOption, match="input"):
        add_price("x", input=-1, output=0)


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("millis", [False, True])
def test_a_rate_limit_is_retried_after_the_wait_it_asks_for(api: Fake, millis: bool) -> None:
    outcome, fake = _ask(api, [Failure.rate_limited(0.3, millis=millis), Reply(text="ok")])
    assert _reply(outcome).text == "ok"
    assert len(fake.requests) == 2 and fake.requests[0] == fake.requests[1]


@pytest.mark.parametrize("api", APIS)
def test_a_rate_limit_asking_for_more_than_30_s_ends_the_call(api: Fake) -> None:
    outcome, fake = _ask(api, [Failure.rate_limited(60), Reply(text="never")])
    message = _error(outcome)
    assert "HTTP 429: rate limit reached, slow down" in message
    assert "asks to wait 60 s, more than the 30 s a run waits" in message
    assert len(fake.requests) == 1  # not retried
    assert isinstance(outcome, ModelError) and outcome.status == 429
    # retry-after-ms is read first (OpenAI's and Anthropic's servers send both).
    outcome, fake = _ask(api, [Failure.rate_limited(45, millis=True), Reply(text="never")])
    assert "asks to wait 45 s, more than the 30 s a run waits" in _error(outcome)
    assert len(fake.requests) == 1


@pytest.mark.parametrize("api", APIS)
def test_a_server_error_is_retried(api: Fake) -> None:
    outcome, fake = _ask(api, [Failure.server_error(), Failure.server_error(503), Reply(text="ok")])
    assert _reply(outcome).text == "ok"
    assert len(fake.requests) == 3


@pytest.mark.parametrize("api", APIS)
def test_a_server_that_keeps_failing_ends_the_call(api: Fake) -> None:
    outcome, fake = _ask(api, [Failure.server_error()] * 3, retries=1)
    message = _error(outcome)
    assert "failed (HTTP 500: the server had an error processing your request) (2 tries)" in message
    assert len(fake.requests) == 2


@pytest.mark.parametrize("api", APIS)
def test_a_refused_key_is_not_retried(api: Fake) -> None:
    outcome, fake = _ask(api, [Failure.unauthorized(), Reply(text="never")])
    message = _error(outcome)
    assert "refused the request (HTTP 401: invalid api key); check the API key" in message
    assert len(fake.requests) == 1
    assert isinstance(outcome, ModelError) and outcome.status == 401


@pytest.mark.parametrize("api", APIS)
def test_a_bad_request_is_not_retried(api: Fake) -> None:
    outcome, fake = _ask(api, [Failure(status=400, message="tools[3]: bad schema")])
    assert "HTTP 400: tools[3]: bad schema" in _error(outcome)
    assert len(fake.requests) == 1


@pytest.mark.parametrize("api", APIS)
def test_a_malformed_body_is_one_line(api: Fake) -> None:
    outcome, _ = _ask(api, [Failure.malformed()])
    assert "answered in a shape its API does not have" in _error(outcome)


@pytest.mark.parametrize("api", APIS)
def test_a_server_that_hangs_times_out(api: Fake) -> None:
    outcome, fake = _ask(api, [Hang(seconds=20)], timeout=0.5)
    assert "did not answer within 0.5 s" in _error(outcome)
    assert len(fake.requests) == 1  # a timeout is not retried: the run ends


@pytest.mark.parametrize("api", APIS)
def test_arguments_that_are_not_json_are_kept_for_the_schema_to_refuse(api: Fake) -> None:
    outcome, _ = _ask(api, [Reply.invalid_arguments("click", "{ref: 3")])
    (call,) = _reply(outcome).tool_calls
    assert call.arguments == {"_unparsed": "{ref: 3"}


def test_nothing_listening_is_one_line(closed_port: int) -> None:
    model = OpenAIChat(model="m", base_url=f"http://127.0.0.1:{closed_port}/v1", retries=0)
    with pytest.raises(ModelError, match=r"no model server answers at ") as caught:
        asyncio.run(model.complete(CONVERSATION, ()))
    assert "\n" not in str(caught.value)


def test_retry_after_headers() -> None:
    assert retry_after({"Retry-After": "2"}) == 2.0
    assert retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert retry_after({"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0  # past
    assert retry_after({"Retry-After": "soon"}) is None
    assert retry_after({}) is None


def test_provider_and_model_names() -> None:
    assert parse_model("ollama:qwen2.5-vl:7b") == ("ollama", "qwen2.5-vl:7b")
    assert parse_model("openrouter:openai/gpt-4.1-mini") == ("openrouter", "openai/gpt-4.1-mini")
    with pytest.raises(InvalidOption, match=r"expected PROVIDER:MODEL .* not 'gpt-4\.1'"):
        parse_model("gpt-4.1")
    with pytest.raises(InvalidOption) as caught:
        resolve("gemini:pro", env={})
    assert str(caught.value).startswith("unknown provider 'gemini' in 'gemini:pro'; providers: ")
    assert "openai, anthropic, openrouter, ollama, vllm, lmstudio, llamacpp" in str(caught.value)


def test_keys_and_urls_come_from_options_then_the_environment() -> None:
    env = {"OPENAI_API_KEY": "sk-env", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
    spec = resolve("openai:gpt-4.1-mini", env=env)
    assert (spec.api_key, spec.base_url, spec.model) == (
        "sk-env",
        "http://127.0.0.1:9/v1",
        "gpt-4.1-mini",
    )
    spec = resolve("openai:gpt-4.1-mini", api_key="sk-opt", base_url="http://h:1/v1/", env=env)
    assert (spec.api_key, spec.base_url) == ("sk-opt", "http://h:1/v1")
    assert "sk-opt" not in repr(spec)
    # Ollama needs no key; OLLAMA_HOST is often a bare host:port, its OpenAI API under /v1.
    spec = resolve("ollama:qwen2.5-vl:7b", env={"OLLAMA_HOST": "10.0.0.2:11434"})
    assert (spec.api_key, spec.base_url) == (None, "http://10.0.0.2:11434/v1")
    assert resolve("ollama:x", env={}).base_url == "http://127.0.0.1:11434/v1"
    anthropic = resolve("anthropic:claude-haiku-4-5", env={"ANTHROPIC_API_KEY": "a"})
    assert isinstance(connect(anthropic), AnthropicMessages)
    assert isinstance(
        connect(resolve("openrouter:x/y", env={"OPENROUTER_API_KEY": "o"})), OpenAIChat
    )
    with pytest.raises(InvalidOption, match="base URL must be an http"):
        resolve("vllm:x", base_url="ftp://h", env={})
    # A server on this machine behind OPENAI_BASE_URL takes no key; a remote one needs it.
    for local in ("http://127.0.0.1:8080/v1", "http://localhost:1234/v1", "http://[::1]:8/v1"):
        spec = resolve("openai:local-model", env={"OPENAI_BASE_URL": local})
        assert (spec.api_key, spec.base_url) == (None, local)
    with pytest.raises(ModelNotConfigured, match="set OPENAI_API_KEY"):
        resolve("openai:m", env={"OPENAI_BASE_URL": "http://10.0.0.2:8080/v1"})


@pytest.mark.parametrize(
    ("model", "variable"),
    [
        ("openai:gpt-4.1-mini", "OPENAI_API_KEY"),
        ("anthropic:claude-haiku-4-5", "ANTHROPIC_API_KEY"),
        ("openrouter:openai/gpt-4.1-mini", "OPENROUTER_API_KEY"),
    ],
)
def test_a_missing_key_names_what_to_set(model: str, variable: str) -> None:
    with pytest.raises(ModelNotConfigured) as caught:
        resolve(model, env={})
    assert str(caught.value).endswith(f"needs an API key: set {variable} or pass --api-key")
    assert caught.value.exit_code == 2


@pytest.mark.parametrize("sdk", ["openai", "anthropic"])
def test_a_missing_sdk_names_the_extra(sdk: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, sdk, None)  # as if not installed: `import` fails
    with pytest.raises(ModelNotConfigured, match=rf"pip install 'pagesight\[{sdk}\]'"):
        resolve(f"{sdk}:m", env={"OPENAI_API_KEY": "k", "ANTHROPIC_API_KEY": "k"})
    with pytest.raises(ModelNotConfigured, match=rf"pip install 'pagesight\[{sdk}\]'"):
        (OpenAIChat if sdk == "openai" else AnthropicMessages)(model="m")


def test_bad_options_are_refused() -> None:
    with pytest.raises(InvalidOption, match="timeout"):
        OpenAIChat(model="m", timeout=0)
    with pytest.raises(InvalidOption, match="retries"):
        AnthropicMessages(model="m", retries=-1)
    with pytest.raises(InvalidOption, match="model"):
        OpenAIChat(model="")


@pytest.mark.parametrize("api", APIS)
def test_a_key_the_server_quotes_back_is_redacted(api: Fake) -> None:
    # A proxy may echo the key it refuses (the call's key is "k"): the message never holds
    # it, as a whole token, and the words around it are left as they are.
    said = "Incorrect API key provided: k; a key such as k-1 is not k"
    outcome, _ = _ask(api, [Failure(status=401, message=said)])
    assert "Incorrect API key provided: [API key]; a key such as k-1 is not [API key])" in (
        _error(outcome)
    )
    limited = Failure(status=429, message="k is over its limit", headers={"retry-after": "99"})
    outcome, _ = _ask(api, [limited])
    assert "(HTTP 429: [API key] is over its limit) and asks to wait 99 s" in _error(outcome)
