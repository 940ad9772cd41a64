"""Set-of-marks screenshots drawn over real Chromium screenshots, checked pixel by pixel."""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from PIL import Image

from conftest import StaticServer
from pagesight import Browser, Element, InvalidOption
from pagesight.vision.marks import (
    HALO,
    KIND_COLOURS,
    LINE_WIDTH,
    Kind,
    Mark,
    PlacedMark,
    draw_marks,
    kind_for_role,
    layout_marks,
    marks_for,
)
from vision_support import scaled_page


@dataclass(frozen=True, kw_only=True)
class Shot:
    png: bytes
    elements: tuple[Element, ...]
    viewport: tuple[int, int]


@pytest.fixture(scope="module")
def dom_shot(browser: Browser, server: StaticServer) -> Iterator[Shot]:
    """vision-dom.html observed by pagesight and screenshotted at device scale factor 1."""
    page = browser.open(server.url("vision-dom.html"))
    obs = page.observe()
    width, height = page.playwright.evaluate("[innerWidth, innerHeight]")
    yield Shot(png=page.playwright.screenshot(), elements=obs.elements, viewport=(width, height))
    page.close()


def _image(png: bytes) -> Image.Image:
    return Image.open(io.BytesIO(png)).convert("RGB")


def _pixel(image: Image.Image, x: float, y: float) -> tuple[int, ...]:
    value = image.getpixel((int(x), int(y)))
    assert isinstance(value, tuple)
    return value


def _by_name(shot: Shot, name: str) -> Element:
    found = [el for el in shot.elements if el.name == name]
    assert len(found) == 1, f"{name!r}: {found}"
    return found[0]


def _badge_point(placed: PlacedMark) -> tuple[float, float]:
    """A point inside the badge's fill, left of its number."""
    left, top, _, bottom = placed.badge
    return (left + 1, (top + bottom) / 2)


def _overlaps(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    return min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])


def test_roles_map_to_kinds() -> None:
    assert kind_for_role("link") == "link"
    assert kind_for_role("button") == kind_for_role("menuitem") == "button"
    assert kind_for_role("textbox") == kind_for_role("searchbox") == "input"
    assert kind_for_role("checkbox") == kind_for_role("slider") == "input"
    assert kind_for_role("combobox", options=True) == "select"  # <select>
    assert kind_for_role("combobox") == "input"  # a text field with suggestions
    assert kind_for_role("listbox") == "select"
    assert kind_for_role("heading") == kind_for_role("canvas") == "other"


def test_each_badge_sits_on_its_box_corner_in_its_kind_colour(dom_shot: Shot) -> None:
    marks = marks_for(dom_shot.elements)
    expected: dict[str, Kind] = {
        "Home": "link",
        "Name": "input",
        "Save": "button",
        "搜索": "button",
    }
    marked = _image(draw_marks(dom_shot.png, marks, scale=1.0))
    raw = _image(dom_shot.png)
    placed = {p.mark.id: p for p in layout_marks(marks, scale=1.0, size=raw.size)}
    for name, kind in expected.items():
        el = _by_name(dom_shot, name)
        assert el.bounds is not None
        item = placed[el.id]
        assert item.mark.kind == kind
        x, y, _, h = el.bounds
        left, top, _, bottom = item.badge
        assert left == x
        if name == "Home":  # no room above at the top of the page: pushed down, inside it
            assert top == 0 and bottom < y + h / 2, (name, item.badge, el.bounds)
        else:  # just above the top-left corner, off the element's own label
            assert bottom == y, (name, item.badge, el.bounds)
        px, py = _badge_point(item)
        assert _pixel(marked, px, py) == KIND_COLOURS[kind], name
        assert _pixel(raw, px, py) != KIND_COLOURS[kind], f"{name}: the colour was there before"
    # The <select> is purple, even though it has no name.
    select = next(el for el in dom_shot.elements if el.role == "combobox")
    assert _pixel(marked, *_badge_point(placed[select.id])) == KIND_COLOURS["select"]


def test_badges_stay_inside_the_image_and_off_each_other(dom_shot: Shot) -> None:
    marks = marks_for(dom_shot.elements)
    # Add marks hanging off every edge of the viewport.
    width, height = dom_shot.viewport
    marks += [
        Mark(id=901, kind="other", bounds=(-20, -20, 60, 40)),
        Mark(id=902, kind="other", bounds=(width - 30, height - 10, 80, 40)),
        Mark(id=903, kind="link", bounds=(width - 5, 100, 40, 20)),
    ]
    size = _image(dom_shot.png).size
    placed = layout_marks(marks, scale=1.0, size=size)
    assert {p.mark.id for p in placed} >= {901, 902, 903}
    for item in placed:
        left, top, right, bottom = item.badge
        assert 0 <= left < right <= size[0] and 0 <= top < bottom <= size[1], item
    for i, a in enumerate(placed):
        for b in placed[i + 1 :]:
            assert not _overlaps(a.badge, b.badge), (a, b)
    # A mark wholly off the image gets neither box nor badge.
    off = layout_marks([Mark(id=1, kind="link", bounds=(-100, 10, 50, 20))], scale=1, size=size)
    assert off == []


def test_overlapping_elements_keep_apart(dom_shot: Shot) -> None:
    back, front = _by_name(dom_shot, "Back"), _by_name(dom_shot, "Front")
    assert back.bounds is not None and front.bounds is not None
    marks = marks_for(dom_shot.elements)
    marked = _image(draw_marks(dom_shot.png, marks, scale=1.0))
    placed = {p.mark.id: p for p in layout_marks(marks, scale=1.0, size=marked.size)}
    back_badge, front_badge = placed[back.id].badge, placed[front.id].badge
    assert not _overlaps(back_badge, front_badge)
    green = KIND_COLOURS["button"]
    assert _pixel(marked, *_badge_point(placed[back.id])) == green
    assert _pixel(marked, *_badge_point(placed[front.id])) == green
    # Front's top border runs across Back's button: dashed, so Back shows between the dashes.
    fx, fy, _, _ = front.bounds
    bx, _, bw, _ = back.bounds
    row = [_pixel(marked, x, fy) for x in range(fx + 2, bx + bw - 2)]
    assert green in row
    assert any(p != green for p in row), "a solid border would hide what is under it"


def test_coincident_boxes_show_both_colours(dom_shot: Shot) -> None:
    """Two elements with the same box (a link wrapping a button): the dashes interleave."""
    save = _by_name(dom_shot, "Save")
    assert save.bounds is not None
    marks = [
        Mark(id=1, kind="link", bounds=save.bounds),
        Mark(id=2, kind="input", bounds=save.bounds),
    ]
    marked = _image(draw_marks(dom_shot.png, marks, scale=1.0))
    x, y, w, _ = save.bounds
    # The border runs just outside the box: its halo, then the dashes (LINE_WIDTH px).
    edge = y - 1 - LINE_WIDTH
    top_edge = {_pixel(marked, i, edge) for i in range(x + 2, x + w - 2)}
    assert KIND_COLOURS["link"] in top_edge and KIND_COLOURS["input"] in top_edge


def test_device_scale_factor_two(browser: Browser, server: StaticServer, dom_shot: Shot) -> None:
    """CSS boxes from observe, on a screenshot at 2x: boxes and badges land at twice the
    coordinates, badges twice the size."""
    save = _by_name(dom_shot, "Save")
    assert save.bounds is not None
    with scaled_page(
        browser, server.url("vision-dom.html"), scale=2, size=dom_shot.viewport
    ) as pw_page:
        png: bytes = pw_page.screenshot()
    raw = _image(png)
    assert raw.size == (dom_shot.viewport[0] * 2, dom_shot.viewport[1] * 2)
    x, y, w, h = save.bounds
    # The page really is at 2x: Save's green fill is at twice its CSS centre.
    fill = _pixel(raw, 2 * x + 6, 2 * (y + h / 2))
    assert max(abs(a - b) for a, b in zip(fill, (22, 163, 74), strict=True)) < 8

    marks = marks_for(dom_shot.elements)
    marked = _image(draw_marks(png, marks, scale=2.0))
    at_2x = {p.mark.id: p for p in layout_marks(marks, scale=2.0, size=raw.size)}
    at_1x = {p.mark.id: p for p in layout_marks(marks, scale=1.0, size=_image(dom_shot.png).size)}
    item = at_2x[save.id]
    assert item.box == (2 * x, 2 * y, 2 * (x + w), 2 * (y + h))
    assert item.badge[0] == 2 * x and item.badge[3] == 2 * y
    badge_height = item.badge[3] - item.badge[1]
    one_x = at_1x[save.id].badge
    assert 1.7 <= badge_height / (one_x[3] - one_x[1]) <= 2.3
    assert _pixel(marked, *_badge_point(item)) == KIND_COLOURS["button"]
    # The dashed border is two CSS pixels wide: where the text field's left edge has a dash,
    # it is four screenshot pixels thick, just outside the box, with a white halo between it
    # and the box (so nothing inside the box is painted over); the dashes cover about 6/10
    # of the edge.
    field = _by_name(dom_shot, "Name")
    assert field.bounds is not None
    fx, fy, _, fh = field.bounds
    orange = KIND_COLOURS["input"]
    outer = 2 * fx - 6  # 4 px of dash and 2 px of halo outside the box's left edge
    rows = range(2 * fy + 8, 2 * (fy + fh) - 8)  # away from the corners
    dashed = [j for j in rows if _pixel(marked, outer, j) == orange]
    assert 0.4 < len(dashed) / len(rows) < 0.8
    for j in dashed:
        assert [_pixel(marked, outer + i, j) for i in range(6)] == [orange] * 4 + [HALO] * 2
        assert _pixel(marked, 2 * fx + 1, j) == _pixel(raw, 2 * fx + 1, j)  # the box untouched


def test_bad_scale_is_refused(dom_shot: Shot) -> None:
    with pytest.raises(InvalidOption):
        draw_marks(dom_shot.png, [], scale=0)


def test_no_marks_leaves_the_pixels_alone(dom_shot: Shot) -> None:
    out: Any = _image(draw_marks(dom_shot.png, [], scale=1.0))
    assert out.tobytes() == _image(dom_shot.png).tobytes()
