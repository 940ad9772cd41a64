"""The MCP server over streamable HTTP on 127.0.0.1, driven by the SDK's own client: one
server subprocess for the module (it launches its own Chromium, lazily), the browser killed
under it, and the DNS-rebinding checks (Host and Origin) on every request."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from starlette.testclient import TestClient

import mcp_support
from conftest import PAGES, StaticServer
from mcp_support import McpClient, chromiums_of, ok, ref, running, text
from pagesight.agent.registry import ToolRegistry
from pagesight.cli import main
from pagesight.mcp import TOOLS, BrowserOptions, PagesightMCP
from pagesight.mcp.transport import http_app

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}
JSON = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


class HttpServer(mcp_support.HttpServer):
    """The server, and a raw initialize request to it with the headers given."""

    def post(self, **headers: str) -> httpx.Response:
        return httpx.post(self.url, json=INITIALIZE, headers={**JSON, **headers}, timeout=30)


@pytest.fixture(scope="module")
def http_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    out = tmp_path_factory.mktemp("mcp-http")
    # Pages of 127.0.0.1 only: the fixture servers and the redirector; `other_origin`
    # (http://localhost:PORT) is another origin.
    # --confirm never: the dialog test accepts a confirm() (test_confirm_mcp.py asks first).
    served = HttpServer(
        "--output-dir", str(out), "--allowed-origins", "http://127.0.0.1:*", "--confirm", "never"
    )
    yield served
    launched = chromiums_of(served.process.pid)
    served.close()  # SIGTERM: the server closes the browser it launched before it exits
    deadline = time.monotonic() + 30
    while running(launched) and time.monotonic() < deadline:  # readiness
        time.sleep(0.05)
    assert not running(launched), f"the server left its Chromium {launched} running"


@pytest.fixture(scope="module")
def mcp(http_server: HttpServer) -> Iterator[McpClient]:
    with McpClient(http_server.url) as client:
        yield client


def test_tools_over_http_are_the_registry_tools(mcp: McpClient) -> None:
    registry = {spec.name: spec for spec in ToolRegistry.discover().specs()}
    listed = {tool.name: tool.input_schema for tool in mcp.tools()}
    for name, tool in TOOLS.items():
        if name in listed:  # the core profile lists a few; browser_use_tool reaches the rest
            assert listed[name] == registry[tool].input_schema, name
    assert {"browser_act", "browser_use_tool", "browser_close"} <= set(listed)


def test_the_browser_killed_mid_session_then_navigate_starts_a_fresh_one(
    mcp: McpClient, http_server: HttpServer, server: StaticServer
) -> None:
    first = ok(mcp.call("browser_navigate", {"url": server.url("act-profile.html")}))
    assert "page now:" in first
    (chromium,) = chromiums_of(http_server.process.pid)
    os.kill(chromium, signal.SIGKILL)
    deadline = time.monotonic() + 30
    while running({chromium}) and time.monotonic() < deadline:  # readiness: the kill took
        time.sleep(0.05)
    after = mcp.call("browser_snapshot")
    assert after.is_error
    said = text(after)
    assert said.startswith("error (browser_gone): the browser went away"), said
    assert "call browser_navigate to start a fresh browser" in said
    assert "launch" not in said  # the library's advice names no MCP tool: not repeated
    assert "Traceback" not in said
    again = ok(mcp.call("browser_navigate", {"url": server.url("act-profile.html")}))
    assert "page now:" in again and 'button "Save"' in again
    assert len(chromiums_of(http_server.process.pid) - {chromium}) == 1  # a fresh one


def _renderers(chromium: int) -> list[int]:
    """The renderer processes of the Chromium ``chromium`` (its descendants of
    --type=renderer: the zygote's children, not its own)."""
    processes = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
            cmdline = (entry / "cmdline").read_bytes()  # one string: Chromium rewrites it
        except OSError:
            continue
        parent = next(line for line in status.splitlines() if line.startswith("PPid:"))
        processes.append((int(entry.name), int(parent.split()[1]), cmdline))
    family, found = {chromium}, []
    for _ in range(4):  # chromium -> zygote -> zygote -> renderer, at most
        family |= {pid for pid, parent, _ in processes if parent in family}
    for pid, _, cmdline in processes:
        if pid in family and b"--type=renderer" in cmdline:
            found.append(pid)
    return found


def _tabs(mcp: McpClient) -> list[str]:
    return ok(mcp.call("browser_tabs", {"action": "list"})).splitlines()[1:]


def test_a_crashed_renderer_is_said_and_navigate_goes_on_in_a_fresh_tab(
    mcp: McpClient, http_server: HttpServer, server: StaticServer
) -> None:
    ok(mcp.call("browser_navigate", {"url": server.url("act-profile.html?crash=1")}))
    (chromium,) = chromiums_of(http_server.process.pid)
    renderers = _renderers(chromium)
    assert renderers
    for pid in renderers:  # what an out-of-memory kill does to a tab
        os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 30
    while running(set(renderers)) and time.monotonic() < deadline:  # readiness
        time.sleep(0.05)
    after = mcp.call("browser_snapshot")
    said = text(after)
    assert after.is_error and said.startswith("error (page_crashed): "), said
    assert "call browser_navigate to open a fresh tab" in said  # an MCP tool, not the library's
    assert "open a new page" not in said
    again = ok(mcp.call("browser_navigate", {"url": server.url("act-profile.html?crash=2")}))
    assert "page now:" in again and 'button "Save"' in again
    (tab,) = _tabs(mcp)  # the crashed tab closed, the fresh one in use
    assert tab.startswith("*") and tab.endswith("act-profile.html?crash=2"), tab
    assert chromiums_of(http_server.process.pid) == {chromium}  # the same browser: cookies kept


def test_the_last_tab_closed_by_its_page_then_navigate_goes_on_in_a_fresh_tab(
    mcp: McpClient, server: StaticServer
) -> None:
    page = ok(mcp.call("browser_navigate", {"url": server.url("mcp-closes.html")}))
    opened = ok(mcp.call("browser_click", {"ref": ref(page, 'button "Open a closer"')}))
    assert "new_tab" in opened.splitlines()[0]
    first, closer = _tabs(mcp)
    ok(mcp.call("browser_tabs", {"action": "select", "tab_id": int(closer.split()[0])}))
    ok(mcp.call("browser_tabs", {"action": "close", "tab_id": int(first.split()[1])}))
    shown = ok(mcp.call("browser_snapshot"))
    assert "mcp-closes.html?closer=1" in shown.splitlines()[0]
    mcp.call("browser_click", {"ref": ref(shown, 'button "Close this tab"')})
    assert _tabs(mcp) == []  # no tab left (a page may close the window a script opened)
    after = mcp.call("browser_snapshot")
    said = text(after)
    assert after.is_error and said.startswith("error (page_crashed): the page closed"), said
    assert "call browser_navigate to open a fresh tab" in said
    again = ok(mcp.call("browser_navigate", {"url": server.url("act-profile.html?closed=1")}))
    assert "page now:" in again and 'button "Save"' in again
    (tab,) = _tabs(mcp)
    assert tab.startswith("*") and tab.endswith("act-profile.html?closed=1"), tab


class _Redirects(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.send_response(302)
        self.send_header("Location", parse_qs(urlsplit(self.path).query)["url"][0])
        self.send_header("Content-Length", "0")
        self.end_headers()


@pytest.fixture(scope="module")
def redirector() -> Iterator[str]:
    """``http://127.0.0.1:PORT/to?url=``: a 302 to the URL given (an allowed origin)."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Redirects)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/to?url="
    httpd.shutdown()
    httpd.server_close()
    thread.join(timeout=5)


def test_a_disallowed_origin_is_a_tool_error_typed_redirected_or_in_a_new_tab(
    mcp: McpClient, server: StaticServer, other_origin: StaticServer, redirector: str
) -> None:
    away = other_origin.url("form.html")
    refused = f"error (origin_not_allowed): {other_origin.origin}"
    typed = mcp.call("browser_navigate", {"url": away})
    assert typed.is_error and text(typed).startswith(refused), text(typed)
    redirected = mcp.call("browser_navigate", {"url": redirector + away})
    assert redirected.is_error and text(redirected).startswith(refused), text(redirected)
    links = server.url(f"origins-links.html?other={other_origin.origin}")
    page = ok(mcp.call("browser_navigate", {"url": links}))
    followed = mcp.call("browser_click", {"ref": ref(page, 'link "Partner site"')})
    assert followed.is_error and text(followed).startswith(refused), text(followed)
    assert f"refused: navigation to {other_origin.origin}" in text(followed)
    new_tab = mcp.call("browser_click", {"ref": ref(page, 'link "Partner site in a new tab"')})
    assert f"new tab to {other_origin.origin}" in text(new_tab), text(new_tab)
    tabs = ok(mcp.call("browser_tabs", {"action": "list"})).splitlines()[1:]
    assert len(tabs) == 1 and "origins-links.html" in tabs[0], tabs  # the page stayed, alone
    local = mcp.call("browser_navigate", {"url": (PAGES / "form.html").as_uri()})
    assert local.is_error and text(local).startswith("error (origin_not_allowed): ")
    assert "allow_file_access" in text(local)


def _status(mcp: McpClient) -> str:
    """The last line of the snapshot: act-dialogs.html's status paragraph."""
    return ok(mcp.call("browser_snapshot")).splitlines()[-1].strip()


def test_a_dialog_is_in_the_effect_and_handle_dialog_answers_the_next(
    mcp: McpClient, server: StaticServer
) -> None:
    # Here, not over stdio: there the test's own Playwright is attached to the same Chromium,
    # and a Playwright client dismisses every dialog it has no listener for, racing ours.
    page = ok(mcp.call("browser_navigate", {"url": server.url("act-dialogs.html")}))
    delete = ref(page, 'button "Delete item"')
    first = ok(mcp.call("browser_click", {"ref": delete}))
    assert "dialog" in first.splitlines()[0]
    assert 'dialog confirm "Delete this item?": dismissed' in first
    assert _status(mcp) == '"cancelled"'
    told = ok(mcp.call("browser_handle_dialog", {"accept": True}))
    assert told.startswith("the dialogs of this tab's next action will be accepted")
    again = ok(mcp.call("browser_click", {"ref": delete}))
    assert 'dialog confirm "Delete this item?": accepted' in again
    assert _status(mcp) == '"confirmed"'
    third = ok(mcp.call("browser_click", {"ref": delete}))  # once: the policy is back
    assert 'dialog confirm "Delete this item?": dismissed' in third


def _until_running(http_server: HttpServer, started: set[int], count: int) -> set[int]:
    """Which of ``started`` still run, once ``count`` of them do (or 30 s passed)."""
    deadline = time.monotonic() + 30
    alive = started & chromiums_of(http_server.process.pid)
    while len(alive) != count and time.monotonic() < deadline:  # readiness: a close
        time.sleep(0.05)
        alive = started & chromiums_of(http_server.process.pid)
    return alive


def test_each_http_session_has_a_browser_of_its_own_closed_when_it_ends(
    http_server: HttpServer, server: StaticServer
) -> None:
    before = chromiums_of(http_server.process.pid)
    # The initialize handshake gives each client a session id of its own (Mcp-Session-Id).
    with McpClient(http_server.url, legacy=True) as one:
        with McpClient(http_server.url, legacy=True) as two:
            ok(one.call("browser_navigate", {"url": server.url("act-profile.html")}))
            other = ok(two.call("browser_snapshot"))
            assert other.startswith('page "" about:blank'), other
            started = chromiums_of(http_server.process.pid) - before
            assert len(started) == 2
        # The client left (its DELETE ended the session): that session's browser closed,
        # the other one's still serves its page.
        assert len(_until_running(http_server, started, 1)) == 1
        still = ok(one.call("browser_snapshot"))
        assert "act-profile.html" in still.splitlines()[0]
    assert _until_running(http_server, started, 0) == set()


def _rpc(http_server: HttpServer, session: str, message: dict[str, Any]) -> dict[str, Any]:
    """One JSON-RPC message on ``session``; the answer read off its event stream."""
    headers = {**JSON, "mcp-session-id": session, "mcp-protocol-version": "2025-06-18"}
    response = httpx.post(http_server.url, json=message, headers=headers, timeout=60)
    assert response.status_code in (200, 202), response.text
    data = [line[5:] for line in response.text.splitlines() if line.startswith("data:")]
    return json.loads(data[-1]) if data else {}


def test_a_delete_refused_for_its_origin_leaves_the_session_and_its_browser(
    http_server: HttpServer, server: StaticServer
) -> None:
    before = chromiums_of(http_server.process.pid)
    session = http_server.post().headers["mcp-session-id"]
    _rpc(http_server, session, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    url = server.url("act-profile.html?delete=1")
    call = {"name": "browser_navigate", "arguments": {"url": url}}
    navigated = _rpc(
        http_server, session, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call}
    )
    assert navigated["result"]["isError"] is False, navigated
    started = chromiums_of(http_server.process.pid) - before
    assert len(started) == 1
    # A page of another site cannot end (and so close the browser of) a session it learnt.
    foreign = {"mcp-session-id": session, "origin": "http://evil.example"}
    assert httpx.delete(http_server.url, headers=foreign, timeout=30).status_code == 403
    snapshot = {"name": "browser_snapshot", "arguments": {}}
    shown = _rpc(
        http_server,
        session,
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": snapshot},
    )
    assert "act-profile.html?delete=1" in shown["result"]["content"][0]["text"]
    assert _until_running(http_server, started, 1) == started
    ended = httpx.delete(http_server.url, headers={"mcp-session-id": session}, timeout=30)
    assert ended.status_code == 200
    assert _until_running(http_server, started, 0) == set()


def test_a_session_ended_by_its_idle_timeout_has_its_browser_closed(
    server: StaticServer, tmp_path: Path
) -> None:
    served = HttpServer("--output-dir", str(tmp_path), "--session-timeout", "2")
    try:
        session = served.post().headers["mcp-session-id"]
        _rpc(served, session, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        call = {"name": "browser_navigate", "arguments": {"url": server.url("form.html")}}
        navigated = _rpc(
            served, session, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call}
        )
        assert navigated["result"]["isError"] is False, navigated
        started = chromiums_of(served.process.pid)
        assert len(started) == 1
        # The client goes without a word (no DELETE, as a client that crashed): 2 s with no
        # request and the SDK ends its session, and so its browser must go.
        deadline = time.monotonic() + 30
        while running(started) and time.monotonic() < deadline:  # readiness: the close
            time.sleep(0.1)
        assert not running(started), "the browser of a session that idled out still runs"
        headers = {**JSON, "mcp-session-id": session, "mcp-protocol-version": "2025-06-18"}
        ping = {"jsonrpc": "2.0", "id": 3, "method": "ping"}
        ended = httpx.post(served.url, json=ping, headers=headers, timeout=30)
        assert ended.status_code == 404  # the SDK had ended that session: nothing live closed
        assert served.post().status_code == 200  # and the server goes on
    finally:
        served.close()


def test_a_request_with_a_foreign_origin_is_refused(http_server: HttpServer) -> None:
    port = http_server.port
    assert http_server.post(origin="http://evil.example").status_code == 403
    # Another port of this same machine is another origin (a page some other local server
    # serves): refused too.
    assert http_server.post(origin=f"http://127.0.0.1:{port + 1}").status_code == 403
    assert http_server.post(origin=f"http://localhost:{port}").status_code == 200
    assert http_server.post().status_code == 200  # no Origin: not a browser page


def test_a_request_with_a_bad_host_is_refused(http_server: HttpServer) -> None:
    refused = http_server.post(host="evil.example")
    assert refused.status_code == 421
    assert http_server.post(host=f"127.0.0.1:{http_server.port}").status_code == 200


def test_the_checks_stay_on_when_another_host_is_given(tmp_path: Path) -> None:
    # The SDK turns DNS-rebinding protection on by itself only for a loopback --host; the
    # app `pagesight mcp --host 192.168.1.5` serves (built the same way, in process here).
    server = PagesightMCP(BrowserOptions(output_dir=tmp_path))
    app = http_app(server, "192.168.1.5", 8931)
    with TestClient(app, base_url="http://192.168.1.5:8931") as client:

        def post(**headers: str) -> int:
            return client.post("/mcp", json=INITIALIZE, headers={**JSON, **headers}).status_code

        assert post(origin="http://evil.example") == 403
        assert post(origin="http://192.168.1.5:8932") == 403
        assert post(host="evil.example") == 421
        assert post(origin="http://192.168.1.5:8931") == 200
        assert post(host="127.0.0.1:8931") == 200


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--port", "70000"], "pagesight: --port: expected a port from 0 to 65535, not 70000"),
        (["--session-timeout", "0"], "pagesight: --session-timeout: expected seconds above 0"),
        (["--cdp-url", "nowhere"], "pagesight: --cdp-url: expected a DevTools URL"),
        (["--headed", "--cdp-url", "http://127.0.0.1:9"], "pagesight: --headed: shows the"),
        (
            ["--allowed-origins", "http://127.0.0.1:*;https://example.com/admin"],
            "pagesight: --allowed-origins: ",
        ),
        (
            ["--transport", "http", "--host", "no-such-host.invalid", "--port", "0"],
            "pagesight: --host: cannot listen on no-such-host.invalid:0 ",
        ),
        (
            ["--transport", "http", "--host", "192.0.2.1", "--port", "0"],  # not this machine's
            "pagesight: --host: cannot listen on 192.0.2.1:0 ",
        ),
    ],
)
def test_bad_options_are_one_line_and_exit_2(
    args: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["mcp", *args]) == 2
    said = capsys.readouterr()
    assert said.err.startswith(says), said.err
    assert len(said.err.strip().splitlines()) == 1
    assert said.out == ""


def test_an_output_dir_that_is_a_file_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    taken = tmp_path / "taken"
    taken.write_text("a file")
    assert main(["mcp", "--output-dir", str(taken)]) == 2
    assert capsys.readouterr().err == (
        f"pagesight: --output-dir: cannot make the folder {taken} (File exists)\n"
    )
    assert main(["mcp", "--output-dir", str(taken / "sub")]) == 2
    said = capsys.readouterr().err
    assert said.startswith(f"pagesight: --output-dir: cannot make the folder {taken / 'sub'} ")


def test_an_unknown_option_names_the_help_to_read(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["mcp", "--bogus"])
    assert exited.value.code == 2
    said = capsys.readouterr().err
    assert said == "pagesight: unrecognized arguments: --bogus (see pagesight --help)\n"
    with pytest.raises(SystemExit):
        main(["mcp", "--transport", "pigeon"])
    assert capsys.readouterr().err.endswith("(see pagesight mcp --help)\n")


def test_a_port_in_use_is_bad_input(
    http_server: HttpServer, capsys: pytest.CaptureFixture[str]
) -> None:
    port = str(http_server.port)
    assert main(["mcp", "--transport", "http", "--port", port]) == 2
    said = capsys.readouterr().err
    assert said.startswith(f"pagesight: --port: cannot listen on 127.0.0.1:{port} "), said
