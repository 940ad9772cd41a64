"""Readiness: observations wait for the document to settle, up to a cap, and say if it did."""

from __future__ import annotations

import pytest

from conftest import StaticServer
from pagesight import Browser
from support import one


def test_observe_waits_for_content_rendered_after_load(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("ready-late.html"))
    obs = page.observe()  # right after load: the 800 ms render is still pending
    assert obs.ready
    one(obs, "Download invoices", "button")
    assert "Loading orders" not in obs.text()
    page.close()


def test_a_page_that_polls_for_ever_is_reported_not_ready(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("ready-poll.html"))
    assert page.wait_ready(timeout=1.5) is False
    obs = page.observe(wait=1.5)
    assert not obs.ready
    assert obs.text().splitlines()[0].endswith("loading")
    one(obs, "Refresh", "button")  # still read, and said to be unsettled
    page.close()


def test_readiness_latches_per_document(browser: Browser, server: StaticServer) -> None:
    page = browser.open(server.url("cards.html"))
    assert page.wait_ready(timeout=10)
    # Later changes do not unsettle a document that was ready once...
    page.playwright.evaluate(
        "setInterval(() => document.body.append(document.createElement('span')), 20)"
    )
    assert page.wait_ready(timeout=0)
    assert page.observe(wait=0).ready
    # ...but a new document starts over, and settles again.
    page.playwright.goto(server.url("ready-late.html"), wait_until="commit")
    assert page.wait_ready(timeout=10)
    one(page.observe(wait=0), "Download invoices", "button")
    page.close()


@pytest.mark.parametrize("source", ["frame", "worker"])
def test_a_request_of_a_cross_site_frame_or_a_worker_an_action_starts_is_waited_for(
    browser: Browser, server: StaticServer, other_origin: StaticServer, source: str
) -> None:
    # The frame's (or the worker's) fetch of 1.2 s, then its answer written into this page:
    # nothing of this document is in flight meanwhile, only the child's own request.
    page = browser.open(
        server.url(f"ready-children.html?from={source}&other={other_origin.origin}")
    )
    if source == "frame":  # out of process (a session of its own), or this tests nothing
        page.playwright.context.new_cdp_session(page.playwright.frames[1]).detach()
    go = one(page.observe(), "Load the feed", "button")
    effect = page.act(go.id, "click")
    assert f"{source.title()} feed arrived after 1200 ms" in effect.texts_added, effect.text()
    assert effect.ready
    page.close()


def test_watching_a_page_s_requests_keeps_none_of_them_in_playwright(
    browser: Browser, server: StaticServer
) -> None:
    # While anything listens to a page's request events, Playwright keeps an object for every
    # request and response of the page until the page closes: a tab left open grows for ever.
    page = browser.open(server.url("ready-children.html?from=many&n=40"))
    obs = page.observe(wait=10)
    assert obs.ready
    assert "Fetched 40 times" in obs.text(), obs.text()
    objects = page.playwright._impl_obj._connection._objects.values()
    kept = [o for o in objects if type(o).__name__ == "Request" and "/slow?ms=0&" in o.url]
    assert kept == []
    page.close()
