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
from pagesight.vision.textboxes import TEXT_BOXES_SCRIPT, text_boxes, wrapping_owners
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


def test_each_badge_sits_beside_its_element_in_its_kind_colour(dom_shot: Shot) -> None:
    """Without the page's text boxes, a line-tall element is its own first line: its badge
    sits right beside the box, off it and off every other element's box and badge."""
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
        assert _gap(item.badge, item.box) <= LINE_WIDTH + 1, (name, item.badge, item.box)
        for other in placed.values():
            assert other is item or not _overlaps(item.badge, other.box), (name, other)
        px, py = _badge_point(item)
        assert _pixel(marked, px, py) == KIND_COLOURS[kind], name
        assert _pixel(raw, px, py) != KIND_COLOURS[kind], f"{name}: the colour was there before"
    # Name has room on its left: there, centred on the field.
    name_item = placed[_by_name(dom_shot, "Name").id]
    assert name_item.badge[2] == name_item.box[0] - (LINE_WIDTH + 1)
    centre = (name_item.box[1] + name_item.box[3]) / 2
    assert abs((name_item.badge[1] + name_item.badge[3]) / 2 - centre) <= 1
    # The <select> is purple, even though it has no name.
    select = next(el for el in dom_shot.elements if el.role == "combobox")
    assert _pixel(marked, *_badge_point(placed[select.id])) == KIND_COLOURS["select"]


def _gap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> int:
    """How far apart two rectangles are, edge to edge (0 when they touch or overlap)."""
    return max(b[0] - a[2], a[0] - b[2], 0) + max(b[1] - a[3], a[1] - b[3], 0)


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
    # Beside the box, clear of its border (2 CSS px), at twice the distance of 1x.
    assert _gap(item.badge, item.box) <= 2 * (LINE_WIDTH + 1), item.badge
    assert not _overlaps(item.badge, item.box)
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


# --- badges beside their text, never over it -----------------------------------------------

# Every line box of text on the page, and the text fields (their value is text too), in CSS
# px: measured here on its own, not with pagesight's script.
ALL_TEXT = """() => {
  const out = [], range = document.createRange();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (!n.data.trim()) continue;
    range.selectNodeContents(n);
    for (const r of range.getClientRects()) out.push([r.left, r.top, r.right, r.bottom]);
  }
  for (const el of document.querySelectorAll("input")) {
    const r = el.getBoundingClientRect();
    out.push([r.left, r.top, r.right, r.bottom]);
  }
  return out.filter(([l, t, r, b]) => r > l && b > t);
}"""
# Each link of the list and the columns: its name and first line box.
FIRST_LINES = """() => [
  ...document.querySelectorAll("#list a, #columns a, #wrapped a, #wrapped-columns a"),
].map((a) => {
  const r = a.getClientRects()[0];
  return [a.textContent, [r.left, r.top, r.right, r.bottom]];
})"""


# Links that start after words on their line and wrap: each box spans whole lines, and the
# second one's continues at the top of the next column, above where it starts.
WRAPPED = {
    "spring tides flood the harbour road again",
    "the storm warnings for every harbour on the coast",
}


@pytest.fixture(scope="module")
def hidpi() -> Iterator[Browser]:
    with Browser.launch(args=("--force-device-scale-factor=2",)) as b:
        yield b


@pytest.mark.parametrize("scale", [1, 2])
def test_badges_sit_left_of_their_first_line_and_cover_no_text(
    browser: Browser, hidpi: Browser, server: StaticServer, scale: int
) -> None:
    page: Any = (hidpi if scale == 2 else browser).open(server.url("marks-dense.html"))
    try:
        assert page.playwright.evaluate("devicePixelRatio") == scale
        obs = page.observe(mode="cdp")
        texts = page.playwright.evaluate(ALL_TEXT)
        first_lines = dict(page.playwright.evaluate(FIRST_LINES))
        raw = page.playwright.evaluate(TEXT_BOXES_SCRIPT)
        pagesight_texts = text_boxes(raw)
        marked = _image(page.screenshot(marks=True, observation=obs))
    finally:
        page.close()
    marks = marks_for(obs.elements, pagesight_texts, wrapping_owners(raw))
    placed = layout_marks(marks, scale=scale, size=marked.size, texts=pagesight_texts)
    by_id = {el.id: el for el in obs.elements}
    assert {by_id[p.mark.id].name for p in placed} >= set(first_lines) | {"full report", "Go"}
    for item in placed:
        name = by_id[item.mark.id].name
        # What the page drew is this layout: the badge's colour at its spot.
        assert _pixel(marked, *_badge_point(item)) == KIND_COLOURS[item.mark.kind], name
        for left, top, right, bottom in texts:  # no text on the page under any badge
            text = (left * scale, top * scale, right * scale, bottom * scale)
            assert not _overlaps_f(item.badge, text), (name, item.badge, text)
        for other in placed:
            assert other is item or not _overlaps(item.badge, other.badge), (name, other)
        if name in WRAPPED:  # words before it on its first line: the badge stays near it
            left, top, right, bottom = (round(v * scale) for v in first_lines[name])
            assert _gap(item.badge, (left, top, right, bottom)) <= 16 * scale, (name, item.badge)
        elif name in first_lines:  # dense rows and columns: room on the left of each link
            left, top, right, bottom = (v * scale for v in first_lines[name])
            _, badge_top, badge_right, badge_bottom = item.badge
            assert top <= (badge_top + badge_bottom) / 2 <= bottom, (name, item.badge, top)
            assert left - 4 * scale <= badge_right <= left, (name, item.badge, left)


def _overlaps_f(a: tuple[int, int, int, int], b: tuple[float, float, float, float]) -> bool:
    return min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])


def test_with_no_room_on_its_line_a_badge_takes_the_nearest_free_spot() -> None:
    """Pure layout: a link in the middle of a paragraph, text on every side of it; the only
    room near it is a gap between two words further along its own line."""
    link = (210.0, 100.0, 80.0, 16.0)
    texts = [
        (10.0, 84.0, 690.0, 16.0),  # the line above
        (10.0, 100.0, 200.0, 16.0),  # "Read the" before the link
        (300.0, 100.0, 40.0, 16.0),  # a word 10 px after it: too near for a badge
        (400.0, 100.0, 300.0, 16.0),  # the rest of the line, after a 60 px gap
        (10.0, 116.0, 690.0, 16.0),  # the line below
        link,
    ]
    mark = Mark(id=7, kind="link", bounds=link, line=link)
    (placed,) = layout_marks([mark], scale=1, size=(800, 400), texts=texts)
    left, top, _, bottom = placed.badge
    assert top <= 108 <= bottom  # still on the link's line
    assert left == 340, placed.badge  # right after the word (300 to 340), in the gap
    for x, y, w, h in texts:
        assert not _overlaps_f(placed.badge, (x, y, x + w, y + h))
