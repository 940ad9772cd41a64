from __future__ import annotations

from pagesight.agent.session import Session
from pagesight.agent.tool import ToolResult
from pagesight.agent.tools._observed import observed
from pagesight.observe import tooltext


async def page_perceive(session: Session, *, max_chars: int = 6000) -> ToolResult:
    """List every element that can be acted on: id, tag/role, text, key attributes, selector.

    Args:
        max_chars: Cut the list at this many characters (it says how many were left out).
    """
    obs = await session.page.observe(include={"selector"}, mode="cdp")
    return observed(session, obs, tooltext.page_perceive(obs, max_chars=max_chars))
