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
"""

from __future__ import annotations

import re

from PIL import Image, ImageChops

Box = tuple[int, int, int, int]
"""x, y, width, height in image pixels."""

INK_STEP = 40
RULE_LENGTH = 20
RULE_CLEARANCE = 4  # a rule has (almost) no ink this many pixels to either side
MIN_HEIGHT = 5  # lower than any readable glyph: dots, the remains of a rule
MAX_HEIGHT = 160  # taller than a line of text: a picture or a chart, not worth reading
GAP_PER_HEIGHT = 1.2  # a block ends at a column gap wider than this many band heights
_MAX_DEPTH = 8
_INK = 255


def ink_mask(image: Image.Image) -> Image.Image:
    """A mode "L" image: 255 where the pixel is an edge of something drawn, 0 elsewhere."""
    grey = image.convert("L")
    # offset() wraps around; the wrapped first row/column only ever adds a line at the edge.
    right = ImageChops.difference(grey, ImageChops.offset(grey, -1, 0))
    down = ImageChops.difference(grey, ImageChops.offset(grey, 0, -1))
    return ImageChops.lighter(right, down).point(lambda v: _INK if v > INK_STEP else 0)


def erase_rules(mask: Image.Image) -> Image.Image:
    """The mask without horizontal and vertical rules (borders, underlines, box edges)."""
    flipped = _erase_horizontal(mask.transpose(Image.Transpose.TRANSPOSE))
    return _erase_horizontal(flipped.transpose(Image.Transpose.TRANSPOSE))


def _erase_horizontal(mask: Image.Image) -> Image.Image:
    width, height = mask.size
    src = mask.tobytes()
    out = bytearray(src)
    run = re.compile(rb"\xff{%d,}" % RULE_LENGTH)

    def density(y: int, start: int, end: int) -> float:
        if not 0 <= y < height:
            return 0.0
        return src[y * width + start : y * width + end].count(_INK) / (end - start)

    for y in range(height):
        row = y * width
        for match in run.finditer(src, row, row + width):
            start, end = match.start() - row, match.end() - row
            # A rule is clear on at least one side: a box edge has its label on the inside
            # only, an underline its text above only.
            if (
                density(y - RULE_CLEARANCE, start, end) < 0.3
                or density(y + RULE_CLEARANCE, start, end) < 0.3
            ):
                out[row + start : row + end] = bytes(end - start)
    return Image.frombytes("L", mask.size, bytes(out))


def _runs(flags: list[bool], min_gap: int) -> list[tuple[int, int]]:
    """[start, end) index ranges of True values, split where at least min_gap Falses lie."""
    found: list[tuple[int, int]] = []
    start = last = -1
    for i, flag in enumerate(flags):
        if not flag:
            continue
        if start < 0:
            start = i
        elif i - last - 1 >= min_gap:
            found.append((start, last + 1))
            start = i
        last = i
    if start >= 0:
        found.append((start, last + 1))
    return found


def _rows_with_ink(mask: Image.Image, box: Box) -> list[bool]:
    x, y, w, h = box
    data = mask.crop((x, y, x + w, y + h)).tobytes()
    return [_INK in data[i * w : (i + 1) * w] for i in range(h)]


def _columns_with_ink(mask: Image.Image, box: Box) -> list[bool]:
    x, y, w, h = box
    data = mask.crop((x, y, x + w, y + h)).transpose(Image.Transpose.TRANSPOSE).tobytes()
    return [_INK in data[i * h : (i + 1) * h] for i in range(w)]


def _cut(mask: Image.Image, box: Box, depth: int) -> list[Box]:
    x, y, w, _ = box
    blocks: list[Box] = []
    for top, bottom in _runs(_rows_with_ink(mask, box), 1):
        band: Box = (x, y + top, w, bottom - top)
        gap = max(3, round(GAP_PER_HEIGHT * band[3]))
        for left, right in _runs(_columns_with_ink(mask, band), gap):
            block: Box = (x + left, band[1], right - left, band[3])
            if block == box or depth >= _MAX_DEPTH:
                blocks.append(block)
            else:
                blocks.extend(_cut(mask, block, depth + 1))
    return blocks


def text_boxes(image: Image.Image) -> list[Box]:
    """Boxes of the text lines (or parts of lines far apart) in reading order, top to bottom."""
    mask = erase_rules(ink_mask(image))
    boxes = _cut(mask, (0, 0, *mask.size), 0)
    return [b for b in boxes if MIN_HEIGHT <= b[3] <= MAX_HEIGHT and b[2] >= 3]
