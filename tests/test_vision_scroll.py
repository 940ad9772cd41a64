"""Vision below the fold: a vision observation says where the page, or a panel holding a
canvas, continues past the screenshot, and scroll works on what vision read."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from conftest import StaticServer
from pagesight import Browser, InvalidOption, Observation

ABOVE_THE_FOLD = ("Overview", "Monthly report")
BELOW_THE_FOLD = ("Shipping rates", "Confirm order")


@pytest.fixture
def long_app(
    browser: Browser, server: StaticServer, request: pytest.FixtureRequest
) -> Iterator[Any]:
    page = browser.open(server.url(f"vision-long.html?layout={request.param}"))
    page.playwright.wait_for_function("window.appState && window.appState.ready")
    yield page
    page.close()


def _names(obs: Observation) -> list[str]:
    return [el.name for el in obs.elements]


def _scroll_positions(page: Any) -> tuple[int, int]:
    page_y, panel_y = page.playwright.evaluate(
        "[scrollY, document.getElementById('panel').scrollTop]"
    )
    return (page_y, panel_y)


@pytest.mark.parametrize("long_app", ["page"], indirect=True)
def test_the_page_below_the_fold_is_noted_and_read_after_scrolling(long_app: Any) -> None:
    first = long_app.observe(mode="vision")
    assert [n for n in ABOVE_THE_FOLD if n in _names(first)] == list(ABOVE_THE_FOLD)
    assert not set(BELOW_THE_FOLD) & set(_names(first))
    # The canvas is 2,200 px tall in an 800 px page.
    assert first.notes == ("the page continues below: 1400 px more; scroll down",)
    assert "… the page continues below: 1400 px more; scroll down" in first.text()

    long_app.act(None, "scroll", direction="down")
    assert _scroll_positions(long_app) == (720, 0)  # nine tenths of a screen
    below = long_app.observe(mode="vision")
    assert [n for n in BELOW_THE_FOLD if n in _names(below)] == list(BELOW_THE_FOLD)
    assert below.notes == (
        "the page continues below: 680 px more, above: 720 px more; scroll down or up",
    )
    # What was read below the fold is where it is: clicking it reaches the app's button.
    confirm = next(el for el in below.elements if el.name == "Confirm order")
    long_app.act(confirm.id, "click")
    assert long_app.playwright.evaluate("window.appState.lastAction") == "Confirm order"


@pytest.mark.parametrize("long_app", ["root"], indirect=True)
def test_a_page_whose_root_scrolls_is_noted_though_its_body_hides_overflow(long_app: Any) -> None:
    # overflow on <html> is the viewport's: the body's overflow: hidden then clips only the
    # body, and the page still scrolls (by wheel too).
    first = long_app.observe(mode="vision")
    assert first.notes == ("the page continues below: 1400 px more; scroll down",)
    long_app.act(None, "scroll", direction="down")
    assert _scroll_positions(long_app) == (720, 0)


@pytest.mark.parametrize("long_app", ["panel"], indirect=True)
def test_scroll_on_a_vision_element_scrolls_the_panel_under_it(long_app: Any) -> None:
    first = long_app.observe(mode="vision")
    # The page itself does not scroll; the panel under the 40 px bar does.
    assert first.notes == (
        "the scrollable area at 0,40 1280x760 continues below: 1440 px more; "
        "scroll down on an element read inside it",
    )
    report = next(el for el in first.elements if el.name == "Monthly report")
    effect = long_app.act(report.id, "scroll", direction="down")
    assert _scroll_positions(long_app) == (0, 684)  # nine tenths of the panel
    assert effect.scrolled == (0, 684)
    assert "screen_change" in effect.kinds, effect.text()
    after = effect.observation
    assert after.mode == "vision"
    assert [n for n in BELOW_THE_FOLD if n in _names(after)] == list(BELOW_THE_FOLD)
    assert "above: 684 px more" in after.notes[0]

    with pytest.raises(InvalidOption) as info:  # no direction: it is already in view
        long_app.act(after.elements[0].id, "scroll")
    assert info.value.option == "direction"
    assert _scroll_positions(long_app) == (0, 684)


@pytest.mark.parametrize("layout", ["page", "panel"])
def test_a_right_to_left_page_continues_to_the_left(
    browser: Browser, server: StaticServer, layout: str
) -> None:
    """A right-to-left page opens at its right edge: what is past the screen lies to the
    left, and scrolling left on what vision read brings it in."""
    page: Any = browser.open(server.url(f"vision-wide-rtl.html?layout={layout}"))
    try:
        first = page.observe(mode="vision")
        where = "the page" if layout == "page" else "the scrollable area at 0,0 1280x800"
        ways = "scroll left" if layout == "page" else "scroll left on an element read inside it"
        assert first.notes == (f"{where} continues left: 1120 px more; {ways}",)
        start = next(el for el in first.elements if el.name == "Start here")
        effect = page.act(start.id, "scroll", direction="left")
        assert effect.scrolled == (-1120, 0), effect.text()
        assert effect.observation is not None
        assert "Far end" in _names(effect.observation)
        assert effect.observation.notes[0].startswith(f"{where} continues right: 1120 px more")
    finally:
        page.close()
