"""The two replies issue 23 measured, taken through both paths a model reads them by: the MCP
server in process (attached to the test's Chromium) and the llm planner's context (a
scripted model). On replies-form.html: clicking "New contact" opens a form of eight
controls; typing "Ada Lovelace" into its Name field. ``benchmarks/replies.py`` prints their
cl100k tokens."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from mcp_types import CallToolResult, TextContent

from pagesight import Agent, Browser
from pagesight.mcp import BrowserOptions, PagesightMCP
from pagesight.messages import Message, ModelReply
from pagesight.models.model import ScriptedModel
from pagesight.planners.llm.planner import ModelPlanner
from pagesight.tokens import count_tokens

PAGE = "replies-form.html"
NAME = "Ada Lovelace"


@dataclass(frozen=True)
class Replies:
    """What the model read after each action, as sent (markers and all)."""

    opened: str
    """After clicking "New contact"."""
    typed: str
    """After typing the name into the form's Name field."""
    noted: str = ""
    """After clicking "Add a note" (which moves focus to the note), on the form's page."""

    def tokens(self) -> tuple[int, int]:
        return count_tokens(self.opened), count_tokens(self.typed)


def reply_text(result: CallToolResult) -> str:
    """Every text block of an MCP result, as the client's model reads them."""
    assert not result.is_error, result.content
    return "\n".join(c.text for c in result.content if isinstance(c, TextContent))


def ref(text: str, needle: str) -> int:
    """The id on the line holding ``needle`` (``button "New contact"``)."""
    found = re.search(rf"\[(\d+)\] {re.escape(needle)}", text)
    assert found, f"{needle!r} not in:\n{text}"
    return int(found[1])


def mcp_replies(browser: Browser, url: str, tmp_path: Path) -> Replies:
    """The replies of the MCP server in process."""
    mcp = PagesightMCP(BrowserOptions(output_dir=tmp_path, cdp_url=browser.cdp_url))

    async def run() -> Replies:
        try:
            page = reply_text(await mcp.call_tool("browser_navigate", {"url": url}))
            button = ref(page, 'button "New contact"')
            opened = reply_text(await mcp.call_tool("browser_click", {"ref": button}))
            name = ref(opened, 'textbox "Name"')
            typed = reply_text(await mcp.call_tool("browser_type", {"ref": name, "text": NAME}))
            note = ref(page, 'button "Add a note"')
            noted = reply_text(await mcp.call_tool("browser_click", {"ref": note}))
            return Replies(opened=opened, typed=typed, noted=noted)
        finally:
            await mcp.holders.close()

    return asyncio.run(run())


def _id(messages: Sequence[Message], needle: str) -> int:
    return ref("\n".join(m.content for m in messages), needle)


def planner_replies(browser: Browser, url: str, tmp_path: Path) -> Replies:
    """The llm planner's answers to the same calls (the tool message after each)."""
    model = ScriptedModel(
        [
            lambda m: ModelReply.calling("click", ref=_id(m, 'button "New contact"')),
            lambda m: ModelReply.calling("input", ref=_id(m, 'textbox "Name"'), text=NAME),
            lambda m: ModelReply.calling("click", ref=_id(m, 'button "Add a note"')),
            ModelReply.calling("done"),
        ]
    )
    agent = Agent(browser, ModelPlanner(model), out=tmp_path / "run")
    result = agent.run(url, goal="add Ada Lovelace")
    if agent.page is not None:
        agent.page.close()
    assert result.stop_reason == "done", result.message
    opened, typed, noted = (model.requests[i][-1].content for i in (1, 2, 3))
    return Replies(opened=opened, typed=typed, noted=noted)
