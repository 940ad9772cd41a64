"""Pages that navigate for ever: a redirect loop, a script or a meta refresh reloading the
page. Closing such a tab ends, opening a redirect loop says so at once, and reading a page
that never keeps a document ends within its timeout with a NavigationError."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from pagesight import Browser, NavigationError

_LOOPS = {
    "/reload": b"<h1>reload</h1><script>location.reload()</script>",
    "/href": b"<h1>href</h1><script>setTimeout(() => location.href = '/href?' + Math.random())"
    b"</script>",
    "/meta": b"<meta http-equiv=refresh content=0><h1>meta</h1>",
}


class _Loops(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        path = self.path.split("?")[0]
        if path.startswith("/r/"):  # /r/1 -> /r/2 -> ... without end
            self.send_response(302)
            self.send_header("Location", f"/r/{int(path[3:]) + 1}")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = _LOOPS.get(path, b"<h1>still</h1>")
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # the browser drops the connections of the documents it replaces


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    server = _Server(("127.0.0.1", 0), _Loops)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def loops_browser() -> Iterator[Browser]:
    with Browser.launch() as browser:
        yield browser


def _ends(call: Callable[[], object], bound: float = 60.0) -> None:
    """Run ``call`` in a thread; only a guard against a hang, not a measure of speed."""
    failure: list[Exception] = []

    def run() -> None:
        try:
            call()
        except Exception as exc:  # noqa: BLE001 - handed to the test's thread below
            failure.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(bound)
    assert not thread.is_alive(), "the call never returned"
    if failure:
        raise failure[0]


def test_closing_a_tab_that_navigates_for_ever_ends(loops_browser: Browser, base: str) -> None:
    # A close that races a navigation's commit is dropped by Chromium: one close in two or
    # five hung before. Ten in a row, each of a page reloading itself one way or another.
    for i in range(10):
        path = list(_LOOPS)[i % 3]
        page = loops_browser.open(f"{base}{path}", wait_until="commit")
        page.playwright.wait_for_timeout(150 + 40 * (i % 4))  # mid-loop, not at its start
        _ends(page.close)
        assert page.closed


def test_a_redirect_loop_is_a_navigation_error_at_once(loops_browser: Browser, base: str) -> None:
    with pytest.raises(NavigationError, match="redirected more than 20 times"):
        loops_browser.open(f"{base}/r/1")
    page = loops_browser.open(f"{base}/still")
    try:
        with pytest.raises(NavigationError, match="redirected more than 20 times"):
            page.navigate(f"{base}/r/1")
    finally:
        page.close()


@pytest.mark.parametrize("path", ["/reload", "/href"])
def test_observing_a_page_that_reloads_for_ever_ends(
    loops_browser: Browser, base: str, path: str
) -> None:
    page = loops_browser.open(f"{base}{path}", wait_until="commit")
    try:
        # Within wait + timeout: either a reading of a document that stayed long enough, or a
        # NavigationError saying the page navigates for ever; never a walker's ProtocolError.
        def observe() -> None:
            try:
                page.observe(wait=1, timeout=3)
            except NavigationError as exc:
                assert "kept loading new documents" in str(exc)

        _ends(observe)
    finally:
        _ends(page.close)


def test_observe_waits_no_longer_than_its_one_timeout(
    loops_browser: Browser, base: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The readiness wait (``wait``, 5 s by default) and the walk's retries on a page that
    # keeps reloading used to stack, each with its own budget: ``--timeout 3`` took 8 s and
    # more. Every wait observe starts must end by the deadline its timeout sets.
    import pagesight.browser.page as page_module
    from pagesight.browser.tab import Tab

    ends: list[tuple[str, float, float]] = []  # (wait, when it began, when it must end)
    real_ready, real_walk = page_module.wait_ready, Tab.walk  # type: ignore[attr-defined]

    async def ready(page: Any, network: Any, timeout: float, **kw: Any) -> bool:
        now = time.monotonic()
        ends.append(("ready", now, now + timeout))
        return await real_ready(page, network, timeout, **kw)

    async def walk(self: Tab, mode: Any, options: Any, *, within: float) -> Any:
        now = time.monotonic()
        ends.append(("walk", now, now + within))
        return await real_walk(self, mode, options, within=within)

    monkeypatch.setattr(page_module, "wait_ready", ready)
    monkeypatch.setattr(Tab, "walk", walk)
    page = loops_browser.open(f"{base}/reload", wait_until="commit")
    try:

        def observe() -> None:
            with contextlib.suppress(NavigationError):
                page.observe(timeout=3)

        _ends(observe)
        assert [name for name, _, _ in ends] == ["ready", "walk"]
        # From observe's first wait, not from this thread's call: on a loaded machine the
        # call reaches the browser's loop a while after it is made.
        start = ends[0][1]
        late = [(name, round(end - start - 3, 2)) for name, _, end in ends if end > start + 3.5]
        assert late == [], f"waits set to end this long after observe's timeout: {late}"
    finally:
        _ends(page.close)
