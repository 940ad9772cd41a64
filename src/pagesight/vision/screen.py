"""A page's screen: screenshots, set-of-marks, and observations read off the pixels alone.

The slow parts (OCR, drawing, a model's caption) block, so they run in a worker thread; the
page is only asked for its screenshot and its ``devicePixelRatio``.
"""

from __future__ import annotations

import asyncio
import base64
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

from playwright.async_api import Page as PlaywrightPage

from pagesight.browser.cdp import CdpSession, translate
from pagesight.observe import passes
from pagesight.observe.ids import IdRegistry
from pagesight.observe.observation import Element, Observation
from pagesight.observe.tree import Bounds, Node
from pagesight.vision.marks import draw_marks, marks_for
from pagesight.vision.ocr import OcrEngine
from pagesight.vision.perception import read_screen
from pagesight.vision.vlm import Captioner

VISION_ACTIONS = ("click", "input", "press_key", "hover")
"""What a thing read off the screen accepts: all of them happen at the centre of its box."""


@dataclass(frozen=True)
class Shot:
    png: bytes
    scale: float
    """Screenshot pixels per CSS pixel (the page's ``devicePixelRatio``)."""


@dataclass(frozen=True)
class VisionTarget:
    """Where a vision element was, on which document: acting on it clicks there."""

    bounds: Bounds
    document: str | None

    @property
    def centre(self) -> tuple[float, float]:
        x, y, w, h = self.bounds
        return x + w / 2, y + h / 2


class Screen:
    """The screenshot side of one tab, and the vision elements it has handed out."""

    def __init__(
        self,
        page: PlaywrightPage,
        ids: IdRegistry,
        session: Callable[[], Awaitable[CdpSession]],
    ) -> None:
        self._page = page
        self._ids = ids
        self._session = session
        self._targets: dict[int, VisionTarget] = {}

    async def shot(self) -> Shot:
        """The viewport as a PNG in device pixels, with its scale."""
        # Chromium's own capture, not Playwright's: Playwright scales by the device scale
        # factor it set itself, which is wrong for a page whose factor came from elsewhere.
        session = await self._session()
        reply = await session.send("Page.captureScreenshot", {"format": "png"})
        with translate("reading the device pixel ratio"):
            scale = float(await self._page.evaluate("devicePixelRatio"))
        return Shot(png=base64.b64decode(reply["data"]), scale=scale)

    async def marked(self, elements: tuple[Element, ...]) -> bytes:
        """A screenshot with a dashed box and a numbered badge on each element in view."""
        shot = await self.shot()
        return await asyncio.to_thread(draw_marks, shot.png, marks_for(elements), scale=shot.scale)

    async def observe(
        self,
        *,
        url: str,
        title: str,
        ready: bool,
        document: str | None,
        ocr: OcrEngine,
        captioner: Captioner | None,
        shot: Shot | None = None,
    ) -> Observation:
        """The page as read off a screenshot: each line of text, or button, an element."""
        shot = shot or await self.shot()
        items = await asyncio.to_thread(read_screen, shot.png, ocr=ocr, scale=shot.scale)
        caption = (
            await asyncio.to_thread(captioner.caption, shot.png) if captioner is not None else None
        )
        read = f"vision:{uuid.uuid4().hex}"  # every reading is a document of its own
        # Readings of an earlier document can never be acted on again: forget them.
        self._targets = {k: t for k, t in self._targets.items() if t.document == document}
        nodes = []
        for i, item in enumerate(items):
            element_id = self._ids.id_of(read, i)
            self._targets[element_id] = VisionTarget(item.bounds, document)
            nodes.append(Node(role=item.role, name=item.name, id=element_id, bounds=item.bounds))
        tree = tuple(nodes)
        elements = tuple(replace(el, actions=VISION_ACTIONS) for el in passes.elements(tree))
        return Observation(
            url=url,
            title=title,
            ready=ready,
            mode="vision",
            tree=tree,
            elements=elements,
            description=caption,
        )

    def target(self, element_id: int) -> VisionTarget | None:
        """The vision element behind an id, if it is one."""
        return self._targets.get(element_id)
