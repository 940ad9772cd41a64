"""RequestGuard: Chromium asks before it sends any request, and the origin policy answers.

One DevTools session on the browser target enables ``Fetch`` for every request of every
target at once: tabs (those the page opens included), iframes in or out of process,
dedicated, shared and service workers — each request paused before it leaves, whoever
started it (a typed URL, a link, a form, a script, ``window.open``, a meta refresh,
``fetch``, XHR, ``sendBeacon``, an image, a stylesheet, a worker's own requests), and each
redirect hop paused again as a request of its own. Playwright's ``route`` was the other
candidate; it sees neither redirect hops nor what a service worker fetches.

A refused document is answered ``204 No Content``: Chromium then abandons the navigation and
the tab stays on its page, with nothing loaded and no error page in its history. A tab the
page opened whose first document is refused (``window.open``, ``target=_blank``, a middle
click) would be left blank: it is closed. Any other refused request fails as
``BlockedByClient`` (as an ad blocker's would): the page sees a network error, nothing is
sent, and the tab's next observation counts it.

A WebSocket never reaches ``Fetch`` (nor ``Network.setBlockedURLs``). With an allowed list,
every document and worker script the guard lets through carries one more
``Content-Security-Policy: connect-src`` naming the allowed origins, which Chromium enforces
on WebSockets (and every other connection) in that document, its workers and the blank or
``blob:`` documents it makes: a policy a page can add to but not lift. A block list with no
allowed list cannot be written as a CSP, so it does not reach WebSockets. With an allowed
list, no service worker registers (its script is refused): the documents one makes for its
pages would carry no such policy.

Prefetches and prerenders of speculation rules are made by Chromium itself, unseen by
``Fetch``: a launched browser with a policy has them turned off in its profile
(:data:`GUARDED_PREFERENCES`).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import socket
import time
from collections import deque
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from playwright.async_api import Browser as PlaywrightBrowser
from playwright.async_api import CDPSession
from playwright.async_api import Error as PlaywrightError

from pagesight.guard.origins import OriginPolicy, Refused, RefusedKind, origin_of

_EVERY_REQUEST = [{"urlPattern": "*"}]
_DOCUMENTS_ONLY = [{"urlPattern": "*", "resourceType": "Document"}]
# What may be a document or a worker's script (a worker's script is "Other" to Fetch): the
# response is paused too, to carry the connect-src policy.
_HEADED_TYPES = frozenset({"Document", "Other"})
_RECODED = frozenset({"content-encoding", "content-length", "transfer-encoding"})
_REDIRECTS = frozenset({300, 301, 302, 303, 307, 308})
_LOG_SIZE = 256
"""Documents refused, kept for the effects of the actions that caused them (read within the
action); a long run's older refusals fall out."""
_REQUEST_LOG_SIZE = 4096
"""Other requests refused, kept to count in each tab's next observation."""
_LOOKUP_TTL_S = 10.0
_LOOKUP_CACHE_SIZE = 256

GUARDED_PREFERENCES: dict[str, object] = {"net": {"network_prediction_options": 2}}
"""The profile settings of a browser launched with an origin policy. Chromium makes the
prefetches and prerenders a page asks for in ``<script type=speculationrules>`` (or a
``Speculation-Rules`` header) itself, out of sight of the guard's ``Fetch`` session: they
went to any origin. "Preload pages: never" (no command-line flag turns them off) stops
them. A browser attached to with ``connect`` keeps its own setting."""


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
    """Every request of one browser, checked against ``policy``. ``documents_only`` pauses
    documents alone (as pagesight did before; kept for the benchmark that measures what
    pausing every request costs)."""

    def __init__(
        self,
        policy: OriginPolicy,
        *,
        closed_unseen: Callable[[str], None],
        documents_only: bool = False,
    ) -> None:
        self.policy = policy
        self._closed_unseen = closed_unseen
        """Told the target id of each new tab closed before it showed, so that no action
        waits for it to appear."""
        self._documents_only = documents_only
        self._csp = None if documents_only else policy.connect_sources()
        self._session: CDPSession | None = None
        self._targets: dict[str, _Target] = {}
        self._log: deque[tuple[int, Refusal]] = deque(maxlen=_LOG_SIZE)
        self._refused_total = 0
        self._requests: deque[tuple[int, str]] = deque(maxlen=_REQUEST_LOG_SIZE)
        """(number, frame id) of each other request refused."""
        self._requests_total = 0
        self._lookups: dict[str, tuple[float, bool]] = {}
        """Host name -> (when, whether it may load), for names a wildcard allows."""
        self._answers: set[asyncio.Task[None]] = set()

    async def attach(self, browser: PlaywrightBrowser) -> None:
        session = self._session = await browser.new_browser_cdp_session()
        session.on("Target.targetCreated", self._target_seen)
        session.on("Target.targetInfoChanged", self._target_seen)
        session.on("Target.targetDestroyed", self._target_gone)
        session.on("Fetch.requestPaused", self._paused)
        # Targets first: a new tab is known before its first request is paused.
        await session.send("Target.setDiscoverTargets", {"discover": True})
        if self._csp is not None:
            # The documents the guard answers itself come from no address, and Chromium's
            # Local Network Access then refuses their requests to this machine and its
            # network (an allowed http://127.0.0.1:8001 API of a page on :8000). The guard's
            # private-network rule replaces it. A launched browser runs without those checks;
            # an attached one is granted these for as long as this session lasts (Chromium
            # drops a session's permission overrides when it detaches).
            for name in ("loopback-network", "local-network"):
                await self._send(
                    "Browser.setPermission",
                    {"permission": {"name": name}, "setting": "granted"},
                )
        patterns = _DOCUMENTS_ONLY if self._documents_only else _EVERY_REQUEST
        await session.send("Fetch.enable", {"patterns": patterns})

    def mark(self) -> int:
        """How many documents have been refused so far (for :meth:`since`)."""
        return self._refused_total

    async def since(self, mark: int) -> list[Refusal]:
        """The refused documents after ``mark``, once every paused request has been
        answered."""
        await self.settled()
        return [refusal for number, refusal in self._log if number >= mark]

    def requests_mark(self) -> int:
        """How many other requests have been refused so far (for :meth:`requests_between`)."""
        return self._requests_total

    def requests_between(self, start: int, end: int, frames: set[str]) -> int:
        """How many requests of the frames ``frames`` (and of their dedicated workers) were
        refused from mark ``start`` to mark ``end`` (at most :data:`_REQUEST_LOG_SIZE`: older
        ones are forgotten)."""
        return sum(
            1 for number, frame in self._requests if start <= number < end and frame in frames
        )

    async def settled(self) -> None:
        """Wait until every request paused so far has been answered."""
        if self._answers:
            await asyncio.gather(*self._answers, return_exceptions=True)

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
        if "responseStatusCode" in event or "responseErrorReason" in event:
            self._answer(self._add_policy(event))
            return
        url = event["request"]["url"]
        if not self.policy.allows_request(url) or self._service_worker(event):
            self._refuse(event)
            return
        host = self.policy.lookup_needed(url)
        if host is None:
            self._answer(self._continue(event))
        else:
            self._answer(self._after_lookup(event, host))

    def _service_worker(self, event: dict[str, Any]) -> bool:
        """Whether this is a service worker's script while WebSockets are held by the
        connect-src policy: a service worker may answer its pages' navigations with documents
        it makes itself, which never reach the guard and so carry no policy (their
        WebSockets went anywhere). Its registration fails; the pages load from the network."""
        if self._csp is None:
            return False
        headers = event["request"].get("headers", {})
        return any(
            name.lower() == "service-worker" and value == "script"
            for name, value in headers.items()
        )

    async def _after_lookup(self, event: dict[str, Any], host: str) -> None:
        if await self._may_load(host):
            await self._continue(event)
        else:
            self._refuse(event)

    async def _may_load(self, host: str) -> bool:
        """Whether ``host`` (a name a wildcard allows) resolves to public addresses only."""
        now = time.monotonic()
        known = self._lookups.get(host)
        if known is not None and now - known[0] < _LOOKUP_TTL_S:
            return known[1]
        try:
            found = await asyncio.get_running_loop().getaddrinfo(
                host, None, type=socket.SOCK_STREAM
            )
            addresses = [str(info[4][0]) for info in found]
        except (OSError, UnicodeError):  # resolves to nothing here
            addresses = []
        allowed = self.policy.allows_addresses(addresses)
        if len(self._lookups) >= _LOOKUP_CACHE_SIZE:
            self._lookups.clear()
        self._lookups[host] = (now, allowed)
        return allowed

    def _refuse(self, event: dict[str, Any]) -> None:
        # Logged before it is answered: the request (and the navigation it is) cannot end
        # before the log says why.
        request = event["requestId"]
        frame = event.get("frameId", "")
        if event.get("resourceType") != "Document":
            self._requests.append((self._requests_total, frame))
            self._requests_total += 1
            self._answer(
                self._send(
                    "Fetch.failRequest", {"requestId": request, "errorReason": "BlockedByClient"}
                )
            )
            return
        url = event["request"]["url"]
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
        refusal = Refusal(
            refused=Refused(kind=kind, url=url, origin=origin_of(url)),
            frame=frame,
            tab=frame if top_level else None,
            opener=target.opener if target is not None and new_tab else None,
            context=target.context if target is not None else None,
        )
        self._log.append((self._refused_total, refusal))
        self._refused_total += 1
        if new_tab:
            self._closed_unseen(frame)
        self._answer(self._refuse_document(request, frame if new_tab else None))

    async def _continue(self, event: dict[str, Any]) -> None:
        params: dict[str, Any] = {"requestId": event["requestId"]}
        if self._csp is not None and event.get("resourceType") in _HEADED_TYPES:
            params["interceptResponse"] = True
        await self._send("Fetch.continueRequest", params)

    async def _add_policy(self, event: dict[str, Any]) -> None:
        """A document's or worker script's response, let through with the connect-src
        policy added to its headers."""
        request = event["requestId"]
        status = event.get("responseStatusCode")
        if "responseErrorReason" in event or self._csp is None or status is None:
            await self._send("Fetch.continueRequest", {"requestId": request})
            return
        headers = [*event.get("responseHeaders", ())]
        headers.append({"name": "Content-Security-Policy", "value": self._csp})
        params: dict[str, Any] = {
            "requestId": request,
            "responseCode": status,
            "responseHeaders": headers,
        }
        if event.get("responseStatusText"):
            params["responsePhrase"] = event["responseStatusText"]
        if (
            event.get("resourceType") != "Document"
            or _redirect(status, headers)
            or _attachment(headers)
        ):
            # A worker reads its policy from the headers as modified; a redirect has none.
            await self._send("Fetch.continueResponse", params)
            return
        # A document's policy is read from the headers as the server sent them, whatever
        # continueResponse says: the response is answered anew, body and all.
        if self._session is None:
            return
        try:
            body = await self._session.send("Fetch.getResponseBody", {"requestId": request})
        except PlaywrightError:  # no body to read (a 204), or the tab is gone
            await self._send("Fetch.continueResponse", params)
            return
        data = body["body"]
        # The body comes decoded (no gzip) and whole: its old length and coding no longer hold.
        params["responseHeaders"] = [h for h in headers if h["name"].lower() not in _RECODED]
        params["body"] = data if body.get("base64Encoded") else _b64(data)
        await self._send("Fetch.fulfillRequest", params)

    async def _refuse_document(self, request: str, close: str | None) -> None:
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


def _redirect(status: int, headers: list[dict[str, str]]) -> bool:
    """Whether Chromium follows this response elsewhere rather than showing it: a 3xx with
    no ``Location`` (or a 304 or 305) is a page like any other, whose scripts need the
    policy."""
    return status in _REDIRECTS and any(h["name"].lower() == "location" for h in headers)


def _attachment(headers: list[dict[str, str]]) -> bool:
    """Whether Chromium saves this response as a download rather than showing it: no page
    and no script, so no policy to add — and reading it whole first held the download (and
    its bytes, in memory) until the server had sent it all."""
    return any(
        h["name"].lower() == "content-disposition"
        and h["value"].strip().lower().startswith("attachment")
        for h in headers
    )


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode("ascii")
