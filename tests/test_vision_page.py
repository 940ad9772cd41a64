"""Vision through the page API: the DOM-first cascade, actions on what OCR read, the
set-of-marks screenshot, and a vision model's caption (a fake server on 127.0.0.1)."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import pytest
from PIL import Image

from conftest import StaticServer
from pagesight import ActionError, Browser, Observation, StaleElement
from pagesight.models import VlmClient
from pagesight.testing.fake_vlm import FakeVlmServer
from pagesight.vision import layout_marks, marks_for
from pagesight.vision.marks import KIND_COLOURS
from pagesight.vision.textboxes import TEXT_BOXES_SCRIPT, text_boxes
from vision_support import CANVAS_LABELS, app_layout, app_state, centre, inside, open_canvas


@pytest.fixture
def canvas(browser: Browser, server: StaticServer) -> Iterator[Any]:
    page = open_canvas(browser, server)
    yield page
    page.close()


def _vision(page: Any) -> Observation:
    """Observe until the cascade turns to vision (it must within three observations)."""
    modes = []
    for _ in range(3):
        obs: Observation = page.observe()
        modes.append(obs.mode)
        if obs.mode == "vision":
            break
    assert modes == ["cdp", "cdp", "vision"], modes
    return obs


def test_the_cascade_turns_to_vision_after_two_empty_dom_observations(canvas: Any) -> None:
    obs = _vision(canvas)
    names = [el.name for el in obs.elements]
    read = [label for label in CANVAS_LABELS if label in names]
    print(f"OCR accuracy over canvas-app labels (vision mode): {len(read)}/{len(CANVAS_LABELS)}")
    assert read == list(CANVAS_LABELS), names
    layout = app_layout(canvas.playwright)
    for el in obs.elements:
        if el.name in ("保存", "取消"):
            assert el.role == "button"
            assert el.bounds is not None and inside(centre(el.bounds), layout[el.name])
        assert "click" in el.actions
    assert "[" in obs.text() and "保存" in obs.text()


def test_clicking_what_vision_read_changes_the_app_and_the_screen(canvas: Any) -> None:
    obs = _vision(canvas)
    layout = app_layout(canvas.playwright)
    for name in ("Edit", "保存"):
        target = next(el for el in obs.elements if el.name == name)
        effect = canvas.act(target.id, "click")
        assert app_state(canvas.playwright)["lastAction"] == name
        assert "screen_change" in effect.kinds, effect.text()
        assert effect.screen is not None and 0 < effect.screen.share < 0.2
        x, y, w, h = effect.screen.bounds
        bx, by, bw, bh = layout[name]
        assert x <= bx + bw and bx <= x + w and y <= by + bh and by <= y + h  # overlaps it
        assert "navigation" not in effect.kinds
        # The page after the action is read off the screen too: the app's new status line.
        assert effect.observation.mode == "vision"
        assert any(el.name == f"Last action: {name}" for el in effect.observation.elements), (
            effect.observation.text()
        )


def test_a_page_of_plain_text_stays_on_the_dom_reading(
    browser: Browser, server: StaticServer
) -> None:
    """No link, no control, only headings and paragraphs: the DOM has text to read, which
    is better than OCR of it, so the cascade never turns to vision."""
    page: Any = browser.open(server.url("article-plain.html"))
    try:
        observations = [page.observe() for _ in range(5)]
    finally:
        page.close()
    assert [obs.mode for obs in observations] == ["cdp"] * 5
    assert not observations[-1].elements
    text = observations[-1].text()
    assert 'h1 "Why the sea rises twice a day"' in text
    assert "add up to the spring tides" in text


def test_canvas_fallback_text_does_not_keep_the_cascade_on_the_dom(
    browser: Browser, server: StaticServer
) -> None:
    """The text inside a <canvas> is fallback content that Chromium never paints: it is not
    something to read, so a canvas app that has some still turns to vision."""
    page: Any = browser.open(server.url("canvas-fallback.html"))
    try:
        assert "does not support the canvas" in page.observe(mode="cdp").text()
        _vision(page)
    finally:
        page.close()


def test_the_cascade_returns_to_the_dom_once_it_offers_controls(canvas: Any) -> None:
    _vision(canvas)
    canvas.playwright.evaluate(
        "document.body.insertAdjacentHTML('afterbegin', '<button>Export</button>')"
    )
    obs = canvas.observe()
    assert obs.mode == "cdp"
    assert any(el.name == "Export" for el in obs.elements)


def test_a_threshold_of_zero_reads_the_screen_at_once(canvas: Any) -> None:
    assert canvas.observe(dom_empty_threshold=0).mode == "vision"


def test_vision_ids_go_stale_with_their_page_and_take_only_pointer_and_keys(
    canvas: Any, server: StaticServer
) -> None:
    obs = _vision(canvas)
    edit = next(el for el in obs.elements if el.name == "Edit")
    with pytest.raises(ActionError) as info:
        canvas.act(edit.id, "select", values="x")
    assert info.value.reason == "unsupported_action" and "click" in info.value.actions
    canvas.playwright.reload()
    canvas.observe(mode="cdp")  # a walk of the new document
    with pytest.raises(StaleElement):
        canvas.act(edit.id, "click")
    # The new document read off the screen: the same label, a new id (ids are never reused,
    # so "click [12]" of the old reading cannot land on the new page).
    again = canvas.observe(mode="vision")
    assert edit.id not in {el.id for el in again.elements}
    assert any(el.name == "Edit" for el in again.elements)
    with pytest.raises(StaleElement):
        canvas.act(edit.id, "click")


def test_typing_at_a_vision_element_sends_keys_to_the_page(canvas: Any) -> None:
    canvas.playwright.evaluate(
        "window.typed = ''; addEventListener('keydown', (e) => { window.typed += e.key; })"
    )
    obs = canvas.observe(mode="vision")
    width = next(el for el in obs.elements if el.name.startswith("Width"))
    canvas.act(width.id, "input", text="320")
    assert canvas.playwright.evaluate("window.typed") == "320"


@pytest.fixture(scope="module")
def hidpi() -> Iterator[Browser]:
    """A browser on a screen of two device pixels per CSS pixel, as on a HiDPI display."""
    with Browser.launch(viewport=(1000, 700), args=("--force-device-scale-factor=2",)) as b:
        yield b


def test_marks_on_the_page_screenshot_at_device_scale_factor_two(
    hidpi: Browser, server: StaticServer
) -> None:
    page: Any = hidpi.open(server.url("vision-dom.html"))
    assert page.playwright.evaluate("devicePixelRatio") == 2
    obs = page.observe(mode="cdp")
    count = "document.querySelectorAll('*').length"
    elements_before = page.playwright.evaluate(count)
    marked = Image.open(io.BytesIO(page.screenshot(marks=True, observation=obs))).convert("RGB")
    raw = Image.open(io.BytesIO(page.screenshot())).convert("RGB")
    width, height = page.playwright.evaluate("[innerWidth, innerHeight]")
    assert marked.size == raw.size == (2 * width, 2 * height)
    # The badges go where the page's text leaves room, measured as the picture was taken.
    texts = text_boxes(page.playwright.evaluate(TEXT_BOXES_SCRIPT))
    marks = marks_for(obs.elements, texts)
    assert len(marks) >= 4
    for placed in layout_marks(marks, scale=2.0, size=marked.size, texts=texts):
        left, top, _, bottom = placed.badge
        point = (int(left + 2), int((top + bottom) / 2))
        assert marked.getpixel(point) == KIND_COLOURS[placed.mark.kind], placed.mark
    # The page itself was never touched: the marks are drawn on the picture, not in the DOM.
    assert page.playwright.evaluate(count) == elements_before
    assert obs.elements == page.observe(mode="cdp").elements


def test_a_vision_model_caption_joins_the_observation(server: StaticServer) -> None:
    with FakeVlmServer(models=("fake-vl",)) as fake:
        model = VlmClient(base_url=fake.base_url, model="fake-vl")
        with Browser.launch(vision_model=model) as browser:
            page = open_canvas(browser, server)
            obs = page.observe(mode="vision")
        assert obs.description
        assert obs.text().splitlines()[1] == f"description: {obs.description}"
        assert len(fake.requests) == 1


def test_an_unchanged_screen_keeps_its_ids_across_readings(canvas: Any) -> None:
    first = canvas.observe(mode="vision")
    again = canvas.observe(mode="vision", since=first)
    assert again.changes is not None and not again.changes.new_document
    assert not again.changes.added and not again.changes.removed
    # Both readings read every label of the app, each under the same id.
    ids = {el.name: el.id for el in first.elements}
    assert set(CANVAS_LABELS) <= set(ids), ids
    assert {el.name: el.id for el in again.elements} == ids


def test_a_new_document_starts_the_empty_count_again(canvas: Any, server: StaticServer) -> None:
    _vision(canvas)
    canvas.playwright.goto(server.url("canvas-app.html"))
    assert canvas.observe().mode == "cdp"  # a new page is read from its DOM first


def test_a_failing_vision_model_leaves_the_ocr_reading_and_says_so(
    server: StaticServer,
) -> None:
    with FakeVlmServer(models=("another-model",)) as fake:
        model = VlmClient(base_url=fake.base_url, model="fake-vl")
        with Browser.launch(vision_model=model) as browser:
            page = open_canvas(browser, server)
            obs = page.observe(mode="vision")
    assert obs.description is None
    assert "保存" in [el.name for el in obs.elements]
    assert obs.notes and obs.notes[0].startswith("no caption:")


def test_bordered_buttons_and_short_chinese_words_are_read(
    browser: Browser, server: StaticServer
) -> None:
    page: Any = browser.open(server.url("vision-buttons.html"))
    try:
        obs = page.observe(mode="vision")
    finally:
        page.close()
    read = {el.name: el.role for el in obs.elements}
    assert read.get("Submit") == "button" and read.get("Cancel") == "button", read
    assert "是" in read and "否" in read, read  # one-character words are words, not icons
    assert any(name.startswith("共 3 项") for name in read), read
