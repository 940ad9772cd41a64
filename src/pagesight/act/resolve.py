"""From an element id to a live element handle, resolved again every time an action runs.

An id names (walker document, local id). The document is found among the page's frames by the
walker token it carries, and the element by the walker's own WeakMap, so an id whose element
was removed — or whose document was replaced, even by one with an element of the same local id
— resolves to nothing and the action fails with ``stale_id`` rather than landing elsewhere.
"""

from __future__ import annotations

import asyncio
from functools import cache
from importlib import resources
from typing import Any

from playwright.async_api import ElementHandle, Frame
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page as PlaywrightPage

from pagesight.errors import StaleElement
from pagesight.observe.capture import WALKER, element_expression
from pagesight.observe.ids import IdRegistry

_TOKEN = f"() => {WALKER} ? {WALKER}.docToken : null"


@cache
def act_script() -> str:
    """The page-side action helpers (``act.js``), an expression yielding an object."""
    return resources.files("pagesight.act").joinpath("act.js").read_text(encoding="utf-8").strip()


def helper(name: str) -> str:
    """A function ``(el, arg) => helpers.name(el, arg)`` to evaluate on an element handle."""
    return f"(el, arg) => ({act_script()}).{name}(el, arg)"


class Resolver:
    """Finds the frame that holds a walker document, remembering where each one was."""

    def __init__(self, page: PlaywrightPage, ids: IdRegistry) -> None:
        self._page = page
        self._ids = ids
        self._frames: dict[str, Frame] = {}

    async def element(self, element_id: int) -> ElementHandle:
        """The element behind ``element_id`` now; :class:`StaleElement` if it is gone."""
        ref = self._ids.locate(element_id)
        if ref is None:
            raise StaleElement(
                f"no element [{element_id}] was ever shown on this page; observe first",
                element_id=element_id,
            )
        frame = await self._frame(ref.document)
        handle = None
        if frame is not None:
            expression = f"() => {element_expression(ref.document, ref.local_id)}"
            try:
                found = await frame.evaluate_handle(expression)
            except PlaywrightError:
                found = None  # the frame navigated away or was detached meanwhile
            handle = found.as_element() if found is not None else None
            if handle is None and found is not None:
                await found.dispose()
        if handle is None:
            raise StaleElement(
                f"element [{element_id}] is gone (removed, or its page reloaded or replaced); "
                "observe again",
                element_id=element_id,
            )
        return handle

    async def _frame(self, document: str) -> Frame | None:
        frame = self._frames.get(document)
        if frame is not None and not frame.is_detached():
            return frame
        # Ask every frame which walker document it shows; a handful of frames, asked at once.
        frames = self._page.frames
        tokens = await asyncio.gather(*(_token(f) for f in frames))
        self._frames = {t: f for t, f in zip(tokens, frames, strict=True) if t is not None}
        return self._frames.get(document)


async def _token(frame: Frame) -> str | None:
    try:
        token: Any = await frame.evaluate(_TOKEN)
    except PlaywrightError:
        return None
    return token if isinstance(token, str) else None
