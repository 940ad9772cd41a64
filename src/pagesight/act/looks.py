"""Whether a click changed how the clicked element or its card looks.

Pages often answer a click with nothing but a class: a chosen payment card gets a coloured
border, a picked swatch a ring. The element tree does not show that, so the computed style of
a few elements is compared instead (``looks.js``): the one clicked, its ancestors up to its
card (three levels) and its first descendants. Only what a person notices is read: colours,
borders, outlines, shadows and visibility.

It is noted right after the pointer reaches the element (so ``:hover`` styles are already
there) and compared once the page has settled. A property a transition is moving counts by the
value it moves to, so a hover fade is no change and a fade the click started is seen at its
end. What moves on its own is left out: an element running a CSS animation (a spinner, a
pulsing badge) before the click; so are focus rings where focus moved (outlines, shadows, and
a field's border).
"""

from __future__ import annotations

import contextlib
from functools import cache
from importlib import resources

from playwright.async_api import ElementHandle
from playwright.async_api import Error as PlaywrightError


@cache
def _script() -> str:
    return resources.files("pagesight.act").joinpath("looks.js").read_text(encoding="utf-8").strip()


async def arm(handle: ElementHandle) -> None:
    """Note how the element and its surroundings look now (the pointer already on it)."""
    with contextlib.suppress(PlaywrightError):  # a page that navigates away takes it along
        await handle.evaluate(f"(el) => ({_script()}).arm(el)")


async def changed(handle: ElementHandle, itself: str) -> tuple[str, ...]:
    """What looks different since :func:`arm`, one line per element (``itself`` names the
    element clicked); empty if nothing did, or the element or its document is gone."""
    try:
        pairs = await handle.evaluate(f"(el) => ({_script()}).changed(el)")
    except PlaywrightError:
        return ()
    return tuple(f"{who or itself}: {what}" for who, what in pairs)
