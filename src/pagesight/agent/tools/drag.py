from __future__ import annotations

from pagesight.agent.session import Session
from pagesight.agent.tool import PageStep


async def drag(
    session: Session,
    *,
    ref: int,
    to_ref: int | None = None,
    by: list[float] | None = None,
    element: str | None = None,
    to_element: str | None = None,
) -> PageStep:
    """Drag an element onto another one, or by an offset (a slider's thumb, a card).

    Args:
        ref: The element to drag, by its id in the latest observation.
        to_ref: The element to drop it on.
        by: Or the offset to move it by, [dx, dy] in CSS pixels.
        element: The dragged element in words.
        to_element: The drop target in words.
    """
    args: dict[str, object] = {}
    if to_ref is not None:
        args["to"] = to_ref
    if by is not None:
        args["by"] = by
    return PageStep(ref=ref, action="drag", args=args)
