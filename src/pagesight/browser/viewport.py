"""The page's own size: make ``innerWidth`` x ``innerHeight`` of every tab equal the viewport.

Chromium's ``--window-size`` is the window's outer size; what is left for the page depends on
the browser's own UI (87 px of it in new headless mode, another amount headed, under another
window manager). So the window holding a tab is measured once the tab exists and resized by
the difference (``Browser.setWindowBounds``), rather than the page's size being emulated:
the page then lays out, fires ``resize`` and is captured exactly as in a real window of that
size, a headed window shows what the page gets, and ``devicePixelRatio`` stays the screen's.
Tabs that share a window are right once it is; a popup in a window of its own is resized too.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from playwright.async_api import BrowserContext
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page as PlaywrightPage

from pagesight.errors import InvalidOption

Viewport = tuple[int, int]
DEFAULT_VIEWPORT: Viewport = (1280, 800)
_SETTLE_S = 2.0
"""How long a resized window may take to hand its new size to the page."""


def check_viewport(viewport: object) -> Viewport:
    """``viewport`` as (width, height) of positive whole CSS pixels, or InvalidOption."""
    if (
        not isinstance(viewport, tuple | list)
        or len(viewport) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in viewport)
    ):
        raise InvalidOption(
            "viewport", f"viewport takes (width, height) in CSS pixels, not {viewport!r}"
        )
    width, height = viewport
    if not (100 <= width <= 10_000 and 100 <= height <= 10_000):
        raise InvalidOption(
            "viewport", f"viewport sides must be 100 to 10000 CSS pixels, not {width}x{height}"
        )
    return (width, height)


async def fit_window(context: BrowserContext, page: PlaywrightPage, viewport: Viewport) -> None:
    """Resize the window holding ``page`` so that the page inside it is ``viewport``.

    Best effort: a tab that closes or whose window cannot be resized (maximised by the user,
    a browser without windows) keeps its size."""
    with contextlib.suppress(PlaywrightError, TimeoutError):
        session = await context.new_cdp_session(page)
        try:
            await asyncio.wait_for(_fit(session, viewport), 10)
        finally:
            with contextlib.suppress(PlaywrightError):
                await session.detach()


async def _fit(session: Any, viewport: Viewport) -> None:
    for _ in range(2):  # a window manager may adjust the first size it is given
        inner = await _inner_size(session)
        if inner == viewport:
            return
        window = await session.send("Browser.getWindowForTarget")
        bounds = window["bounds"]
        if bounds.get("windowState", "normal") != "normal":
            return  # maximised, minimised or full screen: the user's choice, left alone
        want = {
            "width": bounds["width"] + viewport[0] - inner[0],
            "height": bounds["height"] + viewport[1] - inner[1],
        }
        await session.send(
            "Browser.setWindowBounds", {"windowId": window["windowId"], "bounds": want}
        )
        # The renderer learns its new size a moment later: measuring again too soon would
        # resize by the same difference twice.
        loop = asyncio.get_running_loop()
        deadline = loop.time() + _SETTLE_S
        while await _inner_size(session) == inner and loop.time() < deadline:
            await asyncio.sleep(0.02)


async def _inner_size(session: Any) -> Viewport:
    reply = await session.send(
        "Runtime.evaluate", {"expression": "[innerWidth, innerHeight]", "returnByValue": True}
    )
    width, height = reply["result"]["value"]
    return (int(width), int(height))
