from __future__ import annotations

from pagesight.agent.session import Session
from pagesight.agent.tool import PageStep


async def back(session: Session) -> PageStep:
    """Go back one page in the current tab's history."""
    return PageStep(ref=None, action="back")
