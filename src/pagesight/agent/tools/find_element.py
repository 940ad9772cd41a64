from __future__ import annotations

from pagesight.agent.session import Session
from pagesight.agent.tool import ToolResult
from pagesight.agent.tools._observed import observed
from pagesight.observe import tooltext


async def find_element(session: Session, *, query: str, top: int = 5) -> ToolResult:
    """Find the elements that best match words ("the Save button", "搜索框"), best first.

    Args:
        query: The element in words, as a person would name it.
        top: The most matches to show.
    """
    obs = await session.page.observe(include={"selector"}, mode="cdp")
    text = tooltext.find_element(obs, query, top=top)
    matches = [m.to_dict() for m in obs.find(query, top=top)]
    return observed(session, obs, text, query=query, matches=matches)
