"""What changed on screen between two screenshots: an action's Effect holds it as a
:class:`~pagesight.act.effect.ScreenChange`, defined with the Effect in act (below vision)."""

from __future__ import annotations

from PIL import ImageChops

from pagesight.act.effect import ScreenChange
from pagesight.errors import InvalidOption
from pagesight.vision.images import decode_png
from pagesight.vision.perception import to_css

TOLERANCE = 24  # levels per channel: below this a pixel is re-rendered, not changed


def diff_screens(before: bytes, after: bytes, *, scale: float = 1.0) -> ScreenChange | None:
    """The change from ``before`` to ``after`` (PNG screenshots), or None if nothing changed.

    Screenshots of different sizes (a resized window) count as a change of the whole screen.
    ``scale`` is the screenshots' pixels per CSS pixel.
    """
    if scale <= 0:
        raise InvalidOption("scale", f"scale must be positive, not {scale!r}")
    old, new = decode_png(before), decode_png(after)
    total = new.width * new.height
    if old.size != new.size:
        return ScreenChange(bounds=to_css((0, 0, *new.size), scale), share=1.0, pixels=total)
    # The largest difference over the colour channels: a change of hue alone still counts.
    red, green, blue = ImageChops.difference(old, new).split()
    strongest = ImageChops.lighter(ImageChops.lighter(red, green), blue)
    changed = strongest.point(lambda v: 255 if v > TOLERANCE else 0)
    box = changed.getbbox()
    if box is None:
        return None
    pixels = changed.histogram()[255]
    left, top, right, bottom = box
    return ScreenChange(
        bounds=to_css((left, top, right - left, bottom - top), scale),
        share=pixels / total,
        pixels=pixels,
    )


def inside(change: ScreenChange, moving: ScreenChange) -> bool:
    """Whether ``change`` lies within ``moving`` (what animates on its own, a spinner)."""
    x, y, w, h = change.bounds
    mx, my, mw, mh = moving.bounds
    return mx <= x and my <= y and x + w <= mx + mw and y + h <= my + mh
