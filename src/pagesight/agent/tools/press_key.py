from __future__ import annotations

from pagesight.agent.session import Session
from pagesight.agent.tool import PageStep


async def press_key(
    session: Session, *, key: str, ref: int | None = None, element: str | None = None
) -> PageStep:
    """Press a key or a combination (Enter, Escape, Tab, ArrowDown, Control+A).

    Args:
        key: The key, as Playwright names it ("Enter", "Control+A").
        ref: The element to send it to; none sends it to whatever has focus.
        element: That element in words, as a person would name it.
    """
    return PageStep(ref=ref, action="press_key", args={"key": key})
