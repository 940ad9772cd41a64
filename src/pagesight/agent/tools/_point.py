"""What the tools that act at a point of the viewport share (``click_xy``, ``hover_xy``,
``drag_xy``): the page's ``act_at``, reported as every page step is, by its Effect."""

from __future__ import annotations

from collections.abc import Sequence

from pagesight.agent.results import action_times, effect_result, error_result
from pagesight.agent.session import Session
from pagesight.agent.tool import ToolResult
from pagesight.errors import InputError


async def act_at(
    session: Session,
    action: str,
    x: float,
    y: float,
    *,
    to: Sequence[float] | None = None,
    count: int = 1,
    button: str = "left",
) -> ToolResult:
    # A click at a point is judged on what is under it, as a click on its id is: a Delete
    # button clicked by its coordinates still needs a person.
    refused = await session.confirm.gate_point(session, action, x, y)
    if refused is not None:
        return ToolResult.failure(refused.reason, session.secrets.mask(refused.message))
    try:
        effect = await session.page.act_at(
            action, x, y, to=to, count=count, button=button, **action_times(session)
        )
    except InputError as exc:  # a point outside the viewport, a bad option
        return error_result(exc, session)
    return effect_result(effect, session)
