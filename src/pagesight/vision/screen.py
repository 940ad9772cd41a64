"""A page's screen: screenshots, set-of-marks, and observations read off the pixels alone.

The slow parts (OCR, drawing, a model's caption) block, so they run in a worker thread; the
page is only asked for its screenshot and its ``devicePixelRatio``.
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame
from playwright.async_api import Page as PlaywrightPage

from pagesight.act.args import SCROLL_DIRECTIONS
from pagesight.act.effect import ScreenChange
from pagesight.cdp import CdpSession, translate
from pagesight.errors import VisionModelError
from pagesight.observe import passes
from pagesight.observe.elements import Element
from pagesight.observe.ids import IdRegistry
from pagesight.observe.observation import Observation
from pagesight.observe.tree import Bounds, Node
from pagesight.vision.diff import diff_screens
from pagesight.vision.marks import CssBox, draw_marks, marks_for
from pagesight.vision.ocr import OcrEngine
from pagesight.vision.perception import read_screen
from pagesight.vision.scrolling import EXTENT_SCRIPT, MIN_SHARE, SCROLL_AT_SCRIPT, extent_notes
from pagesight.vision.textboxes import (
    SHOWN_SCRIPT,
    TEXT_BOXES_SCRIPT,
    shown_boxes,
    text_boxes,
    wrapping_owners,
)

VISION_ACTIONS = ("click", "input", "press_key", "hover", "scroll")
"""What a thing read off the screen accepts: all of them happen at the centre of its box
(``scroll`` scrolls what scrolls under it: a panel holding a canvas, or else the page)."""


class Captioner(Protocol):
    """Describes a screenshot in words (a vision-language model:
    :class:`~pagesight.models.VlmClient`)."""

    def caption(self, png: bytes) -> str: ...


@dataclass(frozen=True)
class Shot:
    png: bytes
    scale: float
    """Screenshot pixels per CSS pixel (the page's ``devicePixelRatio``)."""
    scroll: tuple[float, float] = (0.0, 0.0)
    """The page's scroll position when it was taken (CSS px)."""


@dataclass(frozen=True)
class Capture:
    """The viewport at one moment with the text boxes set-of-marks needs to place its badges:
    the marks are drawn later, in a thread, while the page goes on (a run records the page a
    decision was made on while the decision is carried out)."""

    shot: Shot
    text_boxes: Any
    """The page's text boxes as ``TEXT_BOXES_SCRIPT`` measured them."""
    hidden: tuple[CssBox, ...] = ()
    """Where the texts the capture was asked to hide showed (``SHOWN_SCRIPT``), just before
    and just after the shot: painted over by whoever saves or sends it (the agent's
    :func:`~pagesight.agent.secrets.hide_secrets`)."""

    def marked(self, elements: tuple[Element, ...]) -> bytes:
        """The screenshot with a mark on each of ``elements`` in view (blocking: PIL)."""
        texts = text_boxes(self.text_boxes)
        marks = marks_for(elements, texts, wrapping_owners(self.text_boxes))
        return draw_marks(self.shot.png, marks, scale=self.shot.scale, texts=texts)


@dataclass(frozen=True)
class VisionTarget:
    """Where a vision element was, on which document, at which scroll position."""

    role: str
    name: str
    bounds: Bounds
    document: str | None
    scroll: tuple[float, float]

    def centre(self, scroll: tuple[float, float]) -> tuple[float, float]:
        """Its centre in the viewport now: the page may have scrolled since it was read."""
        x, y, w, h = self.bounds
        return x + w / 2 - (scroll[0] - self.scroll[0]), y + h / 2 - (scroll[1] - self.scroll[1])

    def same_as(self, role: str, name: str, bounds: Bounds, scroll: tuple[float, float]) -> bool:
        """Whether a new reading shows this same thing (same text, same place on the page)."""
        if (role, name) != (self.role, self.name):
            return False
        moved = (scroll[0] - self.scroll[0], scroll[1] - self.scroll[1])
        old = (self.bounds[0] - moved[0], self.bounds[1] - moved[1], *self.bounds[2:])
        return all(abs(a - b) <= _SAME_PX for a, b in zip(old, bounds, strict=True))


_SAME_PX = 4
"""OCR boxes of one unchanged label wander by a pixel or two between readings."""
STABLE_WAIT_S = 1.0
"""How long an action waits for the screen to stop changing (a canvas repainting over frames)."""


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
        """The viewport as a PNG in device pixels, with its scale and scroll position."""
        # Chromium's own capture, not Playwright's: Playwright scales by the device scale
        # factor it set itself, which is wrong for a page whose factor came from elsewhere.
        session = await self._session()
        reply = await session.send("Page.captureScreenshot", {"format": "png"})
        with translate("reading the device pixel ratio"):
            scale, x, y = await self._page.evaluate("[devicePixelRatio, scrollX, scrollY]")
        return Shot(png=base64.b64decode(reply["data"]), scale=float(scale), scroll=(x, y))

    async def scroll(self) -> tuple[float, float]:
        with translate("reading the scroll position"):
            x, y = await self._page.evaluate("[scrollX, scrollY]")
        return (x, y)

    async def scroll_at(
        self, point: tuple[float, float], direction: str, pixels: int | None
    ) -> tuple[int, int]:
        """Scroll what scrolls under ``point`` (CSS px of the viewport) along ``direction``
        by ``pixels`` or a screen of it; how far it moved."""
        axis, sign = SCROLL_DIRECTIONS[direction]
        request = {"x": point[0], "y": point[1], "axis": axis, "sign": sign, "pixels": pixels}
        with translate("scroll"):
            result = await self._page.evaluate(SCROLL_AT_SCRIPT, request)
        before, after = result["before"], result["after"]
        return (round(after[0] - before[0]), round(after[1] - before[1]))

    async def settled_shot(self) -> tuple[Shot, ScreenChange | None]:
        """A screenshot once two in a row agree (a canvas may repaint over several frames),
        and, if the screen never stops changing, the region that keeps moving."""
        last = await self.shot()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + STABLE_WAIT_S
        while True:
            await asyncio.sleep(0.05)  # a few frames
            now = await self.shot()
            moving = await asyncio.to_thread(diff_screens, last.png, now.png, scale=now.scale)
            if moving is None or loop.time() >= deadline:
                return now, moving
            last = now

    async def capture(self, *, hide: Sequence[str] = ()) -> Capture:
        """The viewport now, and what marking it needs (see :class:`Capture`), with the boxes
        where any of ``hide`` shows (any case) in :attr:`Capture.hidden`."""
        hidden: tuple[CssBox, ...] = ()
        if hide:
            # Found before the shot and again after it: a text that moves or appears while
            # the picture is taken is covered where it was and where it went.
            hidden = await self._shown(hide)
        shot = await self.shot()
        with translate("measuring the text on the page"):
            raw = await self._page.evaluate(TEXT_BOXES_SCRIPT)
        if hide:
            hidden += await self._shown(hide)
        return Capture(shot=shot, text_boxes=raw, hidden=hidden)

    async def _shown(self, texts: Sequence[str]) -> tuple[CssBox, ...]:
        """Where ``texts`` show now: in the top document, and in each frame of any origin."""
        with translate("finding the texts to hide on the page"):
            found = shown_boxes(await self._page.evaluate(SHOWN_SCRIPT, [list(texts), None]))
        frames = [f for f in self._page.frames if f.parent_frame is not None]
        for boxes in await asyncio.gather(*(_shown_in(f, texts) for f in frames)):
            found += boxes
        return found

    async def marked(self, elements: tuple[Element, ...]) -> bytes:
        """A screenshot with a dashed box and a numbered badge on each element in view, each
        badge beside its element's first line of text and off every text on the page."""
        capture = await self.capture()
        return await asyncio.to_thread(capture.marked, elements)

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
        """The page as read off a screenshot: each line of text, or button, an element. What
        an earlier reading of the same document showed at the same place keeps its id."""
        shot = shot or await self.shot()
        items = await asyncio.to_thread(read_screen, shot.png, ocr=ocr, scale=shot.scale)
        caption: str | None = None
        notes: tuple[str, ...] = ()
        if captioner is not None:
            try:
                caption = await asyncio.to_thread(captioner.caption, shot.png)
            except VisionModelError as exc:  # OCR alone still serves
                notes = (f"no caption: {exc}",)
        # What the picture cannot show: the page, or a panel on it, going on past its edges.
        with translate("measuring what lies past the screen"):
            extent = await self._page.evaluate(EXTENT_SCRIPT, MIN_SHARE)
        notes = (*notes, *extent_notes(extent))
        # Readings of an earlier document can never be acted on again: forget them.
        earlier = {k: t for k, t in self._targets.items() if t.document == document}
        self._targets = {}
        nodes = []
        for item in items:
            element_id = next(
                (
                    k
                    for k, t in earlier.items()
                    if t.same_as(item.role, item.name, item.bounds, shot.scroll)
                ),
                None,
            )
            if element_id is None:
                element_id = self._ids.fresh()
            else:
                del earlier[element_id]
            self._targets[element_id] = VisionTarget(
                item.role, item.name, item.bounds, document, shot.scroll
            )
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
            notes=notes,
        )

    def target(self, element_id: int) -> VisionTarget | None:
        """The vision element behind an id, if it is one."""
        return self._targets.get(element_id)


async def _shown_in(frame: Frame, texts: Sequence[str]) -> tuple[CssBox, ...]:
    """Where ``texts`` show in ``frame`` (of any origin: a page script of the top document
    cannot read another origin's), in top px, kept to the frame's box. A frame that cannot
    be read (detached, navigating meanwhile) is covered whole: its text is unknown."""
    box = None
    try:
        owner = await frame.frame_element()
        box = await owner.bounding_box()
        await owner.dispose()
        if box is None:  # not rendered: nothing of it is on the screenshot
            return ()
        found = await frame.evaluate_handle("document.documentElement")
        root = found.as_element()
        origin = await root.bounding_box() if root is not None else None
        await found.dispose()
        if origin is None:
            return ()
        raw = await frame.evaluate(SHOWN_SCRIPT, [list(texts), [origin["x"], origin["y"]]])
    except PlaywrightError:
        whole = (box["x"], box["y"], box["width"], box["height"]) if box else None
        return (whole,) if whole is not None else ()
    clip = (box["x"], box["y"], box["x"] + box["width"], box["y"] + box["height"])
    out = []
    for x, y, w, h in shown_boxes(raw):
        left, top = max(x, clip[0]), max(y, clip[1])
        right, bottom = min(x + w, clip[2]), min(y + h, clip[3])
        if right > left and bottom > top:
            out.append((left, top, right - left, bottom - top))
    return tuple(out)
