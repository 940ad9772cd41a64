"""Readiness: observations wait for the document to settle, up to a cap, and say if it did."""

from __future__ import annotations

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
