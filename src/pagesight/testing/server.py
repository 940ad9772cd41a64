"""A scripted fake API server: a real HTTP server (Starlette on uvicorn) on 127.0.0.1 in a
background thread, answering each request with the next item of its script and keeping every
request body it got. The fakes of each API (:mod:`pagesight.testing.fake_openai`,
:mod:`pagesight.testing.fake_anthropic`) say how a reply and an error look in theirs."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Iterable
from types import TracebackType
from typing import Any, Self

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from pagesight.testing.script import Failure, Hang, Item, Reply, Script

_START_TIMEOUT_S = 10.0
_END_OF_SCRIPT = Reply(text="(the script has no more replies)")


class ScriptedServer:
    """The server; a context manager that starts and closes it (or :meth:`start`,
    :meth:`close`). ``script``: one item a request, in order (past its end: a text reply
    saying so); ``api_key``: when set, a request without it gets a 401."""

    paths: tuple[str, ...] = ()
    """The POST paths the API answers."""

    def __init__(self, script: Iterable[Script] = (), *, api_key: str | None = None) -> None:
        self.script: list[Script] = list(script)
        self.api_key = api_key
        self.requests: list[dict[str, Any]] = []
        """Every request body received, as parsed JSON, in order."""
        self.headers: list[dict[str, str]] = []
        """The headers of each request (lower-case names)."""
        self.usages: list[tuple[int, int]] = []
        """The (input, output) tokens reported in each reply sent."""
        self.errors: list[Exception] = []
        """What the script's functions raised (each answered with a 400)."""
        self._served = 0
        self._closing = False
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._socket: socket.socket | None = None

    @property
    def origin(self) -> str:
        if self._socket is None:
            raise RuntimeError(f"{type(self).__name__} is not started")
        return f"http://127.0.0.1:{self._socket.getsockname()[1]}"

    @property
    def base_url(self) -> str:
        """The URL to give the API's SDK as its base URL."""
        return self.origin

    def start(self) -> Self:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        sock.listen(64)
        self._socket = sock
        routes = [Route(path, self._handle, methods=["POST"]) for path in self.paths]
        config = uvicorn.Config(
            Starlette(routes=routes),
            log_config=None,
            access_log=False,
            lifespan="off",
            ws="none",
            timeout_graceful_shutdown=1,
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [sock]}, name="fake-api", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + _START_TIMEOUT_S
        while not self._server.started:  # readiness: uvicorn says so only by this flag
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.close()
                raise RuntimeError(f"{type(self).__name__} did not start")
            time.sleep(0.01)
        return self

    def close(self) -> None:
        self._closing = True
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None and self._thread.is_alive():
            self._thread.join(timeout=10)
        if self._socket is not None:
            self._socket.close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    async def _handle(self, request: Request) -> Response:
        raw = await request.body()
        try:
            body = json.loads(raw)
        except ValueError:
            return self._error(400, "the request body is not JSON")
        self.requests.append(body)
        self.headers.append({k.lower(): v for k, v in request.headers.items()})
        if self.api_key is not None and not self.authorised(request):
            return self._error(401, "invalid api key")
        try:
            item = self._next(body)
        except Exception as exc:  # noqa: BLE001 - a bug in a test's script: a 400, never retried
            self.errors.append(exc)
            return self._error(400, f"the script raised {type(exc).__name__}: {exc}")
        if isinstance(item, Hang):
            # Short naps rather than one long one: closing the server ends the hang at once.
            deadline = time.monotonic() + item.seconds
            while time.monotonic() < deadline and not self._closing:
                await asyncio.sleep(0.05)
            return self._error(504, "the scripted hang is over")
        if isinstance(item, Failure):
            if item.raw is not None:
                return Response(item.raw, status_code=item.status, media_type="application/json")
            response = self._error(item.status, item.message)
            response.headers.update(item.headers)
            return response
        usage = item.usage or (len(raw) // 4, 10 + 5 * len(item.tool_calls))
        self.usages.append(usage)
        return JSONResponse(self.render(item, body, usage))

    def _next(self, body: dict[str, Any]) -> Item:
        index, self._served = self._served, self._served + 1
        if index >= len(self.script):
            return _END_OF_SCRIPT
        entry = self.script[index]
        return entry(body) if callable(entry) else entry

    def _error(self, status: int, message: str) -> JSONResponse:
        return JSONResponse(self.error_body(status, message), status_code=status)

    # What each API defines:

    def authorised(self, request: Request) -> bool:
        raise NotImplementedError

    def render(self, reply: Reply, body: dict[str, Any], usage: tuple[int, int]) -> Any:
        raise NotImplementedError

    def error_body(self, status: int, message: str) -> Any:
        raise NotImplementedError
