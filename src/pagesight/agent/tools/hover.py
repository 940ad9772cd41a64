from __future__ import annotations

from pagesight.agent.session import Session
from pagesight.agent.tool import PageStep


async def hover(session: Session, *, ref: int, element: str | None = None) -> PageStep:
    """Move the pointer over an element (opens what shows on hover, such as a menu).

    Args:
        ref: The element's id, the number in brackets in the latest observation.
        element: The element in words, as a person would name it.
    """
    return PageStep(ref=ref, action="hover")
