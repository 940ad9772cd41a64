"""From an element id to a live element handle, resolved again every time an action runs.

An id names (walker document, local id). The document is found among the page's frames by the
walker token it carries, and the element by the walker's own WeakMap, so an id whose element
was removed — or whose document was replaced, even by one with an element of the same local id
— resolves to nothing and the action fails with ``stale_id`` rather than landing elsewhere.
A tab closed or crashed meanwhile is not a stale id: it is :class:`PageCrashed`.
"""

from __future__ import annotations

import asyncio
from functools import cache
from importlib import resources
from typing import Any

from playwright.async_api import ElementHandle, Frame
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page as PlaywrightPage

from pagesight.errors import PageCrashed, StaleElement
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
        self._crashed = False  # Playwright says only "Target crashed", in an untyped Error
        page.on("crash", self._on_crash)

    def _on_crash(self, _page: PlaywrightPage) -> None:
        self._crashed = True

    def _gone(self) -> PageCrashed | None:
        """The error for a tab that is no more, if it is no more (else a failure means only
        that a frame navigated or was detached: its elements are stale)."""
        if self._crashed:
            return PageCrashed(
                f"the renderer of {self._page.url} crashed", advice="open a new page"
            )
        if self._page.is_closed():
            return PageCrashed("the page was closed", advice="open a new page")
        return None

    async def element(self, element_id: int) -> ElementHandle:
        """The element behind ``element_id`` now; :class:`StaleElement` if it is gone,
        :class:`PageCrashed` if its tab is."""
        gone = self._gone()
        if gone is not None:
            raise gone
        ref = self._ids.locate(element_id)
        if ref is None:
            if self._ids.given(element_id):  # its document forgotten, long left (DOCUMENTS_KEPT)
                raise StaleElement(
                    f"element [{element_id}] was on a page this tab left a while ago; "
                    "observe again",
                    element_id=element_id,
                )
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
            except PlaywrightError as exc:
                gone = self._gone()
                if gone is not None:
                    raise gone from exc
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
        tokens = await asyncio.gather(*(self._token(f) for f in frames))
        self._frames = {t: f for t, f in zip(tokens, frames, strict=True) if t is not None}
        return self._frames.get(document)

    async def _token(self, frame: Frame) -> str | None:
        try:
            token: Any = await frame.evaluate(_TOKEN)
        except PlaywrightError as exc:
            gone = self._gone()
            if gone is not None:
                raise gone from exc
            return None  # a frame navigating or detached shows no walker document now
        return token if isinstance(token, str) else None
