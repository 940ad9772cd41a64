"""Is a piece of text sitting in a button-like box? Decided from the pixels alone.

A button, as drawn on a canvas or styled in CSS, is a rectangle of one colour with its label
inside and a visible edge all round: either its fill differs from what is outside, or a
border line runs along it. From just outside the label the fill is followed outwards in each
direction; the box is found when, within a few label heights, every direction reaches an edge
that runs straight along that side. Text on the open page (or on a toolbar strip that runs to
the edge of the screen) reaches no edge in some direction, and a line inside a paragraph meets
the lines above and below, which are not straight edges.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from PIL import Image

from pagesight.vision.textlines import Box

Colour = tuple[int, ...]

TOLERANCE = 16  # levels per channel that still count as the same fill (anti-aliasing, dither)
REACH_X = 3.0  # how far, in label heights, a box may extend left and right of its label
REACH_Y = 1.5  # ... and above and below
_CLEARANCE = 2  # glyph anti-aliasing reaches a pixel or two past the OCR box
_RING_SHARE = 0.9  # the label's surroundings must be this uniform to be a fill
_EDGE_SHARE = 0.75  # an edge must differ from the fill along this share of its side


def enclosing_box(image: Image.Image, label: Box) -> Box | None:
    """The button-like box around ``label`` (image pixels), or None if it sits on open ground."""
    width, height = image.size
    x, y, w, h = label
    left, top = x - _CLEARANCE - 1, y - _CLEARANCE - 1
    right, bottom = x + w + _CLEARANCE, y + h + _CLEARANCE
    if left < 0 or top < 0 or right >= width or bottom >= height:
        return None
    pixels = (image if image.mode == "RGB" else image.convert("RGB")).load()
    assert pixels is not None

    def at(px: int, py: int) -> Colour:
        value = pixels[px, py]
        assert isinstance(value, tuple)
        return value

    ring = [at(i, top) for i in range(left, right + 1)]
    ring += [at(i, bottom) for i in range(left, right + 1)]
    ring += [at(left, j) for j in range(top, bottom + 1)]
    ring += [at(right, j) for j in range(top, bottom + 1)]
    fill = Counter(ring).most_common(1)[0][0]
    if _share(ring, fill) < _RING_SHARE:
        return None

    def column(px: int, y0: int, y1: int) -> list[Colour]:
        return [at(px, j) for j in range(y0, y1 + 1)]

    def row(py: int, x0: int, x1: int) -> list[Colour]:
        return [at(i, py) for i in range(x0, x1 + 1)]

    reach_x, reach_y = max(8, round(REACH_X * h)), max(6, round(REACH_Y * h))
    edge_left = _walk(lambda i: column(left - i, top, bottom), fill, reach_x, left)
    edge_right = _walk(lambda i: column(right + i, top, bottom), fill, reach_x, width - 1 - right)
    edge_top = _walk(lambda i: row(top - i, left, right), fill, reach_y, top)
    edge_bottom = _walk(lambda i: row(bottom + i, left, right), fill, reach_y, height - 1 - bottom)
    if edge_left is None or edge_right is None or edge_top is None or edge_bottom is None:
        return None
    x0, x1 = left - edge_left, right + edge_right
    y0, y1 = top - edge_top, bottom + edge_bottom
    # Judge each side along its middle half: rounded corners curve away from the fill.
    mid_y0, mid_y1 = y0 + (y1 - y0) // 4, y1 - (y1 - y0) // 4
    mid_x0, mid_x1 = x0 + (x1 - x0) // 4, x1 - (x1 - x0) // 4
    sides = (
        column(x0, mid_y0, mid_y1),
        column(x1, mid_y0, mid_y1),
        row(y0, mid_x0, mid_x1),
        row(y1, mid_x0, mid_x1),
    )
    if any(1 - _share(side, fill) < _EDGE_SHARE for side in sides):
        return None
    return (x0, y0, x1 - x0 + 1, y1 - y0 + 1)


def _same(a: Colour, b: Colour) -> bool:
    # Spelled out for RGB: this runs for every pixel walked, tens of thousands per screenshot.
    return (
        abs(a[0] - b[0]) <= TOLERANCE
        and abs(a[1] - b[1]) <= TOLERANCE
        and abs(a[2] - b[2]) <= TOLERANCE
    )


def _share(colours: list[Colour], fill: Colour) -> float:
    return sum(_same(c, fill) for c in colours) / len(colours)


def _walk(
    line_at: Callable[[int], list[Colour]], fill: Colour, reach: int, room: int
) -> int | None:
    """Steps outwards until a line is mostly not the fill; None if it never is within reach."""
    for step in range(1, min(reach, room) + 1):
        if _share(line_at(step), fill) < 0.5:
            return step
    return None
