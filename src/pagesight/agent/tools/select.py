from __future__ import annotations

from pagesight.agent.session import Session
from pagesight.agent.tool import PageStep


async def select(
    session: Session, *, ref: int, values: list[str], element: str | None = None
) -> PageStep:
    """Choose options of a select, combobox or listbox by their labels or values.

    Args:
        ref: The control's id, the number in brackets in the latest observation.
        values: The options to choose (one for a single select).
        element: The control in words, as a person would name it ("the Location menu").
    """
    return PageStep(ref=ref, action="select", args={"values": values})
