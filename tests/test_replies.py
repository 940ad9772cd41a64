"""An action's reply says each fact once, in one block (issue 23): the MCP server's reply and
the llm planner's answer to a tool call, on replies-form.html in the test's Chromium. Clicking
"New contact" opens a form of eight controls; typing a name into its Name field; clicking "Add
a note", which moves focus to the note."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import StaticServer
from pagesight import Browser
from pagesight.agent.secrets import Secrets
from pagesight.agent.untrusted import CLOSE, OPEN
from pagesight.mcp import BrowserOptions, PagesightMCP
from pagesight.planners.llm.context import DELTA, FULL
from pagesight.tokens import count_tokens
from replies_support import NAME, PAGE, Replies, mcp_replies, planner_replies, ref, reply_text

CONTROLS = (
    'textbox "Name"',
    'textbox "Email"',
    'textbox "Phone"',
    'textbox "Company"',
    'combobox "Role"',
    'checkbox "Newsletter"',
    'button "Save"',
    'button "Cancel"',
)
PATHS: dict[str, Callable[[Browser, str, Path], Replies]] = {
    "mcp": mcp_replies,
    "planner": planner_replies,
}


@pytest.fixture(scope="module")
def both(
    browser: Browser, server: StaticServer, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Replies]:
    """The replies by each path, taken once for the module."""
    url = server.url(PAGE)
    return {name: take(browser, url, tmp_path_factory.mktemp(name)) for name, take in PATHS.items()}


@pytest.fixture(params=sorted(PATHS))
def replies(request: pytest.FixtureRequest, both: dict[str, Replies]) -> Replies:
    return both[request.param]


def _inside(reply: str) -> str:
    """The reply's text, asserting it is one block inside one pair of markers."""
    assert reply.count(OPEN) == 1 and reply.count(CLOSE) == 1, reply
    assert reply.startswith(OPEN + "\n") and reply.endswith("\n" + CLOSE), reply
    return reply[len(OPEN) + 1 : -len(CLOSE) - 1]


def test_each_reply_is_one_block_inside_one_pair_of_markers(replies: Replies) -> None:
    for reply in (replies.opened, replies.typed, replies.noted):
        _inside(reply)


def test_a_typed_value_is_said_once_and_focus_on_the_field_typed_into_is_no_news(
    replies: Replies,
) -> None:
    typed = _inside(replies.typed)
    field = re.search(r"^input \[(\d+)\] -> value_change$", typed, re.M)
    assert field, typed
    # The effect's line confirms the value; no change list says it again, nor that the field
    # took focus, nor that the button clicked before lost it.
    assert typed.splitlines() == [
        f"input [{field[1]}] -> value_change",
        f'  value [{field[1]}] textbox "Name": - -> "{NAME}"',
    ]
    assert DELTA not in replies.typed and "focused" not in replies.typed
    assert count_tokens(replies.typed) <= 50  # the reply was 144 tokens


def test_a_form_that_opens_lists_each_new_control_once_with_its_context(
    replies: Replies,
) -> None:
    opened = _inside(replies.opened)
    lines = opened.splitlines()
    assert re.fullmatch(r"click \[\d+\] -> dom_change", lines[0]), opened
    # The effect's kinds, then what changed: each control once, under its form's name
    # (said once), none of them again in the effect, nor its count of them.
    assert lines[1] == DELTA and "elements:" not in opened
    assert lines[3:5] == ["changes: 8 added, 0 removed, 0 changed", 'in "New contact":']
    assert opened.count("New contact") == 1, opened
    for control in CONTROLS:
        (line,) = [line for line in lines if control in line]
        assert re.match(rf"  \+ \[\d+\] {re.escape(control)}", line), line
    # The button clicked took focus: no news.
    assert "focused" not in opened and "~ [" not in opened
    assert count_tokens(replies.opened) <= 180  # the reply listed them twice in 304 tokens


def test_focus_moving_elsewhere_is_said_once(replies: Replies) -> None:
    noted = _inside(replies.noted)
    note = re.search(r"^click \[(\d+)\] -> focus_change$", noted, re.M)
    assert note, noted
    # Where focus went, by the effect's line; not again as the note's or the name field's
    # change (the name field lost focus to it).
    (focus,) = noted.splitlines()[1:]
    assert re.fullmatch(r'  focus: \[\d+\] textbox "Note"', focus), noted
    assert DELTA not in noted and FULL not in noted and NAME not in noted


def test_both_paths_give_the_same_reply(both: dict[str, Replies]) -> None:
    # One rule: the MCP server and the llm planner answer the same calls alike (the ids
    # aside: the planner's tab is the test browser's, where ids are numbered on from earlier
    # tests).
    def said(replies: Replies) -> list[str]:
        return [
            re.sub(r"\[\d+\]", "[n]", r) for r in (replies.opened, replies.typed, replies.noted)
        ]

    assert said(both["mcp"]) == said(both["planner"])


def test_a_secret_typed_is_said_once_as_its_name(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    # The effect's value is masked and the page's is not: still the same value, said once.
    options = BrowserOptions(
        output_dir=tmp_path, cdp_url=browser.cdp_url, secrets=Secrets({"TOKEN": "tok-4821"})
    )
    mcp = PagesightMCP(options)

    async def run() -> str:
        try:
            page = reply_text(await mcp.call_tool("browser_navigate", {"url": server.url(PAGE)}))
            opened = reply_text(
                await mcp.call_tool("browser_click", {"ref": ref(page, 'button "New contact"')})
            )
            company = ref(opened, 'textbox "Company"')
            args = {"ref": company, "text": "{{TOKEN}}"}
            return reply_text(await mcp.call_tool("browser_type", args))
        finally:
            await mcp.holders.close()

    typed = _inside(asyncio.run(run()))
    assert "tok-4821" not in typed and DELTA not in typed, typed
    assert typed.count("{{TOKEN}}") == 1 and len(typed.splitlines()) == 2, typed
