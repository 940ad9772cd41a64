"""Serving the MCP server: stdio, or streamable HTTP with DNS-rebinding protection.

The HTTP transport checks every request's ``Host`` and ``Origin`` (the MCP specification's
rule against DNS rebinding): ``Host`` must name the address the server listens on, with its
port; an ``Origin``, when a browser sends one, must be that same address (a page served by
another port of the same machine is another origin, and refused with 403). The SDK turns
the checks on by itself only for a loopback ``--host``; here they are on for every host.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import sys
from collections import Counter
from collections.abc import Callable, Coroutine
from typing import Any

from mcp.server.transport_security import TransportSecuritySettings
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pagesight.mcp.server import PagesightMCP

_LOOPBACK = ("127.0.0.1", "localhost", "[::1]")
_ANY = ("0.0.0.0", "::", "")
PATH = "/mcp"
IDLE_TIMEOUT = 1800.0
"""Seconds an HTTP session may go without a request before it ends (the SDK's default)."""
_GRACE = 5
"""Seconds the HTTP transport is given to end after SIGTERM / SIGINT (its requests
answered); stdio's is given one (it has nothing to finish once its browsers are closed)."""


def security(host: str, port: int) -> TransportSecuritySettings:
    """The Host and Origin values allowed for a server on ``host``:``port``: the loopback
    names, and ``host`` itself when it is another address (a wildcard address has no name a
    client could rightly use, so only the loopback names then)."""
    named = f"[{host}]" if ":" in host else host
    hosts = list(_LOOPBACK)
    if host not in _ANY and named not in hosts:
        hosts.append(named)
    allowed_hosts = [h for name in hosts for h in (name, f"{name}:{port}")]
    allowed_origins = [f"http://{name}:{port}" for name in hosts]
    if port == 80:
        allowed_origins += [f"http://{name}" for name in hosts]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=allowed_hosts,
        allowed_origins=allowed_origins,
    )


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host``:``port`` (0: a free port, read back from the socket);
    OSError when the address cannot be had."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except BaseException:
        sock.close()
        raise
    return sock


async def serve_stdio(server: PagesightMCP) -> None:
    await _until_stopped(server, server.run_stdio_async(), stop=None, grace=1)


def http_app(
    server: PagesightMCP, host: str, port: int, *, idle_timeout: float = IDLE_TIMEOUT
) -> ASGIApp:
    """The streamable HTTP app at :data:`PATH`, Host and Origin checked on every request,
    each session's browser closed when its client ends the session or it has had no request
    for ``idle_timeout`` seconds (the SDK then ends it)."""
    app = server.streamable_http_app(
        streamable_http_path=PATH,
        transport_security=security(host, port),
        host=host,
        session_idle_timeout=idle_timeout,
    )
    return _SessionEnds(app, server, idle_timeout)


class _SessionEnds:
    """Closes the browser of an HTTP session once the SDK has ended it, else every session's
    Chromium would live on until the server stops: at once when its client ends it (a DELETE
    with its ``Mcp-Session-Id``, answered 2xx, as the SDK's client sends on leaving), and when
    it idled out.

    The SDK gives a tool no hook at a session's end, so its idle rule (documented: a session
    with no request in flight, neither a call nor an open event stream, for ``idle_timeout``
    seconds is ended) is followed here from the requests themselves, and the browser closed a
    moment after the SDK's deadline (:func:`_slack`): never that of a session still live. A
    request the SDK answers 404 names a session it ended: its browser goes at once."""

    def __init__(self, app: ASGIApp, server: PagesightMCP, idle_timeout: float) -> None:
        self._app = app
        self._server = server
        self._idle = idle_timeout + _slack(idle_timeout)
        self._in_flight: Counter[str] = Counter()
        self._timers: dict[str, asyncio.TimerHandle] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        ours = scope["type"] == "http" and scope["path"] == PATH
        session = Headers(scope=scope).get("mcp-session-id") if ours else None
        if session is None:  # not a session's request (an initialize opens one, unnamed yet)
            await self._app(scope, receive, send)
            return
        timer = self._timers.pop(session, None)
        if timer is not None:
            timer.cancel()
        self._in_flight[session] += 1
        status = 0

        async def watch(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self._app(scope, receive, watch)
        finally:
            self._in_flight[session] -= 1
            idle = self._in_flight[session] == 0
            if idle:
                del self._in_flight[session]
        deleted = scope["method"] == "DELETE" and 200 <= status < 300
        if deleted or status == 404:  # the SDK ended that session (now, or before)
            await self._server.holders.discard(session)
        elif idle:
            loop = asyncio.get_running_loop()
            self._timers[session] = loop.call_later(self._idle, self._idled, session)

    def _idled(self, session: str) -> None:
        self._timers.pop(session, None)
        self._server.holders.ended(session)


def _slack(idle_timeout: float) -> float:
    """How long after the SDK's idle deadline a session's browser is closed: room for the
    SDK's own timer to have fired first (it counts from its side of the same requests)."""
    return max(1.0, idle_timeout / 10)


async def serve_http(
    server: PagesightMCP, sock: socket.socket, host: str, *, idle_timeout: float = IDLE_TIMEOUT
) -> None:
    import uvicorn

    port = sock.getsockname()[1]
    config = uvicorn.Config(
        http_app(server, host, port, idle_timeout=idle_timeout),
        log_level="warning",
        lifespan="on",
        timeout_graceful_shutdown=_GRACE - 1,  # an open event stream does not hold it
    )
    web = uvicorn.Server(config)
    shown = f"[{host}]" if ":" in host else host
    print(f"pagesight mcp: serving http://{shown}:{port}{PATH}", file=sys.stderr, flush=True)

    def stop() -> None:
        web.should_exit = True  # uvicorn's own shutdown: requests answered, lifespan ended

    await _until_stopped(server, web.serve(sockets=[sock]), stop=stop, grace=_GRACE)


async def _until_stopped(
    server: PagesightMCP,
    work: Coroutine[Any, Any, None],
    *,
    stop: Callable[[], None] | None,
    grace: float,
) -> None:
    """Serve until the transport ends (stdin closed, the HTTP server shut down) or SIGTERM /
    SIGINT, then close every browser the server started. ``stop`` asks the transport to end
    (``None``: it is cancelled).

    The stdio transport reads stdin in a worker thread that no cancellation reaches: after a
    signal it would wait for the client's next line (SIGTERM did not end the server). So the
    browsers are closed at once, and a transport still running ``grace`` seconds later is
    left: the process ends.
    """
    loop = asyncio.get_running_loop()
    task = asyncio.ensure_future(work)
    signalled = asyncio.Event()

    def on_signal() -> None:
        signalled.set()
        if stop is not None:
            stop()
        else:
            task.cancel()

    stops = (signal.SIGTERM, signal.SIGINT)
    for signum in stops:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signum, on_signal)
    waiting = asyncio.ensure_future(signalled.wait())
    try:
        await asyncio.wait({task, waiting}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiting.cancel()
        await server.holders.end()
    if not task.done():
        await asyncio.wait({task}, timeout=grace)
    for signum in stops:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.remove_signal_handler(signum)
    if task.done():
        with contextlib.suppress(asyncio.CancelledError):
            task.result()  # a transport that failed says so
        return
    task.cancel()  # stuck (stdin's reader thread): its browsers are closed, end the process
    sys.stderr.flush()
    os._exit(0)
