"""Set-of-marks screenshots: a dashed box and a numbered badge over each element.

Drawn in Python over the raw screenshot, so the page's DOM is never touched. Boxes arrive in
CSS pixels and are multiplied by the device pixel ratio. Borders are dashed, each mark's dash
pattern shifted by half a period from its neighbour's id, so two boxes that share an edge
show both colours instead of the later one hiding the earlier. Each badge is placed at the
first of a few spots around its box that stays inside the image and off the badges already
placed (and, where possible, off other elements' boxes); badges are drawn after every box so
that no border runs across a number.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from PIL import ImageDraw, ImageFont

from pagesight.errors import InvalidOption
from pagesight.observe.observation import DATE_ROLES, Element
from pagesight.vision.images import decode_png, encode_png

Kind = Literal["link", "button", "input", "select", "other"]
Rect = tuple[int, int, int, int]
"""left, top, right, bottom in image pixels (right and bottom exclusive)."""

KIND_COLOURS: Mapping[Kind, tuple[int, int, int]] = {
    "link": (37, 99, 235),  # blue
    "button": (22, 163, 74),  # green
    "input": (234, 88, 12),  # orange
    "select": (147, 51, 234),  # purple
    "other": (107, 114, 128),  # grey
}
BADGE_TEXT = (255, 255, 255)
HALO = (255, 255, 255)  # under each dash, so a green border still shows on a green button

# In CSS pixels; multiplied by the scale.
FONT_SIZE = 12
LINE_WIDTH = 2
DASH, GAP = 6, 4
PAD_X, PAD_Y = 3, 1

_BUTTONS = frozenset(
    {"button", "menuitem", "menuitemcheckbox", "menuitemradio", "tab", "treeitem", "clickable"}
)
_INPUTS = frozenset(
    {"textbox", "searchbox", "spinbutton", "slider", "checkbox", "radio", "switch", *DATE_ROLES}
)
_SELECTS = frozenset({"listbox", "option", "menu", "tree"})


@dataclass(frozen=True, kw_only=True)
class Mark:
    """An element to mark: its id (the badge's number), kind (the colour) and CSS box."""

    id: int
    kind: Kind
    bounds: tuple[float, float, float, float]
    """x, y, width, height in CSS pixels of the viewport."""


@dataclass(frozen=True, kw_only=True)
class PlacedMark:
    """Where a mark is drawn, in image pixels."""

    mark: Mark
    box: Rect
    """The element's box clipped to the image."""
    badge: Rect


def kind_for_role(role: str, *, options: bool = False) -> Kind:
    """The mark kind of an element role. A combobox with options is a select (``<select>``);
    one without is a text field with suggestions, an input."""
    if role == "link":
        return "link"
    if role == "combobox":
        return "select" if options else "input"
    if role in _SELECTS:
        return "select"
    if role in _INPUTS:
        return "input"
    if role in _BUTTONS:
        return "button"
    return "other"


def marks_for(elements: Iterable[Element]) -> list[Mark]:
    """Marks for an observation's elements that are on screen and have bounds."""
    return [
        Mark(id=el.id, kind=kind_for_role(el.role, options=bool(el.options)), bounds=el.bounds)
        for el in elements
        if el.bounds is not None and not el.offscreen and not el.hidden_in_container
    ]


def draw_marks(png: bytes, marks: Sequence[Mark], *, scale: float) -> bytes:
    """The screenshot with every mark drawn on it, as PNG. ``scale``: devicePixelRatio."""
    image = decode_png(png)
    placed = layout_marks(marks, scale=scale, size=image.size)
    draw = ImageDraw.Draw(image)
    width = max(1, round(LINE_WIDTH * scale))
    halo = max(1, round(scale))
    period = (DASH + GAP) * scale
    # The border runs just outside the box, halo and all: a box fitted tightly round a label
    # (text read off the screen, a small link) must not have its letters painted over.
    out = width + halo
    dashes = [
        (
            item,
            _dashes(
                _grown(item.box, out, image.size),
                width=width,
                scale=scale,
                phase=period / 2 * (item.mark.id % 2),
            ),
        )
        for item in placed
    ]
    # Every halo before any dash, so that no halo paints over another mark's dash.
    for _, rects in dashes:
        for x0, y0, x1, y1 in rects:
            draw.rectangle((x0 - halo, y0 - halo, x1 - 1 + halo, y1 - 1 + halo), fill=HALO)
    for item, rects in dashes:
        for x0, y0, x1, y1 in rects:
            draw.rectangle((x0, y0, x1 - 1, y1 - 1), fill=KIND_COLOURS[item.mark.kind])
    font = _font(scale)
    for item in placed:
        left, top, right, bottom = item.badge
        draw.rectangle((left, top, right - 1, bottom - 1), fill=KIND_COLOURS[item.mark.kind])
        centre = ((left + right) / 2, (top + bottom) / 2)
        draw.text(centre, str(item.mark.id), fill=BADGE_TEXT, font=font, anchor="mm")
    return encode_png(image)


def _grown(box: Rect, by: int, size: tuple[int, int]) -> Rect:
    """``box`` grown by ``by`` pixels on every side, kept on an image of ``size``."""
    left, top, right, bottom = box
    return (
        max(0, left - by),
        max(0, top - by),
        min(size[0], right + by),
        min(size[1], bottom + by),
    )


def layout_marks(marks: Sequence[Mark], *, scale: float, size: tuple[int, int]) -> list[PlacedMark]:
    """Where each mark's box and badge go on an image of ``size``; marks off the image are left
    out. Badges are placed in the order given."""
    if scale <= 0:
        raise InvalidOption("scale", f"scale must be positive, not {scale!r}")
    font = _font(scale)
    boxes: list[tuple[Mark, Rect]] = []
    for mark in marks:
        x, y, w, h = (v * scale for v in mark.bounds)
        clipped = (
            max(0, round(x)),
            max(0, round(y)),
            min(size[0], round(x + w)),
            min(size[1], round(y + h)),
        )
        if clipped[2] > clipped[0] and clipped[3] > clipped[1]:
            boxes.append((mark, clipped))
    box_grid, badge_grid = _Grid(), _Grid()
    for _, box in boxes:
        box_grid.add(box)
    placed: list[PlacedMark] = []
    for index, (mark, box) in enumerate(boxes):
        badge_size = _badge_size(str(mark.id), font, scale)
        badge = _place_badge(index, box, badge_size, size, badges=badge_grid, boxes=box_grid)
        badge_grid.add(badge)
        placed.append(PlacedMark(mark=mark, box=box, badge=badge))
    return placed


class _Grid:
    """Rectangles bucketed by the cells they touch, so that what a small badge would cover is
    found among its neighbours, not among every element of the page."""

    CELL = 64

    def __init__(self) -> None:
        self.rects: list[Rect] = []
        self._cells: dict[tuple[int, int], list[int]] = {}

    def add(self, rect: Rect) -> None:
        for cell in self._cells_of(rect):
            self._cells.setdefault(cell, []).append(len(self.rects))
        self.rects.append(rect)

    def covered(self, spot: Rect, *, skip: int = -1) -> int:
        """The area of ``spot`` that the rectangles cover (counted once per rectangle)."""
        near = {i for cell in self._cells_of(spot) for i in self._cells.get(cell, ())}
        return sum(_overlap(spot, self.rects[i]) for i in near if i != skip)

    def _cells_of(self, rect: Rect) -> list[tuple[int, int]]:
        left, top, right, bottom = rect
        return [
            (cx, cy)
            for cx in range(left // self.CELL, (max(left, right - 1)) // self.CELL + 1)
            for cy in range(top // self.CELL, (max(top, bottom - 1)) // self.CELL + 1)
        ]


def _font(scale: float) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=max(8, round(FONT_SIZE * scale)))


def _badge_size(
    text: str, font: ImageFont.FreeTypeFont | ImageFont.ImageFont, scale: float
) -> tuple[int, int]:
    left, _, right, _ = font.getbbox(text)
    # From the font size, not the digits' ink, so that badges grow exactly with the scale.
    height = round((FONT_SIZE + 2 * PAD_Y) * scale)
    # At least as wide as tall: a one-digit badge is a square, easy to spot.
    return (max(height, round(right - left + 2 * PAD_X * scale)), height)


def _place_badge(
    index: int,
    box: Rect,
    badge: tuple[int, int],
    image: tuple[int, int],
    *,
    badges: _Grid,
    boxes: _Grid,
) -> Rect:
    """The best of a few spots around the box: just above its top-left corner first (so the
    element's own text stays readable), then inside that corner, the other corners, below,
    and beside it. Each spot is pushed inside the image; the first that covers no badge (and,
    preferring, no other box) wins, else the one covering least."""
    left, top, right, bottom = box
    bw, bh = badge
    area = bw * bh
    spots = [
        (left, top - bh),
        (left, top),
        (right - bw, top - bh),
        (right - bw, top),
        (left, bottom),
        (left, bottom - bh),
        (left - bw, top),
        (right, top),
    ]
    best: Rect | None = None
    best_cost = float("inf")
    for rank, (want_x, want_y) in enumerate(spots):
        if rank * area / 10 >= best_cost:
            break  # this spot and every later one cost more than the best already
        x = min(max(0, want_x), image[0] - bw)
        y = min(max(0, want_y), image[1] - bh)
        spot = (x, y, x + bw, y + bh)
        covered_badges = badges.covered(spot)
        covered_boxes = boxes.covered(spot, skip=index)
        covered_own = _overlap(spot, box)
        # Covering a badge is far worse than covering a box; covering the element's own box
        # (its label) counts half as much as another's; each step down the list of spots
        # costs a tenth of the badge, so a sliver of overlap does not send it far away.
        cost = covered_badges * 1000 + covered_boxes + covered_own / 2 + rank * area / 10
        if cost < best_cost:
            best, best_cost = spot, cost
        if covered_badges == 0 and covered_boxes == 0 and covered_own == 0:
            break
    assert best is not None
    return best


def _overlap(a: Rect, b: Rect) -> int:
    # Conditional expressions, not min()/max(): this runs for every neighbour of every spot.
    width = (a[2] if a[2] < b[2] else b[2]) - (a[0] if a[0] > b[0] else b[0])
    if width <= 0:
        return 0
    height = (a[3] if a[3] < b[3] else b[3]) - (a[1] if a[1] > b[1] else b[1])
    return width * height if height > 0 else 0


def _dashes(box: Rect, *, width: int, scale: float, phase: float) -> list[Rect]:
    """The dashes of a border drawn inside ``box``, ``width`` thick, as rectangles. The
    pattern runs on round the corners, starting ``phase`` pixels into its period."""
    left, top, right, bottom = box
    dash, period = DASH * scale, (DASH + GAP) * scale
    # Each side: where it starts, which way it runs, how long it is.
    sides = [
        ((left, top), (1, 0), right - left),
        ((right - width, top), (0, 1), bottom - top),
        ((right, bottom - width), (-1, 0), right - left),
        ((left, bottom), (0, -1), bottom - top),
    ]
    rects: list[Rect] = []
    travelled = phase
    for (sx, sy), (dx, dy), length in sides:
        start = -(travelled % period)
        while start < length:
            a, b = round(max(0.0, start)), round(min(length, start + dash))
            if b > a:
                if dx:  # horizontal: runs along x, ``width`` tall
                    x0, x1 = (sx + a, sx + b) if dx > 0 else (sx - b, sx - a)
                    rects.append((x0, sy, x1, sy + width))
                else:
                    y0, y1 = (sy + a, sy + b) if dy > 0 else (sy - b, sy - a)
                    rects.append((sx, y0, sx + width, y1))
            start += period
        travelled += length
    return rects
