"""A model planner's context, driven by the scripted fake model shipped in the package: one
full observation kept, earlier ones collapsed to their action and effect, a token budget."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Sequence
from pathlib import Path

import pytest
from PIL import Image

from conftest import StaticServer
from pagesight import Agent, Browser, ContextOverflow
from pagesight.agent.profiles import shown
from pagesight.agent.untrusted import OPEN
from pagesight.messages import Message, ModelReply, ToolCall
from pagesight.models.model import ScriptedModel
from pagesight.planners.llm.context import DELTA, FULL, Context, collapsed, whole_pages
from pagesight.planners.llm.planner import ModelPlanner


def _id(messages: Sequence[Message], role: str, name: str) -> int:
    """The id a model would read off the whole page it was sent (the changes since do not
    touch these fields' ids)."""
    text = next(m.content for m in messages if m.stub is not None and FULL in m.content)
    found = re.findall(rf'\[(\d+)\] {role} "{re.escape(name)}"', text)
    assert len(found) == 1, text
    return int(found[0])


def _script() -> list[ModelReply | object]:
    return [
        lambda m: ModelReply.calling("input", ref=_id(m, "textbox", "Job title"), text="VP"),
        lambda m: ModelReply(
            tool_calls=(  # two calls in one reply: a batch, one round
                ToolCall(
                    id="a",
                    name="select",
                    arguments={"ref": _id(m, "combobox", "Location"), "values": ["Tokyo"]},
                ),
                ToolCall(id="b", name="click", arguments={"ref": _id(m, "button", "Save")}),
            )
        ),
        ModelReply.calling("observe"),  # reads the page: a whole page again
        ModelReply.calling("done", answer="saved"),
    ]


def test_the_context_keeps_one_full_observation_and_collapses_the_rest(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    model = ScriptedModel(_script())  # type: ignore[arg-type]
    planner = ModelPlanner(model)
    agent = Agent(browser, planner, out=tmp_path)
    result = agent.run(server.url("agent-contact.html"), goal="Alice: VP in Tokyo")
    try:
        assert result.stop_reason == "done" and result.answer == "saved"
        assert result.rounds == 4  # done is a round too
        assert agent.page is not None
        saved = agent.page.playwright.evaluate("window.saved")
        assert (saved["title"], saved["location"]) == ("VP", "Tokyo")
    finally:
        if agent.page is not None:
            agent.page.close()
    assert len(model.requests) == 4
    for sent in model.requests:
        assert whole_pages(sent) == 1
        assert sum(FULL in m.content for m in sent) == 1  # one outline
    # After typing, the typed value once (the effect's line): all that changed, so no change
    # list follows; the page before stays whole.
    first, typing, saving = model.requests[0], model.requests[1], model.requests[2]
    assert FULL in first[-1].content
    assert DELTA not in typing[-1].content and FULL not in typing[-1].content
    assert typing[-1].content.count('"VP"') == 1, typing[-1].content
    assert '"Job title": "Software Engineer" -> "VP"' in typing[-1].content
    assert typing[1].content == first[1].content  # the goal and the whole page, as sent
    # After saving, the batch's effects alone: the value chosen, the text that came.
    assert DELTA not in saving[-1].content and FULL not in saving[-1].content
    assert '+ text "Saved: VP, Tokyo"' in saving[-1].content
    # The page read again: whole.
    assert FULL in model.requests[3][-1].content
    last = model.requests[-1]
    system, goal, _first_call, typed, _second_call, selected, clicked, _third_call, read = last
    assert system.role == "system" and "- browsing: How to drive a web page" in system.content
    # The goal stays, its page goes.
    assert goal.content == "goal: Alice: VP in Tokyo\n(page dropped)"
    # An earlier action keeps its effect, not the element list.
    assert typed.role == "tool" and typed.tool_call_id is not None
    assert '"Job title": "Software Engineer" -> "VP"' in typed.content
    assert 'button "Archive"' not in typed.content
    # Each call of a batch is answered, with the last: each step's effect, kept without the
    # texts that came (the page after it shows them).
    assert (selected.tool_call_id, clicked.tool_call_id) == ("a", "b")
    assert selected.content.startswith("(ran in one batch with the calls after it")
    assert "\nselect [" in clicked.content and "\nclick [" in clicked.content  # each's effect
    assert '"Location": "London" -> "Tokyo"' in clicked.content
    assert "Saved: VP" not in clicked.content and "(change dropped)" in clicked.content
    assert 'button "Archive"' in read.content and FULL in read.content
    # The model was offered the core profile's tools, with the registry's schemas; the
    # tools it called by name (select, click) ran all the same.
    assert {t.name for t in model.tools[0]} == {*shown(agent.registry, "core", skills=True)}
    act = next(t for t in model.tools[0] if t.name == "act")
    assert act.input_schema == agent.registry.get("act").input_schema
    # The planner's raw answer is in the record.
    line = json.loads((tmp_path / "run.jsonl").read_text().splitlines()[1])
    assert [c["id"] for c in line["decision"]["raw"]["tool_calls"]] == ["a", "b"]


def test_a_tool_that_read_the_page_collapses_to_its_call_not_to_its_copy_of_the_page(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    # observe and page_perceive answer with the page itself: kept as an effect, every read
    # would stay in the context for good.
    model = ScriptedModel(
        [
            ModelReply.calling("observe"),
            ModelReply.calling("page_perceive"),
            ModelReply.calling("observe", view="interactive"),
            ModelReply.calling("done"),
        ]
    )
    agent = Agent(browser, ModelPlanner(model), out=tmp_path)
    result = agent.run(server.url("agent-contact.html"), goal="look")
    if agent.page is not None:
        agent.page.close()
    assert result.stop_reason == "done"
    for sent in model.requests:
        holding = [m for m in sent if 'button "Archive"' in m.content]
        assert holding == [sent[-1]]  # only the latest message holds the page
    _system, _goal, _c1, observed, _c2, perceived, _c3, latest = model.requests[-1]
    assert observed.content == "observe read the page\n(page dropped)"
    assert perceived.content == "page_perceive read the page\n(page dropped)"
    assert latest.content.startswith(f'{OPEN}\npage "Edit contact')  # the reading, then the page


def test_a_context_over_its_budget_stops_the_run_with_the_counts(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    model = ScriptedModel(_script())  # type: ignore[arg-type]
    agent = Agent(browser, ModelPlanner(model, budget=200), out=tmp_path)
    result = agent.run(server.url("agent-contact.html"), goal="Alice: VP in Tokyo")
    if agent.page is not None:
        agent.page.close()
    assert result.stop_reason == "context_overflow"
    assert re.fullmatch(
        r"the model's context holds [\d,]+ tokens, over its budget of 200; .*", result.message
    )
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["stop_reason"] == "context_overflow" and summary["reached"] is False


def test_context_overflow_carries_the_counts_and_eviction_frees_tokens() -> None:
    context = Context(system="You drive a browser.", budget=1_000)
    page = "\n".join(f'[{i}] button "Button number {i}"' for i in range(40))
    context.add(context.observation("goal: x", page), observation=True)
    full = context.tokens
    context.add(
        Message(role="assistant", content="", tool_calls=(ToolCall(id="1", name="observe"),))
    )
    context.add(
        context.observation("observe -> no_op", page, role="tool", tool_call_id="1"),
        observation=True,
    )
    assert context.tokens < 2 * full - 100  # the first outline was dropped
    assert collapsed(context.messages) == 1
    with pytest.raises(ContextOverflow) as caught:
        for _ in range(10):
            context.add(context.observation("again", page), observation=False)
    assert caught.value.budget == 1_000 and caught.value.tokens > 1_000
    assert caught.value.exit_code == 3


def test_the_default_budget_is_128000_tokens_and_the_error_says_both_counts() -> None:
    context = Context(system="You drive a browser.")
    assert context.budget == 128_000
    page = "\n".join(f'[{i}] button "Button number {i}"' for i in range(5_400))
    message = context.observation("goal: x", page)
    assert 60_000 < message.tokens < 64_000  # so two fit, three do not
    context.add(message, observation=True)
    context.add(Message(role="user", content=page))  # no observation: nothing collapses
    with pytest.raises(ContextOverflow) as caught:
        context.add(Message(role="user", content=page))
    tokens = caught.value.tokens
    assert caught.value.budget == 128_000 and 128_000 < tokens == context.tokens
    assert str(caught.value).startswith(
        f"the model's context holds {tokens:,} tokens, over its budget of 128,000; "
    )


def test_an_image_counts_its_pixels_in_the_budget() -> None:
    png = Image.new("RGB", (1280, 800), "white")
    data = io.BytesIO()
    png.save(data, format="PNG")
    plain = Message(role="user", content="the page")
    shown = Message(role="user", content="the page", images=(data.getvalue(),))
    assert shown.tokens - plain.tokens == 1366  # 1280 x 800 / 750, rounded up
