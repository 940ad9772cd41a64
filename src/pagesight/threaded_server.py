"""A uvicorn server on a listening socket, in a daemon thread: how the bundled app and the
fake model servers run beside the caller's code."""

from __future__ import annotations

import socket
import threading

import uvicorn


class ThreadedServer(uvicorn.Server):
    """A uvicorn server that says when it has started (or given up): uvicorn itself only sets
    a flag, which a caller would have to poll."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.settled = threading.Event()
        """Set once the server listens, or once its thread ended without listening."""
        self.stopped = threading.Event()
        """Set once the server has stopped (its sockets closed, its requests ended). Waiting
        on it, not on the thread's ``join()``, is what survives a signal: a ``join()`` that
        Ctrl-C interrupts marks the thread as ended while it still runs (CPython 3.11)."""

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        self.settled.set()


def start_in_thread(
    config: uvicorn.Config, sock: socket.socket, *, name: str, timeout: float
) -> tuple[ThreadedServer, threading.Thread, bool]:
    """Serve ``config``'s app on ``sock`` in a daemon thread named ``name``; the server, its
    thread, and whether it started within ``timeout`` seconds (the caller closes it if not)."""
    server = ThreadedServer(config)

    def run() -> None:
        try:
            server.run(sockets=[sock])
        finally:
            server.settled.set()  # a start that failed must not leave the caller waiting
            server.stopped.set()

    thread = threading.Thread(target=run, name=name, daemon=True)
    thread.start()
    try:
        server.settled.wait(timeout)
    except BaseException:  # Ctrl-C (or SIGTERM taken as it) while starting: stop it again
        server.should_exit = True
        server.stopped.wait(timeout)
        raise
    return server, thread, server.started
