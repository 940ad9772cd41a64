from __future__ import annotations

from pagesight.agent.session import Session
from pagesight.agent.tool import ToolResult
from pagesight.agent.tools._point import act_at


async def drag_xy(
    session: Session, *, start_x: float, start_y: float, end_x: float, end_y: float
) -> ToolResult:
    """Press at one point of the viewport, move to another and release (a slider, a card, a
    shape on a canvas), for what has no id. Prefer drag with a ref where there is one.

    Args:
        start_x: Where to press, across, in CSS pixels from the viewport's left edge (a
            screenshot's pixels divided by the page's devicePixelRatio).
        start_y: Where to press, down, in CSS pixels from the viewport's top edge.
        end_x: Where to release, across.
        end_y: Where to release, down.
    """
    return await act_at(session, "drag", start_x, start_y, to=(end_x, end_y))
