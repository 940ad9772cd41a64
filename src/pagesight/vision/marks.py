"""Set-of-marks screenshots: a dashed box and a numbered badge over each element.

Drawn in Python over the raw screenshot, so the page's DOM is never touched. Boxes arrive in
CSS pixels and are multiplied by the device pixel ratio. Borders are dashed, each mark's dash
pattern shifted by half a period from its neighbour's id, so two boxes that share an edge
show both colours instead of the later one hiding the earlier. Each badge sits just left of
its element's first line of text, centred on that line, where a model reading the picture
ties it to that element; it never covers text (its own or a neighbour's, given the page's
text boxes) nor another badge: with no room there it goes to the nearest free spot on the
same line, left or right, then on the rows just above and below. Badges are drawn after
every box so that no border runs across a number.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from PIL import ImageDraw, ImageFont

from pagesight.errors import InvalidOption
from pagesight.observe.elements import Element
from pagesight.observe.roles import DATE_ROLES
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


CssBox = tuple[float, float, float, float]
"""x, y, width, height in CSS pixels of the viewport."""


@dataclass(frozen=True, kw_only=True)
class Mark:
    """An element to mark: its id (the badge's number), kind (the colour) and CSS box."""

    id: int
    kind: Kind
    bounds: CssBox
    """x, y, width, height in CSS pixels of the viewport."""
    line: CssBox | None = None
    """Its first line of text (CSS px), which the badge sits beside; ``None``: an element
    without text (a field, an icon), whose badge sits beside the box itself."""


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


def marks_for(
    elements: Iterable[Element],
    texts: Sequence[CssBox] = (),
    owners: Sequence[CssBox | None] = (),
) -> list[Mark]:
    """Marks for an observation's elements that are on screen and have bounds. ``texts``:
    the page's text boxes (``TEXT_BOXES_SCRIPT``), from which each mark takes its first line;
    ``owners``: for each, the wrapping link it belongs to (``wrapping_owners``)."""
    marks = [
        Mark(id=el.id, kind=kind_for_role(el.role, options=bool(el.options)), bounds=el.bounds)
        for el in elements
        if el.bounds is not None and not el.offscreen and not el.hidden_in_container
    ]
    return with_first_lines(marks, texts, owners) if texts else marks


def with_first_lines(
    marks: Sequence[Mark], texts: Sequence[CssBox], owners: Sequence[CssBox | None] = ()
) -> list[Mark]:
    """Each mark with its first line of text: of the text boxes whose centre lies inside its
    box, the topmost, joined with those beside it on the same line. The box of a link that
    wraps spans whole lines, the words before it included: only its own text counts, and
    its first line is its first in reading order (across columns, not the topmost).
    ``owners``: the wrapping element each text box belongs to, if any."""
    grid = _Grid((0, 0))
    owner_of: dict[Rect, tuple[CssBox | None, int]] = {}
    for index, (x, y, w, h) in enumerate(texts):
        rect = (math.floor(x), math.floor(y), math.ceil(x + w), math.ceil(y + h))
        grid.add(rect)
        owner_of.setdefault(rect, (owners[index] if index < len(owners) else None, index))
    out = []
    for mark in marks:
        x, y, w, h = mark.bounds
        box = (math.floor(x), math.floor(y), math.ceil(x + w), math.ceil(y + h))
        inside = [
            t
            for t in grid.near(box)
            if x <= (t[0] + t[2]) / 2 <= x + w and y <= (t[1] + t[3]) / 2 <= y + h
        ]
        own = [t for t in inside if _same_box(owner_of[t][0], mark.bounds)]
        if own:  # the script lists text in reading order
            inside, first = own, min(own, key=lambda t: owner_of[t][1])
        elif inside:
            first = min(inside, key=lambda t: (t[1], t[0]))
        else:
            out.append(mark)
            continue
        middle = (first[1] + first[3]) / 2
        row = [t for t in inside if t[1] <= middle <= t[3]]
        left, top = min(t[0] for t in row), min(t[1] for t in row)
        right, bottom = max(t[2] for t in row), max(t[3] for t in row)
        out.append(replace(mark, line=(left, top, right - left, bottom - top)))
    return out


def draw_marks(
    png: bytes, marks: Sequence[Mark], *, scale: float, texts: Sequence[CssBox] = ()
) -> bytes:
    """The screenshot with every mark drawn on it, as PNG. ``scale``: devicePixelRatio;
    ``texts``: the page's text boxes in CSS px, which no badge may cover."""
    image = decode_png(png)
    placed = layout_marks(marks, scale=scale, size=image.size, texts=texts)
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


def _same_box(a: CssBox | None, b: CssBox) -> bool:
    """Whether a measured box is an element's (whose bounds are rounded to whole pixels)."""
    return a is not None and all(abs(p - q) <= 1 for p, q in zip(a, b, strict=True))


def layout_marks(
    marks: Sequence[Mark],
    *,
    scale: float,
    size: tuple[int, int],
    texts: Sequence[CssBox] = (),
) -> list[PlacedMark]:
    """Where each mark's box and badge go on an image of ``size``; marks off the image are left
    out. Badges are placed in the order given, each beside its mark's first line (or its box,
    for a mark without one), off ``texts`` (CSS px), other elements' boxes and the badges
    already placed."""
    if scale <= 0:
        raise InvalidOption("scale", f"scale must be positive, not {scale!r}")
    font = _font(scale)
    obstacles = _Grid(size)
    for x, y, w, h in texts:
        obstacles.add(_image_rect((x, y, w, h), scale))
    boxes: list[tuple[Mark, Rect]] = []
    for mark in marks:
        x, y, w, h = (v * scale for v in mark.bounds)
        box = (
            max(0, round(x)),
            max(0, round(y)),
            min(size[0], round(x + w)),
            min(size[1], round(y + h)),
        )
        if box[2] > box[0] and box[3] > box[1]:
            boxes.append((mark, box))
            obstacles.add(box, box=True)  # a badge inside another's box would seem to be its
    placed: list[PlacedMark] = []
    gap = max(1, round((LINE_WIDTH + 1) * scale))  # clear of the element's own border
    for mark, box in boxes:
        badge_size = _badge_size(str(mark.id), font, scale)
        line = _image_rect(mark.line, scale) if mark.line is not None else _top_of(box, badge_size)
        badge = _place_badge(line, badge_size, gap=gap, grid=obstacles)
        obstacles.add(badge)
        placed.append(PlacedMark(mark=mark, box=box, badge=badge))
    return placed


def _image_rect(css: CssBox, scale: float) -> Rect:
    """A CSS box in image pixels, rounded outwards (a badge beside text must not touch it)."""
    x, y, w, h = css
    return (
        math.floor(x * scale),
        math.floor(y * scale),
        math.ceil((x + w) * scale),
        math.ceil((y + h) * scale),
    )


def _top_of(box: Rect, badge: tuple[int, int]) -> Rect:
    """What a badge of an element without text sits beside: the whole box when it is about a
    line tall (a text field, an icon), else its top band (a canvas, a large card)."""
    left, top, right, bottom = box
    if bottom - top <= 3 * badge[1]:
        return box
    return (left, top, right, top + badge[1])


class _Grid:
    """What a badge must not cover on an image of ``size`` — text, badges, element boxes —
    bucketed by the cells each touches, so that a spot is checked against its neighbours, not
    every element of the page. The boxes around a line do not block its badge (a link's badge
    may sit inside the card holding it)."""

    CELL = 32

    def __init__(self, size: tuple[int, int]) -> None:
        self.size = size
        self._rects: list[tuple[Rect, bool]] = []
        self._cells: dict[tuple[int, int], list[int]] = {}

    def add(self, rect: Rect, *, box: bool = False) -> None:
        index = len(self._rects)
        for cell in self._cells_of(rect):
            self._cells.setdefault(cell, []).append(index)
        self._rects.append((rect, box))

    def near(self, spot: Rect) -> list[Rect]:
        """Everything in the cells ``spot`` touches (each once)."""
        found = {i for cell in self._cells_of(spot) for i in self._cells.get(cell, ())}
        return [self._rects[i][0] for i in found]

    def hits(self, spot: Rect, line: Rect) -> list[Rect]:
        """What a badge for ``line`` at ``spot`` would cover."""
        found = {i for cell in self._cells_of(spot) for i in self._cells.get(cell, ())}
        out = []
        for i in found:
            r, box = self._rects[i]
            if _overlap(spot, r) and not (
                box and r[0] <= line[0] and r[1] <= line[1] and line[2] <= r[2] and line[3] <= r[3]
            ):
                out.append(r)
        return out

    def _cells_of(self, rect: Rect) -> list[tuple[int, int]]:
        left, top, right, bottom = rect
        cell = self.CELL
        last_x = (right - 1 if right > left else left) // cell
        last_y = (bottom - 1 if bottom > top else top) // cell
        return [
            (cx, cy)
            for cx in range(left // cell, last_x + 1)
            for cy in range(top // cell, last_y + 1)
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


_ROWS = 2
"""Rows of badge height above and below the line tried when its own row is full."""
_REACH = 4
"""How many badge widths from its line a badge may be moved to find room."""


def _place_badge(line: Rect, badge: tuple[int, int], *, gap: int, grid: _Grid) -> Rect:
    """Just left of ``line``, centred on it. Where text, a badge or another element is in the
    way, the nearest free spot within a few badges of the line: along that row to the left
    or the right (past each obstacle in turn), over or under the line's start, or on the rows
    just above and below; the line's own row is preferred by up to a badge's width. With no
    free spot that near, the first choice (a badge far from its element misleads more than
    one over a few letters)."""
    bw, bh = badge
    centre = (line[1] + line[3]) // 2 - bh // 2
    # Each try: a row, which way to slide along it, and what being on the line's own row is
    # worth (left most: labels go there).
    tries: list[tuple[int, int, float]] = [(centre, -1, bw), (centre, 1, bw / 2)]
    for step in range(1, _ROWS + 1):
        for top in (centre - step * bh, centre + step * bh):
            tries += [(top, -1, 0.0), (top, 1, 0.0)]
    best: tuple[float, Rect] | None = None
    for top, way, bonus in tries:
        edge = line[0] - gap if way < 0 else line[2] + gap
        start = (edge - bw, top, edge, top + bh) if way < 0 else (edge, top, edge + bw, top + bh)
        if best is not None and _distance(start, line) - bonus >= best[0]:
            continue  # sliding only moves away: this row cannot beat what was found
        spot = _slide(start, way, line=line, grid=grid, reach=_REACH * bw)
        if spot is None:
            continue
        if spot == start and bonus == bw:
            return spot  # right beside the line, on the left: nothing is better
        score = _distance(spot, line) - bonus
        if best is None or score < best[0]:
            best = (score, spot)
    for top in (line[1] - bh, line[3]):  # over or under the line's start
        spot = (line[0], top, line[0] + bw, top + bh)
        score = _distance(spot, line) - gap
        free = _inside(spot, grid.size) and not grid.hits(spot, line)
        if free and (best is None or score < best[0]):
            best = (score, spot)
    if best is not None:
        return best[1]
    x = min(max(0, line[0] - gap - bw), grid.size[0] - bw)
    y = min(max(0, centre), grid.size[1] - bh)
    return (x, y, x + bw, y + bh)


def _slide(spot: Rect, way: int, *, line: Rect, grid: _Grid, reach: int) -> Rect | None:
    """The first free badge spot on a row from ``spot``, moving ``way`` (-1 left, 1 right)
    past each obstacle in turn; None off the image or ``reach`` pixels along."""
    width = spot[2] - spot[0]
    start = spot[0]
    while abs(spot[0] - start) <= reach and _inside(spot, grid.size):
        hits = grid.hits(spot, line)
        if not hits:
            return spot
        left = min(r[0] for r in hits) - width if way < 0 else max(r[2] for r in hits)
        spot = (left, spot[1], left + width, spot[3])
    return None


def _inside(spot: Rect, size: tuple[int, int]) -> bool:
    return spot[0] >= 0 and spot[1] >= 0 and spot[2] <= size[0] and spot[3] <= size[1]


def _distance(spot: Rect, line: Rect) -> int:
    """How far a spot is from the line, edge to edge, across and up or down."""
    across = max(line[0] - spot[2], spot[0] - line[2], 0)
    down = max(line[1] - spot[3], spot[1] - line[3], 0)
    return across + down


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
