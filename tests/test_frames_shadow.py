"""Iframes (same-origin, cross-origin in-process, out-of-process) and shadow DOM."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import sync_playwright

from conftest import StaticServer
from pagesight import Browser
from pagesight.browser.launch import QUIET_FLAGS, find_chromium
from support import one


@pytest.mark.parametrize("mode", ["cdp", "evaluate"])
@pytest.mark.parametrize("other", ["server2", "other_origin"])
def test_iframes_appear_as_subtrees_with_their_frame(
    browser: Browser, server: StaticServer, other: str, mode: Any, request: pytest.FixtureRequest
) -> None:
    origin: StaticServer = request.getfixturevalue(other)
    page = browser.open(server.url(f"iframes.html?other={origin.origin}"))
    obs = page.observe(mode=mode)
    inner = one(obs, "Inner same-origin button", "button")
    assert inner.frame is not None and inner.frame.endswith("frame-inner.html")
    one(obs, "Street", "textbox")
    cross = one(obs, "Cross origin button", "button")
    assert cross.frame is not None and cross.frame.startswith(origin.origin)
    one(obs, "Cross link", "link")
    assert one(obs, "Place order", "button").frame is None
    # Bounds are in the top-level viewport: the cross-frame button sits inside its iframe.
    frame_el = one(obs, "Payment provider", "iframe")
    assert frame_el.bounds is not None and cross.bounds is not None
    fx, fy, fw, fh = frame_el.bounds
    x, y, w, h = cross.bounds
    assert fx <= x and x + w <= fx + fw + 1 and fy <= y and y + h <= fy + fh + 1
    text = obs.text()
    assert text.index('iframe "Payment provider"') < text.index("Cross origin button")
    page.close()


@pytest.mark.parametrize("mode", ["cdp", "evaluate"])
def test_open_and_closed_shadow_roots_and_slots(
    browser: Browser, server: StaticServer, mode: Any
) -> None:
    page = browser.open(server.url("shadow.html"))
    obs = page.observe(mode=mode)
    one(obs, "Open shadow button", "button")
    one(obs, "Shadow field", "textbox")
    one(obs, "Closed shadow button", "button")
    one(obs, "Slotted link", "link")
    assert "Total due" in obs.text()
    page.close()


def test_closed_shadow_root_of_a_page_loaded_before_attaching(
    server: StaticServer, tmp_path: Path
) -> None:
    """A page opened by another client before pagesight attached: CDP finds its closed root."""
    with sync_playwright() as pw:
        # Port 0: Chromium binds a free port itself and writes it into the profile, so tests
        # running in parallel never race for one.
        other = pw.chromium.launch_persistent_context(
            tmp_path / "profile",
            executable_path=find_chromium(),
            args=["--remote-debugging-port=0", *QUIET_FLAGS],
        )
        port = _devtools_port(tmp_path / "profile")
        theirs = other.new_page()
        theirs.goto(server.url("shadow.html"))
        with Browser.connect(f"http://127.0.0.1:{port}") as attached:
            page = next(p for p in attached.pages if p.url.endswith("shadow.html"))
            # Without CDP a page script cannot reach a closed root it did not see created...
            fallback = page.observe(mode="evaluate")
            assert not [e for e in fallback.elements if e.name == "Closed shadow button"]
            one(fallback, "Open shadow button", "button")
            # ...with CDP, DOM.getDocument(pierce) + DOM.resolveNode hand it to the walker.
            obs = page.observe()
            assert obs.mode == "cdp"
            one(obs, "Closed shadow button", "button")
        assert not theirs.is_closed()
        other.close()


def _devtools_port(profile: Path) -> str:
    """The port Chromium chose for ``--remote-debugging-port=0`` (it writes it at start-up)."""
    written = profile / "DevToolsActivePort"
    for _ in range(100):
        if written.is_file() and written.read_text().strip():
            return written.read_text().splitlines()[0]
        time.sleep(0.05)
    raise AssertionError(f"Chromium wrote no {written}")


def test_a_tab_that_loads_the_frames_page_again_still_walks_its_frames(
    page: Any, server: StaticServer, other_origin: StaticServer
) -> None:
    # The cross-site iframe starts as an in-process about:blank and then moves to its own
    # process: the context it leaves behind must not be used for the next walk.
    url = server.url(f"iframes.html?other={other_origin.origin}")
    for target in (url, server.url("hidden.html"), url):
        page.playwright.goto(target)
        obs = page.observe(mode="cdp")
    assert any(el.name == "Cross origin button" for el in obs.elements), obs.text()
