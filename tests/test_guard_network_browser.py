"""The origin policy at the network: every request a page makes, not only its documents —
images, ``fetch``, XHR, ``sendBeacon``, a same-origin iframe's requests, a dedicated worker's,
a service worker's, WebSockets — refused when its origin is not allowed, blocked, or on the
private network; refused requests counted in the observation's notes; and the options on
``run`` and ``mcp``.

Origins: ``server`` (the page, allowed), ``other_origin`` (http://localhost:PORT, refused),
and a recorder of this module's own that notes every request it gets, reached as
``http://127.0.0.1:PORT`` (allowed) or ``http://localhost:PORT`` (refused: a refused request
must never arrive). ``server2`` is blocked. One browser for the whole module.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest

from cli_support import run_cli
from conftest import StaticServer
from pagesight import Browser, InvalidOption, OriginNotAllowed
from pagesight.guard.interception import RequestGuard
from pagesight.guard.origins import OriginPolicy


class _Recorder(BaseHTTPRequestHandler):
    """Notes each request's path; answers a WebSocket handshake (then waits for the close)
    and anything else with ``ok``."""

    seen: ClassVar[list[str]] = []

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.seen.append(self.path)
        if self.path == "/no-location":
            self._no_location()
            return
        if self.path == "/report.csv":
            self._slow_download()
            return
        if self.headers.get("Upgrade", "").lower() == "websocket":
            key = self.headers["Sec-WebSocket-Key"] + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
            accept = base64.b64encode(hashlib.sha1(key.encode()).digest()).decode()
            self.send_response(101)
            self.send_header("Upgrade", "websocket")
            self.send_header("Connection", "Upgrade")
            self.send_header("Sec-WebSocket-Accept", accept)
            self.end_headers()
            self.wfile.flush()
            self.rfile.read(2)  # the client's close frame, or the connection's end
            return
        self._ok()

    def do_POST(self) -> None:
        self.seen.append(self.path)
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self._ok()

    def _no_location(self) -> None:
        """A 300 with no Location: Chromium shows its body as the page. Its script opens a
        WebSocket to this recorder as localhost (refused) and says how that went in its
        title."""
        port = self.headers["Host"].rsplit(":", 1)[1]
        ws = f"ws://localhost:{port}/ws-300"
        body = (
            "<!DOCTYPE html><title>waiting</title><h1>Pick a format</h1><script>"
            f"const ws = new WebSocket({ws!r});"
            "ws.onopen = () => { document.title = 'open'; ws.close(); };"
            "ws.onerror = () => { document.title = 'error'; };</script>"
        ).encode()
        self.send_response(300)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    release: ClassVar[threading.Event] = threading.Event()

    def _slow_download(self) -> None:
        """A download whose second half waits for :attr:`release` (a large or slow file)."""
        self.send_response(200)
        self.send_header("Content-Type", "text/csv")
        self.send_header("Content-Disposition", "attachment; filename=report.csv")
        self.send_header("Content-Length", "8")
        self.end_headers()
        self.wfile.write(b"a,b\n")
        self.wfile.flush()
        self.release.wait(30)
        self.wfile.write(b"1,2\n")

    def _ok(self) -> None:
        self.send_response(200)
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")


@pytest.fixture(scope="module")
def recorder() -> Iterator[int]:
    """The recorder's port."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    yield httpd.server_address[1]
    httpd.shutdown()
    httpd.server_close()
    thread.join(timeout=5)


# Chromium finds *.pagesight.test at 127.0.0.1; the operating system does not find it at all.
_RESOLVER = "--host-resolver-rules=MAP *.pagesight.test 127.0.0.1"


@pytest.fixture(scope="module")
def guarded(server2: StaticServer) -> Iterator[Browser]:
    """Any port of 127.0.0.1 (named exactly: private, but listed), any subdomain of
    localhost and of pagesight.test (wildcards: never private), but not ``server2``."""
    with Browser.launch(
        args=(_RESOLVER,),
        allowed_origins=["http://127.0.0.1:*", "http://*.localhost:*", "http://*.pagesight.test:*"],
        blocked_origins=[server2.origin],
    ) as b:
        yield b


@pytest.fixture(scope="module")
def loaded(
    guarded: Browser, server: StaticServer, other_origin: StaticServer, recorder: int
) -> Iterator[tuple[Any, dict[str, Any], str]]:
    """net-requests.html once every request it makes has answered: the tab, its results
    and its first observation's text."""
    _Recorder.seen.clear()
    query = (
        f"other={other_origin.origin}&rec=http://localhost:{recorder}"
        f"&ok=http://127.0.0.1:{recorder}&private=http://inside.localhost:{recorder}"
        f"&unresolved=http://app.pagesight.test:{recorder}"
    )
    tab = guarded.open("about:blank")
    # What Chromium made of the page's speculation rules (it makes those requests itself).
    preloads: list[dict[str, Any]] = []
    cdp = tab.playwright.context.new_cdp_session(tab.playwright)
    for event in ("Preload.prefetchStatusUpdated", "Preload.prerenderStatusUpdated"):
        # A bound method is no handler to Playwright's wrapper: it needs a function.
        cdp.on(event, lambda e: preloads.append(e))  # noqa: PLW0108
    cdp.send("Preload.enable")
    tab.navigate(server.url(f"net-requests.html?{query}"))
    tab.playwright.wait_for_function("window.netDone === true", timeout=15_000)
    results: dict[str, Any] = tab.playwright.evaluate("window.net")
    results["preloads"] = preloads
    text = tab.observe().text()
    yield tab, results, text
    tab.close()


def test_requests_to_a_refused_origin_fail_and_never_arrive(
    loaded: tuple[Any, dict[str, Any], str],
) -> None:
    _tab, net, _text = loaded
    assert net["fetch"] == "error"
    assert net["xhr"] == "error"
    assert net["img"] == "error"
    assert net["own_fetch"] == 200  # the page's own origin still answers
    assert net["own_frame"] == "error"  # a same-origin iframe's request to the other origin
    # sendBeacon only queues; the recorder says whether it was sent.
    assert net["beacon_queued"] is True
    assert "/beacon" not in _Recorder.seen


def test_workers_and_service_workers_are_held_to_the_policy(
    loaded: tuple[Any, dict[str, Any], str],
) -> None:
    _tab, net, _text = loaded
    assert net["worker_fetch"] == "error"
    assert net["worker_ws"] == "error"
    assert "/ws-worker" not in _Recorder.seen
    # No service worker registers under an allowed list: the documents one makes for its
    # pages never pass the guard, and their WebSockets would go anywhere.
    assert net["sw"].startswith("not registered")
    assert "/sw-fetch" not in _Recorder.seen


def test_speculation_rules_prefetch_and_prerender_nothing(
    loaded: tuple[Any, dict[str, Any], str],
) -> None:
    """Chromium makes these requests itself, unseen by the guard's Fetch session: they
    reached any origin until the profile turned preloading off."""
    _tab, net, _text = loaded
    statuses = sorted(
        (p.get("prefetchStatus") or p.get("prerenderStatus") or p["status"], p["status"])
        for p in net["preloads"]
    )
    assert statuses, "Chromium reported no preload attempt to check"
    assert all(status == "Failure" for _why, status in statuses), statuses
    assert all("PreloadingDisabled" in why for why, _status in statuses), statuses
    assert "/spec-prefetch" not in _Recorder.seen
    assert "/spec-prerender" not in _Recorder.seen


def test_a_websocket_to_a_refused_origin_is_never_opened(
    loaded: tuple[Any, dict[str, Any], str],
) -> None:
    _tab, net, _text = loaded
    assert net["ws_no"] == "error"
    assert "/ws-page" not in _Recorder.seen
    assert net["ws_ok"] == "open"  # the same server, by an allowed origin
    assert "/ws-allowed" in _Recorder.seen


def test_a_3xx_page_that_is_no_redirect_is_held_to_the_policy_too(
    guarded: Browser, recorder: int
) -> None:
    """A 3xx with no Location is shown as a page: it gets the connect-src policy like any
    other (it was let through as a redirect, and its WebSocket opened)."""
    tab = guarded.open(f"http://127.0.0.1:{recorder}/no-location")
    try:
        tab.playwright.wait_for_function("document.title !== 'waiting'")
        assert tab.playwright.title() == "error"
        assert "Pick a format" in tab.observe().text()
        assert "/ws-300" not in _Recorder.seen
    finally:
        tab.close()


def test_a_download_starts_before_its_server_has_sent_it_all(
    guarded: Browser, server: StaticServer, recorder: int
) -> None:
    """A download is no page: the guard lets it through as it comes (it read the whole body
    first, so a download from a slow server did not start until the server had sent it all)."""
    tab = guarded.open(server.url("form.html"))
    _Recorder.release.clear()
    try:
        # Sent a moment later, so that the wait below is listening by then.
        url = f"http://127.0.0.1:{recorder}/report.csv"
        tab.playwright.evaluate(f"setTimeout(() => {{ location.href = {url!r}; }}, 300)")
        started = tab.playwright.wait_for_event("download", timeout=10_000)
        _Recorder.release.set()
        assert started.suggested_filename == "report.csv"
        with open(started.path(), "rb") as saved:
            assert saved.read() == b"a,b\n1,2\n"
    finally:
        _Recorder.release.set()
        tab.close()


def test_a_name_that_reaches_this_machine_is_refused_though_a_wildcard_allows_it(
    loaded: tuple[Any, dict[str, Any], str],
) -> None:
    _tab, net, _text = loaded
    assert net["private"] == "error"  # inside.localhost: loopback by name
    assert net["unresolved"] == "error"  # app.pagesight.test: not found here, so not let by
    assert "/private" not in _Recorder.seen
    assert "/unresolved" not in _Recorder.seen


def test_refused_requests_are_counted_in_the_next_observation(
    loaded: tuple[Any, dict[str, Any], str],
) -> None:
    tab, _net, text = loaded
    # img, fetch, xhr, beacon, the two names, the frame's fetch, the worker's fetch (the
    # WebSockets are stopped by the page's own policy, before any request).
    assert "… 8 requests refused by the origin policy" in text
    again = tab.observe().text()
    assert "refused by the origin policy" not in again  # counted once
    tab.playwright.evaluate(
        "fetch(new URLSearchParams(location.search).get('other') + '/x').catch(() => {})"
    )
    assert "… 1 request refused by the origin policy" in tab.observe().text()


def test_a_blocked_origin_is_refused_though_the_list_allows_its_host(
    guarded: Browser, server: StaticServer, server2: StaticServer
) -> None:
    tab = guarded.open(server.url("form.html"))
    try:
        with pytest.raises(OriginNotAllowed) as caught:
            tab.navigate(server2.url("form.html"))
        assert caught.value.origin == server2.origin
        assert "blocked origin" in str(caught.value)
        assert tab.playwright.evaluate("location.href") == server.url("form.html")
        status = tab.playwright.evaluate(
            f"fetch({server2.url('slow?ms=0')!r}).then(r => r.status, () => 'error')"
        )
        assert status == "error"
    finally:
        tab.close()


def test_an_attached_browser_s_pages_still_reach_an_allowed_local_server(
    browser: Browser, server: StaticServer, recorder: int
) -> None:
    """The guard answers documents itself; in a browser it did not launch (Local Network
    Access on) such a page's requests to another allowed server of this machine failed."""
    with Browser.connect(browser.cdp_url, allowed_origins=["http://127.0.0.1:*"]) as attached:
        tab = attached.open(server.url("form.html"))
        try:
            status = tab.playwright.evaluate(
                f"fetch('http://127.0.0.1:{recorder}/lna').then(r => r.status, e => String(e))"
            )
            assert status == 200
            assert "/lna" in _Recorder.seen
        finally:
            tab.close()


def test_with_a_block_list_alone_a_service_worker_s_requests_are_refused(
    browser: Browser, server: StaticServer, other_origin: StaticServer, recorder: int
) -> None:
    """No allowed list, no connect-src policy: service workers register, and what they
    fetch is paused and refused like any request."""
    query = (
        f"other={other_origin.origin}&rec=http://localhost:{recorder}"
        f"&ok=http://127.0.0.1:{recorder}&private=http://127.0.0.1:{recorder}"
        f"&unresolved=http://127.0.0.1:{recorder}"
    )
    with Browser.connect(browser.cdp_url, blocked_origins=["http://localhost:*"]) as attached:
        tab = attached.open(server.url(f"net-requests.html?{query}"))
        try:
            tab.playwright.wait_for_function("window.netDone === true", timeout=15_000)
            assert tab.playwright.evaluate("window.net.sw") == "sw fetch error"
            assert "/sw-fetch" not in _Recorder.seen
        finally:
            # The session's browser keeps registrations: this one goes with the test.
            tab.playwright.evaluate(
                "navigator.serviceWorker.getRegistrations()"
                ".then(rs => Promise.all(rs.map(r => r.unregister())))"
            )
            tab.close()


def test_a_bad_blocked_pattern_is_named_before_chromium_starts() -> None:
    with pytest.raises(InvalidOption) as caught:
        Browser.launch(blocked_origins=["https://example.com/path"])
    assert caught.value.option == "blocked_origins"
    assert "blocked_origins" in str(caught.value)


def test_run_and_mcp_take_the_origin_options(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Any,
    browser: Browser,
    server: StaticServer,
    server2: StaticServer,
) -> None:
    steps = tmp_path / "steps.txt"
    steps.write_text(f"go to {server2.url('form.html')}\n")
    done = run_cli(
        monkeypatch,
        "run",
        server.url("form.html"),
        "--steps",
        str(steps),
        "--cdp-url",
        browser.cdp_url,
        "--blocked-origins",
        server2.origin,
        "--out",
        str(tmp_path / "run"),
    )
    assert f"{server2.origin} is a blocked origin" in done.stdout
    for command in ("run", "mcp"):
        argv = ["run", server.url(), "--steps", str(steps)] if command == "run" else ["mcp"]
        bad = run_cli(monkeypatch, *argv, "--blocked-origins", "ftp://nowhere")
        assert bad.returncode == 2
        assert "blocked_origins: 'ftp://nowhere' is not an origin" in bad.stderr


def test_the_refusal_logs_stay_bounded() -> None:
    """A long run's refusals are counted, and only the latest kept (§6's load run must not
    grow): fed the pause events Chromium sends, with no browser to answer."""
    guard = RequestGuard(OriginPolicy.of(["https://example.com"]), closed_unseen=lambda _: None)

    async def pause_many() -> None:
        for i in range(10_000):
            kind = "Document" if i % 2 else "Image"
            guard._paused(
                {
                    "requestId": str(i),
                    "frameId": "F",
                    "resourceType": kind,
                    "request": {"url": f"https://elsewhere.net/{i}"},
                }
            )
        await guard.settled()

    asyncio.run(pause_many())
    assert guard.requests_mark() == 5_000 and guard.mark() == 5_000
    assert guard.requests_between(0, 5_000, {"F"}) == 4096  # the latest only
    refused = asyncio.run(guard.since(0))
    assert len(refused) == 256
    assert refused[-1].refused.url == "https://elsewhere.net/9999"


def test_an_origin_list_option_is_separated_by_semicolons_or_commas(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Any,
    browser: Browser,
    server: StaticServer,
    server2: StaticServer,
) -> None:
    steps = tmp_path / "steps.txt"
    steps.write_text(f"go to {server2.url('form.html')}\n")
    argv = ("run", server.url("form.html"), "--steps", str(steps), "--cdp-url", browser.cdp_url)
    lists = {
        "--allowed-origins": (f"https://example.com; {server.origin}", "is not an allowed origin"),
        "--blocked-origins": (f"https://example.org, {server2.origin}", "is a blocked origin"),
    }
    for option, (origins, said) in lists.items():
        done = run_cli(monkeypatch, *argv, option, origins, "--out", str(tmp_path / option))
        assert done.returncode != 2, done.stderr
        assert f"{server2.origin} {said}" in done.stdout


def test_an_origin_list_option_naming_no_origin_is_refused_before_anything_starts(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any, server: StaticServer
) -> None:
    # An empty list is a slip, not "allow nothing": every page would be refused.
    steps = tmp_path / "steps.txt"
    steps.write_text('expect "Send message"\n')
    for command in ("run", "mcp"):
        run = ["run", server.url("form.html"), "--steps", str(steps), "--out", str(tmp_path / "r")]
        argv = run if command == "run" else ["mcp"]
        for option in ("--allowed-origins", "--blocked-origins"):
            bad = run_cli(monkeypatch, *argv, option, " ; , ")
            assert bad.returncode == 2, bad.stderr
            assert bad.stderr.startswith(f"pagesight: {option}: give at least one origin")
