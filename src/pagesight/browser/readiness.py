"""Readiness: has the document settled enough to be read or acted on?

A document is ready once, together: its load event has fired; the network has been quiet for
a short window (long-lived connections — WebSocket, EventSource, a request pending past a cap
— do not hold it up); the DOM has not changed for a short window; and no short timer set by
the page (a ``setTimeout`` of up to a second, counted by the init script) is pending. Once
ready, a document stays ready (the latch lives in the document, so a new document starts
over). Waiting has a hard cap, so one slow resource never blocks for ever.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass, field
from typing import Any

from playwright._impl._errors import TargetClosedError
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page as PlaywrightPage
from playwright.async_api import Request

from pagesight.errors import PageCrashed, PageUnresponsive, ProtocolError

NETWORK_QUIET_S = 0.5
DOM_QUIET_MS = 300
LONG_REQUEST_S = 3.0
"""A request pending longer than this is a long poll or a hung resource, not the page loading."""
POLL_S = 0.05
_LONG_LIVED = frozenset({"websocket", "eventsource"})
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


@dataclass
class NetworkWatch:
    """The page's requests in flight, as Playwright reports them."""

    pending: dict[Request, float] = field(default_factory=dict)
    last_activity: float = field(default_factory=time.monotonic)
    navigations: set[Request] = field(default_factory=set)
    """Main-frame navigation requests in flight (a click on a link, before its page commits)."""
    _page: PlaywrightPage | None = None

    def attach(self, page: PlaywrightPage) -> None:
        self._page = page
        page.on("request", self._started)
        page.on("requestfinished", self._ended)
        page.on("requestfailed", self._ended)

    def _started(self, request: Request) -> None:
        if request.resource_type not in _LONG_LIVED:
            self.pending[request] = time.monotonic()
        # Only navigation requests are sure to have a frame (a service worker's have none).
        page = self._page
        if (
            request.is_navigation_request()
            and page is not None
            and request.frame == page.main_frame
        ):
            self.navigations.add(request)
        self.last_activity = time.monotonic()

    def _ended(self, request: Request) -> None:
        self.pending.pop(request, None)
        self.navigations.discard(request)
        self.last_activity = time.monotonic()

    def busy_since(self, since: float) -> bool:
        """A request that counts, started at or after ``since``, is still in flight."""
        now = time.monotonic()
        return any(
            started >= since and now - started < LONG_REQUEST_S for started in self.pending.values()
        )

    def quiet(self) -> bool:
        """No request that counts is in flight, and none started or ended just now."""
        now = time.monotonic()
        busy = any(now - started < LONG_REQUEST_S for started in self.pending.values())
        return not busy and now - self.last_activity >= NETWORK_QUIET_S


async def _look(
    page: PlaywrightPage, network: NetworkWatch, answer_within: float
) -> tuple[bool, float]:
    """One look: (is the document ready now, the longest wait on it that already ran out).
    Latches."""
    state = await ask(page, _PROBE, answer_within)
    if state is None:
        return False, 0.0  # between documents: the next look sees the new one
    if state.get("latched"):
        return True, 0.0
    ready = bool(state["loaded"]) and network.quiet()
    if state.get("hooks"):
        ready = ready and state["quietMs"] >= DOM_QUIET_MS and state["timers"] == 0
    if ready:
        await _mark(page, _LATCH)
    return ready, float(state.get("waited", 0))


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
        first = message.splitlines()[0] if message else type(exc).__name__
        raise ProtocolError(f"looking at whether {page.url} has settled failed: {first}") from exc


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
    deadline = time.monotonic() + timeout
    while True:
        ready, waited = await _look(page, network, answer_within)
        if ready or (once_per_document and waited >= timeout):
            return ready
        if time.monotonic() >= deadline:
            if timeout > 0:
                await _mark(page, _WAITED, timeout)
            return False
        await asyncio.sleep(POLL_S)  # readiness is a condition over time: polling it is the job
