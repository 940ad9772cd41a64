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
import signal
import socket
import sys
from collections.abc import Awaitable, Callable

from mcp.server.transport_security import TransportSecuritySettings
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pagesight.mcp.server import PagesightMCP

_LOOPBACK = ("127.0.0.1", "localhost", "[::1]")
_ANY = ("0.0.0.0", "::", "")
PATH = "/mcp"


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
    await _until_stopped(server, server.run_stdio_async)


def http_app(server: PagesightMCP, host: str, port: int) -> ASGIApp:
    """The streamable HTTP app at :data:`PATH`, Host and Origin checked on every request,
    each session's browser closed when its client ends the session."""
    app = server.streamable_http_app(
        streamable_http_path=PATH, transport_security=security(host, port), host=host
    )
    return _SessionEnds(app, server)


class _SessionEnds:
    """Closes the browser of an HTTP session its client ended (a DELETE with its
    ``Mcp-Session-Id``, answered 2xx, as the SDK's client sends on leaving): else every
    session's Chromium would live on until the server stops."""

    def __init__(self, app: ASGIApp, server: PagesightMCP) -> None:
        self._app = app
        self._server = server

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "DELETE":
            await self._app(scope, receive, send)
            return
        session = Headers(scope=scope).get("mcp-session-id")
        status = 0

        async def watch(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        await self._app(scope, receive, watch)
        if session is not None and 200 <= status < 300:  # the SDK ended that session
            await self._server.holders.discard(session)


async def serve_http(server: PagesightMCP, sock: socket.socket, host: str) -> None:
    import uvicorn

    port = sock.getsockname()[1]
    config = uvicorn.Config(http_app(server, host, port), log_level="warning", lifespan="on")
    web = uvicorn.Server(config)
    shown = f"[{host}]" if ":" in host else host
    print(f"pagesight mcp: serving http://{shown}:{port}{PATH}", file=sys.stderr, flush=True)

    async def run() -> None:
        await web.serve(sockets=[sock])

    await _until_stopped(server, run)


async def _until_stopped(server: PagesightMCP, run: Callable[[], Awaitable[None]]) -> None:
    """Run until the transport ends (stdin closed) or SIGTERM / SIGINT, then close every
    browser the server started."""
    loop = asyncio.get_running_loop()
    task = asyncio.ensure_future(run())
    stops = (signal.SIGTERM, signal.SIGINT)
    for signum in stops:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signum, task.cancel)
    try:
        with contextlib.suppress(asyncio.CancelledError):
            await task
    finally:
        for signum in stops:
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(signum)
        await server.holders.close()
