"""Actions at a point of the viewport instead of on an element: for what a screenshot shows
but the DOM does not name (a canvas, a map, a chart).

Points are CSS pixels of the viewport, as element bounds are: the origin is the top left
corner of what is in view, and a screenshot taken at a ``devicePixelRatio`` of 2 has two of
its pixels to each CSS pixel. A point outside the viewport is refused: the pointer cannot go
there, and the page under it is not what the caller saw.
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass
from typing import Literal

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page as PlaywrightPage

from pagesight.act import gestures
from pagesight.act.args import Args, check_click
from pagesight.act.effect import Moved
from pagesight.act.gestures import click as click_at
from pagesight.act.perform import Performed
from pagesight.errors import InvalidOption
from pagesight.observe.observation import Observation

PointAction = Literal["click", "hover", "drag"]
POINT_ACTIONS: tuple[PointAction, ...] = ("click", "hover", "drag")
Point = tuple[float, float]


@dataclass(frozen=True, kw_only=True)
class Viewport:
    """The viewport's size in CSS pixels, and how many device pixels make one."""

    width: float
    height: float
    scale: float

    def text(self) -> str:
        size = f"{self.width:g}x{self.height:g} CSS px"
        if self.scale == 1:
            return size
        shot = f"{self.width * self.scale:g}x{self.height * self.scale:g}"
        return f"{size}; a screenshot of it is {shot} px: divide its pixels by {self.scale:g}"


def check_point_action(
    action: str, point: object, to: object, *, count: int, button: str
) -> tuple[PointAction, Point, Point | None, Args]:
    """The action, its point(s) and its arguments, or :class:`InvalidOption` naming what does
    not fit — before the page is touched."""
    if action not in POINT_ACTIONS:
        raise InvalidOption(
            "action", f"an action at a point is one of {', '.join(POINT_ACTIONS)}, not {action!r}"
        )
    start = _point("x, y", point)
    end = _point("to", to) if to is not None else None
    if action == "drag" and end is None:
        raise InvalidOption("to", "a drag at a point needs to=(x, y), where to release it")
    if action != "drag" and end is not None:
        raise InvalidOption("to", f"to= is for a drag, not a {action}")
    check_click(action, hold=None, count=count, button=button)
    args = Args(count=count, button=button)  # type: ignore[arg-type]  # checked just above
    return action, start, end, args


def _point(option: str, value: object) -> Point:
    if (
        not isinstance(value, tuple | list)
        or len(value) != 2
        or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)
        or not all(math.isfinite(v) for v in value)
    ):
        raise InvalidOption(option, f"{option} must be two finite numbers (CSS px), not {value!r}")
    return float(value[0]), float(value[1])


def element_at(obs: Observation, point: Point) -> int | None:
    """The id of the smallest element of ``obs`` whose box holds ``point``: what a click
    there lands on, as far as the observation knows (it leaves out what is covered), so the
    Effect can name it; ``None`` over nothing that can be acted on."""
    x, y = point
    best: tuple[int, int] | None = None  # (area, id)
    for el in obs.elements:
        if el.bounds is None or el.offscreen:
            continue
        left, top, width, height = el.bounds
        if left <= x < left + width and top <= y < top + height:
            best = min(best or (width * height, el.id), (width * height, el.id))
    return best[1] if best is not None else None


async def viewport_of(page: PlaywrightPage) -> Viewport:
    width, height, scale = await page.evaluate("[innerWidth, innerHeight, devicePixelRatio]")
    return Viewport(width=float(width), height=float(height), scale=float(scale))


def check_inside(option: str, point: Point, viewport: Viewport) -> None:
    """:class:`InvalidOption` for a point outside the viewport, naming its size."""
    x, y = point
    if 0 <= x < viewport.width and 0 <= y < viewport.height:
        return
    raise InvalidOption(
        option,
        f"({x:g}, {y:g}) is outside the viewport ({viewport.text()}); give a point in view, "
        "or scroll first",
    )


async def perform_at(
    page: PlaywrightPage, action: PointAction, point: Point, to: Point | None, args: Args
) -> Performed:
    """Trusted pointer input at ``point`` (a drag: pressed there, released at ``to``)."""
    mouse = page.mouse
    x, y = point
    if action == "click":
        await click_at(mouse, x, y, args)
    elif action == "hover":
        await mouse.move(x, y)
    elif to is not None:
        # The element under the pointer is what a drag moves: measured before and after as a
        # drag on an element is, so the Effect says what moved (a card into a column). Not the
        # page itself (a drag on its blank part, to select or pan): "the body stayed" is noise.
        found = await page.evaluate_handle(
            "([x, y]) => { const el = document.elementFromPoint(x, y);"
            " return el === document.body || el === document.documentElement ? null : el; }",
            [x, y],
        )
        pressed = found.as_element()
        if pressed is None:  # nothing there to measure: the drag all the same
            await found.dispose()
            await gestures.press_move_release(mouse, point, to)
            return Performed()
        measure = await gestures.drag(page, pressed, point, to)

        async def moved() -> Moved:
            try:
                return await measure()
            finally:
                with contextlib.suppress(PlaywrightError):  # the page may have gone with it
                    await pressed.dispose()

        return Performed(moved=moved)
    return Performed()
