"""Actions wait for the page to settle (up to a cap) and say whether it did."""

from __future__ import annotations

from typing import Any

from conftest import StaticServer
from support import one


def test_an_action_waits_for_content_rendered_after_load(page: Any, server: StaticServer) -> None:
    page.playwright.goto(server.url("act-late.html"))
    # Right after load the 800 ms render is normally still pending (not asserted: a loaded
    # machine may take that long to get here); the action must wait for it either way.
    obs = page.observe(wait=0)
    refresh = one(obs, "Refresh orders", "button")
    eff = page.act(refresh.id, "click")
    assert eff.ready
    assert page.playwright.evaluate("window.refreshes") == 1
    one(eff.observation, "Load older orders", "button")  # the whole page, not only the delta
    assert "Loading orders" not in page.observe(wait=0).text()


def test_a_click_whose_result_renders_800_ms_later_waits_for_it(
    page: Any, server: StaticServer
) -> None:
    page.playwright.goto(server.url("act-late.html"))
    assert page.wait_ready(timeout=10)
    summary = one(page.observe(), "Show summary", "button")
    eff = page.act(summary.id, "click")  # renders "3 orders this month" 800 ms later
    assert eff.ready
    assert eff.kinds == ("dom_change",)
    assert eff.texts_added == ("3 orders this month",), eff.text()


def test_a_click_that_fetches_then_renders_reports_what_arrived(
    page: Any, server: StaticServer
) -> None:
    page.playwright.goto(server.url("act-late.html"))
    assert page.wait_ready(timeout=10)
    older = one(page.observe(), "Load older orders", "button")
    eff = page.act(older.id, "click")  # fetches /slow?ms=600, then adds "Order 998"
    assert eff.ready
    assert eff.kinds == ("dom_change",)
    assert eff.texts_added == ("Order 998 (after 600 ms)",), eff.text()
    shown = page.playwright.evaluate("document.getElementById('older-list').textContent")
    assert shown == "Order 998 (after 600 ms)"


def test_an_action_on_a_page_that_never_settles_completes_not_ready(
    page: Any, server: StaticServer
) -> None:
    page.playwright.goto(server.url("ready-poll.html"))
    assert page.wait_ready(timeout=1.5) is False  # it polls the network for ever
    refresh = one(page.observe(wait=0), "Refresh", "button")
    # It never settles either: the settling's own bound (timeout=) ends the action.
    eff = page.act(refresh.id, "click", wait=1.5, timeout=1.5)
    assert not eff.ready
    assert eff.kinds == ("no_op",)  # the button has no handler; the polling changes nothing
    assert eff.to_dict()["ready"] is False
