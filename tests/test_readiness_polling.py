"""A page's own background traffic (polling, beacons) does not keep it from being ready, while
the requests its load and an action start are still waited for."""

from __future__ import annotations

import asyncio

import pytest

from conftest import StaticServer
from pagesight import PageCrashed
from pagesight.aio import AsyncBrowser
from pagesight.browser.readiness import NetworkWatch, wait_ready

CAP_S = 3.0


def test_a_tab_closed_while_readiness_waits_raises_page_crashed(server: StaticServer) -> None:
    # Readiness looks at a closed tab: that is not "between documents", to be looked at again
    # until the cap runs out, but the tab gone.
    async def scenario() -> None:
        async with await AsyncBrowser.launch() as browser:
            page = await browser.open(server.url("ready-live.html"))
            tab = page.playwright
            await tab.close()
            with pytest.raises(PageCrashed) as info:
                await wait_ready(
                    tab, NetworkWatch(), CAP_S, once_per_document=False, answer_within=5.0
                )
            assert "closed" in str(info.value)

    asyncio.run(scenario())
