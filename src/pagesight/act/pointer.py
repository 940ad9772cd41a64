"""Where the pointer goes: a fresh look at the element, in the page's own coordinates.

The page-side check hit-tests the element and carries the point up through every frame a
script can see into. A cross-origin frame hides its parent's geometry from it, so from there
Playwright's frame-aware box gives the top-level point, and the top document is asked whether
its iframe is what lies there (an overlay over the frame would take the click otherwise).
"""

from __future__ import annotations

import asyncio
from typing import Any

from playwright.async_api import ElementHandle
from playwright.async_api import Page as PlaywrightPage

from pagesight.act.resolve import helper
from pagesight.cdp import translate

SCROLL_SETTLE_S = 0.035
"""After scrolling an element into view, two frames for the page's scroll handlers (a banner
that appears on scroll moves everything below it) before the point is taken."""


async def look(handle: ElementHandle, *, reveal: bool) -> dict[str, Any]:
    """The element's facts now; scrolled into view first with ``reveal``."""
    with translate("checking the element"):
        facts: dict[str, Any] = await handle.evaluate(helper("check"), reveal)
        if facts.get("scrolled"):
            await asyncio.sleep(SCROLL_SETTLE_S)  # scroll events fire on the next frame
            facts = await handle.evaluate(helper("check"), reveal)
    return facts


async def look_in_place(handle: ElementHandle) -> dict[str, Any]:
    """The element's facts now, with where the pointer would reach it without scrolling."""
    with translate("checking the element"):
        facts: dict[str, Any] = await handle.evaluate(helper("check"), "in-place")
    return facts


async def to_top(page: PlaywrightPage, handle: ElementHandle, facts: dict[str, Any]) -> None:
    """Complete ``facts["point"]`` with top-level coordinates when the page-side check could
    not (a cross-origin frame in between); sets ``facts["cover"]`` if the top document has
    something else over the frame at that point."""
    point = facts.get("point")
    if point is None or point["top"]:
        return
    with translate("placing the pointer"):
        target = handle
        if facts.get("proxy"):  # the label drawn in place of a hidden native control
            found = (await handle.evaluate_handle(helper("pointerTarget"))).as_element()
            target = found or handle
        box = await target.bounding_box()
        if target is not handle:
            await target.dispose()
        if box is None or not point["w"] or not point["h"]:
            facts["point"] = None
            return
        x = box["x"] + point["x"] * box["width"] / point["w"]
        y = box["y"] + point["y"] * box["height"] / point["h"]
        frame = await target.owner_frame()
        while frame is not None and frame.parent_frame not in (None, page.main_frame):
            frame = frame.parent_frame
        if frame is None or frame.parent_frame is None:  # a frame that was just detached
            facts["point"] = None
            return
        owner = await frame.frame_element()
        try:
            cover = await owner.evaluate(helper("coverAt"), [x, y])
        finally:
            await owner.dispose()
    if cover is not None:
        facts["point"], facts["cover"] = None, cover
    else:
        point.update(vx=x, vy=y, top=True)
