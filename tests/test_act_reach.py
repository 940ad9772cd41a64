"""Clicks land on the element meant, wherever it is drawn: zoomed and transformed frames, a
page that shifts when scrolled, clipped and below-the-fold elements, frames under overlays."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import StaticServer
from pagesight import ActionError, Element, Observation
from support import one


def _in(obs: Observation, context: str, name: str) -> Element:
    found = [el for el in obs.elements if el.name == name and el.context == context]
    assert len(found) == 1, obs.text()
    return found[0]


@pytest.mark.parametrize(("frame", "title"), [("zoomed", "Zoomed grid"), ("scaled", "Scaled grid")])
def test_a_zoomed_or_transformed_frame_gets_the_click_where_its_button_is(
    page: Any, server: StaticServer, frame: str, title: str
) -> None:
    page.playwright.goto(server.url("act-frames-zoom.html"))
    obs = page.observe()
    for name in ("B9", "B27", "B62"):
        page.act(_in(obs, title, name).id, "click")
    inner = page.playwright.frame_locator(f"#{frame}").locator("body")
    assert inner.evaluate("() => window.clicked") == ["B9", "B27", "B62"]


def test_a_page_that_shifts_when_scrolled_still_gets_the_click_right(
    page: Any, server: StaticServer
) -> None:
    page.playwright.goto(server.url("act-shift.html"))
    row = one(page.observe(), "R60", "button")
    effect = page.act(row.id, "click")
    assert page.playwright.evaluate("document.getElementById('out').textContent") == "clicked R60"
    assert "clicked R60" in effect.texts_added


def test_an_item_clipped_by_its_scroll_container_is_scrolled_to_and_clicked(
    page: Any, server: StaticServer
) -> None:
    page.playwright.goto(server.url("act-reach.html"))
    item = one(page.observe(), "Item 15", "button")
    page.act(item.id, "click")
    assert page.playwright.evaluate("window.picked") == [15]


def test_a_frame_below_the_fold_is_scrolled_to_and_its_button_clicked(
    page: Any, server: StaticServer
) -> None:
    page.playwright.goto(server.url("act-reach.html"))
    count = _in(page.observe(), "Counter below", "Count")
    effect = page.act(count.id, "click")
    assert "Count: 1" in effect.texts_added, effect.text()


def test_a_cross_site_frame_under_a_page_overlay_is_covered(
    page: Any, server: StaticServer, other_origin: StaticServer
) -> None:
    page.playwright.goto(server.url(f"act-reach.html?other={other_origin.origin}"))
    count = _in(page.observe(), "Cross-site counter", "Count")
    page.playwright.evaluate(
        "() => { const v = document.createElement('div'); v.id = 'veil';"
        " v.textContent = 'Cookie banner'; v.onclick = () => { window.veilClicks += 1 };"
        " document.body.append(v); }"
    )
    with pytest.raises(ActionError) as info:
        page.act(count.id, "click")
    assert info.value.reason == "covered" and 'id="veil"' in str(info.value)
    assert page.playwright.evaluate("window.veilClicks") == 0


# --- pages that never go quiet -------------------------------------------------------------


def test_an_animated_page_settles_and_says_a_no_op_is_one(page: Any, server: StaticServer) -> None:
    page.playwright.goto(server.url("act-busy.html"))
    obs = page.observe()
    assert obs.ready  # a spinner turning every frame does not keep the page from being ready
    effect = page.act(one(obs, "Nothing", "button").id, "click")
    assert effect.kinds == ("no_op",) and effect.ready


# A beat of 700 ms, and one of 12 ms give or take 6: it fires within the moment after every
# input (as any beat may on a busy machine), which is no reason to take it for the input's.
@pytest.mark.parametrize("beat", ["700, 0", "12, 6"])
def test_a_timer_ticking_since_before_the_action_does_not_hold_it(
    page: Any, server: StaticServer, beat: str
) -> None:
    page.playwright.goto(server.url("act-busy.html"))
    obs = page.observe()
    page.playwright.evaluate(f"window.startTicker({beat})")
    effect = page.act(one(obs, "Nothing", "button").id, "click")
    assert effect.kinds == ("no_op",) and effect.ready  # settled, not timed out


def test_on_a_polling_page_the_request_an_action_starts_is_waited_for(
    page: Any, server: StaticServer
) -> None:
    page.playwright.goto(server.url("act-busy.html?poll=1"))
    # A bound for a loaded machine: ready comes some 1.5 s in, and a ready page returns at once.
    assert page.wait_ready(timeout=10)  # its polling (/slow?ms=0 every 300 ms) does not count
    save = one(page.observe(wait=0), "Save", "button")

    # Save asks the polled endpoint itself at the click, answered at once like the polls (its
    # body 300 ms later): that request is the action's even when it lands on the poll's beat.
    # Clicks at moments spread over one beat, so some do land on it.
    def polls() -> int:
        return int(page.playwright.evaluate("window.polled"))

    for n in range(1, 7):
        page.playwright.wait_for_function("(n) => window.polled > n", arg=polls())
        page.playwright.wait_for_timeout(50 * n)
        effect = page.act(save.id, "click")
        assert f"saved {n}!" in effect.texts_added, effect.text()
        assert effect.ready


# --- keys, values and the page's own scroller ----------------------------------------------


def test_keys_for_an_element_that_cannot_take_focus_are_refused(
    page: Any, server: StaticServer
) -> None:
    page.playwright.goto(server.url("act-misc.html"))
    grid = one(page.observe(), "Sheet")
    with pytest.raises(ActionError) as info:
        page.act(grid.id, "press_key", key="ArrowDown")
    assert info.value.reason == "unsupported_action"


def test_letters_in_a_number_field_are_refused_as_not_editable(
    page: Any, server: StaticServer
) -> None:
    page.playwright.goto(server.url("act-misc.html"))
    amount = one(page.observe(), "Amount")
    with pytest.raises(ActionError) as info:
        page.act(amount.id, "input", text="12abc")
    assert info.value.reason == "not_editable"
    effect = page.act(amount.id, "input", text="12")
    assert effect.values[0][1].value == "12"


def test_scrolling_the_page_of_an_app_layout_scrolls_its_main_scroller(
    page: Any, server: StaticServer
) -> None:
    page.playwright.goto(server.url("act-misc.html"))
    effect = page.act(None, "scroll", direction="down")
    assert effect.scrolled is not None and effect.scrolled[1] > 0
    assert page.playwright.evaluate("document.querySelector('main').scrollTop") > 0
