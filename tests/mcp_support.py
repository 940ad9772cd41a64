"""Helpers the MCP server tests share: the SDK's own client on a thread of its own (so the
sync tests of a module share one server subprocess), and the text of a result."""

from __future__ import annotations

import asyncio
import base64
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TextIO, TypeVar

from mcp import Client
from mcp.client.session import ElicitationFnT
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_types import CallToolResult, ImageContent, TextContent, Tool

from pagesight.agent.untrusted import CLOSE, OPEN

SRC = Path(__file__).resolve().parents[1] / "src"
T = TypeVar("T")


def server_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(SRC)}


def stdio_params(*args: str) -> StdioServerParameters:
    """``python -m pagesight mcp ARGS`` run from this tree's source."""
    return StdioServerParameters(
        command=sys.executable, args=["-m", "pagesight", "mcp", *args], env=server_env()
    )


class HttpServer:
    """``python -m pagesight mcp --transport http --port 0 ARGS``, its URL read off stderr
    (all it writes there kept in ``lines``)."""

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


class McpClient:
    """The SDK's ``Client`` connected to ``target`` (stdio parameters or an HTTP URL), run on
    a thread with its own event loop; each call waits for its answer."""

    def __init__(
        self,
        target: StdioServerParameters | str,
        *,
        errlog: TextIO | None = None,
        legacy: bool = False,
        elicitation_callback: ElicitationFnT | None = None,
    ):
        self._target = target
        self._mode: Any = "legacy" if legacy else "auto"  # legacy: the initialize handshake
        self._errlog = errlog
        self._elicitation_callback = elicitation_callback  # declared to the server when given
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._failure: BaseException | None = None
        self._client: Client | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        self._ready.wait(timeout=120)
        if self._failure is not None:
            raise self._failure
        assert self._client is not None, "the MCP client did not connect in 120 s"

    def _run(self) -> None:
        self._loop.run_until_complete(self._main())

    async def _main(self) -> None:
        self._stop = asyncio.Event()
        target: Any = self._target
        if isinstance(target, StdioServerParameters):
            target = stdio_client(target, errlog=self._errlog or sys.stderr)
        try:
            async with Client(
                target, mode=self._mode, elicitation_callback=self._elicitation_callback
            ) as client:
                self._client = client
                self._ready.set()
                await self._stop.wait()
        except BaseException as exc:  # noqa: BLE001  # raised in the test's thread instead
            self._failure = exc
            self._ready.set()

    def _do(self, work: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(work, self._loop).result(timeout=180)

    def tools(self) -> list[Tool]:
        assert self._client is not None
        return self._do(self._client.list_tools()).tools

    def call(self, name: str, arguments: dict[str, Any] | None = None) -> CallToolResult:
        assert self._client is not None
        return self._do(self._client.call_tool(name, arguments or {}))

    def close(self) -> None:
        if self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(timeout=60)
        self._loop.close()

    def __enter__(self) -> McpClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def text(result: CallToolResult) -> str:
    """Every text block of a result, one after another, as the tool said it: without the
    untrusted-content markers the page's text travels in (a server-level error has none)."""
    return "\n".join(
        unwrapped(c.text) if OPEN in c.text else c.text
        for c in result.content
        if isinstance(c, TextContent)
    )


def unwrapped(block: str) -> str:
    """A result's text block without the untrusted-content markers its page text travels in
    (a whole or changed page keeps its header line)."""
    head, opened, rest = block.partition(OPEN + "\n")
    assert opened and rest.endswith("\n" + CLOSE), f"page text not inside the markers:\n{block}"
    return head + rest[: -len(CLOSE) - 1]


def ok(result: CallToolResult) -> str:
    """The text of a result that must not be an error (the text shown when it is)."""
    assert not result.is_error, text(result)
    return text(result)


def images(result: CallToolResult) -> list[bytes]:
    return [base64.b64decode(c.data) for c in result.content if isinstance(c, ImageContent)]


def ref(outline: str, needle: str) -> int:
    """The id of the one outline line holding ``needle`` (``[12] button "Save"``)."""
    found = [line for line in outline.splitlines() if needle in line and "[" in line]
    assert len(found) == 1, f"expected one line with {needle!r}:\n{outline}"
    line = found[0]
    return int(line[line.index("[") + 1 : line.index("]")])


def chromiums_of(pid: int) -> set[int]:
    """The live Chromium processes the process ``pid`` launched (its children run with a
    DevTools port; a zombie is dead)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        parent = next(line for line in status.splitlines() if line.startswith("PPid:"))
        ours = int(parent.split()[1]) == pid and b"--remote-debugging-port=0" in cmdline
        if ours and "State:\tZ" not in status:
            found.add(int(entry.name))
    return found


def running(pids: set[int]) -> set[int]:
    """Which of ``pids`` still run (a zombie does not: it waits for its parent to reap it)."""
    alive = set()
    for pid in pids:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        if "State:\tZ" not in status:
            alive.add(pid)
    return alive
