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

from playwright.async_api import Page as PlaywrightPage

from pagesight.browser.runner import guarded
from pagesight.browser.services import TabServices
from pagesight.cdp import CdpSession, translate
from pagesight.errors import BrowserClosed, PageCrashed, ProtocolError
from pagesight.observe.capture import CdpChannel, Channel, EvaluateChannel, Raw, capture
from pagesight.observe.ids import TabIds
from pagesight.observe.observation import Mode
from pagesight.observe.readiness import stops_answering

T = TypeVar("T")
DOCUMENTS_KEPT = 256
"""Documents (pages and frames) a tab keeps the ids of: a page with hundreds of iframes keeps
its ids, a tab that browses for days does not keep every document's."""


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
        page.on("crash", self._on_crash)
        page.on("close", self._on_close)

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

    async def walk(self, mode: Mode, options: dict[str, bool]) -> Raw:
        """The walker's reading of the tab's documents (the main one and its frames)."""
        shown: set[str] = set()

        def walked(document: str, channel: Channel) -> None:
            if self.ids.closed:  # closed mid-walk: nothing of it is kept
                return
            shown.add(document)
            self._channels[document] = channel
            self._channels.move_to_end(document)

        try:
            try:
                return await capture(await self._channel(mode), options, walked)
            except ProtocolError:
                # A document replaced mid-walk (a navigation or reload) takes its execution
                # context with it; once the new document is parsed, one more walk reads it.
                if self.crashed or self._page.is_closed():
                    raise
                with translate("waiting for the new document"):
                    await self._page.wait_for_load_state("domcontentloaded", timeout=10_000)
                return await capture(await self._channel(mode), options, walked)
        finally:
            self._forget_past(shown)

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

    async def detach(self) -> None:
        """End pagesight's DevTools session on the tab, if it has one and the tab answers."""
        # A crashed or hung renderer may never answer a detach; closing ends its sessions anyway.
        answers = not (self.crashed or self.unresponsive or self._page.is_closed())
        if self._cdp is not None and answers:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._cdp.detach(), 5)
        self._cdp = None
