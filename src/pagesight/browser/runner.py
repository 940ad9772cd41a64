"""The action runner: the one way every action on a tab is run and reported.

Observe, do, settle, observe again, and name the difference (:class:`ActionRunner`); and the
guard every look at the page goes through, so that a crashed or hung renderer ends the wait
(:func:`guarded`). The tab (:mod:`pagesight.browser.page`) owns one runner and hands it the
action on an element to do; the actions that need no element of the DOM, at a point of the
viewport or on something read off the screenshot, the runner performs itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import replace
from typing import Any, TypeVar

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page as PlaywrightPage

from pagesight.act import gestures
from pagesight.act.args import Args
from pagesight.act.coordinates import (
    Point,
    PointAction,
    check_inside,
    element_at,
    perform_at,
    viewport_of,
)
from pagesight.act.effect import Effect, NewTab, Seen, classify
from pagesight.act.events import Mark, PageEvents, save_downloads
from pagesight.act.perform import Performed
from pagesight.act.settle import document_token, settle
from pagesight.browser.refusals import TabTarget
from pagesight.browser.services import TabServices
from pagesight.cdp import translate
from pagesight.errors import (
    ActionError,
    InvalidOption,
    PagesightError,
    PageUnresponsive,
    StaleElement,
)
from pagesight.observe import passes
from pagesight.observe.observation import Observation
from pagesight.observe.readiness import NetworkWatch
from pagesight.vision.diff import diff_screens, inside
from pagesight.vision.screen import VISION_ACTIONS, Screen, VisionTarget

T = TypeVar("T")

Walk = Callable[[], Awaitable[tuple[Observation, str, int]]]
"""The page now, its main document's token and its count of stopped submits."""
Ready = Callable[..., Awaitable[bool]]
"""Wait for the page to be ready: ``ready(timeout, once_per_document=, answer_within=)``."""


async def guarded(
    work: Coroutine[Any, Any, T],
    timeout: float,
    *,
    gone: asyncio.Event,
    failure: Callable[[], PagesightError | None],
    url: str,
    hung: Coroutine[Any, Any, PageUnresponsive] | None = None,
) -> T:
    """Run ``work`` on the page, but never longer than ``timeout`` seconds nor past a crash:
    a renderer that crashes or hangs never answers, so the ``gone`` event (set on a crash or
    a close), ``hung`` (a watch that returns once the page stops answering, see
    :func:`~pagesight.observe.readiness.stops_answering`) or the timeout ends the wait. Then
    ``failure()`` says what went, if anything; else the page at ``url`` is
    :class:`~pagesight.errors.PageUnresponsive`."""
    task = asyncio.ensure_future(work)
    # If we stop waiting (timeout, crash, or our caller is cancelled), the task's own
    # ending is of no interest: take its outcome so asyncio does not report it.
    task.add_done_callback(lambda t: t.cancelled() or t.exception())
    ended = asyncio.ensure_future(gone.wait())
    watch = asyncio.ensure_future(hung) if hung is not None else None
    try:
        waits = {task, ended} if watch is None else {task, ended, watch}
        await asyncio.wait(waits, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:
        ended.cancel()
        finished = task.done()
        if not finished:
            task.cancel()
        stopped = watch is not None and watch.done() and not watch.cancelled()
        if watch is not None and not stopped:
            watch.cancel()
    if finished:
        return task.result()
    went = failure()
    if went is not None:
        raise went
    if stopped and watch is not None:
        raise watch.result()
    raise PageUnresponsive(
        f"{url} did not answer within {timeout:g} s; a script may be keeping it busy"
    )


class ActionRunner:
    """Runs the actions of one tab. Made by the tab, with the parts of it an action needs."""

    def __init__(
        self,
        *,
        services: TabServices,
        page: PlaywrightPage,
        tab: TabTarget,
        network: NetworkWatch,
        events: PageEvents,
        screen: Screen,
        walk: Walk,
        ready: Ready,
    ) -> None:
        self._services = services
        self._page = page
        self._tab = tab
        self._network = network
        self._events = events
        self._screen = screen
        self._walk = walk
        self._ready = ready

    async def run_at(
        self,
        action: PointAction,
        point: Point,
        to: Point | None,
        args: Args,
        *,
        wait: float,
        timeout: float,
        screen: bool = False,
    ) -> Effect:
        """An action at a point of the viewport (see :mod:`pagesight.act.coordinates`), once
        the page is ready and the point is known to be in view; ``screen`` as for :meth:`run`."""
        await self._ready(wait, once_per_document=True, answer_within=timeout)
        with translate("reading the viewport"):
            viewport = await viewport_of(self._page)
        check_inside("x, y", point, viewport)
        if to is not None:
            check_inside("to", to, viewport)

        async def do() -> Performed:
            with translate(action):
                return await perform_at(self._page, action, point, to, args)

        middle = action == "click" and args.button == "middle"
        return await self.run(
            action, None, do, timeout=timeout, screen=screen, unowned_tabs=middle, at=point
        )

    async def run_on_screen(
        self, element_id: int, spot: VisionTarget, action: str, args: Args, *, timeout: float
    ) -> Effect:
        """An action on something read off the screenshot: trusted input at the centre of its
        box; the Effect adds what changed on screen to what the DOM side saw."""
        if action not in VISION_ACTIONS:
            raise ActionError(
                "unsupported_action",
                f"[{element_id}] was read off the screen; it takes {', '.join(VISION_ACTIONS)}",
                element_id=element_id,
                actions=VISION_ACTIONS,
            )
        if spot.document is not None and await document_token(self._page) != spot.document:
            raise StaleElement(
                f"[{element_id}] was read off an earlier page; observe again",
                element_id=element_id,
            )
        if action == "scroll" and args.direction is None:
            raise InvalidOption(
                "direction",
                f"[{element_id}] was read off the screen, which is already in view: give "
                "direction= (up, down, left, right) to scroll what is under it",
            )
        x, y = spot.centre(await self._screen.scroll())  # the page may have scrolled since
        keyboard = self._page.keyboard

        async def do() -> Performed | None:
            if action == "scroll" and args.direction is not None:
                moved = await self._screen.scroll_at((x, y), args.direction, args.pixels)
                return Performed(scrolled=moved)
            with translate(action):
                if action == "hover":
                    await self._page.mouse.move(x, y)
                    return None
                if action == "click":
                    await gestures.click(self._page.mouse, x, y, args)
                    return None
                await self._page.mouse.click(x, y)  # input and keys go where a click puts focus
                if action in ("input", "input_submit") and args.text is not None:
                    await keyboard.type(args.text)  # key by key: a canvas app listens for keys
                if action == "press_key" and args.key is not None:
                    await keyboard.press(args.key)
            return None

        middle = action == "click" and args.button == "middle"
        return await self.run(
            action, element_id, do, timeout=timeout, screen=True, unowned_tabs=middle
        )

    async def run(
        self,
        action: str,
        element_id: int | None,
        do: Callable[[], Awaitable[Performed | None]],
        *,
        wait: float = 0.0,
        timeout: float,
        check: Callable[[Observation], None] | None = None,
        screen: bool = False,
        restyled: Callable[[], Awaitable[tuple[str, ...]]] | None = None,
        unowned_tabs: bool = False,
        at: Point | None = None,
    ) -> Effect:
        """Observe, do, settle, observe again, and name the difference: the one way every
        action (and navigate, back) is run and reported. With ``screen``, screenshots before
        and after say what changed on screen too; ``restyled`` says which elements near the
        one acted on look different after it. With ``unowned_tabs`` (a middle click), tabs
        opened meanwhile without an opener count as this tab's: a link opened in a new tab
        has none. With ``at`` (an action at a point), the element there is the one acted on."""
        started = time.monotonic()
        if wait:
            await self._ready(wait, once_per_document=True, answer_within=timeout)
        before, doc_before, invalid_before = await self._walk()
        if at is not None:
            element_id = element_at(before, at)
        if check is not None:
            check(before)
        shot = await self._screen.shot() if screen else None
        with translate("claiming the download folder"):
            await self._services.artifacts.claim()  # another client may have moved it
        mark = self._events.mark()
        refusals = self._services.refusals.mark()
        url_before = self._page.url
        target_id = await self._tab.target_id()
        context_id = await self._tab.context_id() if unowned_tabs else None
        opened = self._services.openings.by(target_id, context_id)
        since = time.monotonic()
        catch = context_id is not None
        with self._events.tabs_without_opener(self._page, catch=catch), self._events.action():
            done = await do() or Performed()
            settled = await settle(
                self._page,
                self._network,
                since=since,
                done=time.monotonic(),
                document=doc_before,
                timeout=timeout,
            )
            tabs = self._services.openings.by(target_id, context_id) - opened
            seen = await self.seen(mark, done.scrolled, tabs=tabs, deadline=since + timeout)
        moved = await done.moved() if done.moved is not None else None
        refused, closed = await self._services.refusals.since(
            refusals, self._tab, unowned=context_id is not None
        )
        if closed and seen.new_tabs:
            seen = replace(seen, new_tabs=await self._open_tabs(seen.new_tabs, closed))
        seen = replace(seen, files=done.files, moved=moved, errors=done.errors, refused=refused)
        if restyled is not None:
            seen = replace(seen, restyled=await restyled())
        now, moving = await self._screen.settled_shot() if shot is not None else (None, None)
        if shot is not None and now is not None:
            change = await asyncio.to_thread(diff_screens, shot.png, now.png, scale=now.scale)
            if change is not None and moving is not None and inside(change, moving):
                change = None  # only what animates on its own (a spinner) changed
            seen = replace(seen, screen=change)
        after, doc_after, invalid_after = await self._walk()
        # Only what may submit a form: a page checking its form as the person types
        # (checkValidity on input) fires invalid events too, with nothing stopped.
        submits = action in ("click", "press_key", "input_submit")
        if submits and doc_after == doc_before and invalid_after > invalid_before:
            seen = replace(seen, validation_stopped=True)
        changes = passes.diff(
            before.elements, after.elements, same_document=doc_after == doc_before
        )
        after = replace(after, ready=settled.ready and after.ready, changes=changes)
        effect = classify(
            action=action,
            element_id=element_id,
            before=before,
            after=after,
            changes=changes,
            seen=seen,
            url_before=url_before,
            ready=settled.ready,
            elapsed=time.monotonic() - started,
        )
        if now is None:
            return effect
        # Acted on what was read off the screen: the page after it is read the same way.
        seen_after = await self._screen.observe(
            url=after.url,
            title=after.title,
            ready=settled.ready,
            document=doc_after,
            ocr=self._services.ocr(),
            captioner=self._services.vision_model,
            shot=now,
        )
        return replace(effect, observation=seen_after)

    async def _open_tabs(
        self, new_tabs: tuple[NewTab, ...], closed: frozenset[str]
    ) -> tuple[NewTab, ...]:
        """``new_tabs`` less those the origin policy closed: a tab opened blank shows, and is
        handed out, before the script moving it on is refused and the tab closed."""
        open_tabs = self._services.open_tabs()
        kept = []
        for new_tab in new_tabs:
            tab = open_tabs.get(new_tab.id)
            # A tab closing as it is asked for is not kept either.
            with contextlib.suppress(PagesightError, PlaywrightError):
                if tab is not None and await tab.target_id() not in closed:
                    kept.append(new_tab)
        return tuple(kept)

    async def seen(
        self, mark: Mark, scrolled: tuple[int, int] | None, *, tabs: int, deadline: float
    ) -> Seen:
        """The dialogs, downloads and the ``tabs`` new tabs that arrived since ``mark``."""
        events = self._events
        while len(events.popups) - mark.popups < tabs and time.monotonic() < deadline:
            await asyncio.sleep(0.025)  # Playwright announces a tab once its page commits
        timeout = max(deadline - time.monotonic(), 0.1)
        downloads = await save_downloads(
            events.downloads[mark.downloads :], self._services.downloads
        )
        new_tabs = []
        for popup in events.popups[mark.popups :]:
            # A new tab's first document commits a moment after the tab appears.
            with contextlib.suppress(PlaywrightError):
                await popup.wait_for_load_state("domcontentloaded", timeout=timeout * 1000)
            if popup.is_closed():  # gone at once (the origin policy refused it): no tab to use
                continue
            await self._services.fit(popup)  # its page has the viewport before it is handed out
            new_tabs.append(NewTab(id=self._services.tab_id(popup), url=popup.url))
        return Seen(
            new_tabs=tuple(new_tabs),
            downloads=downloads,
            dialogs=tuple(events.dialogs[mark.dialogs :]),
            scrolled=scrolled,
        )
