"""The MCP server over streamable HTTP on 127.0.0.1, driven by the SDK's own client: one
server subprocess for the module (it launches its own Chromium, lazily), the browser killed
under it, and the DNS-rebinding checks (Host and Origin) on every request."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from starlette.testclient import TestClient

from conftest import StaticServer
from mcp_support import McpClient, ok, server_env, text
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


class HttpServer:
    """``python -m pagesight mcp --transport http --port 0 ARGS``, its URL read off stderr."""

    def __init__(self, *args: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "pagesight", "mcp", "--transport", "http", "--port", "0", *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=server_env(),
        )
        assert self.process.stderr is not None
        self.lines: list[str] = []
        self.url = ""
        for line in self.process.stderr:  # readiness: the line saying where it serves
            self.lines.append(line)
            if "serving http://" in line:
                self.url = line.split("serving ", 1)[1].strip()
                break
        assert self.url, "".join(self.lines)
        self._drain_thread = threading.Thread(target=self._drain, daemon=True)
        self._drain_thread.start()

    def _drain(self) -> None:
        assert self.process.stderr is not None
        self.lines.extend(self.process.stderr)

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1].split("/", 1)[0])

    def post(self, **headers: str) -> httpx.Response:
        return httpx.post(self.url, json=INITIALIZE, headers={**JSON, **headers}, timeout=30)

    def close(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._drain_thread.join(timeout=30)
        assert self.process.stderr is not None
        self.process.stderr.close()


@pytest.fixture(scope="module")
def http_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    out = tmp_path_factory.mktemp("mcp-http")
    served = HttpServer("--output-dir", str(out))
    yield served
    running = _chromium_of(served.process.pid, missing_ok=True)
    served.close()  # SIGTERM: the server closes the browser it launched before it exits
    if running is not None:
        deadline = time.monotonic() + 30
        while not _gone(running) and time.monotonic() < deadline:  # readiness
            time.sleep(0.05)
        assert _gone(running), f"the server left its Chromium {running} running"


@pytest.fixture(scope="module")
def mcp(http_server: HttpServer) -> Iterator[McpClient]:
    with McpClient(http_server.url) as client:
        yield client


def _chromium_of(pid: int, *, missing_ok: bool = False) -> int | None:
    """The Chromium the server process launched: its child running with a DevTools port."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        parent = next(line for line in status.splitlines() if line.startswith("PPid:"))
        if int(parent.split()[1]) == pid and b"--remote-debugging-port=0" in cmdline:
            return int(entry.name)
    if missing_ok:
        return None
    raise AssertionError(f"the server {pid} has no Chromium")


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True
    return "State:\tZ" in state  # a zombie: dead, waiting for its parent to reap it


def test_tools_over_http_are_the_registry_tools(mcp: McpClient) -> None:
    registry = {spec.name: spec for spec in ToolRegistry.discover().specs()}
    listed = {tool.name: tool.input_schema for tool in mcp.tools()}
    for name, tool in TOOLS.items():
        if tool in registry:
            assert listed[name] == registry[tool].input_schema, name
    assert "browser_close" in listed


def test_the_browser_killed_mid_session_then_navigate_starts_a_fresh_one(
    mcp: McpClient, http_server: HttpServer, server: StaticServer
) -> None:
    first = ok(mcp.call("browser_navigate", {"url": server.url("act-profile.html")}))
    assert "page now:" in first
    chromium = _chromium_of(http_server.process.pid)
    assert chromium is not None
    os.kill(chromium, signal.SIGKILL)
    deadline = time.monotonic() + 30
    while not _gone(chromium) and time.monotonic() < deadline:  # readiness: the kill took
        time.sleep(0.05)
    after = mcp.call("browser_snapshot")
    assert after.is_error
    said = text(after)
    assert said.startswith("error (browser_gone): the browser went away"), said
    assert "browser_navigate" in said
    assert "Traceback" not in said
    again = ok(mcp.call("browser_navigate", {"url": server.url("act-profile.html")}))
    assert "page now:" in again and 'button "Save"' in again
    assert _chromium_of(http_server.process.pid) != chromium


def test_each_http_session_has_a_browser_of_its_own(
    http_server: HttpServer, server: StaticServer
) -> None:
    # The initialize handshake gives each client a session id of its own (Mcp-Session-Id).
    with (
        McpClient(http_server.url, legacy=True) as one,
        McpClient(http_server.url, legacy=True) as two,
    ):
        ok(one.call("browser_navigate", {"url": server.url("act-profile.html")}))
        other = ok(two.call("browser_snapshot"))
        assert other.startswith('page "" about:blank'), other
        ok(one.call("browser_close"))
        ok(two.call("browser_close"))


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
        (["--cdp-url", "nowhere"], "pagesight: --cdp-url: expected a DevTools URL"),
        (["--headed", "--cdp-url", "http://127.0.0.1:9"], "pagesight: --headed: shows the"),
        # A path is no origin (or, before the origin guard is merged: no guard to enforce it).
        (["--allowed-origins", "https://example.com/admin"], "pagesight: --allowed-origins: "),
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


def test_a_port_in_use_is_bad_input(
    http_server: HttpServer, capsys: pytest.CaptureFixture[str]
) -> None:
    port = str(http_server.port)
    assert main(["mcp", "--transport", "http", "--port", port]) == 2
    said = capsys.readouterr().err
    assert said.startswith(f"pagesight: --port: cannot listen on 127.0.0.1:{port} "), said
