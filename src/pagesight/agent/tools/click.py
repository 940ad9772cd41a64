from __future__ import annotations

from typing import Literal

from pagesight.agent.session import Session
from pagesight.agent.tool import PageStep


async def click(
    session: Session,
    *,
    ref: int,
    element: str | None = None,
    double_click: bool = False,
    button: Literal["left", "right", "middle"] = "left",
    hold_seconds: float | None = None,
) -> PageStep:
    """Click an element; the answer is the effect it had (navigation, dom_change, no_op, …).

    Args:
        ref: The element's id, the number in brackets in the latest observation.
        element: The element in words, as a person would name it ("the Save button").
        double_click: Click twice (to edit a cell, select a word).
        button: The mouse button; right opens a context menu, middle a link in a new tab.
        hold_seconds: Press and hold this long before releasing (a hold-to-confirm button).
    """
    args: dict[str, object] = {"count": 2 if double_click else 1, "button": button}
    if hold_seconds is not None:
        args["hold"] = hold_seconds
    return PageStep(ref=ref, action="click", args=args)
