"""Scrolling: off-screen targets are brought into view; the page, a container, an element."""

from __future__ import annotations

from typing import Any

from conftest import StaticServer
from pagesight import Observation
from support import one


def _long_page(page: Any, server: StaticServer) -> Observation:
    page.playwright.goto(server.url("act-scroll.html"))
    obs: Observation = page.observe()
    return obs


def _js(page: Any, expression: str) -> Any:
    return page.playwright.evaluate(expression)


def test_a_button_below_the_fold_is_scrolled_into_view_and_clicked(
    page: Any, server: StaticServer
) -> None:
    obs = _long_page(page, server)
    more = one(obs, "Load more", "button")
    assert more.offscreen
    eff = page.act(more.id, "click")
    assert eff.kinds == ("dom_change",)
    assert (eff.texts_added, eff.texts_removed) == (("1 loaded",), ("0 loaded",))
    assert _js(page, "window.loaded") == 1
    assert _js(page, "window.scrollY") > 0
    assert not eff.observation.element(more.id).offscreen


def test_scrolling_the_page_by_one_screen(page: Any, server: StaticServer) -> None:
    obs = _long_page(page, server)
    chapter2 = one(obs, "Chapter 2 notes", "link")
    assert chapter2.offscreen
    screen = _js(page, "window.innerHeight")
    eff = page.act(None, "scroll", direction="down")
    assert eff.kinds == ("dom_change",)  # what came into view
    assert eff.scrolled is not None
    dx, dy = eff.scrolled
    assert dx == 0 and screen / 2 <= dy <= screen
    assert _js(page, "window.scrollY") == dy
    assert not eff.observation.element(chapter2.id).offscreen
    assert "navigation" not in eff.kinds

    up = page.act(None, "scroll", direction="up", pixels=100)
    assert up.scrolled == (0, -100)
    assert _js(page, "window.scrollY") == dy - 100


def test_scrolling_the_page_sideways(page: Any) -> None:
    page.playwright.set_content(
        "<h1>Timeline</h1><div style='width: 5000px; height: 3000px'>"
        "<button style='margin-left: 4000px'>Year 2030</button></div>"
    )
    right = page.act(None, "scroll", direction="right", pixels=300)
    assert right.scrolled == (300, 0)
    assert (_js(page, "window.scrollX"), _js(page, "window.scrollY")) == (300, 0)
    left = page.act(None, "scroll", direction="left", pixels=100)
    assert left.scrolled == (-100, 0)
    assert (_js(page, "window.scrollX"), _js(page, "window.scrollY")) == (200, 0)


def test_scrolling_a_scroll_container(page: Any, server: StaticServer) -> None:
    obs = _long_page(page, server)
    inbox = one(obs, "Inbox", "list")
    message10 = one(obs, "Message 10", "button")
    assert message10.offscreen and message10.scroll_container == inbox.id
    eff = page.act(inbox.id, "scroll", direction="down")
    assert eff.kinds == ("dom_change",)
    assert eff.scrolled is not None and eff.scrolled[0] == 0 and eff.scrolled[1] > 0
    assert _js(page, "document.getElementById('inbox').scrollTop") == eff.scrolled[1]
    assert _js(page, "window.scrollY") == 0  # the page itself did not move
    assert not eff.observation.element(message10.id).offscreen


def test_scrolling_to_an_element(page: Any, server: StaticServer) -> None:
    obs = _long_page(page, server)
    start = page.url
    chapter4 = one(obs, "Chapter 4 notes", "link")
    assert chapter4.offscreen
    eff = page.act(chapter4.id, "scroll")
    assert eff.kinds == ("dom_change",)
    assert eff.scrolled is not None and eff.scrolled[1] > 0
    assert _js(page, "window.scrollY") == eff.scrolled[1]
    assert not eff.observation.element(chapter4.id).offscreen
    assert page.url == start  # scrolled to, not clicked

    message25 = one(obs, "Message 25", "button")
    eff = page.act(message25.id, "scroll")
    assert _js(page, "document.getElementById('inbox').scrollTop") > 0
    assert not eff.observation.element(message25.id).offscreen
