"""A scripted fake API server: a real HTTP server (Starlette on uvicorn) on 127.0.0.1 in a
background thread, answering each request with the next item of its script and keeping every
request it got. The fakes of each API (:mod:`pagesight.testing.fake_openai`,
:mod:`pagesight.testing.fake_anthropic`, :mod:`pagesight.testing.decisions`) say how a
request is read, and how a reply and an error look, in theirs."""

from __future__ import annotations

import asyncio
import itertools
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

from pagesight.testing.script import Drop, Failure, Hang, Reply, Script
from pagesight.threaded_server import start_in_thread

_START_TIMEOUT_S = 10.0


class Refused(Exception):
    """Raised by :meth:`ScriptedServer.receive`: the request is answered with this error
    before the script plays, and listed in ``refused``."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class ScriptedServer:
    """The server; a context manager that starts and closes it (or :meth:`start`,
    :meth:`close`). ``script``: one item a request, in order (past its end:
    :attr:`end_of_script`), each a :class:`Reply` (or the API's own answer), a
    :class:`Failure`, a :class:`Hang`, a :class:`Drop` or a function of the request returning one;
    ``api_key``: when set, a request without it gets a 401; ``port``: 0 for any free one.
    Every response carries an ``x-request-id`` (``fake-0001``, …).

    An API's fake subclasses it with its :attr:`paths`, :meth:`authorised`, :meth:`render`
    and :meth:`error_body`; one whose requests and answers are not chat messages (the
    Decisions API) overrides :meth:`receive` and :meth:`answer` too."""

    paths: tuple[str, ...] = ()
    """The POST paths the API answers."""
    end_of_script: Any = Reply(text="(the script has no more replies)")
    """What a request past the script's end is answered with."""
    script_error_status = 400
    """The status of the answer when a script's function (or its answer) is wrong."""

    def __init__(
        self,
        script: Iterable[Script] = (),
        *,
        api_key: str | None = None,
        port: int = 0,
    ) -> None:
        self.script: list[Any] = list(script)
        self.api_key = api_key
        self.requests: list[Any] = []
        """Every request received (that :meth:`receive` did not refuse), in order, as
        :meth:`receive` records it: by default its body, as parsed JSON."""
        self.headers: list[dict[str, str]] = []
        """The headers of each request in ``requests`` (lower-case names)."""
        self.refused: list[tuple[int, str]] = []
        """The requests refused before the script played: (status, message)."""
        self.usages: list[tuple[int, int]] = []
        """The (input, output) tokens reported in each reply sent: the input counting every
        input token, cached or not (as :class:`~pagesight.messages.Usage` does, whichever
        way the API splits it)."""
        self.cached: list[tuple[int, int]] = []
        """Beside ``usages``, for a chat API's fake: of each reply's input, the tokens
        reported (read from the prompt cache, written to it)."""
        self.prompts: list[str] = []
        """What :meth:`prompt_cache` remembers of the requests answered, to measure the
        next against (a chat API's fake: each prompt, as its cache reads it)."""
        self.errors: list[Exception] = []
        """What the script's functions raised (each answered with ``script_error_status``)."""
        self._port = port
        self._ids = itertools.count(1)
        self._served = 0
        self._closing = threading.Event()
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
        self._closing.clear()  # a fake started again: its new hangs last until it closes again
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a fixed port, again
        # Answers go out at once: without it, on a kept-alive connection (the SDKs keep theirs)
        # each body waits for the ACK of its headers, which clients delay by 40 ms.
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind(("127.0.0.1", self._port))
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
        self._server, self._thread, started = start_in_thread(
            config, sock, name="fake-api", timeout=_START_TIMEOUT_S
        )
        if not started:
            self.close()
            raise RuntimeError(f"{type(self).__name__} did not start")
        return self

    def close(self) -> None:
        self._closing.set()
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
        request_id = f"fake-{next(self._ids):04d}"
        raw = await request.body()
        try:
            received = self.receive(request, raw, request_id)
        except Refused as refused:
            self.refused.append((refused.status, str(refused)))
            return self._error(refused.status, str(refused), request_id)
        self.requests.append(received)
        self.headers.append({k.lower(): v for k, v in request.headers.items()})
        if self.api_key is not None and not self.authorised(request):
            return self._error(401, "invalid api key", request_id)
        try:
            item = self._next(received)
            if isinstance(item, Hang):
                return await self._hang(item, request_id)
            if isinstance(item, Drop):
                return await self._drop(request)
            if isinstance(item, Failure):
                return self._fail(item, request_id)
            body, usage = self.answer(item, received, raw)
        except Exception as exc:  # noqa: BLE001 - a bug in a test's script: say so, loudly
            self.errors.append(exc)
            message = f"the script raised {type(exc).__name__}: {exc}"
            return self._error(self.script_error_status, message, request_id)
        self.usages.append(usage)
        return JSONResponse(body, headers={"x-request-id": request_id})

    def _next(self, received: Any) -> Any:
        index, self._served = self._served, self._served + 1
        if index >= len(self.script):
            return self.end_of_script
        entry = self.script[index]
        return entry(received) if callable(entry) else entry

    async def _hang(self, item: Hang, request_id: str) -> Response:
        # Short naps rather than one long one: closing the server ends the hang at once.
        deadline = None if item.seconds is None else time.monotonic() + item.seconds
        while not self._closing.is_set() and (deadline is None or time.monotonic() < deadline):
            await asyncio.sleep(0.02)
        return self._error(504, "the scripted hang is over", request_id)

    async def _drop(self, request: Request) -> Response:
        # The request's own connection, aborted (a reset, no status line): uvicorn keeps its
        # connections in its server state, each knowing its client's address and port.
        assert self._server is not None
        client = tuple(request.scope.get("client") or ())
        for connection in list(self._server.server_state.connections):
            if getattr(connection, "client", None) == client:
                connection.transport.abort()
        # Once uvicorn has seen the connection go (the next turn of its loop), the answer
        # below is dropped unsent, and nothing is logged.
        await asyncio.sleep(0)
        return Response(status_code=204)

    def _fail(self, item: Failure, request_id: str) -> Response:
        if item.raw is not None:
            response = Response(item.raw, status_code=item.status, media_type="application/json")
        else:
            response = self._error(item.status, item.message, request_id)
        response.headers.update({**item.headers, "x-request-id": request_id})
        return response

    def _error(self, status: int, message: str, request_id: str) -> JSONResponse:
        body = self.error_body(status, message)
        return JSONResponse(body, status_code=status, headers={"x-request-id": request_id})

    # What each API defines:

    def receive(self, request: Request, raw: bytes, request_id: str) -> Any:
        """The request as recorded in ``requests``; :class:`Refused` to answer it with an
        error before the script plays. By default: its JSON body."""
        try:
            return json.loads(raw)
        except ValueError as exc:
            raise Refused(400, "the request body is not JSON") from exc

    def authorised(self, request: Request) -> bool:
        raise NotImplementedError

    def answer(self, item: Any, received: Any, raw: bytes) -> tuple[Any, tuple[int, int]]:
        """The JSON body of the 200 answering ``received`` with ``item`` (the script's item,
        neither a Failure nor a Hang), and the (input, output) tokens it reports. By
        default: a :class:`Reply` as :meth:`render` writes it, its usage counted from the
        request (a token a 4 bytes) unless it gives one, and its prompt cache as
        :meth:`prompt_cache` measures it (recorded in ``cached``) unless it gives one."""
        usage = item.usage or (len(raw) // 4, 10 + 5 * len(item.tool_calls))
        measured = self.prompt_cache(received, usage[0])  # remembered, whatever is reported
        cache = item.cache or (measured if item.usage is None else (0, 0))
        body = self.render(item, received, usage, cache)
        self.cached.append(cache)
        return body, usage

    def prompt_cache(self, body: dict[str, Any], input_tokens: int) -> tuple[int, int]:
        """Of the ``input_tokens`` of request ``body``: those its API would read from its
        prompt cache and write to it, the request's prompt remembered for the next. By
        default: none (an API without a cache)."""
        return (0, 0)

    def render(
        self, reply: Reply, body: dict[str, Any], usage: tuple[int, int], cache: tuple[int, int]
    ) -> Any:
        raise NotImplementedError

    def error_body(self, status: int, message: str) -> Any:
        raise NotImplementedError
