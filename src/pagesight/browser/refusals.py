"""Refusals: the browser's origin policy as a tab's calls meet it.

Chromium itself refuses what the policy does not allow (:mod:`pagesight.guard.interception`);
this says so to the tab whose call it was: a navigation refused on the way raises
:class:`~pagesight.errors.OriginNotAllowed`, an action reports the documents refused because
of it, and an observation notes the tab's other requests refused since the last one. A tab
is known here only by its DevTools ids and session (:class:`TabTarget`), never as a page.
"""

from __future__ import annotations

import contextlib
from collections.abc import Coroutine
from typing import Any, Protocol

from playwright.async_api import Page as PlaywrightPage

from pagesight.act.navigation import WaitUntil, goto
from pagesight.cdp import CdpSession, translate
from pagesight.errors import PagesightError
from pagesight.guard.interception import RequestGuard
from pagesight.guard.origins import OriginPolicy, Refused


class TabTarget(Protocol):
    """A tab as DevTools knows it (:class:`~pagesight.browser.tab.Tab` is one)."""

    async def target_id(self) -> str: ...

    async def context_id(self) -> str: ...

    async def session(self) -> CdpSession: ...


class Refusals:
    """What the origin ``policy`` refused, for each tab's calls; ``guard`` is the browser's
    request guard (``None``: the policy restricts no network request, so nothing is
    refused on the way and only the checks before a call apply)."""

    def __init__(self, policy: OriginPolicy, guard: RequestGuard | None) -> None:
        self.policy = policy
        self._guard = guard
        self._requests_seen: dict[TabTarget, int] = {}
        """Per tab, where the log of refused requests stood at its last observation."""

    async def goto(
        self,
        tab: TabTarget,
        pw_page: PlaywrightPage,
        url: str,
        *,
        wait_until: WaitUntil,
        timeout: float,
    ) -> None:
        """Load ``url`` in ``tab`` (whose Playwright page is ``pw_page``; see
        :func:`~pagesight.act.navigation.goto`); a navigation the origin policy refused on
        the way (a redirect) raises :class:`~pagesight.errors.OriginNotAllowed`."""
        loading = goto(pw_page, url, wait_until=wait_until, timeout=timeout)
        await self._refused_as_error(tab, loading)

    async def go_back(self, tab: TabTarget, pw_page: PlaywrightPage, *, timeout: float) -> None:
        """Go back one entry in ``tab``'s history; a navigation the origin policy refused on
        the way (the entry's server now redirects elsewhere) raises
        :class:`~pagesight.errors.OriginNotAllowed`."""

        async def go() -> None:
            with translate("going back"):
                await pw_page.go_back(wait_until="commit", timeout=timeout * 1000)

        await self._refused_as_error(tab, go())

    async def _refused_as_error(
        self, tab: TabTarget, navigation: Coroutine[Any, Any, None]
    ) -> None:
        """Run ``navigation``; when it fails because the guard refused a document of this
        tab (Chromium abandons the navigation), raise OriginNotAllowed instead."""
        if self._guard is None:
            await navigation
            return
        try:
            target = await tab.target_id()  # asked now: the tab may not outlive it
        except BaseException:
            navigation.close()
            raise
        mark = self._guard.mark()
        try:
            await navigation
        except PagesightError as exc:
            refusals = await self._guard.since(mark)
            refused = next((r.refused for r in refusals if r.tab == target), None)
            if refused is None:
                raise
            raise self.policy.refusal(refused.url) from exc

    async def check_history(self, tab: TabTarget, step: int) -> None:
        """Raise :class:`~pagesight.errors.OriginNotAllowed` before ``tab`` goes ``step``
        entries through its history to a URL the origin policy refuses. Only an attached
        browser's tabs can hold one (a launched browser never loaded it): a page restored
        from the back-forward cache loads nothing, so the guard would never see it."""
        if self._guard is None and self.policy.file_access:
            return  # no policy: no look at the history
        with translate("reading the tab's history"):
            history = await (await tab.session()).send("Page.getNavigationHistory")
        index = history["currentIndex"] + step
        if 0 <= index < len(history["entries"]):
            self.policy.check(history["entries"][index]["url"])

    def mark(self) -> int:
        """Where the log of refused documents stands now (for :meth:`since`)."""
        return self._guard.mark() if self._guard is not None else 0

    async def since(
        self, mark: int, tab: TabTarget, *, unowned: bool
    ) -> tuple[tuple[Refused, ...], frozenset[str]]:
        """What the origin policy refused for ``tab`` since ``mark``: its own navigations,
        the tabs it opened, its iframes' documents (those its own frame tree holds: a frame
        inside an out-of-process iframe is refused all the same, but not reported); with
        ``unowned`` (a middle click), tabs opened without an opener too. Beside them, the
        target ids of the tabs it closed (opened blank, then sent to a refused origin: such a
        tab may have been seen before it was refused)."""
        if self._guard is None:
            return (), frozenset()
        refusals = await self._guard.since(mark)
        if not refusals:
            return (), frozenset()
        target = await tab.target_id()
        frames: set[str] = set()
        if any(r.refused.kind == "frame" for r in refusals):
            # A tab gone meanwhile has no frames to report; the action says it is gone.
            with contextlib.suppress(PagesightError):
                tree = await (await tab.session()).send("Page.getFrameTree")
                frames = _frame_ids(tree["frameTree"])
        context = await tab.context_id() if unowned else None
        own = [
            r
            for r in refusals
            if (r.refused.kind == "navigation" and r.tab == target)
            or (r.refused.kind == "new_tab" and r.opener == target)
            or (unowned and r.refused.kind == "new_tab" and not r.opener and r.context == context)
            or (r.refused.kind == "frame" and r.frame in frames)
        ]
        closed = frozenset(r.frame for r in own if r.refused.kind == "new_tab")
        return tuple(r.refused for r in own), closed

    async def requests_note(self, tab: TabTarget) -> str | None:
        """The note an observation of ``tab`` carries when the origin policy refused
        requests of its documents (or their dedicated workers) since its last observation:
        ``"3 requests refused by the origin policy"``."""
        if self._guard is None:
            return None
        await self._guard.settled()
        mark = self._requests_seen.get(tab, 0)
        now = self._requests_seen[tab] = self._guard.requests_mark()
        if now == mark:
            return None
        frames: set[str] = set()
        # A tab gone meanwhile has no frames to count; the observation says it is gone.
        with contextlib.suppress(PagesightError):
            tree = await (await tab.session()).send("Page.getFrameTree")
            frames = _frame_ids(tree["frameTree"])
        count = self._guard.requests_between(mark, now, frames)
        if not count:
            return None
        return f"{count} request{'s' if count > 1 else ''} refused by the origin policy"


def _frame_ids(tree: dict[str, Any]) -> set[str]:
    """Every frame id of a ``Page.getFrameTree`` answer."""
    ids = {tree["frame"]["id"]}
    for child in tree.get("childFrames", ()):
        ids |= _frame_ids(child)
    return ids
