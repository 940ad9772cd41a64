from __future__ import annotations

from pagesight.agent.session import Session
from pagesight.agent.tool import ToolResult
from pagesight.vision.images import decode_png


async def screenshot(session: Session, *, marks: bool = False) -> ToolResult:
    """Take a screenshot of the viewport (a PNG image).

    Args:
        marks: Draw a box and a numbered badge (its id) on every element in view.
    """
    observation = session.latest if marks else None
    png = await session.page.screenshot(marks=marks, observation=observation)
    width, height = decode_png(png).size
    text = f"screenshot {width}x{height}" + (" with marks (badge = element id)" if marks else "")
    return ToolResult(
        text=text, value={"width": width, "height": height, "marks": marks}, image=png
    )
