"""Actions that change where the page is: links, a client-side route, new tabs, downloads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from uuid import uuid4

import pytest

from conftest import DOWNLOAD_BODY, PAGES, StaticServer
from support import one


def _goto(page: Any, server: StaticServer, path: str) -> str:
    url = server.url(path)
    page.playwright.goto(url)
    return url


def test_a_link_click_loads_a_new_document(page: Any, server: StaticServer) -> None:
    start = _goto(page, server, "act-links.html")
    link = one(page.observe(), "Read the guide", "link")
    eff = page.act(link.id, "click")
    assert eff.kinds == ("navigation",)
    assert eff.url_before == start
    assert eff.url_after == server.url("act-target.html?from=link") == page.url
    assert eff.changes is None or eff.changes.new_document  # a new document is shown whole
    assert eff.ready
    assert eff.observation.url == eff.url_after
    one(eff.observation, "Like", "button")
    assert eff.new_tabs == () and eff.downloads == () and eff.dialogs == ()
    # What a model and a program read say the same.
    assert eff.url_after in eff.text()
    as_dict = json.loads(json.dumps(eff.to_dict()))
    assert as_dict["url_after"] == eff.url_after and "navigation" in as_dict["kinds"]


def test_back_returns_to_the_previous_page(page: Any, server: StaticServer) -> None:
    start = _goto(page, server, "act-links.html")
    page.act(one(page.observe(), "Read the guide", "link").id, "click")
    eff = page.back()
    assert eff.kinds == ("navigation",)
    assert eff.url_before == server.url("act-target.html?from=link")
    assert eff.url_after == start == page.url
    one(eff.observation, "Read the guide", "link")


def test_navigate_then_act_on_the_new_document(page: Any, server: StaticServer) -> None:
    target = server.url("act-target.html?from=navigate")
    eff = page.navigate(target)
    assert eff.kinds == ("navigation",)
    assert eff.url_before == "about:blank"
    assert eff.url_after == target == page.url
    like = one(eff.observation, "Like", "button")
    clicked = page.act(like.id, "click")
    assert page.playwright.evaluate("window.likes") == 1
    assert "dom_change" in clicked.kinds and "navigation" not in clicked.kinds
    assert "Clicked 1 times" in clicked.texts_added
    assert "Clicked 0 times" in clicked.texts_removed
    assert clicked.url_after == clicked.url_before == target


def test_a_pushstate_route_change_is_a_navigation_in_the_same_document(
    page: Any, server: StaticServer
) -> None:
    start = _goto(page, server, "act-spa.html")
    obs = page.observe()
    home = one(obs, "Home", "link")
    settings = one(obs, "Settings", "link")
    eff = page.act(settings.id, "click")
    assert eff.kinds == ("navigation", "dom_change")
    assert "Settings" in eff.texts_added and "Welcome back." in eff.texts_removed
    assert eff.url_before == start
    assert eff.url_after == server.url("act-spa.html?view=settings") == page.url
    # Same document: a delta, not a new page, and the nav's ids from before still hold.
    assert eff.changes is not None and not eff.changes.new_document
    assert "Display name" in [el.name for el in eff.changes.added]
    assert eff.observation.element(home.id).name == "Home"
    assert page.playwright.evaluate("window.renders") == 2  # rendered again, never reloaded

    again = page.act(home.id, "click")  # an id observed before the route change
    assert "navigation" in again.kinds
    assert again.url_after == server.url("act-spa.html?view=home")
    assert "Welcome back." in again.texts_added

    back = page.back()
    assert "navigation" in back.kinds
    assert back.url_after == server.url("act-spa.html?view=settings")
    assert back.changes is not None and not back.changes.new_document
    one(back.observation, "Display name", "textbox")
    assert page.playwright.evaluate("window.renders") == 4


@pytest.mark.parametrize(
    ("control", "source"), [("Guide in a new tab", "blank"), ("Open preview", "open")]
)
def test_an_action_that_opens_a_tab(
    page: Any, browser: Any, server: StaticServer, control: str, source: str
) -> None:
    start = _goto(page, server, "act-links.html")
    eff = page.act(one(page.observe(), control).id, "click")
    assert eff.kinds == ("new_tab",)
    assert eff.url_after == eff.url_before == start == page.url
    (opened,) = eff.new_tabs
    assert opened.url == server.url(f"act-target.html?from={source}")
    assert opened.id != page.id
    tab = browser.page(opened.id)
    try:
        assert tab.id == opened.id
        assert opened.id in [p.id for p in browser.pages]
        obs = tab.observe()
        assert obs.url == opened.url
        liked = tab.act(one(obs, "Like", "button").id, "click")
        assert liked.kinds == ("dom_change",)
        assert (liked.texts_added, liked.texts_removed) == (
            ("Clicked 1 times",),
            ("Clicked 0 times",),
        )
        assert tab.playwright.evaluate("window.likes") == 1
        assert page.playwright.evaluate("typeof window.likes") == "undefined"  # not the opener
    finally:
        tab.close()
    ids = [p.id for p in browser.pages]
    assert opened.id not in ids and page.id in ids


def test_a_download_is_saved_in_the_session_folder_only(
    page: Any, browser: Any, server: StaticServer
) -> None:
    name = f"report-{uuid4().hex[:8]}.txt"
    start = _goto(page, server, "act-links.html")
    page.playwright.evaluate(
        "(name) => { document.getElementById('dl').href = '/download/' + name; }", name
    )
    obs = page.observe()
    eff = page.act(one(obs, "Download report", "link").id, "click")
    assert eff.ok  # the point here: a download can fail, and this one must not have
    assert eff.kinds == ("download",)
    assert eff.url_after == eff.url_before == start
    (download,) = eff.downloads
    assert download.filename == name
    folder = Path(browser.downloads)
    assert download.path is not None and download.path.is_relative_to(folder)
    assert download.path.read_bytes() == DOWNLOAD_BODY
    assert [p.resolve() for p in folder.rglob(name)] == [download.path.resolve()]
    for elsewhere in (Path.cwd(), Path.home() / "Downloads", PAGES):
        assert not (elsewhere / name).exists(), elsewhere
    # Reported once: the next action does not report the same download again.
    after = page.act(one(obs, "Nothing happens", "button").id, "click")
    assert after.kinds == ("no_op",) and after.downloads == ()
