"""Tab: pagesight's hold on one Playwright tab, beneath :class:`~pagesight.browser.page.AsyncPage`.

It owns what every call on the page goes through: pagesight's own DevTools session on the tab,
the documents walked through it (an element id resolves in the document that owns it), and
whether the tab still lives (crashed, closed, or hung), so that each call is bounded by its
time and by the tab's end, and says plainly which of them ended it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict
from collections.abc import Collection, Coroutine
from typing import Any, TypeVar

from playwright.async_api import Frame
from playwright.async_api import Page as PlaywrightPage
from playwright.async_api import TimeoutError as PlaywrightTimeout

from pagesight.browser.runner import guarded
from pagesight.browser.services import TabServices
from pagesight.cdp import CdpSession, translate
from pagesight.errors import BrowserClosed, NavigationError, PageCrashed, ProtocolError
from pagesight.observe.capture import CdpChannel, Channel, EvaluateChannel, Raw, capture
from pagesight.observe.ids import TabIds
from pagesight.observe.observation import Mode
from pagesight.observe.readiness import stops_answering

T = TypeVar("T")
DOCUMENTS_KEPT = 32
"""Documents (pages and frames) a tab keeps the ids of: every one its latest reading showed
(a page with hundreds of iframes keeps its ids), and the latest it left, up to this many in
all — enough for going back and forth through a task's pages (a page restored from the
back-forward cache keeps its ids), few enough that a tab browsing all day holds its ids
level within minutes, not after thousands of documents."""
CLOSE_ASKS = 6
"""Times a tab is asked to close before :meth:`Tab.close` gives up on it."""
CLOSE_WAIT_S = 1.0
"""How long the first ask is given (a tab closes in milliseconds once the ask is heard), and
each later one a second more: a machine so busy that an ask takes longer gets the time."""
_AWAY = "data:text/html,"
"""Where a tab whose close was dropped is sent before it is asked again (see Tab.close)."""
WALK_S = 10.0
"""How long a walk keeps trying while the page replaces its document under it."""
NEW_DOCUMENTS_KEPT_UP = 20
"""Documents a page may load while being read before it is taken to navigate for ever
(Chromium follows as many redirects before it gives up on a URL)."""


class Tab:
    def __init__(self, services: TabServices, page: PlaywrightPage) -> None:
        self._services = services
        self._page = page
        self._cdp: CdpSession | None = None
        self._target: str | None = None
        self.crashed = False
        self.unresponsive = False  # a walk timed out: its renderer may never answer again
        self.gone = asyncio.Event()  # set when the renderer crashes or the page closes
        # The channel of each document walked lately, by its token, least recent first: ids
        # resolve through them. A document not walked for DOCUMENTS_KEPT others is forgotten.
        self._channels: OrderedDict[str, Channel] = OrderedDict()
        self.ids = TabIds(services.ids)
        """The ids of this tab's documents: all dropped when it closes, even mid-walk."""
        self._documents = 0  # documents committed in the main frame: a walk sees them replaced
        page.on("crash", self._on_crash)
        page.on("close", self._on_close)
        page.on("framenavigated", self._on_navigated)

    def _on_navigated(self, frame: Frame) -> None:
        if frame.parent_frame is None:
            self._documents += 1

    def _on_crash(self, _page: PlaywrightPage) -> None:
        self.crashed = True
        self.gone.set()

    def _on_close(self, _page: PlaywrightPage) -> None:
        self.gone.set()
        self.ids.close()
        self._channels.clear()

    def channel_of(self, document: str) -> Channel | None:
        """The channel ``document`` was walked through, while the tab remembers it."""
        return self._channels.get(document)

    def _forget_past(self, shown: Collection[str]) -> None:
        # Only documents this walk did not show are forgotten, however many it showed: the
        # page walked first is the least recent, and forgetting it mid-walk would leave the
        # reading's own ids unresolvable (and held for ever, its document no longer listed).
        while len(self._channels) > DOCUMENTS_KEPT:
            oldest = next(iter(self._channels))
            if oldest in shown:
                return
            del self._channels[oldest]
            self.ids.forget(oldest)

    async def walk(self, mode: Mode, options: dict[str, bool], *, within: float = WALK_S) -> Raw:
        """The walker's reading of the tab's documents (the main one and its frames),
        trying for up to ``within`` seconds while the page replaces its document."""
        shown: set[str] = set()

        def walked(document: str, channel: Channel) -> None:
            if self.ids.closed:  # closed mid-walk: nothing of it is kept
                return
            shown.add(document)
            self._channels[document] = channel
            self._channels.move_to_end(document)

        loop = asyncio.get_running_loop()
        deadline = loop.time() + within
        first = self._documents
        tries = 0
        try:
            while True:
                before = self._documents
                try:
                    return await capture(await self._channel(mode), options, walked)
                except ProtocolError as exc:
                    # A document replaced mid-walk (a navigation or reload) takes its execution
                    # context with it; once the new document is parsed, a walk reads it.
                    if self.crashed or self._page.is_closed():
                        raise
                    await self._next_document(exc, deadline - loop.time(), first)
                    # A failure with no new document is the walk's own, but for the first:
                    # its document may have gone before the page said so.
                    if tries and self._documents == before:
                        raise
                    tries += 1
        finally:
            self._forget_past(shown)

    async def _next_document(self, failure: ProtocolError, left: float, first: int) -> None:
        """Wait for the document that replaced the one a walk failed in, or raise
        NavigationError for a page that keeps replacing them (a script or a meta refresh
        reloading it for ever): there is nothing to read there."""
        loaded = self._documents - first
        if left > 0 and loaded < NEW_DOCUMENTS_KEPT_UP:
            # A timeout: a page replacing each document before it is ever parsed.
            with translate("waiting for the new document"), contextlib.suppress(PlaywrightTimeout):
                await self._page.wait_for_load_state("domcontentloaded", timeout=left * 1000)
                return
        if self._documents == first:  # nothing replaced it: the walk's own failure stands
            raise failure
        raise NavigationError(
            f"{self._page.url} kept loading new documents ({self._documents - first} while it "
            "was being read): a script or a meta refresh navigates it for ever",
            advice="open another URL",
        ) from failure

    async def _channel(self, mode: Mode) -> Channel:
        if mode == "evaluate":
            return EvaluateChannel(self._page.main_frame)
        return CdpChannel(await self.session())

    async def session(self) -> CdpSession:
        """pagesight's own DevTools session on this tab."""
        if self._cdp is None:
            self._cdp = await CdpSession.open(self._page.context, self._page)
        return self._cdp

    async def target_id(self) -> str:
        """This tab's DevTools target id."""
        if self._target is None:
            info = await (await self.session()).send("Target.getTargetInfo")
            self._target = str(info["targetInfo"]["targetId"])
        return self._target

    async def context_id(self) -> str:
        """This tab's DevTools browser context id."""
        info = await (await self.session()).send("Target.getTargetInfo")
        return str(info["targetInfo"].get("browserContextId", ""))

    async def guarded(
        self, work: Coroutine[Any, Any, T], timeout: float, *, answer_within: float | None = None
    ) -> T:
        """Run ``work`` on the page, but never longer than ``timeout`` seconds nor past a
        crash (see :func:`~pagesight.browser.runner.guarded`) nor, given ``answer_within``,
        a page not answering that long (an action's budget is for settles and downloads)."""

        def failure() -> BrowserClosed | PageCrashed | None:  # asked only once the wait timed out
            went = self.gone_error()
            # Only our own wait running out marks the renderer hung, as before the runner was
            # split out: a look inside ``work`` that gave up on a busy script (readiness
            # raises PageUnresponsive after 5 s) does not say its renderer will never answer.
            self.unresponsive = self.unresponsive or went is None
            return went

        hung = None if answer_within is None else stops_answering(self._page, answer_within)
        return await guarded(
            work, timeout, gone=self.gone, failure=failure, url=self._page.url, hung=hung
        )

    def gone_error(self) -> BrowserClosed | PageCrashed | None:
        """What to raise for a tab that is no more (crashed, closed, or its browser closed)."""
        # The browser first: closed (e.g. from another thread, while this call ran) or gone
        # from under us, it took this tab along, and only a new browser helps.
        gone = self._services.gone_error()
        if gone is not None:
            return gone
        if not (self.gone.is_set() or self.crashed or self._page.is_closed()):
            return None
        if self.crashed:
            return PageCrashed(
                f"the renderer of {self._page.url} crashed", advice="open a new page"
            )
        return PageCrashed(
            "the page closed (the page called window.close(), or its tab was closed)",
            advice="open a new page",
        )

    async def close(self) -> None:
        """Close the tab, and see that it closed.

        A close that races the commit of a navigation (a page reloading or redirecting itself
        for ever) is acknowledged by Chromium, then dropped with the document it was sent to
        (crbug 536385539; microsoft/playwright#42366), and Playwright's ``close`` waits for
        the tab's end for ever. Asking again alone does not help: the tab keeps waiting for
        the old document's answer for as long as it stays in that renderer. So a tab not
        closed within a second is sent to a page of another origin (a new renderer) and asked
        again, over pagesight's own DevTools session. A tab that outlives every ask raises
        :class:`~pagesight.errors.ProtocolError`, after about 20 s (``CLOSE_ASKS`` asks, each
        given a second more than the one before)."""
        if self._page.is_closed():
            self._cdp = None
            return
        closing = asyncio.ensure_future(self._close_once())
        closing.add_done_callback(lambda t: t.cancelled() or t.exception())
        ended = asyncio.ensure_future(self.gone.wait())
        try:
            for ask in range(1, CLOSE_ASKS + 1):
                patience = CLOSE_WAIT_S * ask
                await asyncio.wait(
                    {closing, ended}, timeout=patience, return_when=asyncio.FIRST_COMPLETED
                )
                if closing.done() or self._page.is_closed():
                    break
                await self._close_again(patience)
            else:
                raise ProtocolError(
                    f"the tab at {self._page.url} did not close after {CLOSE_ASKS} asks"
                )
            if closing.done():
                closing.result()  # the close's own failure (translated) is the caller's
        finally:
            ended.cancel()
            if not closing.done():  # the tab ended: Playwright's wait for it is done with
                closing.cancel()
            self._cdp = None  # its sessions ended with the tab

    async def _close_once(self) -> None:
        with translate("closing the page"):
            await self._page.close()

    async def _close_again(self, patience: float) -> None:
        """Send the tab to another renderer, then ask Chromium to close it (see :meth:`close`)."""
        with contextlib.suppress(ProtocolError, PageCrashed, TimeoutError):
            target = await asyncio.wait_for(self.target_id(), patience)
            session = await self.session()
            # Each bounded: a tab that will not close may not answer either. A tab that
            # closed on the way (its dropped close heard after all) fails the ask: done.
            with contextlib.suppress(ProtocolError, PageCrashed, TimeoutError):
                await asyncio.wait_for(session.send("Page.navigate", {"url": _AWAY}), patience)
            await asyncio.wait_for(
                session.send("Target.closeTarget", {"targetId": target}), patience
            )
