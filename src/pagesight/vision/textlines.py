"""Find the boxes of text lines in a screenshot, before any character is read.

Tesseract's own page layout analysis is built for scanned documents: on a screenshot it drops
short labels (a two-character Chinese button, a word on a coloured bar) depending on what
else is on the page. So pagesight finds the lines itself and hands Tesseract only those.

1. Ink: a pixel that differs from its right or lower neighbour by more than ``INK_STEP``
   levels of grey. Flat regions (the page, a button's fill) carry no ink, whatever their colour,
   so white-on-blue text is found the same way as black-on-white.
2. Rules are erased: a run of ink at least ``RULE_LENGTH`` long with no ink a few pixels above
   and below it (or left and right, for vertical runs) is a border, underline or box edge, not
   a glyph. Text keeps ink on both sides of its long runs.
3. Recursive XY-cut: rows with ink form bands; a band splits into blocks where its columns
   leave a gap wider than the band is tall (the space between toolbar items, not between
   words); each block is cut again until nothing changes.

The pixel work is numpy's, on boolean masks (a dense screen holds a million pixels); only the
cut's recursion over blocks is Python.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from PIL import Image

Box = tuple[int, int, int, int]
"""x, y, width, height in image pixels."""
Mask = NDArray[np.bool_]
"""(height, width): True where there is ink."""

INK_STEP = 40
RULE_LENGTH = 20
RULE_CLEARANCE = 4  # a rule has (almost) no ink this many pixels to either side
RULE_DENSITY = 0.3  # ... "almost": less than this share of the run's length
MIN_HEIGHT = 5  # lower than any readable glyph: dots, the remains of a rule
MAX_HEIGHT = 160  # taller than a line of text: a picture or a chart, not worth reading
GAP_PER_HEIGHT = 1.2  # a block ends at a column gap wider than this many band heights
_MAX_DEPTH = 8


def ink_mask(image: Image.Image) -> Mask:
    """True where the pixel is an edge of something drawn."""
    grey = np.asarray(image.convert("L"), dtype=np.int16)
    # Neighbours wrap around (as Pillow's offset did): the last column is compared with the
    # first, the last row with the first, which only ever adds a line at the edge.
    right = np.abs(grey - np.roll(grey, -1, axis=1))
    down = np.abs(grey - np.roll(grey, -1, axis=0))
    ink: Mask = np.maximum(right, down) > INK_STEP
    return ink


def erase_rules(mask: Mask) -> Mask:
    """The mask without vertical, then horizontal, rules (borders, underlines, box edges)."""
    # Columns are erased as rows of the transposed mask, copied so that each is contiguous.
    upright = np.ascontiguousarray(_erase_horizontal(np.ascontiguousarray(mask.T)).T)
    return _erase_horizontal(upright)


def _erase_horizontal(mask: Mask) -> Mask:
    height, width = mask.shape
    # Every run of ink along a row, from where the flags change in the rows laid end to end,
    # each row closed by a False so that no run reaches into the next.
    flat = np.zeros((height, width + 1), dtype=np.bool_)
    flat[:, :width] = mask
    flags = flat.ravel()
    changes = np.flatnonzero(flags[1:] != flags[:-1]) + 1
    if flags[0]:
        changes = np.concatenate(([0], changes))
    starts, ends = changes[0::2], changes[1::2]
    long = ends - starts >= RULE_LENGTH
    rows, starts = np.divmod(starts[long], width + 1)
    ends = ends[long] - rows * (width + 1)
    # Ink counted along the rows RULE_CLEARANCE above and below each run (none off the image).
    counts = np.zeros((height + 2 * RULE_CLEARANCE, width + 1), dtype=np.int32)
    np.cumsum(mask, axis=1, out=counts[RULE_CLEARANCE:-RULE_CLEARANCE, 1:])
    lengths = ends - starts
    above = counts[rows, ends] - counts[rows, starts]
    below = counts[rows + 2 * RULE_CLEARANCE, ends] - counts[rows + 2 * RULE_CLEARANCE, starts]
    # A rule is clear on at least one side: a box edge has its label on the inside only, an
    # underline its text above only.
    rule = (above / lengths < RULE_DENSITY) | (below / lengths < RULE_DENSITY)
    out = mask.copy()
    for y, start, end in zip(rows[rule], starts[rule], ends[rule], strict=True):
        out[y, start:end] = False
    return out


def _runs(flags: NDArray[np.bool_], min_gap: int) -> list[tuple[int, int]]:
    """[start, end) index ranges of True values, split where at least min_gap Falses lie."""
    at = np.flatnonzero(flags)
    if not at.size:
        return []
    breaks = np.flatnonzero(np.diff(at) - 1 >= min_gap)
    starts = at[np.concatenate(([0], breaks + 1))]
    ends = at[np.concatenate((breaks, [at.size - 1]))] + 1
    return list(zip(starts.tolist(), ends.tolist(), strict=True))


def _cut(mask: Mask, box: Box, depth: int) -> list[Box]:
    x, y, w, h = box
    blocks: list[Box] = []
    for top, bottom in _runs(np.any(mask[y : y + h, x : x + w], axis=1), 1):
        band: Box = (x, y + top, w, bottom - top)
        gap = max(3, round(GAP_PER_HEIGHT * band[3]))
        columns = np.any(mask[band[1] : band[1] + band[3], x : x + w], axis=0)
        for left, right in _runs(columns, gap):
            block: Box = (x + left, band[1], right - left, band[3])
            if block == box or depth >= _MAX_DEPTH:
                blocks.append(block)
            else:
                blocks.extend(_cut(mask, block, depth + 1))
    return blocks


def text_boxes(image: Image.Image) -> list[Box]:
    """Boxes of the text lines (or parts of lines far apart) in reading order, top to bottom."""
    mask = erase_rules(ink_mask(image))
    height, width = mask.shape
    boxes = _cut(mask, (0, 0, width, height), 0)
    return [b for b in boxes if MIN_HEIGHT <= b[3] <= MAX_HEIGHT and b[2] >= 3]
