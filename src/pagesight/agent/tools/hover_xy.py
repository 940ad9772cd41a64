from __future__ import annotations

from pagesight.agent.session import Session
from pagesight.agent.tool import ToolResult
from pagesight.agent.tools._point import act_at


async def hover_xy(
    session: Session, *, x: float, y: float, element: str | None = None
) -> ToolResult:
    """Move the pointer to a point of the viewport (opens what shows on hover there), for
    what has no id. Prefer hover with a ref where the element has one.

    Args:
        x: Across, in CSS pixels from the viewport's left edge (a screenshot's pixels divided
            by the page's devicePixelRatio).
        y: Down, in CSS pixels from the viewport's top edge.
        element: What is there, in words.
    """
    return await act_at(session, "hover", x, y)
