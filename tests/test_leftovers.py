"""What a session leaves behind once it is done with something: a closed tab leaves the
browser's table and memory (and its element ids), a stopped Chromium leaves nothing in the
temporary folder, whatever that folder's path. (The commands' own temporary folders are
checked where they run: test_cli.py, test_cli_run.py, test_mcp_stdio_process.py.)"""

from __future__ import annotations

import asyncio
import gc
import tempfile
import weakref
from pathlib import Path

import pytest

from conftest import StaticServer
from pagesight import Browser
from pagesight.aio import AsyncBrowser, AsyncPage
from pagesight.observe.ids import IdRegistry, TabIds


def test_a_closed_tab_leaves_the_table_and_memory_and_its_ids(
    browser: Browser, server: StaticServer
) -> None:
    async def closed(attached: AsyncBrowser, how: str) -> weakref.ref[AsyncPage]:
        # The tab is made and closed in a frame of its own: a frame that ran Playwright calls
        # keeps a snapshot of its locals (Playwright reads them), which would hold the tab.
        before = len(attached.ids)
        opener = await attached.open(server.url("form.html"))
        page = opener
        if how == "by the page":  # a page may close only a window a script opened
            async with opener.playwright.expect_popup() as popup:
                await opener.playwright.evaluate("window.open('form.html')")
            opened = await popup.value
            (page,) = [p for p in attached.pages if p.playwright is opened]
        await page.observe()
        assert len(attached.ids) > before
        if how == "by the user":
            await page.close()
        else:  # window.close(): the tab goes without pagesight being asked
            async with page.playwright.expect_event("close"):
                await page.playwright.evaluate("window.close()")
            await opener.close()
        assert page.id not in [p.id for p in attached.pages], how
        assert len(attached.ids) == before, how  # its ids went with it
        return weakref.ref(page)

    async def main() -> None:
        attached = await AsyncBrowser.connect(browser.cdp_url)
        try:
            for how in ("by the user", "by the page"):
                ref = await closed(attached, how)
                gc.collect()
                assert ref() is None, f"a tab closed {how} is still held"
        finally:
            await attached.close()

    asyncio.run(main())


def test_a_closed_tab_leaves_the_sync_browser_too(browser: Browser, server: StaticServer) -> None:
    page = browser.open(server.url("form.html"))
    number = page.id
    page.close()
    assert number not in [p.id for p in browser.pages]
    ref = weakref.ref(page)
    del page
    gc.collect()
    assert ref() is None


def test_ids_given_after_the_tab_closed_are_not_kept() -> None:
    # A tab that closes mid-walk: the close forgets what the tab walked so far, then the
    # walk's reading is built, asking ids for the document it read.
    registry = IdRegistry()
    tab = TabIds(registry)
    first = tab.id_of("doc-a", 1)
    assert registry.locate(first) is not None
    tab.close()
    assert len(registry) == 0
    late = [tab.id_of("doc-b", 1), tab.id_of("doc-a", 2)]
    assert len(registry) == 0  # nothing kept: no id of a closed tab ever resolves again
    assert len({first, *late}) == 3  # and none is given twice


def test_a_chromium_with_a_long_temporary_folder_leaves_nothing_there(
    short_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Too long a path for a folder of ours inside it to hold Chromium's socket (see
    # launch._scratch), short enough for Chromium's own: it runs with the shared TMPDIR, and
    # what it made there is removed all the same.
    long = short_tmp / ("t" * (60 - len(str(short_tmp)) - 1))
    long.mkdir()
    monkeypatch.setenv("TMPDIR", str(long))
    monkeypatch.setattr(tempfile, "tempdir", str(long))

    async def main() -> None:
        launched = await AsyncBrowser.launch()
        try:
            assert isinstance(launched.pages[0], AsyncPage)
        finally:
            await launched.close()

    asyncio.run(main())
    assert sorted(p.name for p in long.iterdir()) == []
