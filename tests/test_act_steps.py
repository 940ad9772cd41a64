"""The ``act`` tool (the steps language over ids, one call for a whole form), ``use_tool``
(every other tool, by name) and the tool profiles a model is shown."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from mcp_types import TextContent

from agent_support import ref
from conftest import StaticServer
from model_support import GOAL, SAVED, latest_page
from model_support import ref as ref_in
from pagesight import Action, Agent, Browser, Done, RunResult, StepsError
from pagesight.agent import ScriptedPlanner, State
from pagesight.agent.idsteps import TOOLS, CheckLine, DoneLine, ToolLine, parse_steps, refs
from pagesight.agent.profiles import ACTED, CORE, ON_DEMAND, shown, specs
from pagesight.agent.registry import ToolRegistry
from pagesight.agent.untrusted import OPEN
from pagesight.cli.progress import progress_lines
from pagesight.demo import OrbitApp
from pagesight.mcp.browsers import BrowserOptions
from pagesight.mcp.server import PagesightMCP
from pagesight.models.openai_chat import OpenAIChat
from pagesight.planners.llm.planner import ModelPlanner
from pagesight.runs.replay import compile_run
from pagesight.testing import FakeOpenAI, Reply


def test_steps_over_ids_are_the_page_tools_calls() -> None:
    lines = parse_steps(
        'type "Ada" into [5]\nselect "Tokyo" in [6] "the Location menu"\n# a comment\n'
        "click [4]\npress Enter in [5]\nscroll down\nscroll up in [8]\ndrag [4] to [9]\ngo back\n"
        'expect "Saved"\nexpect [5] to be "Ada"\ndone "Tokyo"'
    )
    calls = [(x.tool, x.arguments) for x in lines if isinstance(x, ToolLine)]
    assert calls == [
        ("input", {"ref": 5, "text": "Ada"}),
        ("select", {"ref": 6, "values": ["Tokyo"]}),
        ("click", {"ref": 4}),
        ("press_key", {"key": "Enter", "ref": 5}),
        ("scroll", {"direction": "down"}),
        ("scroll", {"direction": "up", "ref": 8}),
        ("drag", {"ref": 4, "to_ref": 9}),
        ("back", {}),
    ]
    checks = [(c.kind, c.value, c.ref) for c in lines if isinstance(c, CheckLine)]
    assert checks == [("expect_text", "Saved", None), ("expect_value", "Ada", 5)]
    assert lines[-1] == DoneLine(line=12, text='done "Tokyo"', answer="Tokyo")
    assert parse_steps("完成 “东京”") == (DoneLine(line=1, text="完成 “东京”", answer="东京"),)
    assert refs('click [4]\ntype "x" into [7]\ndrag [1] to [2]') == [4, 7, 1, 2]
    assert {tool for tool, _ in calls} <= TOOLS  # the tools use_tool's list leaves out


@pytest.mark.parametrize(
    ("steps", "said"),
    [
        ('click "Save"', "line 1: name the element by its id in brackets, the number the page "),
        ("done\nclick [4]", "line 1: done must be the last step"),
        ("fly to [4]", "line 1: 'fly to [4]' is not a step; a step is one of: click [4], type"),
        ("doneness [4]", "line 1: 'doneness [4]' is not a step"),  # not a done saying "ness [4]"
        ("\n# nothing\n", "give at least one step"),
        ('click [4]\nexpect ""', 'line 2: expect "": give the text the page should show'),
        # The steps planner's dialog step is a tool call, not a page action a batch runs.
        ("click [4]\naccept the next dialog", "line 2: accept the next dialog: not a line of act"),
    ],
)
def test_a_step_that_cannot_run_is_refused_naming_its_line(steps: str, said: str) -> None:
    with pytest.raises(StepsError) as caught:
        parse_steps(steps)
    assert str(caught.value).startswith(said)


def _run(browser: Browser, planner: Any, url: str, out: Path) -> tuple[RunResult, Any]:
    agent = Agent(browser, planner, out=out)
    result = agent.run(url, goal="move Alice to Tokyo as CFO")
    assert agent.page is not None
    saved = agent.page.playwright.evaluate("window.saved")
    agent.page.close()
    return result, saved


def test_one_act_call_fills_saves_and_ends_the_run_when_its_expectation_holds(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    def everything(s: State) -> Action:
        steps = (
            f'type "CFO" into [{ref(s, "Job title", "textbox")}]\n'
            f'select "Tokyo" in [{ref(s, "Location", "combobox")}]\n'
            f"click [{ref(s, 'Save', 'button')}]\n"
            'expect "Saved: CFO, Tokyo"\n'
            'done "saved"'
        )
        return Action(tool="act", arguments={"steps": steps})

    planner = ScriptedPlanner([everything, Done(answer="not asked again")])
    result, saved = _run(browser, planner, server.url("agent-contact.html"), tmp_path)
    assert result.stop_reason == "done" and result.answer == "saved"
    assert result.rounds == 1 and len(result.steps) == 1  # no round only to say done
    assert saved["title"] == "CFO" and saved["location"] == "Tokyo"
    (call,) = result.steps[0].calls
    assert [line.get("status") or line.get("ok") for line in call.value["lines"][:4]] == [
        "done",
        "done",
        "done",
        True,
    ]
    # The terminal shows a line a step, with the element each resolved to.
    shown = progress_lines(result.steps[0])
    assert [line.step for line in shown] == [x for x in everything_steps(result)]
    assert shown[0].element == 'textbox "Job title" in "Alice Chen"'
    assert [line.effect for line in shown][-2:] == ["ok", "done"] and all(x.ok for x in shown)
    # What the model did is a replayable steps file, in words.
    steps = (tmp_path / "steps.txt").read_text(encoding="utf-8").splitlines()
    said = [line.split("  @ ")[0] for line in steps if not line.startswith("#")]
    assert said == [
        'type "CFO" into "Job title" field in "Alice Chen"',
        'select "Tokyo" in "Location" dropdown in "Alice Chen"',
        'click "Save" button in "Alice Chen"',
        'expect "Saved: CFO, Tokyo"',
    ]


def everything_steps(result: RunResult) -> list[str]:
    """The lines of the run's first act call, as the model wrote them."""
    return [line for line in result.steps[0].calls[0].arguments["steps"].splitlines()]


def test_an_expectation_that_fails_keeps_the_run_going_with_what_the_page_shows(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    def save(s: State) -> Action:
        steps = f'click [{ref(s, "Save", "button")}]\nexpect "Order placed"\ndone'
        return Action(tool="act", arguments={"steps": steps})

    planner = ScriptedPlanner([save, Done()])
    result, saved = _run(browser, planner, server.url("agent-contact.html"), tmp_path)
    assert saved is not None  # the click ran
    assert result.rounds == 2  # the act that did not end it, then the planner's own done
    (call,) = result.steps[0].calls
    assert call.error is not None and call.error.reason == "expectation_failed"
    assert "expected the page to show 'Order placed'; seen: " in call.error.message
    assert "Saved: Software Engineer, London" in call.text  # the closest text the page shows
    assert result.steps[1].number == 2  # the planner was asked again, on the page after


def test_a_failing_step_stops_the_lines_after_it(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    def stuck(s: State) -> Action:
        steps = f"click [{ref(s, 'Archive', 'button')}]\nclick [{ref(s, 'Save', 'button')}]"
        return Action(tool="act", arguments={"steps": steps})

    result, saved = _run(
        browser, ScriptedPlanner([stuck, Done()]), server.url("agent-contact.html"), tmp_path
    )
    (call,) = result.steps[0].calls
    assert call.error is not None and call.error.reason == "disabled"
    assert saved is None  # Save, after the disabled Archive, never ran
    assert [line["status"] for line in call.value["lines"]] == ["failed", "not_run"]
    # steps.txt replays what ran: neither the click that failed nor the one after it.
    written = (tmp_path / "steps.txt").read_text(encoding="utf-8").splitlines()
    assert [line for line in written if not line.startswith("#")] == []


def test_use_tool_reads_a_tools_arguments_then_calls_it(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    def read(s: State) -> Action:
        return Action(tool="use_tool", arguments={"name": "tabs"})

    def call(s: State) -> Action:
        return Action(tool="use_tool", arguments={"name": "tabs", "arguments": {"action": "list"}})

    def unknown(s: State) -> Action:
        return Action(tool="use_tool", arguments={"name": "teleport"})

    def itself(s: State) -> Action:  # not a way to nest calls without end
        inner = {"name": "use_tool", "arguments": {"name": "tabs", "arguments": {}}}
        return Action(tool="use_tool", arguments=inner)

    planner = ScriptedPlanner([read, call, unknown, itself, Done()])
    result, _ = _run(browser, planner, server.url("agent-contact.html"), tmp_path)
    described, listed, refused, nested = (s.calls[0] for s in result.steps[:4])
    assert nested.error is not None and nested.error.reason == "unknown_tool"
    assert described.text.startswith("tabs: List the open tabs")
    assert json.loads(described.text.split("arguments: ", 1)[1])["properties"]["action"]["enum"]
    assert listed.text.startswith("tabs (* = current):") and "agent-contact.html" in listed.text
    assert refused.error is not None and refused.error.reason == "unknown_tool"


def test_core_shows_a_few_tools_and_reaches_every_other(tmp_path: Path) -> None:
    folder = tmp_path / "tools"
    folder.mkdir()
    (folder / "greet.py").write_text(
        "async def greet(session, *, name: str) -> str:\n"
        '    """Say hello.\n\n    Args:\n        name: Who to greet.\n    """\n'
        '    return f"hello {name}"\n',
        encoding="utf-8",
    )
    registry = ToolRegistry.discover([folder])
    assert set(shown(registry, "core")) == {*CORE, ON_DEMAND, "greet"}  # a user's tool too
    assert set(shown(registry, "core", skills=True)) == {*CORE, ON_DEMAND, "greet", "load_skill"}
    assert {"screenshot", "click_xy"} <= set(shown(registry, "vision"))
    assert set(shown(registry, "full")) == set(registry.names) - {"act", ON_DEMAND}
    listing = next(s for s in specs(registry, "core") if s.name == ON_DEMAND).description
    named = set(listing.split("Tools: ", 1)[1].rstrip(".").split(", "))
    # Every tool is shown, named in use_tool's list, or one whose work act's lines do.
    assert set(registry.names) == set(shown(registry, "core")) | named | ACTED
    assert not named & ACTED


def _capable_act(body: dict[str, Any]) -> Reply:
    """The demo task as a capable model does it with ``act``: open Alice's form, then fill,
    save, check and finish in one call."""
    page = latest_page(body)
    if 'h1 "Edit contact: Alice Chen"' in page:
        title = ref_in(page, r'\[(\d+)\] textbox "Job title"')
        location = ref_in(page, r'\[(\d+)\] combobox "Location"')
        save = ref_in(page, r'\[(\d+)\] button "Save"')
        steps = (
            f'type "Senior Software Engineer" into [{title}]\n'
            f'select "New York" in [{location}]\n'
            f"click [{save}]\n"
            'expect "Senior Software Engineer"\n'
            "done"
        )
        return Reply.calling("act", steps=steps)
    edit = ref_in(page, r'row: \[\d+\] link "Alice Chen" .*?\[(\d+)\] link "Edit"')
    return Reply.calling("act", steps=f"click [{edit}]")


def test_the_llm_planner_does_the_demo_task_in_two_rounds_with_act(
    browser: Browser, tmp_path: Path
) -> None:
    with OrbitApp.start() as app, FakeOpenAI([_capable_act] * 3, api_key="sk-test") as fake:
        model = OpenAIChat(model="gpt-4.1-mini", base_url=fake.base_url, api_key="sk-test")
        agent = Agent(browser, ModelPlanner(model), max_steps=6, out=tmp_path / "run")
        result = agent.run(app.url, GOAL)
        rows = app.query("SELECT job_title, location FROM contacts WHERE name = 'Alice Chen'")
    assert result.stop_reason == "done", result.message
    assert rows == SAVED
    assert result.rounds == 2 and len(fake.requests) == 2
    # Every request shows the same few tools, first, unchanged (a provider caches them).
    shown_tools = [[t["function"]["name"] for t in r["tools"]] for r in fake.requests]
    assert shown_tools[0] == shown_tools[1]
    assert set(shown_tools[0]) == {"act", "observe", "find_element", "use_tool", "load_skill"}
    assert fake.requests[0]["messages"][0] == fake.requests[1]["messages"][0]


def test_go_to_a_path_is_read_against_the_page_it_runs_on(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    def there(s: State) -> Action:
        steps = f"click [{ref(s, 'Save', 'button')}]\ngo to agent-done.html"
        return Action(tool="act", arguments={"steps": steps})

    result, _ = _run(
        browser, ScriptedPlanner([there, Done()]), server.url("agent-contact.html"), tmp_path
    )
    (call,) = result.steps[0].calls
    went = [line["arguments"] for line in call.value["lines"] if line["tool"] == "navigate"]
    assert went == [{"url": server.url("agent-done.html")}]
    assert [line["status"] for line in call.value["lines"]] == ["done"] * 2
    assert result.final_url == server.url("agent-done.html")


def test_an_act_answer_says_each_fact_once_with_no_page_when_the_effects_said_it_all(
    tmp_path: Path, browser: Browser, server: StaticServer
) -> None:
    mcp = PagesightMCP(BrowserOptions(output_dir=tmp_path, cdp_url=browser.cdp_url))

    async def calls() -> tuple[str, str]:
        try:
            opened = await mcp.call_tool("browser_navigate", {"url": server.url("booking.html")})
            book = _id(_text(opened), 'button "Book a table"')
            form = _text(await mcp.call_tool("browser_act", {"steps": f"click [{book}]"}))
            name, party = _id(form, 'textbox "Full name"'), _id(form, 'combobox "Party size"')
            agree, confirm = (
                _id(form, 'checkbox "I agree to the terms"'),
                _id(form, 'button "Confirm"'),
            )
            steps = (
                f'type "Ada Lovelace" into [{name}]\n'
                f'select "4 people" in [{party}]\n'
                f"click [{agree}]\n"
                f"click [{confirm}]\n"
                'expect "Booking confirmed"'
            )
            return form, _text(await mcp.call_tool("browser_act", {"steps": steps}))
        finally:
            await mcp.holders.close()

    _, answer = asyncio.run(calls())
    # The typed value, the status line and the check, once each; no page after them: every
    # change was one the effects named.
    assert answer.count("Ada Lovelace") == 2  # typed, and in the confirmation
    assert answer.count("Booking confirmed for Ada Lovelace") == 1
    assert "page now:" not in answer and "what changed" not in answer
    assert answer.count(OPEN) == 1


def _text(result: Any) -> str:
    return "".join(c.text for c in result.content if isinstance(c, TextContent))


def _id(text: str, line: str) -> int:
    found = re.search(rf"\[(\d+)\] {re.escape(line)}", text)
    assert found, f"{line} not in {text}"
    return int(found.group(1))


def test_a_failed_expectation_quotes_no_secret_in_its_error(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    # The error's message says what the field holds: the secret typed there, which a program
    # reading the run's result (not only its records) must see as {{TOKEN}}.
    def check(s: State) -> Action:
        token = ref(s, "API token", "textbox")
        steps = f'type "{{{{TOKEN}}}}" into [{token}]\nexpect [{token}] to be "something else"'
        return Action(tool="act", arguments={"steps": steps})

    agent = Agent(browser, ScriptedPlanner([check, Done()]), out=tmp_path, secrets=SECRET)
    result = agent.run(server.url("agent-contact.html"), goal="check the token")
    assert agent.page is not None
    agent.page.close()
    (call,) = result.steps[0].calls
    assert call.error is not None and call.error.reason == "expectation_failed"
    assert "seen: '{{TOKEN}}'" in call.error.message
    assert "tok-4921" not in repr(result)


SECRET = {"TOKEN": "tok-4921"}


def test_a_call_through_use_tool_is_written_to_steps_txt_as_the_call_it_makes(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    # In core, fill_form, handle_dialog or a double click are reached only through use_tool:
    # what they did must still reach steps.txt, and their elements the record's targets.
    def fill(s: State) -> Action:
        field = {"ref": ref(s, "Job title", "textbox"), "value": "CTO"}
        inner = {"name": "fill_form", "arguments": {"fields": [field]}}
        return Action(tool="use_tool", arguments=inner)

    def save(s: State) -> Action:
        inner = {"name": "click", "arguments": {"ref": ref(s, "Save", "button")}}
        return Action(tool="use_tool", arguments=inner)

    def steps(s: State) -> Action:
        said = f'select "Tokyo" in [{ref(s, "Location", "combobox")}]'
        return Action(tool="use_tool", arguments={"name": "act", "arguments": {"steps": said}})

    result, saved = _run(
        browser, ScriptedPlanner([fill, save, steps, Done()]), server.url("agent-contact.html"),
        tmp_path,
    )  # fmt: skip
    assert saved["title"] == "CTO"
    assert [t["name"] for t in result.steps[1].targets] == ["Save"]
    written = (tmp_path / "steps.txt").read_text(encoding="utf-8").splitlines()
    said = [line.split("  @ ")[0] for line in written if not line.startswith("# The run")]
    assert said[-3].startswith("# filled the fields [") and "in one round" in said[-3]
    assert said[-2:] == [
        'click "Save" button in "Alice Chen"',
        'select "Tokyo" in "Location" dropdown in "Alice Chen"',
    ]
    (shown,) = progress_lines(result.steps[2])  # a line a step, as for act by its name
    assert shown.step.startswith('select "Tokyo" in [') and shown.effect == "value_change"


def test_wait_for_in_act_waits_for_a_text_that_comes_later(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    # "Import finished" shows 600 ms after the click: a wait for polls for it (an expect,
    # reading the page once, would not see it yet).
    def start(s: State) -> Action:
        steps = f'click [{ref(s, "Start import", "button")}]\nwait for "Import finished"\ndone'
        return Action(tool="act", arguments={"steps": steps})

    agent = Agent(browser, ScriptedPlanner([start, Done()]), out=tmp_path)
    result = agent.run(server.url("tools-wait-for.html"), goal="import")
    assert agent.page is not None
    agent.page.close()
    (call,) = result.steps[0].calls
    assert call.error is None, call.text
    assert result.stop_reason == "done" and result.rounds == 1
    assert call.value["lines"][1] == {
        "step": 'wait for "Import finished"',
        "check": "wait_for",
        "value": "Import finished",
        "ref": None,
        "ok": True,
    }


def test_a_risky_line_after_a_check_is_asked_about_before_any_line_runs(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    asked: list[str] = []

    def person(risk: Any) -> bool:
        asked.append(risk.action)
        return False  # declined: nothing may have run

    def save_then_delete(s: State) -> Action:
        steps = (
            f"click [{ref(s, 'Save profile', 'button')}]\n"
            'wait for "save"\n'
            f"click [{ref(s, 'Delete account', 'button')}]"
        )
        return Action(tool="act", arguments={"steps": steps})

    agent = Agent(
        browser,
        ScriptedPlanner([save_then_delete, Done()]),
        out=tmp_path,
        confirm="risky",
        confirmer=person,
    )
    result = agent.run(server.url("confirm-risky.html"), goal="save, then delete")
    assert agent.page is not None
    done = agent.page.playwright.evaluate("window.log")
    agent.page.close()
    assert len(asked) == 1 and "Delete account" in asked[0]  # asked once, first
    assert done == []  # Save, before the risky line, did not run either
    (call,) = result.steps[0].calls
    assert call.error is not None and call.error.reason == "declined_by_person"
    assert call.error.message.startswith("line 3: ") and "nothing was run" in call.error.message


def test_steps_txt_says_a_scroll_of_the_page_as_a_comment() -> None:
    line = {"tool": "scroll", "arguments": {"direction": "down"}, "status": "done"}
    record = {
        "url": "http://127.0.0.1:9/",
        "decision": {"type": "action", "tool": "act", "arguments": {"steps": "scroll down"}},
        "calls": [{"tool": "act", "ok": True, "value": {"lines": [line]}}],
        "targets": [],
    }
    written = compile_run([record]).splitlines()
    assert written[-1] == "# scrolled the page down (the steps language has no step for it)"
