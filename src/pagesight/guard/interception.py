"""RequestGuard: Chromium asks before it loads a document, and the origin policy answers.

One DevTools session on the browser target enables ``Fetch`` for every tab at once, those
the page opens included: a request is paused before it leaves, whoever started it (a typed
URL, a link, a form, a script, ``window.open``, a meta refresh), and each redirect hop is
paused again as a request of its own. Playwright's ``route`` was the other candidate; it sees
neither redirect hops nor what a service worker fetches, so a 302 to a foreign origin would
pass. Only documents (top-level and iframes) are paused for now — each costs one DevTools
round trip; subresources, fetch/XHR, WebSocket and workers can be added to the patterns.

A refused document is answered ``204 No Content``: Chromium then abandons the navigation and
the tab stays on its page, with nothing loaded and no error page in its history. A tab the
page opened whose first document is refused (``window.open``, ``target=_blank``, a middle
click) would be left blank: it is closed.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from playwright.async_api import Browser as PlaywrightBrowser
from playwright.async_api import CDPSession
from playwright.async_api import Error as PlaywrightError

from pagesight.guard.origins import OriginPolicy, Refused, RefusedKind, origin_of

# One pattern per resource type to pause; issue 14 adds the rest.
_PATTERNS = [{"urlPattern": "*", "resourceType": "Document"}]


@dataclass(frozen=True, kw_only=True)
class Refusal:
    """A refused document and where it was refused, for the effect of the action that
    caused it."""

    refused: Refused
    frame: str
    """The DevTools frame id the document was for (a tab's main frame id is its target id)."""
    tab: str | None
    """The tab's target id, for a top-level document."""
    opener: str | None
    """For a new tab: the target id of the tab that opened it (``None`` for a middle click)."""
    context: str | None
    """The browser context of the tab."""


@dataclass
class _Target:
    kind: str
    url: str
    opener: str | None
    context: str | None


class RequestGuard:
    """Every document request of one browser, checked against ``policy``."""

    def __init__(self, policy: OriginPolicy, *, closed_unseen: Callable[[str], None]) -> None:
        self.policy = policy
        self._closed_unseen = closed_unseen
        """Told the target id of each new tab closed before it showed, so that no action
        waits for it to appear."""
        self._session: CDPSession | None = None
        self._targets: dict[str, _Target] = {}
        self._log: list[Refusal] = []
        self._answers: set[asyncio.Task[None]] = set()

    async def attach(self, browser: PlaywrightBrowser) -> None:
        session = self._session = await browser.new_browser_cdp_session()
        session.on("Target.targetCreated", self._target_seen)
        session.on("Target.targetInfoChanged", self._target_seen)
        session.on("Target.targetDestroyed", self._target_gone)
        session.on("Fetch.requestPaused", self._paused)
        # Targets first: a new tab is known before its first request is paused.
        await session.send("Target.setDiscoverTargets", {"discover": True})
        await session.send("Fetch.enable", {"patterns": _PATTERNS})

    def mark(self) -> int:
        """How many refusals there have been so far (for :meth:`since`)."""
        return len(self._log)

    async def since(self, mark: int) -> list[Refusal]:
        """The refusals after ``mark``, once every paused request has been answered."""
        if self._answers:
            await asyncio.gather(*self._answers, return_exceptions=True)
        return self._log[mark:]

    def _target_seen(self, event: dict[str, Any]) -> None:
        info = event["targetInfo"]
        self._targets[info["targetId"]] = _Target(
            kind=info.get("type", ""),
            url=info.get("url", ""),
            opener=info.get("openerId"),
            context=info.get("browserContextId"),
        )

    def _target_gone(self, event: dict[str, Any]) -> None:
        self._targets.pop(event["targetId"], None)

    def _paused(self, event: dict[str, Any]) -> None:
        # Decided here, before any await: a refusal is in the log before the navigation it
        # stops can be reported as failed.
        url = event["request"]["url"]
        request = event["requestId"]
        if self.policy.allows_request(url):
            self._answer(self._send("Fetch.continueRequest", {"requestId": request}))
            return
        frame = event.get("frameId", "")
        target = self._targets.get(frame)
        top_level = target is not None and target.kind == "page"
        # A tab that never showed a document of its own (Chromium names it "" until its first
        # commit), or a blank one another tab opened: closed rather than left empty.
        new_tab = (
            top_level
            and target is not None
            and (target.url == "" or (target.url == "about:blank" and target.opener is not None))
        )
        kind: RefusedKind = "new_tab" if new_tab else "navigation" if top_level else "frame"
        self._log.append(
            Refusal(
                refused=Refused(kind=kind, url=url, origin=origin_of(url)),
                frame=frame,
                tab=frame if top_level else None,
                opener=target.opener if target is not None and new_tab else None,
                context=target.context if target is not None else None,
            )
        )
        if new_tab:
            self._closed_unseen(frame)
        self._answer(self._refuse(request, frame if new_tab else None))

    async def _refuse(self, request: str, close: str | None) -> None:
        await self._send(
            "Fetch.fulfillRequest",
            {"requestId": request, "responseCode": 204, "responseHeaders": []},
        )
        if close is not None:
            await self._send("Target.closeTarget", {"targetId": close})

    async def _send(self, method: str, params: dict[str, Any]) -> None:
        if self._session is None:
            return
        # The request's tab may close, or the browser go, before the answer arrives.
        with contextlib.suppress(PlaywrightError):
            await self._session.send(method, params)

    def _answer(self, work: Coroutine[Any, Any, None]) -> None:
        task: asyncio.Task[None] = asyncio.ensure_future(work)
        self._answers.add(task)
        task.add_done_callback(self._answers.discard)
