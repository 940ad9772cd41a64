from __future__ import annotations

from typing import Literal

from pagesight.agent.session import Session
from pagesight.agent.tool import ToolResult
from pagesight.agent.tools._point import act_at


async def click_xy(
    session: Session,
    *,
    x: float,
    y: float,
    element: str | None = None,
    double_click: bool = False,
    button: Literal["left", "right", "middle"] = "left",
) -> ToolResult:
    """Click at a point of the viewport, for what has no id (a canvas, a map, a chart); the
    answer is the effect it had. Prefer click with a ref where the element has one.

    Args:
        x: Across, in CSS pixels from the viewport's left edge (a screenshot's pixels divided
            by the page's devicePixelRatio).
        y: Down, in CSS pixels from the viewport's top edge.
        element: What is there, in words ("the red marker").
        double_click: Click twice.
        button: The mouse button.
    """
    return await act_at(session, "click", x, y, count=2 if double_click else 1, button=button)
