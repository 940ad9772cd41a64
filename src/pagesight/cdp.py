"""pagesight's own DevTools sessions, and the one place foreign errors are translated.

Perception talks CDP through sessions of its own (Playwright's ``new_cdp_session``), separate
from the session Playwright drives the page with; both reach the same Chromium.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections.abc import Callable, Coroutine, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from playwright._impl._errors import TargetClosedError
from playwright.async_api import BrowserContext, CDPSession
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page as PlaywrightPage

from pagesight.errors import PageCrashed, PagesightError, ProtocolError, first_line


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


Handler = Callable[[dict[str, Any], str, dict[str, Any]], None]
"""Told each event of a child target: the target's info (``Target.TargetInfo``), the event's
method and its params."""
_AUTO_ATTACH = {"autoAttach": True, "waitForDebuggerOnStart": True, "flatten": False}
_CHILD_KINDS = frozenset({"iframe", "worker"})
"""Out-of-process iframes and dedicated workers: the targets whose work is the page's. A
service or shared worker serves every page of its origin, and the requests it answers for
this page are the page's own already."""


class ChildTargets:
    """The out-of-process iframes and dedicated workers under a session's target, at any
    depth: each is told ``commands`` before it runs, and its events go to ``handler``.

    Children are attached unflattened: Playwright's connection drops the messages of a
    flattened session it did not make itself, so a child's commands go through
    ``Target.sendMessageToTarget`` and its events come back inside
    ``Target.receivedMessageFromTarget``, nested once per level. Each child is told
    ``commands`` and then resumed (``Runtime.runIfWaitingForDebugger``), so that none is
    left waiting on us. An out-of-process iframe's document waits for every session that
    asked it to, so its frame has ``commands`` before its first request; a worker starts
    once the first of its sessions resumes it, and Playwright's is quicker than ours, so
    what a worker asks for in its first moment may come before them. A child's session
    ends with it, and all of them with the session they hang from.
    """

    def __init__(
        self,
        session: CdpSession,
        commands: Sequence[tuple[str, dict[str, Any]]],
        handler: Handler,
    ) -> None:
        self._session = session
        self._commands = tuple(commands)
        self._handler = handler
        self._routes: dict[tuple[str, ...], dict[str, Any]] = {}
        """The session ids down to each child watched, outermost first: its target's info."""
        self._ids = itertools.count(1)
        self._work: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        self._session.on("Target.attachedToTarget", self._attached_here)
        self._session.on("Target.detachedFromTarget", self._detached_here)
        self._session.on("Target.receivedMessageFromTarget", self._message_here)
        await self._session.send("Target.setAutoAttach", _AUTO_ATTACH)

    @property
    def watched(self) -> int:
        """How many children are watched now."""
        return len(self._routes)

    def _attached_here(self, params: dict[str, Any]) -> None:
        self._attached((), params)

    def _detached_here(self, params: dict[str, Any]) -> None:
        self._detached((), params)

    def _message_here(self, params: dict[str, Any]) -> None:
        self._received((str(params.get("sessionId", "")),), params.get("message", "{}"))

    def _received(self, route: tuple[str, ...], text: str) -> None:
        message = json.loads(text)
        method = message.get("method")
        if method is None:
            return  # the answer to one of our commands: nothing waits on it
        params = message.get("params", {})
        if method == "Target.receivedMessageFromTarget":
            inner = (*route, str(params.get("sessionId", "")))
            self._received(inner, params.get("message", "{}"))
        elif method == "Target.attachedToTarget":
            self._attached(route, params)
        elif method == "Target.detachedFromTarget":
            self._detached(route, params)
        elif route in self._routes:
            self._handler(self._routes[route], method, params)

    def _attached(self, parent: tuple[str, ...], params: dict[str, Any]) -> None:
        route = (*parent, str(params.get("sessionId", "")))
        commands: list[tuple[str, dict[str, Any]]] = []
        info = params.get("targetInfo", {})
        if info.get("type") in _CHILD_KINDS:
            self._routes[route] = info
            commands = [*self._commands, ("Target.setAutoAttach", _AUTO_ATTACH)]
        commands.append(("Runtime.runIfWaitingForDebugger", {}))
        self._spawn(self._tell(route, commands))

    def _detached(self, parent: tuple[str, ...], params: dict[str, Any]) -> None:
        gone = (*parent, str(params.get("sessionId", "")))
        self._routes = {r: i for r, i in self._routes.items() if r[: len(gone)] != gone}

    async def _tell(
        self, route: tuple[str, ...], commands: list[tuple[str, dict[str, Any]]]
    ) -> None:
        # One message after another: a target handles its messages in order, so the last
        # (resuming it) comes after the rest, and it has them all before it runs.
        for method, params in commands:
            message = json.dumps({"id": next(self._ids), "method": method, "params": params})
            for inner in reversed(route[1:]):
                message = json.dumps(
                    {
                        "id": next(self._ids),
                        "method": "Target.sendMessageToTarget",
                        "params": {"sessionId": inner, "message": message},
                    }
                )
            try:
                await self._session.send(
                    "Target.sendMessageToTarget", {"sessionId": route[0], "message": message}
                )
            except PagesightError:
                return  # the child (or the tab) went meanwhile: nothing left to tell

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(work)
        self._work.add(task)
        task.add_done_callback(self._work.discard)
