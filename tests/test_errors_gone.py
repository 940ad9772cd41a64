"""A browser that is no more says so, in the async core as in the sync twin: closed by the
caller it is BrowserClosed (exit 2), killed from outside it is a runtime failure (exit 1) that
says to launch a new one — never "open a new page", which cannot work without a browser."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from conftest import StaticServer
from pagesight import Browser
from pagesight.aio import AsyncBrowser
from pagesight.errors import BrowserClosed, PageCrashed, RuntimeFailure
from support import one


def test_the_async_browser_after_close_is_browser_closed(server: StaticServer) -> None:
    url = server.url("errors-actions.html")

    async def scenario() -> list[BaseException]:
        launch: Any = AsyncBrowser.launch
        browser = await launch()
        page = await browser.open(url)
        first = one(await page.observe(), "First name", "textbox")
        await browser.close()
        raised: list[BaseException] = []
        calls: tuple[Callable[[], Awaitable[Any]], ...] = (
            lambda: browser.open(url),
            browser.new_page,
            lambda: browser.page(page.id),
            page.observe,
            lambda: page.act(first.id, "input", text="x"),
            page.title,
        )
        for call in calls:
            with pytest.raises(BrowserClosed) as info:  # was PageCrashed: "open a new page"
                await call()
            raised.append(info.value)
        return raised

    for exc in asyncio.run(scenario()):
        assert str(exc) == "this browser is closed; launch or connect a new one"


def test_a_browser_killed_from_outside_says_to_launch_a_new_one(server: StaticServer) -> None:
    with Browser.launch() as browser:
        page = browser.open(server.url("errors-actions.html"))
        first = one(page.observe(), "First name", "textbox")
        chromium = browser._browser._process
        assert chromium is not None  # launched, so ours to kill
        os.kill(chromium.process.pid, signal.SIGKILL)
        pw_browser = browser._browser.playwright  # the async one, read on its own loop

        async def disconnected() -> None:  # Playwright notices the connection drop
            while pw_browser.is_connected():
                await asyncio.sleep(0.02)

        browser._loop.run(disconnected())
        for call in (
            page.observe,
            lambda: page.act(first.id, "input", text="x"),
            lambda: page.act(None, "press_key", key="a"),
            page.title,
            page.screenshot,
            lambda: browser.open(page.url),
        ):
            with pytest.raises(PageCrashed) as info:
                call()
            message = str(info.value)
            # was "the page is closed" / "... open a new page"
            assert message == (
                "the browser went away (its process ended or the DevTools connection "
                "dropped); launch or connect a new one"
            )
            assert isinstance(info.value, RuntimeFailure) and info.value.exit_code == 1
