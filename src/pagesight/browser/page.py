"""AsyncPage: one tab, observed through the page-side walker."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Collection, Coroutine
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

from playwright.async_api import Page as PlaywrightPage

from pagesight.browser.cdp import CdpSession, translate
from pagesight.browser.readiness import NetworkWatch, wait_ready
from pagesight.errors import (
    InvalidOption,
    PageCrashed,
    PageUnresponsive,
    ProtocolError,
    StaleElement,
)
from pagesight.observe import passes
from pagesight.observe.budget import fit_tokens
from pagesight.observe.capture import CdpChannel, Channel, EvaluateChannel, Raw, capture
from pagesight.observe.ids import ElementLocation
from pagesight.observe.observation import Mode, Observation, View, check_options
from pagesight.observe.tree import build

if TYPE_CHECKING:
    from pagesight.browser.browser import AsyncBrowser

T = TypeVar("T")


class AsyncPage:
    """A browser tab. Get one from :meth:`AsyncBrowser.open` or :attr:`AsyncBrowser.pages`."""

    def __init__(self, browser: AsyncBrowser, page: PlaywrightPage) -> None:
        self._browser = browser
        self._page = page
        self._cdp: CdpSession | None = None
        self._network = NetworkWatch()
        self._network.attach(page)
        self._crashed = False
        self._gone = asyncio.Event()  # set when the renderer crashes or the page closes
        self._unresponsive = False  # a walk timed out: its renderer may never answer again
        # The channel of every document walked so far, by its token: ids resolve through them.
        self._channels: dict[str, Channel] = {}
        page.on("crash", self._on_crash)
        page.on("close", self._on_close)

    def _on_crash(self, _page: PlaywrightPage) -> None:
        self._crashed = True
        self._gone.set()

    def _on_close(self, _page: PlaywrightPage) -> None:
        self._gone.set()

    @property
    def playwright(self) -> PlaywrightPage:
        """The Playwright page underneath, for whatever pagesight does not cover."""
        return self._page

    @property
    def url(self) -> str:
        return self._page.url

    @property
    def closed(self) -> bool:
        return self._page.is_closed()

    async def title(self) -> str:
        with translate("reading the title"):
            return await self._page.title()

    async def observe(
        self,
        *,
        view: View = "full",
        include: Collection[str] = (),
        max_tokens: int | None = None,
        max_chars: int | None = None,
        focus: str | None = None,
        mode: Mode = "cdp",
        timeout: float = 30.0,
        wait: float = 5.0,
        since: Observation | None = None,
    ) -> Observation:
        """The page now, as a compact semantic tree and the elements that can be acted on.

        ``view="interactive"`` keeps only what can be acted on, each with the heading or group
        that tells it apart. ``include`` adds ``"bounds"`` and/or ``"href"`` to the text and JSON.
        ``max_tokens`` keeps every actionable element and cuts text to fit; ``max_chars`` cuts
        the text deterministically; ``focus`` keeps the part of the page relevant to a query.
        ``mode="evaluate"`` uses only Playwright's ``evaluate`` (no CDP). A page that does not
        answer within ``timeout`` seconds (a script hogging its thread) raises
        :class:`~pagesight.errors.PageUnresponsive`. Before reading, it waits up to ``wait``
        seconds for the document to be ready (see :meth:`wait_ready`); ``obs.ready`` says
        whether it was. A document that never settles costs that wait once, not every time.
        ``since=previous`` makes the text show only what changed among the elements since that
        observation (added, removed, changed), so a model can read a small delta.
        """
        check_options(
            view=view,
            include=include,
            mode=mode,
            max_tokens=max_tokens,
            max_chars=max_chars,
            timeout=timeout,
            wait=wait,
        )
        ready = await self._guarded(
            self._ready(wait, once_per_document=True, answer_within=timeout), wait + timeout
        )
        raw = await self._guarded(
            self._capture_once_or_twice(mode, {"href": "href" in include}), timeout
        )
        tree = passes.collapse(
            build(raw["tree"], doc=raw["doc"], frame=None, id_of=self._browser.ids.id_of)
        )
        if focus:
            tree = passes.focus(tree, focus)
        obs = Observation(
            url=raw["url"],
            title=raw["title"],
            ready=ready and bool(raw["loaded"]),
            mode=mode,
            tree=tree,
            elements=passes.elements(tree),
            view=view,
            include=frozenset(include),
            max_chars=max_chars,
            notes=(f"focused on {focus!r}: only the relevant part is shown",) if focus else (),
        )
        if since is not None:
            # Ids are per document: none shared means another document, nothing to compare.
            shared = {e.id for e in since.elements} & {e.id for e in obs.elements}
            same = bool(shared) or not (since.elements and obs.elements)
            changes = passes.diff(since.elements, obs.elements, same_document=same)
            obs = replace(obs, changes=changes)
        if max_tokens is not None:
            obs = fit_tokens(obs, max_tokens)
        return obs

    async def wait_ready(self, timeout: float = 10.0) -> bool:
        """Wait until the document is ready, at most ``timeout`` seconds; says whether it is.

        Ready means, all at once: the load event has fired, the network has been quiet for
        half a second (WebSockets, EventSource and requests pending over 3 s do not count),
        the DOM has not changed for 300 ms, and no short timer (a ``setTimeout`` of up to a
        second) set by the page is pending. Once ready, a document stays ready.
        """
        if timeout < 0:
            raise InvalidOption("timeout", f"timeout must not be negative, not {timeout}")
        try:
            waiting = self._ready(timeout, once_per_document=False, answer_within=5.0)
            return await self._guarded(waiting, timeout + 5)
        except PageUnresponsive:
            return False  # a page too busy to answer is not ready

    async def _ready(
        self, timeout: float, *, once_per_document: bool, answer_within: float
    ) -> bool:
        # Every look at the page starts here: a crashed or closed tab fails fast and plainly.
        if self._crashed:
            raise PageCrashed(f"the renderer of {self.url} crashed; open the page again")
        if self._page.is_closed():
            raise PageCrashed("the page is closed")
        return await wait_ready(
            self._page,
            self._network,
            timeout,
            once_per_document=once_per_document,
            answer_within=answer_within,
        )

    async def locate(self, element_id: int) -> ElementLocation:
        """Where an element id points now: the walker document that owns it and, in CDP mode,
        its backend node id (``None`` when only a page script was used).

        Raises :class:`~pagesight.errors.StaleElement` if the element is gone (removed, or its
        document replaced) or the id was never given out on this page.
        """
        ref = self._browser.ids.locate(element_id)
        channel = self._channels.get(ref.document) if ref is not None else None
        if ref is None or channel is None:
            raise StaleElement(f"no element [{element_id}] on this page; observe again")
        try:
            backend = await channel.resolve(ref.document, ref.local_id)
        except ProtocolError as exc:  # its document (and execution context) is gone
            raise StaleElement(f"element [{element_id}] is gone with its document") from exc
        if backend is None:
            raise StaleElement(
                f"element [{element_id}] was removed or its document replaced; observe again"
            )
        return ElementLocation(
            element_id=element_id, document=ref.document, backend_node_id=backend or None
        )

    async def _guarded(self, work: Coroutine[Any, Any, T], timeout: float) -> T:
        """Run ``work`` on the page, but never longer than ``timeout`` seconds nor past a
        crash: a renderer that crashes or hangs never answers, so the crash event or the
        timeout ends the wait."""
        task = asyncio.ensure_future(work)
        # If we stop waiting (timeout, crash, or our caller is cancelled), the task's own
        # ending is of no interest: take its outcome so asyncio does not report it.
        task.add_done_callback(lambda t: t.cancelled() or t.exception())
        gone = asyncio.ensure_future(self._gone.wait())
        try:
            await asyncio.wait({task, gone}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        finally:
            gone.cancel()
            finished = task.done()
            if not finished:
                task.cancel()
        if finished:
            return task.result()
        if self._gone.is_set():
            raise PageCrashed(f"the renderer of {self.url} crashed or the page closed")
        self._unresponsive = True
        raise PageUnresponsive(
            f"{self.url} did not answer within {timeout:g} s; a script may be keeping it busy"
        )

    async def _capture_once_or_twice(self, mode: Mode, options: dict[str, bool]) -> Raw:
        try:
            return await capture(await self._channel(mode), options, self._channels)
        except ProtocolError:
            # A document replaced mid-walk (a navigation or reload) takes its execution context
            # with it; once the new document is parsed, one more walk reads it.
            if self._crashed or self._page.is_closed():
                raise
            with translate("waiting for the new document"):
                await self._page.wait_for_load_state("domcontentloaded", timeout=10_000)
            return await capture(await self._channel(mode), options, self._channels)

    async def _channel(self, mode: Mode) -> Channel:
        if mode == "evaluate":
            return EvaluateChannel(self._page.main_frame)
        if self._cdp is None:
            self._cdp = await CdpSession.open(self._page.context, self._page)
        return CdpChannel(self._cdp)

    async def close(self) -> None:
        """Close the tab (and pagesight's sessions on it)."""
        # A crashed or hung renderer may never answer a detach; closing ends its sessions anyway.
        answers = not (self._crashed or self._unresponsive or self._page.is_closed())
        if self._cdp is not None and answers:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._cdp.detach(), 5)
        self._cdp = None
        if not self._page.is_closed():
            with translate("closing the page"):
                await self._page.close()
