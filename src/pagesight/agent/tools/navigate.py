from __future__ import annotations

from pagesight.agent.session import Session
from pagesight.agent.tool import PageStep


async def navigate(session: Session, *, url: str) -> PageStep:
    """Load a URL in the current tab; the answer says where it landed.

    Args:
        url: The address to load (http, https, file or a local path).
    """
    return PageStep(ref=None, action="navigate", args={"url": url})
