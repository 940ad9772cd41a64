"""OCR and screen reading on real Chromium screenshots of the canvas fixture app.

tests/pages/canvas-app.html paints a toolbar (File, Edit, View, a "Width: 240" field) and two
Chinese buttons (保存, 取消) on a <canvas>; window.appLayout says where it painted each.
Tesseract must be installed (``make system`` does it): without it these tests fail with
OcrNotFound naming the packages, rather than skip.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from PIL import Image

from conftest import StaticServer
from pagesight import Browser, InvalidOption
from pagesight.vision import (
    OcrNotFound,
    TesseractOcr,
    VisionItem,
    diff_screens,
    group_labels,
    read_screen,
)
from pagesight.vision.grouping import Label
from vision_support import (
    APP_READY,
    CANVAS_LABELS,
    app_layout,
    app_state,
    centre,
    inside,
    open_canvas,
    scaled_page,
)

Box = tuple[int, int, int, int]


@dataclass(frozen=True, kw_only=True)
class Canvas:
    page: Any  # the pagesight page
    png: bytes
    layout: dict[str, Box]


@pytest.fixture(scope="module")
def ocr() -> TesseractOcr:
    return TesseractOcr()


@pytest.fixture(scope="module")
def canvas(browser: Browser, server: StaticServer) -> Iterator[Canvas]:
    page = open_canvas(browser, server)
    yield Canvas(page=page, png=page.playwright.screenshot(), layout=app_layout(page.playwright))
    page.close()


@pytest.fixture(scope="module")
def items(canvas: Canvas, ocr: TesseractOcr) -> list[VisionItem]:
    return read_screen(canvas.png, ocr=ocr, scale=1.0)


def _found(labels: list[Label], layout: dict[str, Box], scale: float) -> dict[str, bool]:
    """Per fixture label: read exactly, at the place the app painted it."""
    found = {}
    for name, box in layout.items():
        found[name] = any(
            label.text == name and inside(tuple(v / scale for v in centre(label.box)), box)  # type: ignore[arg-type]
            for label in labels
        )
    return found


def _report(capsys: pytest.CaptureFixture[str], what: str, found: dict[str, bool]) -> None:
    with capsys.disabled():
        read = sum(found.values())
        missed = [name for name, ok in found.items() if not ok]
        print(
            f"\nOCR accuracy over canvas-app labels ({what}): {read}/{len(found)}"
            f" = {read / len(found):.0%}" + (f"; missed {missed}" if missed else "")
        )


def test_the_fixture_paints_the_labels_it_lists(canvas: Canvas) -> None:
    assert tuple(canvas.layout) == CANVAS_LABELS


def test_ocr_reads_every_canvas_label(
    canvas: Canvas, ocr: TesseractOcr, capsys: pytest.CaptureFixture[str]
) -> None:
    labels = group_labels(ocr.read(canvas.png))
    found = _found(labels, canvas.layout, 1.0)
    _report(capsys, "device scale factor 1", found)
    assert all(found.values()), [label.text for label in labels]


def test_ocr_reads_every_canvas_label_at_twice_the_pixels(
    browser: Browser,
    server: StaticServer,
    ocr: TesseractOcr,
    capsys: pytest.CaptureFixture[str],
) -> None:
    with scaled_page(browser, server.url("canvas-app.html"), scale=2, size=(800, 400)) as pw:
        pw.wait_for_function(APP_READY)
        png: bytes = pw.screenshot()
        layout = app_layout(pw)
    labels = group_labels(ocr.read(png))
    found = _found(labels, layout, 2.0)
    _report(capsys, "device scale factor 2", found)
    assert all(found.values()), [label.text for label in labels]
    # read_screen gives CSS pixels: the buttons' boxes are where the app painted them.
    items = read_screen(png, ocr=ocr, scale=2.0)
    for name in ("保存", "取消"):
        (item,) = [i for i in items if i.name == name]
        assert item.role == "button"
        assert all(abs(a - b) <= 2 for a, b in zip(item.bounds, layout[name], strict=True))


def test_buttons_are_told_from_text_by_their_box(canvas: Canvas, items: list[VisionItem]) -> None:
    by_name = {item.name: item for item in items}
    assert set(CANVAS_LABELS) <= set(by_name), list(by_name)
    for name in ("保存", "取消"):  # filled rectangles: buttons, bounded by their whole box
        assert by_name[name].role == "button"
        assert all(
            abs(a - b) <= 2 for a, b in zip(by_name[name].bounds, canvas.layout[name], strict=True)
        ), (by_name[name].bounds, canvas.layout[name])
    for name in ("File", "Edit", "View", "Last action: none"):  # on the open toolbar or page
        assert by_name[name].role == "text"
    for name in ("File", "Edit", "View", "Width: 240"):  # text bounds: inside the control
        assert inside(centre(by_name[name].bounds), canvas.layout[name]), name
    assert all(item.confidence >= 50 for item in items)


def test_clicking_vision_items_changes_the_app_and_the_screen(
    browser: Browser, server: StaticServer, ocr: TesseractOcr
) -> None:
    """Act where OCR saw "Edit" and "保存" with trusted mouse events; the canvas app reacts
    and the screenshots before and after show where."""
    page = open_canvas(browser, server)
    try:
        pw = page.playwright
        before: bytes = pw.screenshot()
        items = {item.name: item for item in read_screen(before, ocr=ocr, scale=1.0)}
        pw.mouse.click(*centre(items["Edit"].bounds))
        assert app_state(pw)["lastAction"] == "Edit"
        middle: bytes = pw.screenshot()
        pw.mouse.click(*centre(items["保存"].bounds))
        state = app_state(pw)
        assert state["clicks"] == ["Edit", "保存"]
        after: bytes = pw.screenshot()

        change = diff_screens(middle, after)
        assert change is not None
        # The highlight moved from Edit to 保存 and "Last action" was rewritten.
        layout = app_layout(pw)
        region = change.bounds
        for name in ("Edit", "保存"):
            assert inside(centre(layout[name]), region), (name, region)
        assert 0 < change.share < 0.05
        width, height = Image.open(io.BytesIO(after)).size
        assert change.pixels == round(change.share * width * height)
        assert diff_screens(after, after) is None
        # The app now says so on the canvas, and OCR reads it.
        names = [item.name for item in read_screen(after, ocr=ocr)]
        assert "Last action: 保存" in names, names
    finally:
        page.close()


def test_diff_of_different_sizes_is_the_whole_screen(
    canvas: Canvas, browser: Browser, server: StaticServer
) -> None:
    with scaled_page(browser, server.url("canvas-app.html"), scale=1, size=(400, 300)) as pw:
        pw.wait_for_function(APP_READY)
        small: bytes = pw.screenshot()
    change = diff_screens(canvas.png, small)
    assert change is not None
    assert change.share == 1.0 and change.bounds == (0, 0, 400, 300)


def test_a_missing_tesseract_says_what_to_install(canvas: Canvas) -> None:
    with pytest.raises(OcrNotFound, match="tesseract-ocr-chi-sim") as caught:
        TesseractOcr(executable="tesseract-not-installed-here").read(canvas.png)
    assert caught.value.exit_code == 2
    assert "\n" not in str(caught.value)


def test_a_missing_language_says_which(canvas: Canvas) -> None:
    with pytest.raises(OcrNotFound, match="no language data for klingon"):
        TesseractOcr(languages="eng+klingon").read(canvas.png)


def test_bad_input_is_refused(ocr: TesseractOcr) -> None:
    with pytest.raises(InvalidOption, match="not a readable image"):
        ocr.read(b"not a png")
    with pytest.raises(InvalidOption):
        read_screen(b"", ocr=ocr, scale=0)


def test_a_blank_screen_has_no_words(browser: Browser, ocr: TesseractOcr) -> None:
    with scaled_page(browser, "about:blank", scale=1, size=(300, 200)) as pw:
        png: bytes = pw.screenshot()
    assert ocr.read(png) == []
    assert read_screen(png, ocr=ocr) == []


def test_a_dom_page_reads_the_same_way(
    browser: Browser, server: StaticServer, ocr: TesseractOcr
) -> None:
    """vision-dom.html: CSS buttons are boxes too, list bullets are not read as letters."""
    page = browser.open(server.url("vision-dom.html"))
    try:
        items = {item.name: item for item in read_screen(page.playwright.screenshot(), ocr=ocr)}
        obs = page.observe()
    finally:
        page.close()
    assert {"Alpha release", "Beta channel", "Settings", "Home", "Docs"} <= set(items), list(items)
    for name in ("Save", "搜索"):
        (element,) = [el for el in obs.elements if el.name == name]
        assert items[name].role == "button"
        assert element.bounds is not None
        assert all(
            abs(a - b) <= 2 for a, b in zip(items[name].bounds, element.bounds, strict=True)
        ), (items[name].bounds, element.bounds)
    assert items["Alpha release"].role == items["Home"].role == "text"
