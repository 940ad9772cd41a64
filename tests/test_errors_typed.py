"""Errors that are pagesight's own, and only the right ones (issue 10, §3).

Every way pagesight reaches Playwright or CDP goes through one translation: a key Playwright
does not know, a tab closed or crashed under a call, a browser that cannot start, a DevTools
URL with nothing behind it. What is caught is what is meant: a crashed tab is not a stale id,
an in-process frame is not in-process for ever, and the CLI leaves the process as it found it.
"""

from __future__ import annotations

import asyncio
import io
import json
import signal
import stat
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from playwright.async_api import Error as PlaywrightError

from conftest import StaticServer
from pagesight import Browser, Observation
from pagesight.cdp import translate
from pagesight.cli import main
from pagesight.errors import (
    BrowserNotFound,
    ConnectError,
    InvalidOption,
    PageCrashed,
    ProtocolError,
    first_line,
)
from support import one, open_and_observe


def _actions_page(page: Any, server: StaticServer) -> Observation:
    return open_and_observe(page, server.url("errors-actions.html"))


def _state(page: Any) -> dict[str, Any]:
    state: dict[str, Any] = page.playwright.evaluate(
        """() => ({first: document.getElementById("first").value,
                   last: document.getElementById("last").value,
                   keys: window.keys, focused: document.activeElement.id || null})"""
    )
    return state


def _on_loop(page: Any, work: Any) -> Any:
    """Run a coroutine of the async core on the sync page's own event loop."""
    return page._loop.run(work)


def _crash(page: Any) -> None:
    """Crash the tab's renderer (CDP ``Page.crash``) and wait until Playwright says so."""
    pw = page._page.playwright

    async def crash() -> None:
        crashed = asyncio.Event()
        pw.once("crash", lambda _: crashed.set())
        session = await pw.context.new_cdp_session(pw)
        # Page.crash never answers: the renderer that would is gone.
        sent = asyncio.ensure_future(session.send("Page.crash"))
        sent.add_done_callback(lambda t: t.cancelled() or t.exception())
        await crashed.wait()

    _on_loop(page, crash())


# --- one translation, for every path to Playwright --------------------------------------


def test_an_unknown_key_is_refused_before_the_page_is_touched(
    page: Any, server: StaticServer
) -> None:
    obs = _actions_page(page, server)
    first = one(obs, "First name", "textbox")
    # Playwright's keyboard has F1-F12 only: F13 was a raw playwright Error after focusing.
    for element_id in (None, first.id):
        with pytest.raises(InvalidOption) as info:
            page.act(element_id, "press_key", key="F13")
        assert info.value.option == "key"
        assert "'F13'" in str(info.value) and "F1 to F12" in str(info.value)
    assert _state(page)["keys"] == [] and _state(page)["focused"] is None
    page.act(None, "press_key", key="F12")  # a key it knows still goes through
    assert _state(page)["keys"] == ["F12"]


def test_an_element_id_that_is_no_int_is_an_invalid_option(page: Any, server: StaticServer) -> None:
    first = one(_actions_page(page, server), "First name", "textbox")
    for bad in (str(first.id), float(first.id), True):
        with pytest.raises(InvalidOption) as info:  # was StaleElement: "observe first"
            page.act(bad, "input", text="a")
        assert info.value.option == "element_id" and repr(bad) in str(info.value)
    assert _state(page)["first"] == ""


def test_a_batch_with_a_bad_later_step_touches_nothing(page: Any, server: StaticServer) -> None:
    obs = _actions_page(page, server)
    first = one(obs, "First name", "textbox")
    last = one(obs, "Last name", "textbox")
    with pytest.raises(InvalidOption) as info:
        page.batch([(first.id, "input", {"text": "a"}), (last.id, "input", {})])
    assert info.value.option == "text"
    assert _state(page)["first"] == ""  # the first step never ran


def test_a_batch_navigating_to_a_url_it_cannot_open_touches_nothing(
    page: Any, server: StaticServer
) -> None:
    first = one(_actions_page(page, server), "First name", "textbox")
    for url, said in (
        ("ftp://example.org/", "unsupported URL scheme 'ftp'"),
        ("no/such/file.html", "is neither a URL nor an existing file"),
        (5, "url must be a URL or a file path (a string), not 5"),  # was an AttributeError
    ):
        steps = [(first.id, "input", {"text": "a"}), (None, "navigate", {"url": url})]
        with pytest.raises(InvalidOption) as info:  # was UnsupportedURL, after step 1 ran
            page.batch(steps)
        assert str(info.value).startswith("step 2: ") and said in str(info.value)
        assert _state(page)["first"] == ""  # the first step never ran


def test_a_batch_of_no_list_and_a_url_of_no_string_are_invalid_options(
    page: Any, server: StaticServer
) -> None:
    _actions_page(page, server)
    for steps in (None, 5, "click"):
        with pytest.raises(InvalidOption) as info:  # None and 5 were a raw TypeError
            page.batch(steps)
        assert info.value.option == "steps" and "list of (element_id, action" in str(info.value)
    with pytest.raises(InvalidOption) as url_info:  # was an AttributeError in urlsplit
        page.navigate(5)
    assert url_info.value.option == "url"
    assert page.url == server.url("errors-actions.html")  # nowhere else


def test_translate_quotes_an_empty_playwright_message_by_its_type() -> None:
    with pytest.raises(ProtocolError) as info, translate("Runtime.evaluate"):
        raise PlaywrightError("")
    assert str(info.value) == "Runtime.evaluate failed: Error"


def test_a_devtools_call_on_a_closed_tab_is_page_crashed(page: Any, server: StaticServer) -> None:
    _actions_page(page, server)

    async def send_after_close() -> None:
        session = await page._page._tab.session()  # pagesight's own DevTools session on the tab
        await page._page.playwright.close()
        await session.send("Runtime.evaluate", {"expression": "1"})

    with pytest.raises(PageCrashed) as info:  # not ProtocolError: retrying cannot help
        _on_loop(page, send_after_close())
    assert str(info.value) == (
        "Runtime.evaluate failed: the page was closed or its renderer crashed; open a new page"
    )


def test_first_line_of_a_message_with_a_call_log_blank_lines_or_nothing() -> None:
    # Ours, not Playwright's: neither its call log nor the API it was called through.
    assert first_line(PlaywrightError("\n  Page.goto: net::ERR_FAILED\nCall log:\n  - x")) == (
        "net::ERR_FAILED"
    )
    devtools = PlaywrightError("CDPSession.send: Protocol error (DOM.resolveNode): No node found")
    assert first_line(devtools) == "No node found"
    assert first_line(ValueError("")) == "ValueError"
    assert first_line(OSError()) == "OSError"
    assert first_line("  \n ") == "no message"


# --- a tab that crashed or closed is PageCrashed, never a stale id ----------------------


def test_resolving_an_id_on_a_crashed_tab_says_it_crashed(page: Any, server: StaticServer) -> None:
    first = one(_actions_page(page, server), "First name", "textbox")
    _crash(page)
    with pytest.raises(PageCrashed) as info:  # was StaleElement: "observe again" cannot help
        _on_loop(page, page._page._resolver.element(first.id))
    assert "crashed" in str(info.value) and "open a new page" in str(info.value)


def test_resolving_an_id_on_a_closed_tab_says_it_closed(page: Any, server: StaticServer) -> None:
    first = one(_actions_page(page, server), "First name", "textbox")
    page.playwright.close()  # closed underneath pagesight, as by the person or the page
    with pytest.raises(PageCrashed) as info:
        _on_loop(page, page._page._resolver.element(first.id))
    assert "closed" in str(info.value) and "open a new page" in str(info.value)


def test_locate_on_a_crashed_tab_says_it_crashed(page: Any, server: StaticServer) -> None:
    first = one(_actions_page(page, server), "First name", "textbox")
    _crash(page)
    with pytest.raises(PageCrashed):  # it waited for ever on a DevTools call with no answer
        page.locate(first.id)


def test_closing_the_tab_during_a_held_click_is_page_crashed(
    page: Any, server: StaticServer
) -> None:
    hold = one(_actions_page(page, server), "Hold to delete", "button")
    pw = page._page.playwright

    async def click_and_close() -> None:
        acting = asyncio.ensure_future(page._page.act(hold.id, "click", hold=3.0))
        while not await pw.evaluate("window.pressed"):  # the press has begun
            await asyncio.sleep(0.02)
        await pw.close()
        await acting

    with pytest.raises(PageCrashed) as info:
        _on_loop(page, click_and_close())
    assert "closed" in str(info.value)


# --- a frame that moves into a process of its own is read there --------------------------


def test_a_frame_that_moves_to_its_own_process_is_read_again(
    page: Any, server: StaticServer, other_origin: StaticServer
) -> None:
    url = server.url(f"errors-frame-moves.html?other={other_origin.origin}")
    before = open_and_observe(page, url)
    assert one(before, "Inner same-origin button", "button")
    assert len([e for e in before.elements if e.name == "Cross origin button"]) == 1
    page.playwright.evaluate("moveWidget()")  # resolves once the widget's new page has loaded
    after = page.observe()
    widget = next(line for line in after.text().splitlines() if '"Chat widget"' in line)
    outline = after.text()
    below = outline[outline.index(widget) :].splitlines()[1:3]
    # Found in-process once, the widget frame was taken as in-process for good: empty.
    assert any('button "Cross origin button"' in line for line in below), outline
    assert "Inner same-origin button" not in outline
    assert len([e for e in after.elements if e.name == "Cross origin button"]) == 2


# --- launch and connect ------------------------------------------------------------------


def _not_a_program(tmp_path: Path) -> Path:
    exe = tmp_path / "chromium"
    exe.write_bytes(b"\x7fELF but not really")
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    return exe


def test_a_chromium_that_cannot_run_is_browser_not_found(tmp_path: Path) -> None:
    exe = _not_a_program(tmp_path)
    with pytest.raises(BrowserNotFound) as info:  # was a raw OSError (Exec format error)
        Browser.launch(executable_path=str(exe))
    message = str(info.value)
    assert str(exe) in message and "PAGESIGHT_CHROMIUM" in message and "\n" not in message


def test_connect_to_a_dead_url_is_one_clear_line(closed_port: int) -> None:
    # closed_port stays bound for the session: a port closed and then dialled could be taken
    # meanwhile by a parallel worker's server, which would answer.
    dead = f"http://127.0.0.1:{closed_port}"
    with pytest.raises(ConnectError) as info:
        Browser.connect(dead)
    message = str(info.value)
    assert message.startswith(f"no browser answers at {dead} ")
    assert "--remote-debugging-port" in message and "\n" not in message


def test_connect_to_a_server_that_is_not_devtools(server: StaticServer) -> None:
    with pytest.raises(ConnectError) as info:
        Browser.connect(server.origin)
    assert server.origin in str(info.value) and "\n" not in str(info.value)


def test_connect_by_the_http_url_sees_the_tabs_open_there(server: StaticServer) -> None:
    # A browser of its own: an attached Playwright that disconnects takes the default
    # context's download folder with it, which later tests of the session browser would miss.
    url = server.url("errors-actions.html")
    with Browser.launch() as launched:
        tab = launched.open(url)
        attached = Browser.connect(launched.cdp_url)
        try:
            assert attached.cdp_url == launched.cdp_url
            assert url in [p.url for p in attached.pages]
        finally:
            attached.close()  # only disconnects
        assert tab.playwright.evaluate("document.title").startswith("Errors")
        # The browser's own ws:// URL (as /json/version gives it) still attaches.
        with urllib.request.urlopen(f"{launched.cdp_url}/json/version", timeout=5) as reply:
            ws_url = json.load(reply)["webSocketDebuggerUrl"]
        by_ws = Browser.connect(ws_url)
        try:
            assert by_ws.cdp_url == launched.cdp_url
            assert url in [p.url for p in by_ws.pages]
        finally:
            by_ws.close()


# --- the CLI: catch what is meant, leave the process as it was ---------------------------


def _main(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def test_main_gives_back_the_sigterm_handler_it_found(server: StaticServer) -> None:
    def ours(signum: int, frame: FrameType | None) -> None:
        pass

    previous = signal.signal(signal.SIGTERM, ours)
    try:
        code, _, err = _main("observe", server.url("errors-actions.html"), "--max-chars", "0")
        assert code == 2 and "--max-chars" in err
        assert signal.getsignal(signal.SIGTERM) is ours  # was the CLI's own, for good
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_main_from_a_worker_thread_runs_without_touching_signals(server: StaticServer) -> None:
    # Python allows signal handlers in the main thread only: this was a raw ValueError.
    with ThreadPoolExecutor(max_workers=1) as pool:
        run = pool.submit(_main, "observe", server.url("errors-actions.html"), "--max-chars", "0")
        code, _, err = run.result(timeout=60)
    assert code == 2 and err.startswith("pagesight: --max-chars: ")


def test_an_empty_cdp_url_is_bad_input_not_a_launched_browser(server: StaticServer) -> None:
    code, out, err = _main("observe", server.url("errors-actions.html"), "--cdp-url", "")
    # was taken for no --cdp-url at all: a browser was launched and the page printed
    assert (code, out) == (2, "")
    assert err == "pagesight: '' is not a DevTools URL such as http://127.0.0.1:9222\n"


def test_a_screenshot_that_cannot_be_written_says_so(server: StaticServer, tmp_path: Path) -> None:
    shot = tmp_path / "shot.png"
    shot.mkdir()  # a folder where the picture should go
    code, out, err = _main("observe", server.url("errors-actions.html"), "--screenshot", str(shot))
    # The path given is at fault (bad input, exit 2), found before a browser starts: it was
    # exit 1, once the page had been loaded and read.
    assert (code, out) == (2, "")
    assert err == f"pagesight: --screenshot: {str(shot)!r} is a folder; give the PNG file's name\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shot.png"]  # no half picture left


def test_a_chromium_that_cannot_run_is_a_setup_error_in_the_cli(
    server: StaticServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PAGESIGHT_CHROMIUM", str(_not_a_program(tmp_path)))
    code, out, err = _main("observe", server.url("errors-actions.html"))
    # Was exit 1 with "Exec format error: None", the message meant for a screenshot.
    assert (code, out) == (2, "")
    assert err.startswith("pagesight: cannot run ") and "PAGESIGHT_CHROMIUM" in err
    assert err.count("\n") == 1
