"""The launch viewport is the page's own size (innerWidth x innerHeight), in every tab:
the first, new ones, and those a page opens, and so is every screenshot."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import pytest
from PIL import Image

from conftest import StaticServer
from pagesight import Browser, InvalidOption

STATUS_BAR = (220, 38, 38)  # viewport.html's bottom 30 px of a 1280x800 page


def _size(page: Any) -> tuple[int, int]:
    width, height = page.playwright.evaluate("[innerWidth, innerHeight]")
    return (width, height)


def _shot_size(png: bytes) -> tuple[int, int]:
    return Image.open(io.BytesIO(png)).size


def _element(page: Any, name: str) -> int:
    obs = page.observe()
    element_id: int = next(el.id for el in obs.elements if el.name == name)
    return element_id


@pytest.fixture
def app(browser: Browser, server: StaticServer) -> Iterator[Any]:
    page = browser.open(server.url("viewport.html"))
    yield page
    for tab in browser.pages:
        if tab.url.startswith(server.url("viewport.html?")):
            tab.close()
    page.close()


def test_the_default_viewport_is_the_page_and_the_screenshot(app: Any) -> None:
    assert _size(app) == (1280, 800)
    png = app.screenshot()
    assert _shot_size(png) == (1280, 800)
    # The app's bottom row is in the picture, as it would be in a 1280x800 page.
    image = Image.open(io.BytesIO(png)).convert("RGB")
    assert image.getpixel((640, 785)) == STATUS_BAR
    assert app.playwright.evaluate("document.getElementById('size').textContent") == "1280x800"


def test_new_tabs_and_tabs_the_page_opens_have_the_viewport(app: Any, browser: Browser) -> None:
    fresh = browser.new_page()
    try:
        assert _size(fresh) == (1280, 800)
    finally:
        fresh.close()
    effect = app.act(_element(app, "Open in a new tab"), "click")
    (tab,) = effect.new_tabs
    assert _size(browser.page(tab.id)) == (1280, 800)
    # A popup window the page asked to be 500x400 still gets the session's page size.
    effect = app.act(_element(app, "Open a popup window"), "click")
    (popup,) = effect.new_tabs
    # Sized by the time the click's Effect names it, also when reached through ``pages``.
    (listed,) = (tab for tab in browser.pages if tab.id == popup.id)
    assert _size(listed) == (1280, 800)
    page = browser.page(popup.id)
    assert _size(page) == (1280, 800)
    assert _shot_size(page.screenshot()) == (1280, 800)


def test_a_custom_viewport_at_device_scale_two(server: StaticServer) -> None:
    with Browser.launch(viewport=(900, 600), args=("--force-device-scale-factor=2",)) as b:
        # The tab Chromium starts with is sized too, before anyone opens another.
        assert [_size(tab) for tab in b.pages] == [(900, 600)]
        page = b.open(server.url("viewport.html"))
        assert _size(page) == (900, 600)
        assert page.playwright.evaluate("devicePixelRatio") == 2  # the screen's, kept
        assert _shot_size(page.screenshot()) == (1800, 1200)
        effect = page.act(_element(page, "Open a popup window"), "click")
        assert _size(b.page(effect.new_tabs[0].id)) == (900, 600)


@pytest.mark.parametrize("bad", [(1280,), (0, 800), (1280.5, 800), "1280x800", (True, 800)])
def test_a_bad_viewport_is_refused_before_chromium_starts(bad: Any) -> None:
    with pytest.raises(InvalidOption) as info:
        Browser.launch(viewport=bad)
    assert info.value.option == "viewport"
