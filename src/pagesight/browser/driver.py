"""Playwright's driver: the Node.js process every Playwright call goes through, started for
each browser pagesight launches or attaches to, and watched for its end.

Killed from outside (an OOM killer, a ``pkill``), the driver takes every Playwright call
with it: the calls in flight fail as if their page had closed, and Playwright leaves the
reason in a future nobody reads, which asyncio prints at exit ("Future exception was never
retrieved … Connection closed while reading from the driver"). The watch reads it, so
nothing is printed, and says the driver ended, so the browser can say what went: not the
page, nor Chromium (which is still running, and is stopped by the browser's close), but
the process pagesight reached it through.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from playwright.async_api import Playwright, async_playwright

from pagesight.errors import PageCrashed


class Driver:
    """The watch on one Playwright driver: :attr:`ended` once it has gone."""

    def __init__(self, transport: Any) -> None:
        self.ended = False
        self._pid: int | None = None
        self._listeners: list[Callable[[], None]] = []
        process = getattr(transport, "_proc", None)
        self._pid = getattr(process, "pid", None)
        # Playwright settles this future with the reason its driver connection closed (and
        # only then: a stop we asked for leaves it pending). Its private transport is the
        # one place that says so; an upgrade that renames it leaves the driver unwatched,
        # and its end is then reported as the pages' (PageCrashed all the same).
        ended = getattr(transport, "on_error_future", None)
        if isinstance(ended, asyncio.Future):
            ended.add_done_callback(self._on_end)

    def _on_end(self, ended: asyncio.Future[Any]) -> None:
        if not ended.cancelled():
            ended.exception()  # read, so that asyncio does not print it at exit
        self.ended = True
        for listener in self._listeners:
            listener()

    def on_end(self, listener: Callable[[], None]) -> None:
        """Call ``listener`` (on the event loop) once the driver has gone."""
        self._listeners.append(listener)

    def gone_error(self) -> PageCrashed:
        """What a call must raise once the driver has gone."""
        process = f" (node, pid {self._pid})" if self._pid is not None else " (node)"
        return PageCrashed(
            f"Playwright's driver{process} ended, and with it pagesight's hold on the browser",
            advice="launch or connect a new one",
        )


async def start_driver() -> tuple[Playwright, Driver]:
    """Start Playwright (its driver process) and the watch on it."""
    manager = async_playwright()
    starting = asyncio.ensure_future(manager.start())
    try:
        playwright = await asyncio.shield(starting)
    except asyncio.CancelledError:
        # Cancelled mid-start (Ctrl-C): Playwright's own start, cancelled, would leave its
        # node process running after we exit. Let it finish, then stop what started.
        await asyncio.wait({starting})
        if not starting.cancelled() and starting.exception() is None:
            await starting.result().stop()
        raise
    client = getattr(manager, "_client", None)
    return playwright, Driver(getattr(client, "_transport", None))
