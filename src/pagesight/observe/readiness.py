"""Readiness: has the document settled enough to be read or acted on?

A document is ready once, together: its load event has fired; the network has been quiet for
a short window; the DOM has not changed for a short window; and no short timer set by the
page (a ``setTimeout`` of up to a second, counted by the init script) is pending. Once ready,
a document stays ready (the latch lives in the document, so a new document starts over).
Waiting has a hard cap, so one slow resource never blocks for ever.

The network is quiet when no request that counts is in flight and none started or ended just
now. A page's own background traffic does not count, or a page that polls would never be
ready: long-lived connections (WebSocket, EventSource, a request pending past a cap), beacons
(``navigator.sendBeacon``, ``<a ping>``), and polling — a request to an endpoint (method, and
URL without its query: a poll's changing part is its query, a cache-buster or a cursor) whose
two previous requests were each answered, body and all, within half their interval, at a
steady interval (as the browser timed them). The third such request is the first told apart,
once answered; the two before it are forgiven then too, so a page polling every 200 ms is
ready about 0.6 s after its polling starts. What the load itself fetches (one slow request, a
chain of pages each asked for once the last arrived, from a server that streams its answers
too) is waited for; a load that asks one endpoint again and again at a steady beat, pausing
between answers, reads as polling on the network, but its content arriving (nodes added, none
taken away) keeps the DOM from being quiet. A ``fetch`` whose body the page never reads stays
in flight for ever: once answered a moment ago it is done. The DOM's own ticking (a node
rewritten at a steady beat: a clock, a counter each poll updates) and a ``setTimeout`` set
again each time it fires are told apart in the init script the same way. After an action every
request started within a moment of it counts, whatever its endpoint (see settle).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from playwright._impl._errors import TargetClosedError
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page as PlaywrightPage

from pagesight.cdp import CdpSession, ChildTargets
from pagesight.errors import PageCrashed, PageUnresponsive, ProtocolError, first_line

NETWORK_QUIET_S = 0.5
"""The network quiet that makes a page ready when pagesight cannot see its timers (a page it
attached to after it loaded): Playwright's and Puppeteer's network-idle window."""
HOOKED_NETWORK_QUIET_S = 0.3
"""The same where the init script counts the page's short timers and the requests its scripts
wait on: a request that starts after a lull is then either a timer's (and the timer held
readiness until it fired) or a chain's next link, which the script was waiting on its last
link to ask for (and that request held readiness, however late a busy machine ran the page),
so the window only has to outlast the DOM's own quiet. Each full page load of a task costs
this much less waiting."""
DOM_QUIET_MS = 300
LONG_REQUEST_S = 3.0
"""A request pending longer than this is a long poll or a hung resource, not the page loading."""
POLL_S = 0.05
_UNCOUNTED = frozenset({"websocket", "eventsource", "ping", "preflight"})
"""Long-lived connections and beacons: a page's own background traffic, whatever their rhythm
(and a CORS preflight, which its request outlasts)."""
_NETWORK = {"maxTotalBufferSize": 0, "maxResourceBufferSize": 0}
"""Network events only: no response bodies kept for this session to ask for."""
STEADY = 0.35
"""Two intervals between requests to one endpoint are steady when they differ by at most this
share of the longer: a timer's beat, with the jitter of a busy machine."""
MIN_BEAT_S = 0.1
"""Requests closer together than this are a page fetching what it needs, not a timer polling."""
UNREAD_S = 0.3
"""A ``fetch`` answered this long ago is done, though its body is still unread."""
_BEAT_S = 1.0
"""How often a running action looks whether its page still answers: an action done within it
costs no look at all."""
_KEPT = 64  # requests remembered once finished: enough to judge the last few seconds
# The page's own words for "this document is being replaced": the next look sees the new one.
_BETWEEN_DOCUMENTS = (
    "Execution context was destroyed",
    "Cannot find context with specified id",
    "because of a navigation",
)

_PROBE = """() => {
  const h = globalThis[Symbol.for("pagesight.hooks")];
  const loaded = document.readyState === "complete";
  if (!h || !h.settling) return {latched: false, hooks: false, loaded};
  return {latched: h.ready, waited: h.waited || 0, hooks: true, ...h.settling()};
}"""
# Both marks live in the document, so a new document starts over.
_LATCH = """() => { const h = globalThis[Symbol.for("pagesight.hooks")]; if (h) h.ready = true; }"""
# How long a wait on this document has already run out, so the same wait is not paid again.
_WAITED = """(t) => {
  const h = globalThis[Symbol.for("pagesight.hooks")];
  if (h) h.waited = Math.max(h.waited || 0, t);
}"""


_ENDPOINTS_KEPT = 256


@dataclass
class _Call:
    """One request: when it started and ended (monotonic seconds), and whether it is the
    page's own background traffic."""

    endpoint: str
    started: float
    url: str = ""
    ended: float | None = None
    answered: float | None = None
    """When its response's headers came: a page that never reads a poll's body (a bare
    ``fetch(url)``) leaves the request in flight long after the server answered."""
    background: bool = False
    fetch: bool = False
    beat: tuple[float, float] | None = None
    """As the browser timed it, once answered: when it started (ms since the epoch) and how
    long its answer took (ms: to its headers; once it ended, to its body's last byte). The
    browser's clock, not ours: our events come late and in bunches when the machine is busy,
    the page's timer keeps its beat."""

    @property
    def activity(self) -> float:
        if self.ended is not None:
            return self.ended
        return self.started if self.answered is None else self.answered

    def in_flight(self, now: float) -> bool:
        """Still on its way: neither ended nor a long poll, and not a ``fetch`` answered a while
        ago (a page that never reads the body leaves it in flight for ever)."""
        if self.ended is not None or now - self.started >= LONG_REQUEST_S:
            return False
        return not (self.fetch and self.answered is not None and now - self.answered >= UNREAD_S)


def endpoint(method: str, url: str) -> str:
    """What a poll repeats: the method and the URL without its query (and fragment)."""
    parts = urlsplit(url)
    return f"{method} {parts.scheme}://{parts.netloc}{parts.path}"


def _polls(
    before: tuple[float, float], last: tuple[float, float], now: tuple[float, float]
) -> bool:
    """Whether three requests to one endpoint, each a ``beat`` (start, time to answer), are a
    poll: each of the first two was answered within half the interval to the next (so not
    in parallel, nor each asked for once the last arrived), and the two intervals are steady."""
    first, second = last[0] - before[0], now[0] - last[0]
    return (
        min(first, second) >= MIN_BEAT_S * 1000
        and before[1] <= first / 2
        and last[1] <= second / 2
        and abs(second - first) <= STEADY * max(first, second)
    )


@dataclass
class NetworkWatch:
    """The page's requests, as Chromium reports them to a DevTools session of ours (the tab's
    own, and through it each out-of-process iframe and dedicated worker of the tab): traffic
    that counts, or the page's own background traffic (see the module's docstring), each
    poll known once it is answered.

    Playwright's own request events are not listened to: while anything listens, Playwright
    keeps every request and response object of the page, thousands of them, for as long as
    the page lives. Only the last few requests are remembered here."""

    pending: dict[str, _Call] = field(default_factory=dict)
    """Requests in flight, by their DevTools request id."""
    navigations: set[str] = field(default_factory=set)
    """Main-frame navigation requests in flight (a click on a link, before its page commits)."""
    _finished: deque[_Call] = field(default_factory=deque)
    _floor: float = field(default_factory=time.monotonic)
    """The latest activity that counts among requests no longer remembered (at first: now)."""
    _by_endpoint: dict[str, tuple[_Call, ...]] = field(default_factory=dict)
    """The last two requests answered from each endpoint, oldest first."""
    _main_frame: str | None = None
    _children: ChildTargets | None = None
    _source: Callable[[], Awaitable[CdpSession]] | None = None
    _starting: asyncio.Future[None] | None = None

    def watch(self, session: Callable[[], Awaitable[CdpSession]]) -> None:
        """Watch the tab whose own DevTools session ``session()`` gives, from the first
        :meth:`started` on."""
        self._source = session

    async def started(self) -> None:
        """Listening from now on: the first call attaches (the tab's opener calls it before
        the tab loads anything; every look at readiness, in case it did not)."""
        if self._source is None:
            return
        failed = (
            self._starting is not None
            and self._starting.done()
            and (self._starting.cancelled() or self._starting.exception() is not None)
        )
        if self._starting is None or failed:
            self._starting = asyncio.ensure_future(self._attach(self._source))
        await asyncio.shield(self._starting)

    async def _attach(self, source: Callable[[], Awaitable[CdpSession]]) -> None:
        await self.attach(await source())

    async def attach(self, session: CdpSession) -> None:
        """Listen on ``session`` (the tab's own) and on every child target under it."""
        info = await session.send("Target.getTargetInfo")
        self._main_frame = str(info["targetInfo"]["targetId"])  # a tab's main frame id
        session.on("Network.requestWillBeSent", self._started_here)
        session.on("Network.responseReceived", self._answered)
        session.on("Network.loadingFinished", self._ended)
        session.on("Network.loadingFailed", self._ended)
        self._children = ChildTargets(session, [("Network.enable", _NETWORK)], self._child_event)
        await session.send("Network.enable", _NETWORK)
        await self._children.start()

    def unanswered_navigation(self) -> str | None:
        """The URL of a main-frame navigation in flight that its server has not answered yet
        (a link clicked to a server that never answers), if any."""
        for key in self.navigations:
            call = self.pending.get(key)
            if call is not None and call.answered is None:
                return call.url
        return None

    @property
    def children(self) -> int:
        """How many out-of-process iframes and workers of the tab are watched now."""
        return 0 if self._children is None else self._children.watched

    def _child_event(self, target: dict[str, Any], method: str, params: dict[str, Any]) -> None:
        if method == "Inspector.workerScriptLoaded":
            # A worker's script is fetched for the page, and its end told to the worker's
            # session: one Playwright resumed before ours listened has it still in flight.
            url = target.get("url")
            for key in [k for k, call in self.pending.items() if call.url == url]:
                self._ended({"requestId": key})
        elif method == "Network.requestWillBeSent":
            self._started(params, own=False)
        elif method == "Network.responseReceived":
            self._answered(params)
        elif method in ("Network.loadingFinished", "Network.loadingFailed"):
            self._ended(params)

    def _started_here(self, params: dict[str, Any]) -> None:
        self._started(params, own=True)

    def _started(self, params: dict[str, Any], *, own: bool) -> None:
        key = str(params.get("requestId", ""))
        if params.get("redirectResponse") is not None:
            self._ended(params)  # the request before the redirect: the next one starts now
        request = params.get("request", {})
        url = str(request.get("url", ""))
        kind = str(params.get("type", "Other")).lower()
        if kind in _UNCOUNTED or url.startswith("data:"):
            return  # a data: URL is no traffic, and a preflight is its request's own
        now = time.monotonic()
        call = _Call(
            endpoint=endpoint(str(request.get("method", "GET")), url),
            started=now,
            url=url,
            fetch=kind == "fetch",
        )
        if len(self.pending) >= _KEPT:
            # Requests that will never end for us (a body never read, a hung long poll).
            for gone in [r for r, c in self.pending.items() if not c.in_flight(now)]:
                self._forget(self.pending.pop(gone))
        self.pending[key] = call
        if (
            own
            and kind == "document"
            and key == params.get("loaderId")
            and params.get("frameId") == self._main_frame
        ):
            self.navigations.add(key)

    def _answered(self, params: dict[str, Any]) -> None:
        key = str(params.get("requestId", ""))
        call = self.pending.get(key)
        if call is None:
            # Begun before we listened: a worker's first request, when Playwright resumed
            # the worker before our session was told to listen (the first to resume a
            # worker starts it), or one begun before the tab was watched. It counts from
            # now, as answered now.
            response = params.get("response", {})
            self._started(
                {
                    "requestId": key,
                    "type": params.get("type"),
                    "request": {"url": response.get("url", ""), "method": "GET"},
                },
                own=False,
            )
            call = self.pending.get(key)
            if call is None:
                return  # not traffic that counts
        if call.answered is not None:
            return
        call.answered = time.monotonic()
        timing = params.get("response", {}).get("timing") or {}
        start, headers = timing.get("requestTime", 0), timing.get("receiveHeadersEnd", -1)
        if start <= 0 or headers < 0:
            return  # not timed (a response from a service worker's cache, say): no beat
        call.beat = (start * 1000, headers)
        earlier = self._by_endpoint.pop(call.endpoint, ())
        beats = [c.beat for c in earlier if c.beat is not None]
        if len(beats) == 2 and _polls(beats[0], beats[1], call.beat):
            # The third answer of a steady beat: it polls, and so did the two before it.
            call.background = earlier[0].background = earlier[1].background = True
        self._by_endpoint[call.endpoint] = (*earlier[-1:], call)  # now the newest endpoint
        if len(self._by_endpoint) > _ENDPOINTS_KEPT:
            del self._by_endpoint[next(iter(self._by_endpoint))]

    def _ended(self, params: dict[str, Any]) -> None:
        key = str(params.get("requestId", ""))
        self.navigations.discard(key)
        call = self.pending.pop(key, None)
        if call is None:
            return
        call.ended = time.monotonic()
        if call.answered is None:
            call.answered = call.ended  # it failed, or its answer came with no response event
        timestamp = params.get("timestamp")
        if call.beat is not None and isinstance(timestamp, int | float):
            # Answered once its body is in, not its headers: a load asking for the next page
            # once the last arrived, from a server that streams, is no poll answered at once.
            # (The event's time is on the clock of the answer's timing, in seconds.)
            end = timestamp * 1000 - call.beat[0]
            call.beat = (call.beat[0], max(call.beat[1], end))
        self._finished.append(call)
        if len(self._finished) > _KEPT:
            self._forget(self._finished.popleft())

    def _forget(self, call: _Call) -> None:
        if not call.background:
            self._floor = max(self._floor, call.activity)

    def last_activity(self, *, since: float | None = None, until: float = 0.0) -> float:
        """When the latest request that counts started or ended. Between ``since`` and
        ``until`` (an action's moment) every request counts, whatever its endpoint."""
        latest = self._floor
        for call in (*self.pending.values(), *self._finished):
            if self._counts(call, since, until):
                latest = max(latest, call.activity)
        return latest

    def busy_since(self, since: float, *, until: float) -> bool:
        """A request that counts, started at or after ``since``, is still in flight: every
        request started by ``until`` (the action's moment), after it only those that are not
        background traffic."""
        now = time.monotonic()
        return any(
            call.started >= since and call.in_flight(now) and self._counts(call, since, until)
            for call in self.pending.values()
        )

    def quiet_for(self) -> float:
        """Seconds since a request that counts last started or ended."""
        return time.monotonic() - self.last_activity()

    def quiet(self, window: float = NETWORK_QUIET_S) -> bool:
        """No request that counts is in flight, and none started or ended in the last
        ``window`` seconds."""
        now = time.monotonic()
        busy = any(call.in_flight(now) and not call.background for call in self.pending.values())
        return not busy and now - self.last_activity() >= window

    @staticmethod
    def _counts(call: _Call, since: float | None, until: float) -> bool:
        return not call.background or (since is not None and since <= call.started <= until)


async def _look(
    page: PlaywrightPage, network: NetworkWatch, answer_within: float
) -> tuple[bool, float, float]:
    """One look: (is the document ready now, the longest wait on it that already ran out,
    the seconds until it could first be ready by what this look saw: look again then, not
    sooner). Latches."""
    state = await ask(page, _PROBE, answer_within)
    if state is None:
        return False, 0.0, POLL_S  # between documents: the next look sees the new one
    if state.get("latched"):
        return True, 0.0, 0.0
    hooked = bool(state.get("hooks"))
    window = HOOKED_NETWORK_QUIET_S if hooked else NETWORK_QUIET_S
    loaded = bool(state["loaded"])
    ready = loaded and network.quiet(window)
    # Only the quiet windows can be waited out: a pending load, request or timer ends when
    # it ends, so those are looked at again at the polling beat.
    left = window - network.quiet_for() if loaded and network.quiet(0.0) else POLL_S
    if hooked:
        pending = state["timers"] > 0 or state.get("requests", 0) > 0
        ready = ready and state["quietMs"] >= DOM_QUIET_MS and not pending
        dom_left = (DOM_QUIET_MS - state["quietMs"]) / 1000
        left = POLL_S if pending else max(left, dom_left)
    if ready:
        await _mark(page, _LATCH)
    return ready, float(state.get("waited", 0)), max(left, 0.0)


async def ask(page: PlaywrightPage, script: str, answer_within: float) -> Any:
    """Evaluate ``script`` in the page; ``None`` while it is between documents (its execution
    context destroyed by a navigation: the next look sees the new one). A page that does not
    answer within ``answer_within`` seconds raises :class:`~pagesight.errors.PageUnresponsive`;
    a closed or crashed tab :class:`~pagesight.errors.PageCrashed`; any other failure
    :class:`~pagesight.errors.ProtocolError`."""
    try:
        return await asyncio.wait_for(page.evaluate(script), answer_within)
    except TimeoutError as exc:
        raise PageUnresponsive(
            f"{page.url} did not answer within {answer_within:g} s; a script may be keeping it busy"
        ) from exc
    except PlaywrightError as exc:
        message = str(exc).strip()
        if isinstance(exc, TargetClosedError) or page.is_closed():
            raise PageCrashed(
                f"the tab of {page.url} was closed (or its browser) while pagesight looked at"
                " it; open the page again"
            ) from exc
        if "crash" in message.lower():
            raise PageCrashed(
                f"the renderer of {page.url} crashed while pagesight looked at it; open the page"
                " again"
            ) from exc
        if any(words in message for words in _BETWEEN_DOCUMENTS):
            return None
        raise ProtocolError(
            f"looking at whether {page.url} has settled failed: {first_line(exc)}"
        ) from exc


async def stops_answering(page: PlaywrightPage, answer_within: float) -> PageUnresponsive:
    """Look at ``page`` every :data:`_BEAT_S` seconds, and return once it does not answer
    within ``answer_within`` seconds: what an action waits on beside its own work, as a
    handler that never returns (``onclick="for(;;){}"``) leaves the action's input event
    unanswered for ever, and only a look beside it can tell. A crash or a close is not this
    function's to report (the tab's own "gone" event is), nor are looks between documents."""
    while True:
        await asyncio.sleep(_BEAT_S)
        try:
            await ask(page, "0", answer_within)
        except PageUnresponsive as exc:
            return exc
        except (PageCrashed, ProtocolError):
            continue


async def _mark(page: PlaywrightPage, script: str, arg: float | None = None) -> None:
    # A document already gone needs no mark: its successor starts unmarked anyway.
    with contextlib.suppress(PlaywrightError):
        await page.evaluate(script, arg)


async def wait_ready(
    page: PlaywrightPage,
    network: NetworkWatch,
    timeout: float,
    *,
    once_per_document: bool,
    answer_within: float,
) -> bool:
    """Wait until the document is ready or ``timeout`` seconds pass; says which.

    With ``once_per_document``, a document that already ran out a wait as long is only looked
    at, not waited for again: a page that never settles costs the cap once, not on every call.
    A page that does not answer a look within ``answer_within`` seconds raises
    :class:`~pagesight.errors.PageUnresponsive`.
    """
    await network.started()
    deadline = time.monotonic() + timeout
    while True:
        ready, waited, left = await _look(page, network, answer_within)
        if ready or (once_per_document and waited >= timeout):
            return ready
        now = time.monotonic()
        if now >= deadline:
            if timeout > 0:
                await _mark(page, _WAITED, timeout)
            return False
        # Readiness is a condition over time: look again once it could first hold (a little
        # past, so the window has surely passed), or at the polling beat while something is
        # pending; never past the deadline.
        await asyncio.sleep(min(max(left + 0.005, 0.005), deadline - now))
