from __future__ import annotations

from typing import Literal

from pagesight.agent.session import Session
from pagesight.agent.tool import ToolResult
from pagesight.errors import InvalidOption


async def tabs(
    session: Session,
    *,
    action: Literal["list", "new", "select", "close"] = "list",
    tab_id: int | None = None,
    url: str | None = None,
) -> ToolResult:
    """List the open tabs, open a new one, switch to one, or close one.

    Args:
        action: "list", "new" (at url, or blank), "select" (tab_id) or "close" (tab_id, or
            the current tab).
        tab_id: The tab's number, as the list (or an effect's new tab) gives it.
        url: The address a new tab opens.
    """
    browser = session.browser
    if action == "new":
        session.page = await (browser.open(url) if url else browser.new_page())
        session.latest = None
    elif action == "select":
        if tab_id is None:
            raise InvalidOption("tab_id", "select needs tab_id: the number of the tab to use")
        session.page = await browser.page(tab_id)
        session.latest = None
    elif action == "close":
        closing = session.page if tab_id is None else await browser.page(tab_id)
        others = [p for p in browser.pages if p is not closing]
        if not others:
            raise InvalidOption("tab_id", "that is the last tab; open another before closing it")
        await closing.close()
        if closing is session.page:
            session.page, session.latest = others[-1], None
    listed = []
    for page in browser.pages:
        listed.append({"id": page.id, "url": page.url, "current": page is session.page})
    lines = [f"{'*' if t['current'] else ' '} {t['id']} {t['url']}" for t in listed]
    return ToolResult(text="tabs (* = current):\n" + "\n".join(lines), value={"tabs": listed})
