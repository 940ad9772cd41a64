"""The public Python API: exports, sync/async parity, attaching to a shared browser, ids, errors."""

from __future__ import annotations

import asyncio
import inspect
import json
import re
import threading
import urllib.request
from types import ModuleType
from typing import Any

import pytest

import pagesight
import pagesight.aio
import pagesight.errors
from conftest import StaticServer
from pagesight import (
    Browser,
    BrowserNotFound,
    ConnectError,
    NavigationError,
    Observation,
    Page,
    PageCrashed,
    PagesightError,
    RuntimeFailure,
    UnsupportedURL,
)
from pagesight.aio import AsyncBrowser, AsyncPage

CARD_OWNERS = ("Alice Chen", "Bob Martin", "Carla Diaz", "Dev Patel", "Emma Schulz")


def _element(obs: Observation, name: str, role: str) -> Any:
    found = [el for el in obs.elements if el.name == name and el.role == role]
    assert len(found) == 1, f"expected one {role} {name!r}:\n{obs.text()}"
    return found[0]


def _ids(obs: Observation) -> set[int]:
    ids = {el.id for el in obs.elements}
    assert len(ids) == len(obs.elements), f"an id given twice:\n{obs.text()}"
    return ids


def _edit_ids(obs: Observation) -> dict[str | None, int]:
    """cards.html: the id of each card's "Edit" button, by the card owner's name."""
    return {el.context: el.id for el in obs.elements if el.name == "Edit"}


def _page_target_urls(cdp_url: str) -> list[str]:
    with urllib.request.urlopen(f"{cdp_url}/json/list", timeout=5) as reply:
        targets: list[dict[str, Any]] = json.load(reply)
    return [t["url"] for t in targets if t.get("type") == "page"]


# --- exports --------------------------------------------------------------------------------


@pytest.mark.parametrize("module", [pagesight, pagesight.aio], ids=lambda m: m.__name__)
def test_all_is_sorted_and_every_name_exists(module: ModuleType) -> None:
    names: list[str] = module.__all__
    assert names == sorted(names)
    assert len(set(names)) == len(names)
    missing = [name for name in names if not hasattr(module, name)]
    assert not missing


def test_every_error_class_is_exported() -> None:
    errors = {
        name
        for name, obj in vars(pagesight.errors).items()
        if isinstance(obj, type) and issubclass(obj, PagesightError)
    }
    assert errors - set(pagesight.__all__) == set()
    assert pagesight.aio.Observation is pagesight.Observation
    assert pagesight.aio.Element is pagesight.Element


# --- sync/async parity ------------------------------------------------------------------------

# Names only the async core has. (AsyncBrowser.ids, the session's id registry, is an instance
# attribute, so it is not among the class's names at all.) What a tab needs of its browser
# (wrapping and fitting Playwright pages, loading through the origin policy) is no public name
# of AsyncBrowser: the browser hands it to each tab (pagesight.browser.services).
ASYNC_ONLY: set[str] = {
    "AsyncBrowser.gone_error",
}
PAIRS = [(AsyncBrowser, Browser), (AsyncPage, Page)]


def _public(cls: type) -> set[str]:
    return {name for name in dir(cls) if not name.startswith("_")}


def _kind(cls: type, name: str) -> str:
    raw = inspect.getattr_static(cls, name)
    for kind in (property, classmethod, staticmethod):
        if isinstance(raw, kind):
            return kind.__name__
    return "method"


def _parameters(func: Any) -> list[tuple[str, Any, Any]]:
    """Names, kinds and defaults (not annotations: the return types differ on purpose)."""
    return [(p.name, p.kind, p.default) for p in inspect.signature(func).parameters.values()]


@pytest.mark.parametrize(("async_cls", "sync_cls"), PAIRS, ids=lambda c: c.__name__)
def test_sync_and_async_have_the_same_names(async_cls: type, sync_cls: type) -> None:
    exempt = {n.split(".")[1] for n in ASYNC_ONLY if n.startswith(f"{async_cls.__name__}.")}
    assert exempt <= _public(async_cls)  # keep the list honest
    assert _public(async_cls) - exempt == _public(sync_cls)


@pytest.mark.parametrize(("async_cls", "sync_cls"), PAIRS, ids=lambda c: c.__name__)
def test_sync_and_async_methods_take_the_same_arguments(async_cls: type, sync_cls: type) -> None:
    for name in sorted(_public(async_cls) & _public(sync_cls)):
        kind = _kind(async_cls, name)
        assert _kind(sync_cls, name) == kind, name
        if kind == "property":
            continue
        async_fn, sync_fn = getattr(async_cls, name), getattr(sync_cls, name)
        assert inspect.iscoroutinefunction(async_fn), f"{async_cls.__name__}.{name}"
        assert not inspect.iscoroutinefunction(sync_fn), f"{sync_cls.__name__}.{name}"
        assert _parameters(sync_fn) == _parameters(async_fn), name


# --- the async API ------------------------------------------------------------------------


def test_async_api_end_to_end(server: StaticServer) -> None:
    url = server.url("form.html")

    async def scenario() -> AsyncPage:
        async with await AsyncBrowser.launch() as browser:
            page = await browser.open(url)
            assert page in browser.pages
            assert page.url == url
            assert await page.title() == "Contact us · Helio Support"
            await page.playwright.fill("#full-name", "Ada")
            obs = await page.observe()
            assert obs.url == url
            assert obs.ready
            assert obs.mode == "cdp"
            assert _element(obs, "Full name", "textbox").value == "Ada"
            send = _element(obs, "Send message", "button")
            assert f'[{send.id}] button "Send message"' in obs.text()
            evaluated = await page.observe(mode="evaluate")
            assert [el.id for el in evaluated.elements] == [el.id for el in obs.elements]
            assert not page.closed
            return page

    page = asyncio.run(scenario())
    assert page.closed  # closing the launched browser closed its tabs


# --- attaching to a browser another client drives ---------------------------------------------


def test_connect_sees_and_observes_a_tab_of_another_client(
    browser: Browser, server: StaticServer
) -> None:
    from playwright.sync_api import sync_playwright

    url = server.url("form.html")
    with sync_playwright() as playwright:
        other = playwright.chromium.connect_over_cdp(browser.cdp_url)
        tab = other.contexts[0].new_page()
        try:
            tab.goto(url)
            tab.fill("#full-name", "Grace")
            connected = Browser.connect(browser.cdp_url)
            try:
                assert connected.cdp_url == browser.cdp_url
                mine = [p for p in connected.pages if p.url == url]
                assert len(mine) == 1, [p.url for p in connected.pages]
                obs = mine[0].observe()
                # That very tab: the value the other client typed, and the page's controls.
                assert _element(obs, "Full name", "textbox").value == "Grace"
                assert _element(obs, "Send message", "button")
                assert len(obs.elements) == 12
            finally:
                connected.close()
            # Disconnecting closed neither the tab nor the browser.
            assert not tab.is_closed()
            assert tab.evaluate("document.querySelector('#full-name').value") == "Grace"
            assert url in _page_target_urls(browser.cdp_url)
        finally:
            tab.close()
            other.close()


def test_connect_to_nothing_raises_connect_error(closed_port: int) -> None:
    dead = f"http://127.0.0.1:{closed_port}"
    with pytest.raises(ConnectError, match="no browser answers") as info:
        Browser.connect(dead)
    assert info.value.exit_code == 2
    with pytest.raises(ConnectError):
        Browser.connect("127.0.0.1:9222")  # not a URL


def test_open_bad_input_raises_and_leaves_no_tab(
    browser: Browser, server: StaticServer, closed_port: int
) -> None:
    before = _page_target_urls(browser.cdp_url)
    with pytest.raises(UnsupportedURL, match="ftp"):
        browser.open("ftp://127.0.0.1/form.html")
    with pytest.raises(UnsupportedURL, match="no-such-page"):
        browser.open("tests/pages/no-such-page.html")
    dead = f"http://127.0.0.1:{closed_port}/"
    with pytest.raises(NavigationError, match=re.escape(dead)) as info:
        browser.open(dead)
    assert info.value.exit_code == 2
    assert sorted(_page_target_urls(browser.cdp_url)) == sorted(before)


# --- page.playwright in the sync facade -------------------------------------------------------


def test_sync_playwright_page_blocks_like_the_sync_api(page: Any, server: StaticServer) -> None:
    pw = page.playwright
    url = server.url("form.html")
    pw.goto(url)
    assert isinstance(pw.url, str)
    assert pw.url == url
    assert pw.evaluate("document.title") == "Contact us · Helio Support"
    pw.fill("#full-name", "Ada")
    assert pw.get_by_label("Country").select_option("jp") == ["jp"]
    assert pw.locator("button").count() == 1  # a Locator, wrapped and blocking too
    obs = page.observe()
    assert _element(obs, "Full name", "textbox").value == "Ada"
    assert _element(obs, "Country", "combobox").value == "Japan"


def test_sync_playwright_objects_can_be_passed_back(page: Any) -> None:
    pw = page.playwright
    session = pw.context.new_cdp_session(pw)
    reply = session.send("Runtime.evaluate", {"expression": "6 * 7", "returnByValue": True})
    assert reply["result"]["value"] == 42
    session.detach()


# --- ids ----------------------------------------------------------------------------------


def test_ids_are_never_reused(browser: Browser, server: StaticServer) -> None:
    page = browser.open(server.url("form.html"))
    try:
        form = page.observe()
        page.playwright.goto(server.url("cards.html"))
        cards = page.observe()
        page.playwright.goto(server.url("form.html"))  # the same page again: a new document
        form_again = page.observe()
    finally:
        page.close()
    other_tab = browser.open(server.url("form.html"))
    try:
        form_other_tab = other_tab.observe()
    finally:
        other_tab.close()

    assert len(form.elements) == 12 and len(cards.elements) == 5
    names = [(el.role, el.name) for el in form.elements]
    assert [(el.role, el.name) for el in form_again.elements] == names
    assert [(el.role, el.name) for el in form_other_tab.elements] == names
    seen: set[int] = set()
    for obs in (form, cards, form_again, form_other_tab):
        ids = _ids(obs)
        assert not ids & seen, f"reused ids {sorted(ids & seen)}:\n{obs.text()}"
        seen |= ids


# Re-render the card grid the way a framework would: every card replaced by a fresh copy,
# except Carla Diaz's, which is the same node, taken out and put back.
RERENDER = """() => {
  const grid = document.querySelector(".member-grid");
  const cards = [...grid.children];
  grid.replaceChildren(...cards.map(c => c.dataset.id === "u3" ? c : c.cloneNode(true)));
  return grid.children.length;
}"""


def test_ids_are_stable_while_the_element_lives(browser: Browser, server: StaticServer) -> None:
    page = browser.open(server.url("cards.html"))
    try:
        first = page.observe()
        again = [
            page.observe(),
            page.observe(view="interactive"),
            page.observe(mode="evaluate"),
            page.observe(include={"bounds"}, max_chars=200),
        ]
        assert page.playwright.evaluate(RERENDER) == 5
        after = page.observe()
    finally:
        page.close()

    before = _edit_ids(first)
    assert list(before) == list(CARD_OWNERS)
    assert len(set(before.values())) == 5
    for obs in again:
        assert _edit_ids(obs) == before

    rerendered = _edit_ids(after)
    assert list(rerendered) == list(CARD_OWNERS)
    assert rerendered["Carla Diaz"] == before["Carla Diaz"]  # the kept node keeps its id
    replaced = {owner: i for owner, i in rerendered.items() if owner != "Carla Diaz"}
    assert len(set(replaced.values())) == 4
    seen = set(before.values())
    assert not set(replaced.values()) & seen, (before, rerendered)


# --- failures -----------------------------------------------------------------------------


def test_crashed_renderer_raises_page_crashed(server: StaticServer) -> None:
    # Its own browser: a crashed renderer could take other tabs of the shared one with it.
    async def scenario() -> None:
        async with await AsyncBrowser.launch() as browser:
            page = await browser.open(server.url("form.html"))
            await page.observe()  # pagesight's own CDP session now exists on the tab
            session = await page.playwright.context.new_cdp_session(page.playwright)
            crash = asyncio.ensure_future(session.send("Page.crash"))  # never answered
            try:
                # The crash lands while a walk waits for the renderer: the walk must end.
                with pytest.raises(PageCrashed):
                    for _ in range(3):
                        await asyncio.wait_for(page.observe(), 15)
            finally:
                crash.cancel()
            for _ in range(2):  # and it stays crashed
                with pytest.raises(PageCrashed) as info:
                    await asyncio.wait_for(page.observe(), 15)  # a hang fails, not blocks
                assert isinstance(info.value, RuntimeFailure)
                assert info.value.exit_code == 1
            await asyncio.wait_for(page.close(), 15)  # closing a crashed tab does not hang
            # Only that tab is gone; the browser still opens and observes pages.
            fresh = await browser.open(server.url("cards.html"))
            assert len((await fresh.observe()).elements) == 5

    asyncio.run(scenario())


def _pagesight_threads() -> int:
    return sum(1 for t in threading.enumerate() if t.name == "pagesight")


def test_launch_with_a_missing_chromium_names_the_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PAGESIGHT_CHROMIUM", "/nonexistent")
    threads = _pagesight_threads()
    with pytest.raises(BrowserNotFound, match="PAGESIGHT_CHROMIUM") as info:
        Browser.launch()
    assert "/nonexistent" in str(info.value)
    assert info.value.exit_code == 2
    assert _pagesight_threads() == threads  # the facade's event loop thread was stopped


@pytest.mark.parametrize(
    ("options", "words"),
    [
        pytest.param({"view": "bogus"}, ("view", "'bogus'"), id="view"),
        pytest.param({"mode": "fast"}, ("mode", "'fast'"), id="mode"),
        pytest.param({"include": {"nope"}}, ("include", "nope", "bounds"), id="include"),
        pytest.param({"include": "bounds"}, ("include", "string"), id="include-str"),
        pytest.param({"max_tokens": 0}, ("max_tokens", "0"), id="max_tokens"),
        pytest.param({"max_chars": -5}, ("max_chars", "-5"), id="max_chars"),
    ],
)
def test_bad_observe_options_raise_value_error(
    page: Any, options: dict[str, Any], words: tuple[str, ...]
) -> None:
    with pytest.raises(ValueError) as info:
        page.observe(**options)
    message = str(info.value)
    for word in words:
        assert word in message, message
    assert page.observe().url == "about:blank"  # the page is fine afterwards
