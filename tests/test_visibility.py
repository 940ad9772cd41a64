"""What a person could see or reach is in; what they could not is out."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import StaticServer
from pagesight import Browser
from support import absent, one

GONE = (
    "Display none button",
    "Visibility hidden button",
    "Opacity zero button",
    "Zero size link",
    "Inert button",
    "Screen reader only link",
    "Offscreen left link",
    "Clipped away button",
    "Hidden attribute button",
    "Details hidden link",
    "Hidden parent button",
)


@pytest.mark.parametrize("mode", ["cdp", "evaluate"])
def test_each_hiding_variant_is_out(browser: Browser, server: StaticServer, mode: Any) -> None:
    page = browser.open(server.url("hidden.html"))
    obs = page.observe(mode=mode)
    absent(obs, *GONE)
    assert obs.mode == mode
    page.close()


def test_lookalikes_that_a_person_sees_stay(browser: Browser, server: StaticServer) -> None:
    page = browser.open(server.url("hidden.html"))
    obs = page.observe()
    assert "aria-hidden" in one(obs, "Hidden-but-visible", "button").states
    assert "disabled" in one(obs, "Submit order", "button").states
    one(obs, "Accept terms", "checkbox")  # transparent native input over its drawn label
    one(obs, "Shown child", "button")  # visibility:visible inside visibility:hidden
    assert "collapsed" in one(obs, "More options", "button").states
    assert "Visible in box" in obs.text()
    page.close()


def test_opaque_modal_backdrop_hides_the_page_but_not_the_modal(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("modal.html"))
    obs = page.observe()
    absent(obs, "Delete account", "Save changes", "Change password", "Dashboard", "Billing")
    one(obs, "Confirm", "button")
    one(obs, "Cancel", "button")
    assert 'dialog "Delete your account?"' in obs.text()
    assert "This permanently deletes" in obs.text()
    page.close()


def test_semi_transparent_or_partial_cover_keeps_the_element(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("overlay.html"))
    obs = page.observe()
    one(obs, "Buy now", "button")
    one(obs, "Half covered", "button")
    page.close()


def test_scroll_container_content_is_kept_and_marked_offscreen(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("scroll.html"))
    obs = page.observe()
    nav = one(obs, "Documentation", "navigation")
    assert "scrollable" in nav.states and "scroll" in nav.actions
    docs = [one(obs, f"Doc page {i}", "link") for i in range(1, 61)]
    assert not docs[0].offscreen
    assert docs[59].offscreen and docs[59].scroll_container == nav.id
    assert all(d.scroll_container == nav.id for d in docs)
    # overflow:hidden that no scrolling reaches: the clipped items are gone.
    for i in (1, 2, 3):
        assert not one(obs, f"Clipped item {i}", "link").offscreen
    absent(obs, *(f"Clipped item {i}" for i in range(10, 21)))
    bottom = one(obs, "Bottom button", "button")
    assert bottom.offscreen and bottom.scroll_container is None
    assert "[offscreen]" in obs.text()
    page.close()


def test_observing_never_scrolls(browser: Browser, server: StaticServer) -> None:
    page = browser.open(server.url("scroll.html"))
    page.playwright.evaluate("window.scrollTo(0, 500)")
    page.playwright.evaluate("document.querySelector('nav').scrollTop = 120")
    page.observe()
    page.observe(mode="evaluate")
    assert page.playwright.evaluate("window.scrollY") == 500
    assert page.playwright.evaluate("document.querySelector('nav').scrollTop") == 120
    obs = page.observe()
    # After scrolling, the first sidebar links are out of the container's view, not gone.
    assert one(obs, "Doc page 1", "link").offscreen
    page.close()


def test_roleless_controls_are_found_once_and_delegation_roots_are_not(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("clickables.html"))
    obs = page.observe()
    for name in ("Open menu", "Like", "Share", "Focusable card", "Play"):
        one(obs, name)
    clickables = [el for el in obs.elements if el.role == "clickable"]
    assert len(clickables) == 5, obs.text()
    assert all(len(el.name) < 40 for el in clickables), "the app root must not be a control"
    assert "Just text" in obs.text()
    assert not [el for el in obs.elements if el.name == "Just text"]
    page.close()
