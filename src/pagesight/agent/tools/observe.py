from __future__ import annotations

from typing import Literal

from pagesight.agent.session import Session
from pagesight.agent.tool import ToolResult
from pagesight.agent.tools._observed import observed


async def observe(
    session: Session,
    *,
    view: Literal["full", "interactive"] = "full",
    since_last: bool = False,
    focus: str | None = None,
    max_tokens: int | None = None,
) -> ToolResult:
    """Read the page as an outline, an id in brackets on what can be acted on.

    Args:
        view: "interactive": only what can be acted on, with its heading or group.
        since_last: Only what changed since the page was last read.
        focus: Words about what you need: keeps that part of the page.
        max_tokens: Cut to this many tokens (every element with an id stays).
    """
    since = session.latest if since_last else None
    obs = await session.page.observe(view=view, focus=focus, max_tokens=max_tokens, since=since)
    return observed(session, obs, obs.text())
