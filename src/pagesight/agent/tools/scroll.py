from __future__ import annotations

from typing import Literal

from pagesight.agent.session import Session
from pagesight.agent.tool import PageStep


async def scroll(
    session: Session,
    *,
    ref: int | None = None,
    direction: Literal["up", "down", "left", "right"] | None = None,
    pixels: int | None = None,
    element: str | None = None,
) -> PageStep:
    """Scroll an element into view, or scroll a container or the page by a screen.

    Args:
        ref: The element; with no direction it is scrolled into view, with one it is the
            container to scroll. None scrolls the page.
        direction: Which way to scroll by a screen (or by pixels).
        pixels: How far to scroll instead of a screen.
        element: The element in words, as a person would name it.
    """
    args: dict[str, object] = {}
    if direction is not None:
        args["direction"] = direction
    if pixels is not None:
        args["pixels"] = pixels
    return PageStep(ref=ref, action="scroll", args=args)
