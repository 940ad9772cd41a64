"""Prompt caching, through the real SDKs against the scripted fakes on 127.0.0.1: the llm
planner's requests start the same way every round (the system prompt and the tools, byte for
byte), Anthropic's mark that start with ``cache_control``, the providers' cached input tokens
reach the step records, summary.json and ``pagesight run``'s closing line, and they are
priced at the cached rate."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

import pytest

from model_support import GOAL, SAVED, capable, cost, model_tokens
from pagesight import Agent, Browser
from pagesight.agent.registry import ToolRegistry
from pagesight.agent.state import RunResult
from pagesight.demo import OrbitApp
from pagesight.errors import InvalidOption
from pagesight.messages import Message, Usage
from pagesight.models import PRICES, add_price, price_of
from pagesight.models.anthropic_messages import AnthropicMessages
from pagesight.models.openai_chat import OpenAIChat
from pagesight.planners.llm.planner import ModelPlanner
from pagesight.testing import FakeAnthropic, FakeOpenAI, Reply
from pagesight.testing.server import ScriptedServer

EPHEMERAL = {"type": "ephemeral"}
MODELS = {"openai": "openai:gpt-4.1-mini", "anthropic": "anthropic:claude-haiku-4-5"}


@dataclass(frozen=True)
class Run:
    provider: str
    fake: ScriptedServer
    result: RunResult

    def summary(self) -> dict[str, Any]:
        text = (self.result.folder / "summary.json").read_text(encoding="utf-8")
        return json.loads(text)  # type: ignore[no-any-return]

    def records(self) -> list[dict[str, Any]]:
        lines = (self.result.folder / "run.jsonl").read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines]


@pytest.fixture(scope="module", params=["openai", "anthropic"])
def run(
    request: pytest.FixtureRequest, browser: Browser, tmp_path_factory: pytest.TempPathFactory
) -> Run:
    """The demo task on Orbit CRM in three rounds (open the edit form; fill and save it in a
    batch; done), the model on the provider's fake."""
    provider: str = request.param
    out = tmp_path_factory.mktemp(provider) / "run"
    fake: FakeOpenAI | FakeAnthropic
    with OrbitApp.start() as app:
        if provider == "openai":
            with FakeOpenAI([capable] * 3, api_key="k") as fake:
                model: OpenAIChat | AnthropicMessages = OpenAIChat(
                    model="gpt-4.1-mini", base_url=fake.base_url, api_key="k"
                )
                result = Agent(browser, ModelPlanner(model), **FULL, out=out).run(app.url, GOAL)
        else:
            with FakeAnthropic([capable] * 3, api_key="k") as fake:
                model = AnthropicMessages(
                    model="claude-haiku-4-5", base_url=fake.base_url, api_key="k"
                )
                result = Agent(browser, ModelPlanner(model), **FULL, out=out).run(app.url, GOAL)
        rows = app.query("SELECT job_title, location FROM contacts WHERE name = 'Alice Chen'")
    assert result.stop_reason == "done", result.message
    assert rows == SAVED
    assert len(fake.requests) == 3
    return Run(provider, fake, result)


FULL: dict[str, Any] = {"max_steps": 6, "tool_profile": "full"}
"""Every tool shown: a prefix past the 1,024 tokens a provider caches at the least (the core
profile's, about 900, is below it: it is not cached, and costs less than a cached full one)."""


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=False)


def test_the_system_prompt_and_tools_are_byte_identical_every_round(run: Run) -> None:
    bodies = run.fake.requests
    tools = {_compact(body["tools"]) for body in bodies}
    assert len(tools) == 1  # the same tools, the same schemas, in the same order
    if run.provider == "openai":
        # The system message first, the same each round: the prefix OpenAI caches by itself.
        assert all(body["messages"][0]["role"] == "system" for body in bodies)
        assert len({_compact(body["messages"][0]) for body in bodies}) == 1
    else:
        assert len({_compact(body["system"]) for body in bodies}) == 1
    # The goal's message, which follows, begins the same too (its page goes, its lead stays).
    leads = {_first_user_text(run.provider, body).split("\n")[0] for body in bodies}
    assert leads == {f"goal: {GOAL}"}


def _first_user_text(provider: str, body: dict[str, Any]) -> str:
    if provider == "openai":
        text: str = body["messages"][1]["content"]
        return text
    block = body["messages"][0]["content"][0]
    assert block["type"] == "text"
    return str(block["text"])


@pytest.mark.parametrize("run", ["anthropic"], indirect=True)  # the one told where to cache
def test_anthropic_requests_mark_the_system_prompt_and_the_last_tool(run: Run) -> None:
    for body in run.fake.requests:
        (system,) = body["system"]
        assert system["type"] == "text" and "drive a web browser" in system["text"]
        assert system["cache_control"] == EPHEMERAL
        assert body["tools"][-1]["cache_control"] == EPHEMERAL
        assert [t for t in body["tools"][:-1] if "cache_control" in t] == []
        # No breakpoint in the messages: they change from round to round.
        assert "cache_control" not in json.dumps(body["messages"])


def test_cached_input_is_reported_from_round_two_in_the_records_and_summary(run: Run) -> None:
    read = [r for r, _ in run.fake.cached]
    written = [w for _, w in run.fake.cached]
    assert read[0] == 0 and read[1] > 0 and read[2] > 0
    if run.provider == "anthropic":
        assert written[0] > 0 and written[1:] == [0, 0]  # written once, read after
    else:
        assert written == [0, 0, 0]  # OpenAI caches by itself, at no charge
    # Each step's record holds its decision's usage as the provider reported it.
    usages = [record["decision"]["usage"] for record in run.records()]
    assert [u["cached_input_tokens"] for u in usages] == read
    assert [u["cache_write_tokens"] for u in usages] == written
    assert [u["input_tokens"] for u in usages] == [i for i, _ in run.fake.usages]
    # summary.json sums them; the cached tokens are a part of the input.
    summary = run.summary()
    assert summary["model_tokens"] == model_tokens(run.fake)
    assert 0 < summary["model_tokens"]["cached_input"] < summary["model_tokens"]["input"]
    assert summary["cost"] == pytest.approx(cost(run.fake, MODELS[run.provider]))
    # Reading the start of the prompt from the cache made the run cheaper.
    price = price_of(*MODELS[run.provider].split(":", 1))
    assert price is not None
    uncached = sum(price.cost(i, o) for i, o in run.fake.usages)
    assert summary["cost"] < uncached


TOOLS = ToolRegistry.discover().specs()
ASKED = (
    Message(role="system", content="You drive a browser."),
    Message(role="user", content="goal: save"),
)


def _usage(model: OpenAIChat | AnthropicMessages) -> Usage:
    reply = asyncio.run(model.complete(ASKED, TOOLS))
    assert reply.usage is not None
    return reply.usage


def test_openai_cached_tokens_are_priced_at_the_cached_rate() -> None:
    # gpt-4.1-mini: $0.40 a million input tokens, $0.10 cached, $1.60 output.
    with FakeOpenAI([Reply(text="ok", usage=(10_000, 200), cache=(8_192, 0))]) as fake:
        model = OpenAIChat(model="gpt-4.1-mini", base_url=fake.base_url, api_key="k")
        usage = _usage(model)
    assert (usage.input_tokens, usage.cached_input_tokens, usage.cache_write_tokens) == (
        10_000,
        8_192,
        0,
    )
    # 1,808 read afresh x 0.40 + 8,192 cached x 0.10 + 200 out x 1.60 = 1,862.4 per million.
    assert usage.cost == pytest.approx(0.0018624)


def test_an_openai_compatible_servers_cache_writes_are_priced_at_the_write_rate() -> None:
    add_price("openrouter:cache-7b", input=1.0, output=2.0, cached_input=0.25, cache_write=1.5)
    try:
        script = [Reply(text="ok", usage=(1_000_000, 0), cache=(500_000, 100_000))]
        with FakeOpenAI(script) as fake:
            model = OpenAIChat(
                model="cache-7b", base_url=fake.base_url, api_key="k", provider="openrouter"
            )
            usage = _usage(model)
    finally:
        del PRICES["openrouter:cache-7b"]
    assert (usage.cached_input_tokens, usage.cache_write_tokens) == (500_000, 100_000)
    # 400,000 afresh x 1 + 500,000 read x 0.25 + 100,000 written x 1.5.
    assert usage.cost == pytest.approx(0.675)


def test_anthropic_cache_reads_and_writes_are_priced_at_their_rates() -> None:
    # claude-haiku-4-5: $1 a million input tokens, $0.10 a cache read, $1.25 a cache write
    # (5 minutes), $5 output. The API reports the input in three parts, which add up.
    script = [Reply(text="ok", usage=(10_000, 200), cache=(6_000, 3_000))]
    with FakeAnthropic(script) as fake:
        model = AnthropicMessages(model="claude-haiku-4-5", base_url=fake.base_url, api_key="k")
        usage = _usage(model)
    assert (usage.input_tokens, usage.cached_input_tokens, usage.cache_write_tokens) == (
        10_000,
        6_000,
        3_000,
    )
    # 1,000 afresh x 1 + 6,000 read x 0.10 + 3,000 written x 1.25 + 200 out x 5 = 6,350.
    assert usage.cost == pytest.approx(0.00635)


def test_a_price_added_without_a_cached_rate_charges_cached_input_as_input() -> None:
    add_price("vllm:cached-7b", input=1.0, output=2.0)
    add_price("vllm:cheap-cache-7b", input=1.0, output=2.0, cached_input=0.25, cache_write=1.5)
    try:
        plain, cheap = PRICES["vllm:cached-7b"], PRICES["vllm:cheap-cache-7b"]
        assert plain.cost(1_000_000, 0, cached=600_000) == pytest.approx(1.0)
        # 400,000 afresh x 1 + 500,000 read x 0.25 + 100,000 written x 1.5.
        assert cheap.cost(1_000_000, 0, cached=500_000, written=100_000) == pytest.approx(0.675)
    finally:
        del PRICES["vllm:cached-7b"], PRICES["vllm:cheap-cache-7b"]
    with pytest.raises(InvalidOption, match="cached_input"):
        add_price("x", input=1, output=1, cached_input=-1)


def test_usage_adds_its_cached_tokens() -> None:
    one = Usage(input_tokens=100, output_tokens=5, cached_input_tokens=60, cost=0.1)
    two = Usage(input_tokens=50, output_tokens=5, cache_write_tokens=40, cost=0.2)
    total = one + two
    assert (total.input_tokens, total.cached_input_tokens, total.cache_write_tokens) == (
        150,
        60,
        40,
    )
    assert total.output_tokens == 10 and total.cost == pytest.approx(0.3)
    assert total.to_dict() == {
        "input_tokens": 150,
        "cached_input_tokens": 60,
        "cache_write_tokens": 40,
        "output_tokens": 10,
        "cost": pytest.approx(0.3),
    }


def test_the_fake_openai_caches_a_shared_prefix_of_1024_tokens_in_blocks_of_128() -> None:
    long = Message(role="system", content="You drive a browser. " + "x" * 8_000)
    short = Message(role="system", content="You drive a browser. " + "x" * 2_400)  # 600 tokens
    with FakeOpenAI([Reply(text="ok")] * 4) as fake:
        model = OpenAIChat(model="gpt-4.1-mini", base_url=fake.base_url, api_key="k")
        for messages in (
            (short, Message(role="user", content="a")),
            (short, Message(role="user", content="b")),  # a shared prefix under 1,024
            (long, Message(role="user", content="a")),
            (long, Message(role="user", content="b")),
        ):
            asyncio.run(model.complete(messages, ()))
    assert [r for r, _ in fake.cached[:3]] == [0, 0, 0]
    read, written = fake.cached[3]
    assert read >= 1024 and read % 128 == 0 and written == 0
    assert read <= len(fake.prompts[3]) // 4 < read + 128 + 10  # the prompt, but its end


def test_the_fake_anthropic_writes_a_marked_prefix_then_reads_it() -> None:
    with FakeAnthropic([Reply(text="ok")] * 3) as fake:
        model = AnthropicMessages(model="claude-haiku-4-5", base_url=fake.base_url, api_key="k")
        first, second = _usage(model), _usage(model)
        other = AnthropicMessages(model="claude-sonnet-4-5", base_url=fake.base_url, api_key="k")
        third = _usage(other)  # another model has a cache of its own
    assert first.cache_write_tokens > 1024 and first.cached_input_tokens == 0
    assert (second.cached_input_tokens, second.cache_write_tokens) == (
        first.cache_write_tokens,
        0,
    )
    assert third.cached_input_tokens == 0 and third.cache_write_tokens > 1024
    assert first.input_tokens == second.input_tokens == fake.usages[0][0]
