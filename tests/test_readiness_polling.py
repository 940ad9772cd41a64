"""A page's own background traffic (polling, beacons) does not keep it from being ready, while
the requests its load and an action start are still waited for."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from conftest import StaticServer
from pagesight import PageCrashed
from pagesight.aio import AsyncBrowser
from pagesight.observe.readiness import NetworkWatch, wait_ready
from support import line, one

# A page whose polling held readiness up never becomes ready, at any cap: this one is only a
# bound, generous for a machine under load (a poll at 200 ms is told apart in about 0.6 s).
CAP_S = 8.0
# A fetch sent 0.5 s in whose body is never read, if it were taken for in flight until a
# pending request stops counting (3 s), would hold readiness past this cap.
BEFORE_LONG_REQUEST_S = 3.0


@pytest.mark.parametrize(
    "url",
    [
        "ready-live.html",
        "ready-live.html?poll=timeout",
        "ready-live.html?poll=jitter",
        "ready-live.html?board=live",
    ],
)
def test_a_page_polling_every_200_ms_is_ready_once_its_content_loaded(
    page: Any, server: StaticServer, url: str
) -> None:
    page.playwright.goto(server.url(url))
    obs = page.observe(wait=CAP_S)
    assert obs.ready
    assert obs.text().splitlines()[0].endswith(" ready")
    # Its content is there, written by the polls that went on meanwhile.
    assert line(obs, "Home 2 : 1 Away") == "Home 2 : 1 Away (67')"
    assert page.playwright.evaluate("document.getElementById('updates').textContent") != (
        "0 updates"
    )
    if "board" in url:
        assert "Team 12" in obs.text(), obs.text()  # the live table the model reads


def test_a_polling_page_whose_load_is_still_fetching_is_not_ready_before_it_arrives(
    page: Any, server: StaticServer
) -> None:
    # The standings come from one slow request (1.5 s) after load, while the polls go on.
    page.playwright.goto(server.url("ready-live.html?standings=slow"))
    obs = page.observe(wait=CAP_S + 2)
    assert obs.ready
    assert "Rovers top the table" in obs.text(), obs.text()


@pytest.mark.parametrize("load", ["stream", "stream&ms=450", "paced"])
def test_a_load_fetching_page_after_page_from_one_endpoint_is_not_taken_for_polling(
    page: Any, server: StaticServer, load: str
) -> None:
    # Six pages from one endpoint at a steady beat, each asked for once the last arrived: the
    # page's content, not its polling, though each answer's headers come at once (stream) or
    # the page pauses between pages (paced). With its body 450 ms behind its headers, an
    # answer looks done on the network (a body unread 0.3 s after the answer) and quiet long
    # before the page has read it: only the page's own waiting on the body tells.
    page.playwright.goto(server.url(f"ready-pages.html?load={load}"))
    obs = page.observe(wait=CAP_S + 2)
    assert obs.ready
    assert "All 6 pages loaded" in obs.text(), obs.text()
    assert line(obs, "Catalogue item 6") == "Catalogue item 6"


def test_on_a_polling_page_a_click_waits_for_its_request_to_another_endpoint(
    page: Any, server: StaticServer
) -> None:
    page.playwright.goto(server.url("ready-live.html"))
    assert page.wait_ready(timeout=CAP_S)
    older = one(page.observe(wait=0), "Load older results", "button")
    effect = page.act(older.id, "click")  # fetches /slow?ms=400, then writes the result
    assert "Older results loaded" in effect.texts_added, effect.text()
    assert effect.ready
    shown = page.playwright.evaluate("document.getElementById('out').textContent")
    assert shown == "Older results loaded"


def test_on_a_polling_page_a_request_a_debounced_click_starts_later_is_waited_for(
    page: Any, server: StaticServer
) -> None:
    page.playwright.goto(server.url("ready-live.html"))
    assert page.wait_ready(timeout=CAP_S)
    search = one(page.observe(wait=0), "Search results", "button")
    effect = page.act(search.id, "click")  # 300 ms later fetches /slow?ms=300, then writes
    assert "Search found 3 results" in effect.texts_added, effect.text()
    assert effect.ready


def test_beacons_sent_for_ever_and_a_fetch_never_read_do_not_hold_readiness(
    page: Any, server: StaticServer
) -> None:
    # The "engaged" hit's fetch never finishes for the browser (its body is never read): once
    # answered it is done, not in flight until the long-request cap (past CAP_S).
    page.playwright.goto(server.url("ready-beacon.html"))
    obs = page.observe(wait=BEFORE_LONG_REQUEST_S)
    assert obs.ready
    one(obs, "Share", "button")
    beacons = page.playwright.evaluate(
        "performance.getEntriesByType('resource').filter((e) => e.name.endsWith('/collect')).length"
    )
    assert beacons > 0  # they were being sent meanwhile


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
