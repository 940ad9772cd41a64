"""The reference model (pagesight.testing.reference) over real HTTP with the real openai SDK:
it does Orbit's demo task through pagesight's llm planner by reading each id off the page it
was shown, and when the page shows no element for its next intent it reads the page once and
then says so in words, never acting on an id it was not shown."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pagesight import Agent, Browser, RunResult
from pagesight.demo import DEMO_STEPS, OrbitApp
from pagesight.models import open_model
from pagesight.planners.llm.planner import ModelPlanner
from pagesight.testing import ReferenceModel, read_intents
from pagesight.testing.reference import (
    ActDialect,
    Conversation,
    Dialect,
    Intent,
    McpActDialect,
    Observation,
    Seen,
    outline_elements,
    resolve,
)

GOAL = "Alice Chen: job title Senior Software Engineer, location New York"


@contextmanager
def _run(
    browser: Browser, intents: tuple[Intent, ...], out: Path
) -> Iterator[tuple[RunResult, Conversation, OrbitApp]]:
    with ReferenceModel(api_key="sk-reference") as reference, OrbitApp.start() as app:
        talk = reference.conversation(intents, ActDialect())
        model = open_model("openai:gpt-4.1-mini", base_url=talk.base_url, api_key="sk-reference")
        agent = Agent(browser, ModelPlanner(model), out=out, max_steps=8)
        try:
            result = agent.run(app.url, goal=GOAL)
        finally:
            if agent.page is not None:
                agent.page.playwright.context.clear_cookies(name="lang")
                agent.page.close()
        assert not reference.errors
        yield result, talk, app


def _calls(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The tool calls of every assistant message a request carries."""
    return [c for m in body["messages"] for c in m.get("tool_calls") or []]


def test_reference_model_does_the_demo_task_reading_ids_off_the_page(
    browser: Browser, tmp_path: Path
) -> None:
    intents = read_intents(DEMO_STEPS.read_text(encoding="utf-8"))
    with _run(browser, intents, tmp_path) as (result, talk, app):
        assert result.stop_reason == "done"
        rows = app.query("SELECT job_title, location FROM contacts WHERE name = 'Alice Chen'")
        assert rows == [{"job_title": "Senior Software Engineer", "location": "New York"}]
        # Search and open her; Edit; her form, Save, both checks and done: three responses.
        assert talk.rounds == 3 and talk.finished
        last_act = talk.dialect.render(talk.plans[-1], talk.requests[-1]).tool_calls[0][1]
        assert isinstance(last_act, dict)
        steps = str(last_act["steps"]).splitlines()
        assert steps[-3:] == ['expect "Senior Software Engineer"', 'expect "New York"', "done"]
        # Every id it used was on the page it was shown in that request.
        for body, plan in zip(talk.requests, talk.plans, strict=True):
            shown = "\n".join(str(m.get("content")) for m in body["messages"])
            for _, element in plan.acts:
                if element is not None:
                    assert f"[{element.ref}] {element.role}" in shown


def test_reference_model_refuses_in_words_when_the_page_has_no_such_element(
    browser: Browser, tmp_path: Path
) -> None:
    intents = read_intents('click the Archive everything button\nexpect "Archived"')
    with _run(browser, intents, tmp_path) as (result, talk, _):
        assert result.stop_reason == "model_no_tool_call"
        assert talk.refusal is not None and "Archive everything" in talk.refusal
        # It read the page once (observe) before giving up, and never acted.
        calls = _calls(talk.requests[-1])
        assert [c["function"]["name"] for c in calls] == ["observe"]
        assert not talk.finished


def test_resolve_takes_role_and_name_from_the_outline_and_invents_nothing() -> None:
    page = (
        "main\n"
        "  table\n"
        '    row: [9] link "Alice Chen" | London | [10] link "Edit"\n'
        '    row: [11] link "Bob Martin" | New York | [12] link "Edit"\n'
        '  [13] button "Save"\n'
    )
    elements, removed = outline_elements(page)
    assert not removed

    def ref(line: str) -> str | None:
        found = resolve(read_intents(line)[0], elements)
        return None if found is None else found.ref

    assert ref("click Bob Martin's Edit link") == "12"
    assert ref('click the Edit link in "Alice Chen"') == "10"
    assert ref("click Save") == "13"
    assert ref("click the Delete button") is None
    assert ref('type "x" into Save') is None  # a button is not typed into
    assert re.fullmatch(r"\d+", ref("click the Alice Chen link") or "")


def _seen(*elements: Seen) -> Observation:
    return Observation(elements=elements, text="", fresh=True)


class _NativeOnly(Dialect):
    """A stack whose select takes a native <select> only, answering a dialog in the
    response that opens it (as Playwright MCP and agent-browser do)."""

    select_needs_options = True


def test_a_dialog_is_answered_alone_in_pagesight_and_with_its_click_elsewhere() -> None:
    intents = read_intents("accept the next dialog\nclick the Delete contact button")
    delete = Seen(ref="4", role="button", name="Delete contact")
    alone = Conversation(key="a", origin="", intents=intents, dialect=ActDialect())
    first = alone.plan(_seen(delete))
    assert [i.kind for i, _ in first.acts] == ["accept_dialog"]
    said = ActDialect().render(first, {})
    assert said.tool_calls == (
        ("use_tool", {"name": "handle_dialog", "arguments": {"accept": True}}),
    )
    assert [i.kind for i, _ in alone.plan(_seen(delete)).acts] == ["click"]
    mcp = McpActDialect().render(
        Conversation(key="m", origin="", intents=intents, dialect=McpActDialect()).plan(
            _seen(delete)
        ),
        {},
    )
    assert [name for name, _ in mcp.tool_calls] == ["browser_use_tool", "browser_act"]
    together = Conversation(key="t", origin="", intents=intents, dialect=_NativeOnly())
    assert [i.kind for i, _ in together.plan(_seen(delete)).acts] == ["accept_dialog", "click"]


def test_a_combobox_shown_without_options_is_opened_then_its_option_clicked() -> None:
    intents = read_intents('select "Data" in the Team combobox\nclick Create contact')
    create = Seen(ref="9", role="button", name="Create contact")
    native = Seen(ref="5", role="combobox", name="Team", options=("Data", "Sales"))
    custom = Seen(ref="5", role="combobox", name="Team")
    # pagesight's select takes either kind; so does a stack's select a native one it shows.
    for dialect, team in ((ActDialect(), custom), (_NativeOnly(), native)):
        talk = Conversation(key="s", origin="", intents=intents, dialect=dialect)
        plan = talk.plan(_seen(team, create))
        assert [i.kind for i, _ in plan.acts] == ["select", "click"]
    talk = Conversation(key="c", origin="", intents=intents, dialect=_NativeOnly())
    opened = talk.plan(_seen(custom, create))
    assert [(i.text, e and e.ref) for i, e in opened.acts] == [("click the Team combobox", "5")]
    assert opened.changed  # the list it opens is read in the next observation
    data = Seen(ref="12", role="option", name="Data")
    sales = Seen(ref="13", role="option", name="Sales")
    chosen = talk.plan(_seen(custom, sales, data, create))
    assert [e and e.ref for _, e in chosen.acts] == ["12", "9"]


def test_a_stack_that_accepts_dialogs_itself_has_nothing_to_do_for_one() -> None:
    class Accepts(Dialect):
        dialogs_accepted = True

    intents = read_intents("accept the next dialog\nclick the Delete contact button")
    talk = Conversation(key="d", origin="", intents=intents, dialect=Accepts())
    plan = talk.plan(_seen(Seen(ref="4", role="button", name="Delete contact")))
    assert [i.kind for i, _ in plan.acts] == ["click"] and plan.remaining == 0
