"""Is a piece of text sitting in a button-like box? Decided from the pixels alone.

A button, as drawn on a canvas or styled in CSS, is a rectangle of one colour with its label
inside and a visible edge all round: either its fill differs from what is outside, or a
border line runs along it. From just outside the label the fill is followed outwards in each
direction; the box is found when, within a few label heights, every direction reaches an edge
that runs straight along that side. Text on the open page (or on a toolbar strip that runs to
the edge of the screen) reaches no edge in some direction, and a line inside a paragraph meets
the lines above and below, which are not straight edges.

The screenshot comes as a numpy array (``pixels_of``), made once per screen: a dense screen
has hundreds of labels, and each looks only at the few thousand pixels around it.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from PIL import Image

from pagesight.vision.textlines import Box

Pixels = NDArray[np.uint8]
"""(height, width, 3): a screenshot's RGB values."""

TOLERANCE = 16  # levels per channel that still count as the same fill (anti-aliasing, dither)
REACH_X = 3.0  # how far, in label heights, a box may extend left and right of its label
REACH_Y = 1.5  # ... and above and below
_CLEARANCE = 2  # glyph anti-aliasing reaches a pixel or two past the OCR box
_RING_SHARE = 0.9  # the label's surroundings must be this uniform to be a fill
_EDGE_SHARE = 0.75  # an edge must differ from the fill along this share of its side
_WALL_SHARE = 0.5  # a line walked outwards is the edge once less than this share is fill


def pixels_of(image: Image.Image) -> Pixels:
    """The array ``enclosing_box`` reads."""
    return np.asarray(image if image.mode == "RGB" else image.convert("RGB"))


def enclosing_box(pixels: Pixels, label: Box) -> Box | None:
    """The button-like box around ``label`` (image pixels), or None if it sits on open ground."""
    height, width = pixels.shape[:2]
    x, y, w, h = label
    left, top = x - _CLEARANCE - 1, y - _CLEARANCE - 1
    right, bottom = x + w + _CLEARANCE, y + h + _CLEARANCE
    if left < 0 or top < 0 or right >= width or bottom >= height:
        return None

    # The fill: the commonest colour of the ring just outside the label (corners counted on
    # both sides they belong to).
    ring = np.concatenate(
        (
            pixels[top, left : right + 1],
            pixels[bottom, left : right + 1],
            pixels[top : bottom + 1, left],
            pixels[top : bottom + 1, right],
        )
    )
    # Whether each pixel is the fill, over all the search below can reach; (wx, wy) its corner.
    reach_x, reach_y = max(8, round(REACH_X * h)), max(6, round(REACH_Y * h))
    wx, wy = max(0, left - reach_x), max(0, top - reach_y)
    window = pixels[wy : bottom + reach_y + 1, wx : right + reach_x + 1]
    fills = _same(window, _commonest(ring))

    def column(px: int, y0: int, y1: int) -> NDArray[np.bool_]:
        return fills[y0 - wy : y1 - wy + 1, px - wx]

    def row(py: int, x0: int, x1: int) -> NDArray[np.bool_]:
        return fills[py - wy, x0 - wx : x1 - wx + 1]

    ring_sides = (
        row(top, left, right),
        row(bottom, left, right),
        column(left, top, bottom),
        column(right, top, bottom),
    )
    if sum(map(np.count_nonzero, ring_sides)) / len(ring) < _RING_SHARE:
        return None

    # Each walk: the lines one step, two steps, ... outside the label's ring, nearest first.
    rows, columns = fills[top - wy : bottom - wy + 1], fills[:, left - wx : right - wx + 1]
    edge_left = _wall(rows[:, : left - wx][:, ::-1], axis=0)
    edge_right = _wall(rows[:, right - wx + 1 :], axis=0)
    edge_top = _wall(columns[: top - wy][::-1], axis=1)
    edge_bottom = _wall(columns[bottom - wy + 1 :], axis=1)
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
    if any(1 - _share(side) < _EDGE_SHARE for side in sides):
        return None
    return (x0, y0, x1 - x0 + 1, y1 - y0 + 1)


def _commonest(colours: Pixels) -> Pixels:
    """The colour found most often in an (n, 3) array; of equals, the one found first."""
    codes = (colours[:, 0].astype(np.int32) << 16) | (colours[:, 1].astype(np.int32) << 8)
    codes |= colours[:, 2]
    _, first, counts = np.unique(codes, return_index=True, return_counts=True)
    commonest: Pixels = colours[first[counts == counts.max()].min()]
    return commonest


def _same(colours: Pixels, fill: Pixels) -> NDArray[np.bool_]:
    """Whether each colour is ``fill``, within TOLERANCE on every channel."""
    near = np.abs(colours.astype(np.int16) - fill.astype(np.int16)) <= TOLERANCE
    # Channel by channel: a reduction over an axis of three is slow in numpy.
    return near[..., 0] & near[..., 1] & near[..., 2]


def _share(same: NDArray[np.bool_]) -> float:
    return int(np.count_nonzero(same)) / same.size


def _wall(lines: NDArray[np.bool_], *, axis: int) -> int | None:
    """How many steps out the first line that is mostly not the fill lies (the lines lie
    along ``axis``, nearest first, no further than the reach); None if none is."""
    if not lines.size:
        return None
    shares = np.count_nonzero(lines, axis=axis) / lines.shape[axis]
    walls = np.flatnonzero(shares < _WALL_SHARE)
    return int(walls[0]) + 1 if walls.size else None
