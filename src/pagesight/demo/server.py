"""Orbit CRM served by uvicorn on 127.0.0.1 in a background thread, for tests, the demo and
``pagesight demo serve``::

    with OrbitApp.start() as app:          # a fresh database in a temporary folder, a free port
        app.url                            # "http://127.0.0.1:PORT"
        app.query("SELECT job_title FROM contacts WHERE name = ?", ("Alice Chen",))

The socket is bound here, before the server starts, so a port in use is an error at once
(InvalidOption naming ``port``) and ``port=0`` gets a free port with no race.
"""

from __future__ import annotations

import errno
import shutil
import socket
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import uvicorn

from pagesight.demo.app import DESIGNS, create_app
from pagesight.demo.db import prepare, query
from pagesight.errors import InvalidOption, RuntimeFailure
from pagesight.threaded_server import ThreadedServer, start_in_thread

HOST = "127.0.0.1"
START_TIMEOUT_S = 10.0


class OrbitApp:
    """A running Orbit CRM. Use :meth:`start`; :meth:`close` stops it (and removes a
    temporary database)."""

    def __init__(
        self,
        *,
        server: ThreadedServer,
        thread: threading.Thread,
        sock: socket.socket,
        db_path: Path,
        scratch: Path | None,
    ) -> None:
        self._server = server
        self._thread = thread
        self._socket = sock
        self._scratch = scratch
        self.db_path = db_path
        self.port: int = sock.getsockname()[1]
        self.url = f"http://{HOST}:{self.port}"

    @classmethod
    def start(
        cls, *, db: str | Path | None = None, port: int = 0, design: str = "default"
    ) -> OrbitApp:
        """Serve Orbit CRM on 127.0.0.1:``port`` (0: a free one) over the SQLite database at
        ``db`` (created and seeded when new; None: a fresh one in a temporary folder), its
        pages in ``design``: ``"default"``, or ``"redesign"`` (the same labels and behaviour
        in other markup, to replay a recorded run on an app that changed).

        Raises InvalidOption (``db``, ``port`` or ``design``) for a value that cannot be used.
        """
        if not isinstance(port, int) or isinstance(port, bool) or not 0 <= port <= 65535:
            raise InvalidOption("port", f"port must be a number from 0 to 65535, not {port!r}")
        if design not in DESIGNS:
            raise InvalidOption(
                "design", f"design must be one of {', '.join(DESIGNS)}, not {design!r}"
            )
        scratch = None
        if db is None:
            scratch = Path(tempfile.mkdtemp(prefix="orbit-crm-"))
            db_path = scratch / "orbit.sqlite3"
        else:
            db_path = Path(db).expanduser().resolve()
        try:
            prepare(db_path)
            sock = _bind(port)
        except BaseException:
            if scratch is not None:
                shutil.rmtree(scratch, ignore_errors=True)
            raise
        config = uvicorn.Config(
            create_app(db_path, design),
            log_config=None,  # leave the process's logging as it is
            access_log=False,
            lifespan="off",
            ws="none",
            timeout_graceful_shutdown=2,
        )
        server, thread, started = start_in_thread(
            config, sock, name="orbit-crm", timeout=START_TIMEOUT_S
        )
        app = cls(server=server, thread=thread, sock=sock, db_path=db_path, scratch=scratch)
        if not started:
            app.close()
            raise RuntimeFailure(
                f"Orbit CRM did not start on {app.url} within {START_TIMEOUT_S:.0f} s"
            )
        return app

    def query(
        self, sql: str, params: Sequence[Any] | Mapping[str, Any] = ()
    ) -> list[dict[str, Any]]:
        """Run one SQL statement on the app's database; the rows as dicts."""
        return query(self.db_path, sql, params)

    def wait(self) -> None:
        """Block until the server stops (interruptible by Ctrl-C and signals)."""
        # Not the thread's join(): interrupted, it takes the thread for ended while it still
        # serves, and close() then pulled the socket from under the server's own shutdown (a
        # traceback cut off by the exit).
        self._server.stopped.wait()

    def close(self) -> None:
        """Stop serving (open connections get up to 2 s), then remove a temporary database."""
        self._server.should_exit = True
        self._server.stopped.wait(10)
        self._thread.join(timeout=10)
        self._socket.close()
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)

    def __enter__(self) -> OrbitApp:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"OrbitApp(url={self.url!r}, db_path={str(self.db_path)!r})"


def _bind(port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    # Lets a restart reuse a port still in TIME_WAIT; a port someone listens on stays refused.
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Each answer goes out at once (the accepted connections inherit it): without it, on a
    # kept-alive connection the body waits for the ACK of the headers, which the browser
    # delays by 40 ms — every request, every page load four of them.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((HOST, port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise InvalidOption(
                "port",
                f"{HOST}:{port} is already in use by another program; "
                "choose another port, or 0 for a free one",
            ) from exc
        if exc.errno == errno.EACCES:
            raise InvalidOption(
                "port", f"{HOST}:{port} needs privileges this process lacks; use a port above 1023"
            ) from exc
        raise InvalidOption("port", f"cannot listen on {HOST}:{port}: {exc.strerror}") from exc
    return sock
