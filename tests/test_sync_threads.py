"""The sync API from any thread: from a worker thread, and from inside a running asyncio
loop (as in a notebook), every public sync method and property works and runs on
pagesight's own loop, so the listeners it registers (dialogs answered, popups noted) work."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import pytest

from conftest import StaticServer
from pagesight import Browser, BrowserClosed, DialogPolicy, Page, RuntimeFailure


@dataclass
class Run:
    """What one scenario has seen so far, shared by the calls below."""

    server: StaticServer
    browser: Browser
    page: Page


def _id(run: Run, name: str) -> int:
    obs = run.page.observe()
    element_id: int = next(el.id for el in obs.elements if el.name == name)
    return element_id


def _dialogs(run: Run) -> None:
    assert run.page.dialogs == DialogPolicy()
    run.page.dialogs = DialogPolicy(confirm="accept")
    assert run.page.dialogs.confirm == "accept"
    # Back to dismissing: the launching client's Playwright dismisses dialogs too (a page
    # it has no dialog listener on), and the first answer wins.
    run.page.dialogs = DialogPolicy()


def _act(run: Run) -> None:
    effect = run.page.act(_id(run, "Ask"), "click")
    # Seen by the dialog listener registered when the tab was first listed: it runs on
    # pagesight's loop.
    assert "dialog" in effect.kinds, effect.text()
    assert [d.message for d in effect.dialogs] == ["Delete it?"]
    assert run.page.playwright.evaluate("document.getElementById('answer').textContent") == "no"


def _answer_next_dialog(run: Run) -> None:
    run.page.answer_next_dialog(accept=True)
    effect = run.page.act(_id(run, "Ask"), "click")
    # Answered by pagesight's listener on its own loop, once.
    assert [d.accepted for d in effect.dialogs] == [True], effect.text()


def _act_at(run: Run) -> None:
    note = next(el for el in run.page.observe().elements if el.name == "Note")
    assert note.bounds is not None
    x, y, w, h = note.bounds
    effect = run.page.act_at("click", x + w / 2, y + h / 2)
    assert effect.element_id == note.id, effect.text()
    assert run.page.playwright.evaluate("document.activeElement.id") == "note"


def _batch(run: Run) -> None:
    result = run.page.batch([(_id(run, "Note"), "input", {"text": "from a thread"})])
    assert [step.status for step in result.steps] == ["done"]
    assert run.page.playwright.evaluate("document.getElementById('note').value") == (
        "from a thread"
    )


def _playwright(run: Run) -> None:
    proxy = run.page.playwright
    assert proxy.url == run.page.url  # an attribute, read on pagesight's loop
    assert proxy.locator("button").count() == 1  # a plain call returning an object, then a call
    assert proxy.evaluate("document.title") == "Sync threads"


def _navigate(run: Run) -> None:
    effect = run.page.navigate(run.server.url("viewport.html"))
    assert "navigation" in effect.kinds and run.page.url == run.server.url("viewport.html")


def _back(run: Run) -> None:
    effect = run.page.back()
    assert run.page.url == run.server.url("sync-threads.html"), effect.text()


def _locate(run: Run) -> None:
    element_id = _id(run, "Ask")
    assert run.page.locate(element_id).element_id == element_id


def _risk_facts(run: Run) -> bool:
    facts = run.page.risk_facts(_id(run, "Ask"))
    return facts is not None and "Ask" in facts.names and not facts.submits


def _risk_facts_at(run: Run) -> bool:
    note = next(el for el in run.page.observe().elements if el.name == "Note")
    assert note.bounds is not None
    x, y, w, h = note.bounds
    facts = run.page.risk_facts_at(x + w / 2, y + h / 2)
    return facts is not None and facts.field is not None and "note" in facts.field.words


def _close(run: Run) -> None:
    run.page.close()
    assert run.page.closed


# Every public name of the sync Page, and the call that proves it works from here; the test
# below fails when a public name is added to Page without a call of its own here.
Check = Callable[[Run], object]
"""A call; it fails by raising or by returning False."""

PAGE_CALLS: dict[str, Check] = {
    "id": lambda run: run.page.id >= 1,
    "url": lambda run: run.page.url.endswith("sync-threads.html"),
    "closed": lambda run: not run.page.closed,
    "crashed": lambda run: not run.page.crashed,
    "answers": lambda run: run.page.answers(5),
    "title": lambda run: run.page.title() == "Sync threads",
    "wait_ready": lambda run: run.page.wait_ready(10),
    "observe": lambda run: run.page.observe().mode == "cdp",
    "find": lambda run: run.page.find("Ask button")[0].element.name == "Ask",
    "locate": _locate,
    "frame_url": lambda run: (
        run.page.frame_url(run.page.find("Ask button")[0].element.id) == run.page.url
    ),
    "risk_facts": _risk_facts,
    "risk_facts_at": _risk_facts_at,
    "dialogs": _dialogs,
    "act": _act,
    "answer_next_dialog": _answer_next_dialog,
    "act_at": _act_at,
    "batch": _batch,
    "screenshot": lambda run: run.page.screenshot().startswith(b"\x89PNG"),
    "capture": lambda run: run.page.capture().marked(()).startswith(b"\x89PNG"),
    "playwright": _playwright,
    "navigate": _navigate,
    "back": _back,
    "close": _close,
}

BROWSER_CALLS: dict[str, Check] = {
    "cdp_url": lambda run: run.browser.cdp_url.startswith("http://127.0.0.1:"),
    "dialogs": lambda run: run.browser.dialogs == DialogPolicy(),
    "origins": lambda run: run.browser.origins.allowed is None,
    "ocr": lambda run: run.browser.ocr is not None,
    "vision_model": lambda run: run.browser.vision_model is None,
    "downloads": lambda run: run.browser.downloads.is_dir(),
    "playwright": lambda run: len(run.browser.playwright.contexts) == 1,
    "new_page": lambda run: run.browser.new_page().close(),
    "page": lambda run: run.browser.page(run.page.id) is run.page,
    "pages": lambda run: run.page in run.browser.pages,
    "open": lambda run: run.browser.open(run.server.url("viewport.html")).close(),
}
# launch and connect start each scenario; close ends it.
BROWSER_AROUND = {"launch", "connect", "close"}


def _public(cls: type) -> set[str]:
    return {name for name in dir(cls) if not name.startswith("_")}


def test_every_public_sync_name_is_covered() -> None:
    assert set(PAGE_CALLS) == _public(Page)
    assert set(BROWSER_CALLS) | BROWSER_AROUND == _public(Browser)


def scenario(server: StaticServer) -> list[str]:
    """Launch, attach a second client, and call every public sync name; what was called."""
    called = ["launch"]
    with Browser.launch() as launched:
        # Opened through Playwright: the attached client below sees it first in ``pages``.
        tab = launched.playwright.contexts[0].new_page()
        tab.goto(server.url("sync-threads.html"))
        attached = Browser.connect(launched.cdp_url)
        called.append("connect")
        try:
            # The tab, seen for the first time through ``pages`` of the attached client: its
            # listeners are registered now, and must be on pagesight's loop.
            (page,) = (p for p in attached.pages if p.url == tab.url)
            run = Run(server=server, browser=attached, page=page)
            for name, call in BROWSER_CALLS.items():
                assert call(run) is not False, f"Browser.{name}"
                called.append(f"Browser.{name}")
            for name, call in PAGE_CALLS.items():
                assert call(run) is not False, f"Page.{name}"
                called.append(f"Page.{name}")
        finally:
            attached.close()
            called.append("close")
    return called


EXPECTED = [
    "launch",
    "connect",
    *(f"Browser.{n}" for n in BROWSER_CALLS),
    *(f"Page.{n}" for n in PAGE_CALLS),
    "close",
]


def test_every_sync_call_works_from_a_worker_thread(server: StaticServer) -> None:
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="worker") as pool:
        # The worker's failure, if any, is raised here.
        assert pool.submit(scenario, server).result(timeout=240) == EXPECTED


def test_every_sync_call_works_inside_a_running_event_loop(server: StaticServer) -> None:
    async def notebook_cell() -> list[str]:
        called = scenario(server)
        # Nothing was left for this loop to run: pagesight's work all ran on its own loop.
        assert asyncio.all_tasks() == {asyncio.current_task()}
        return called

    assert asyncio.run(notebook_cell()) == EXPECTED


def test_a_blocking_call_inside_an_event_handler_raises_instead_of_hanging(page: Page) -> None:
    # Handlers registered through page.playwright run on pagesight's own loop: a blocking
    # call there would wait for that loop for ever.
    seen: list[BaseException] = []

    def on_console(_message: Any) -> None:
        try:
            page.title()
        except RuntimeFailure as exc:
            seen.append(exc)

    page.playwright.on("console", on_console)
    # Chromium reports the console call before the evaluation's answer: the handler has run.
    page.playwright.evaluate("console.log('hello')")
    assert len(seen) == 1 and "pagesight.aio" in str(seen[0])
    assert page.url == "about:blank"  # plain reads still work there and here


def test_closing_the_browser_from_another_thread_ends_a_running_call_with_browser_closed(
    server: StaticServer,
) -> None:
    browser = Browser.launch()
    page = browser.open(server.url("sync-close.html"))
    button = _id(Run(server=server, browser=browser, page=page), "Start ticking")
    clicked = threading.Event()
    page.playwright.on("console", lambda _message: clicked.set())
    with ThreadPoolExecutor(max_workers=1) as pool:
        running = pool.submit(page.act, button, "click")  # waits for the page to settle
        assert clicked.wait(30)  # readiness: the click has reached the page
        browser.close()
        with pytest.raises(BrowserClosed) as info:
            running.result(timeout=60)
    assert "closed" in str(info.value)
