"""pagesight's own DevTools sessions, and the one place foreign errors are translated.

Perception talks CDP through sessions of its own (Playwright's ``new_cdp_session``), separate
from the session Playwright drives the page with; both reach the same Chromium.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from playwright._impl._errors import TargetClosedError
from playwright.async_api import BrowserContext, CDPSession
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page as PlaywrightPage

from pagesight.errors import PageCrashed, ProtocolError, first_line


@contextmanager
def translate(what: str = "the browser call") -> Iterator[None]:
    """Turn Playwright/CDP failures into pagesight errors, keeping the original as cause."""
    try:
        yield
    except TargetClosedError as exc:
        raise PageCrashed(
            f"{what} failed: the page was closed or its renderer crashed",
            advice="open a new page",
        ) from exc
    except PlaywrightError as exc:
        raise ProtocolError(f"{what} failed: {first_line(exc)}") from exc


class CdpSession:
    """A CDP session on one target (a page or an out-of-process iframe)."""

    def __init__(self, session: CDPSession, *, context: BrowserContext, page: PlaywrightPage):
        self._session = session
        self._context = context
        self._page = page
        self._frame_contexts: dict[str, int] = {}
        self._runtime_on = False
        self.scanned_documents: set[str] = set()  # walker documents searched for closed roots
        self._targets: dict[str, CdpSession] = {}
        # Frames found to live in this target's process, with the URL they showed then: a frame
        # that navigates to another site moves to a process (and target) of its own.
        self._no_target: set[tuple[Any, str]] = set()
        self._lock = asyncio.Lock()  # frames are walked concurrently; set-up happens once

    @classmethod
    async def open(
        cls, context: BrowserContext, page: PlaywrightPage, target: Any = None
    ) -> CdpSession:
        with translate("opening a DevTools session"):
            session = await context.new_cdp_session(target if target is not None else page)
        return cls(session, context=context, page=page)

    async def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        with translate(method):
            reply: dict[str, Any] = await self._session.send(method, params or {})
        return reply

    def on(self, event: str, handler: Callable[[dict[str, Any]], None]) -> None:
        self._session.on(event, handler)

    def off(self, event: str, handler: Callable[[dict[str, Any]], None]) -> None:
        self._session.remove_listener(event, handler)

    async def frame_context(self, frame_id: str) -> int | None:
        """The main-world execution context of a frame living in this target, if any."""
        async with self._lock:
            return await self._frame_context(frame_id)

    async def _frame_context(self, frame_id: str) -> int | None:
        if not self._runtime_on:
            # Contexts are only announced once Runtime is enabled; enabling replays the
            # existing ones before the reply, so the map is complete when this returns.
            self._session.on("Runtime.executionContextCreated", self._context_created)
            self._session.on("Runtime.executionContextsCleared", self._contexts_cleared)
            self._session.on("Runtime.executionContextDestroyed", self._context_destroyed)
            await self.send("Runtime.enable")
            self._runtime_on = True
            await asyncio.sleep(0)  # let the replayed events be dispatched
        return self._frame_contexts.get(frame_id)

    def _contexts_cleared(self, _event: dict[str, Any]) -> None:
        self._frame_contexts.clear()

    def _context_destroyed(self, event: dict[str, Any]) -> None:
        # A frame that moves to another process (about:blank, then a cross-site page) loses
        # its context here; a stale id would fail every later walk of that frame.
        gone = event.get("executionContextId")
        for frame_id, context_id in list(self._frame_contexts.items()):
            if context_id == gone:
                del self._frame_contexts[frame_id]

    def _context_created(self, event: dict[str, Any]) -> None:
        ctx = event["context"]
        aux = ctx.get("auxData", {})
        if aux.get("isDefault") and aux.get("frameId"):
            self._frame_contexts[aux["frameId"]] = ctx["id"]

    async def target_session(self, frame_id: str) -> CdpSession | None:
        """A session on the out-of-process iframe whose frame (and target) id is ``frame_id``."""
        async with self._lock:
            return await self._target_session(frame_id)

    async def _target_session(self, frame_id: str) -> CdpSession | None:
        if frame_id in self._targets:
            return self._targets[frame_id]
        for frame in self._page.frames:
            key = (frame, frame.url)
            if frame is self._page.main_frame or key in self._no_target:
                continue
            try:
                session = await self._context.new_cdp_session(frame)
            except TargetClosedError as exc:
                raise PageCrashed(
                    "the page was closed or its renderer crashed", advice="open a new page"
                ) from exc
            except PlaywrightError:
                # Playwright's way of saying the frame is part of its parent's session.
                self._no_target.add(key)
                continue
            child = CdpSession(session, context=self._context, page=self._page)
            info = await child.send("Target.getTargetInfo")
            target_id = info["targetInfo"]["targetId"]
            self._targets[target_id] = child
            if target_id == frame_id:
                return child
        return None

    async def detach(self) -> None:
        for child in self._targets.values():
            await child.detach()
        self._targets.clear()
        with contextlib.suppress(PlaywrightError):  # a target already gone is detached enough
            await self._session.detach()
