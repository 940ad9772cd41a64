"""The stdio server as a client's child process: JSON-RPC lines only on its stdout, the
Chromium it launched gone when the client closes its stdin or sends SIGTERM (a client's way
to stop a server that does not read its stdin's end), and a --cdp-url browser that goes
away said so, with the way back."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from conftest import StaticServer
from mcp_support import McpClient, chromiums_of, ok, running, server_env, stdio_params, text


class _Raw:
    """``python -m pagesight mcp`` with pipes: each request a line, each answer read back."""

    def __init__(self, env: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "pagesight", "mcp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**server_env(), **(env or {})},
        )
        self._id = 0

    def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self._id += 1
        message = {"jsonrpc": "2.0", "id": self._id, "method": method, "params": params or {}}
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        answer: dict[str, Any] = json.loads(line)  # anything else on stdout breaks a client
        assert answer["id"] == self._id, answer
        return answer

    def notify(self, method: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"jsonrpc": "2.0", "method": method}).encode() + b"\n")
        self.process.stdin.flush()

    def initialize(self) -> None:
        """The MCP handshake: initialize, answered by pagesight, then initialized."""
        hello = {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"},
        }
        assert self.send("initialize", hello)["result"]["serverInfo"]["name"] == "pagesight"
        self.notify("notifications/initialized")

    def end(self) -> None:
        """Kill the server if it still runs, and close its pipes."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None and not stream.closed:
                stream.close()


@pytest.mark.parametrize("how", ["stdin closed", "SIGTERM"])
def test_a_browser_still_launching_when_the_server_stops_leaves_nothing(
    how: str, server: StaticServer, short_tmp: Path
) -> None:
    # The first call launches the browser; the client goes before it has answered. The
    # launch in flight is cancelled and waited for: its scratch folder (profile, Chromium's
    # singleton folder) and Playwright's artifacts folder go with it.
    raw = _Raw(env={"TMPDIR": str(short_tmp)})
    try:
        raw.initialize()
        assert raw.process.stdin is not None
        call = {
            "jsonrpc": "2.0",
            "id": 99,
            "method": "tools/call",
            "params": {
                "name": "browser_navigate",
                "arguments": {"url": server.url("act-profile.html")},
            },
        }
        raw.process.stdin.write(json.dumps(call).encode() + b"\n")
        raw.process.stdin.flush()
        deadline = time.monotonic() + 30  # readiness: the launch has begun
        while (
            not any(
                p.name.startswith("pagesight-") and not p.name.startswith("pagesight-mcp-")
                for p in short_tmp.iterdir()
            )
            and time.monotonic() < deadline
        ):
            time.sleep(0.01)
        if how == "SIGTERM":
            raw.process.send_signal(signal.SIGTERM)
        else:
            raw.process.stdin.close()
        assert raw.process.wait(timeout=60) == 0
        assert sorted(p.name for p in short_tmp.iterdir()) == []
    finally:
        raw.end()


@pytest.mark.parametrize("how", ["stdin closed", "SIGTERM"])
def test_the_server_leaves_no_chromium_when_stopped(
    how: str, server: StaticServer, short_tmp: Path
) -> None:
    # A temporary folder of its own: its output dir (empty) and Chromium's scratch go too.
    raw = _Raw(env={"TMPDIR": str(short_tmp)})
    try:
        raw.initialize()
        url = server.url("act-profile.html")
        called = raw.send("tools/call", {"name": "browser_navigate", "arguments": {"url": url}})
        assert called["result"]["isError"] is False, called
        assert "page now:" in json.dumps(called["result"]["content"])
        chromium = chromiums_of(raw.process.pid)
        assert len(chromium) == 1
        assert raw.process.stdin is not None
        if how == "SIGTERM":  # stdin left open: the server must not wait for its next line
            raw.process.send_signal(signal.SIGTERM)
        else:
            raw.process.stdin.close()
        assert raw.process.wait(timeout=30) == 0
        assert raw.process.stdout is not None
        assert raw.process.stdout.read() == b""  # nothing but answers, ever
        deadline = time.monotonic() + 30
        while running(chromium) and time.monotonic() < deadline:  # readiness: reaped
            time.sleep(0.05)
        assert not running(chromium), f"the server left its Chromium {chromium} running"
        assert sorted(p.name for p in short_tmp.iterdir()) == []
    finally:
        raw.end()


def test_an_attached_browser_that_goes_away_is_said_and_navigate_attaches_again(
    tmp_path: Path, server: StaticServer
) -> None:
    def chromium() -> tuple[subprocess.Popen[str], str]:
        process = subprocess.Popen(
            [
                "/usr/bin/chromium",
                "--headless",
                "--no-sandbox",
                "--remote-debugging-port=0",
                f"--user-data-dir={tmp_path / 'profile'}",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert process.stderr is not None
        for line in process.stderr:  # readiness: the line naming its DevTools port
            if line.startswith("DevTools listening on ws://"):
                return process, "http://" + line.split("ws://", 1)[1].split("/", 1)[0]
        raise AssertionError("Chromium did not start")

    owner, cdp_url = chromium()
    url = server.url("act-profile.html")
    try:
        with McpClient(stdio_params("--cdp-url", cdp_url, "--output-dir", str(tmp_path))) as mcp:
            assert "page now:" in ok(mcp.call("browser_navigate", {"url": url}))
            owner.kill()  # the browser the server is attached to goes away
            owner.wait()
            after = mcp.call("browser_snapshot")
            said = text(after)
            assert after.is_error and said.startswith("error (browser_gone): "), said
            assert f"browser_navigate to attach again once a browser answers at {cdp_url}" in said
            again = mcp.call("browser_navigate", {"url": url})  # nothing answers there now
            assert again.is_error and text(again).startswith("error (connect_error): ")
    finally:
        if owner.poll() is None:
            owner.kill()
            owner.wait()
        assert owner.stderr is not None
        owner.stderr.close()
