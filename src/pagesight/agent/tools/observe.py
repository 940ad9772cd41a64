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
    """Read the page as an outline: one node a line, an id in brackets on what can be acted on.

    Args:
        view: "interactive" keeps only what can be acted on, each with its heading or group.
        since_last: Show only what changed since the latest observation.
        focus: Words about what you need; keeps the part of the page about them.
        max_tokens: Cut the text to fit this many tokens (every actionable element stays).
    """
    since = session.latest if since_last else None
    obs = await session.page.observe(view=view, focus=focus, max_tokens=max_tokens, since=since)
    return observed(session, obs, obs.text())
