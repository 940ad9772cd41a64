"""AsyncPage: one tab, observed through the page-side walker."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Collection, Coroutine, Iterable, Sequence
from dataclasses import replace
from typing import Any, Unpack

from playwright.async_api import ElementHandle
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page as PlaywrightPage

from pagesight.act import looks
from pagesight.act.args import ActOptions, Args, check_args
from pagesight.act.batch import BatchResult, parse_steps, run_batch
from pagesight.act.coordinates import check_point_action
from pagesight.act.effect import Effect
from pagesight.act.events import (
    DOWNLOAD_TIMEOUT_S,
    DialogPolicy,
    PageEvents,
)
from pagesight.act.navigation import normalise_url, server_silent, stop_loading
from pagesight.act.perform import (
    POINTER_ACTIONS,
    Performed,
    describe,
    drop_refusal,
    perform,
    refusal,
    still_connected,
)
from pagesight.act.pointer import look, look_in_place, to_top
from pagesight.act.resolve import Resolver
from pagesight.browser.risk_facts import facts_at, facts_of
from pagesight.browser.runner import ActionRunner
from pagesight.browser.services import TabServices
from pagesight.browser.tab import WALK_S, Tab
from pagesight.cdp import translate
from pagesight.errors import (
    ActionError,
    InvalidOption,
    NavigationError,
    PageCrashed,
    PageUnresponsive,
    ProtocolError,
    StaleElement,
    check_seconds,
    first_line,
)
from pagesight.guard.risk import ElementFacts
from pagesight.observe import passes
from pagesight.observe.blind import offers_something
from pagesight.observe.budget import fit_tokens
from pagesight.observe.elements import Element
from pagesight.observe.find import Match, check_query
from pagesight.observe.ids import ElementLocation
from pagesight.observe.observation import (
    Mode,
    Observation,
    ObserveMode,
    View,
    check_options,
    check_times,
)
from pagesight.observe.readiness import NetworkWatch, ask, wait_ready
from pagesight.observe.tree import build
from pagesight.vision.screen import Capture, Screen

ACT_WAIT_S = 5.0
"""How long an action waits by default for the page to be ready before it."""
ACT_TIMEOUT_S = 10.0
"""How long an action waits by default for the page to settle after it."""
_SLACK_S = 10.0
"""Room on top of an action's own waits before the page is deemed unresponsive."""
_OCR_S = 60.0
"""Room for reading a screenshot (OCR, a model's caption) on top of the page's own time."""


class AsyncPage:
    """A browser tab. Get one from :meth:`AsyncBrowser.open` or :attr:`AsyncBrowser.pages`."""

    def __init__(self, services: TabServices, page: PlaywrightPage, tab_id: int) -> None:
        self._services = services
        self._page = page
        self._id = tab_id
        self._dialogs: DialogPolicy = services.dialogs
        self._tab = Tab(services, page)
        self._network = NetworkWatch()
        self._network.watch(self._tab.session)  # on the tab's own session, once first needed
        self._events = PageEvents(policy=lambda: self._dialogs)
        self._events.attach(page)
        self._resolver = Resolver(page, services.ids)
        self._screen = Screen(page, services.ids, self._tab.session)
        self._runner = ActionRunner(
            services=services,
            page=page,
            tab=self._tab,
            network=self._network,
            events=self._events,
            screen=self._screen,
            walk=self._walk,
            ready=self._ready,
        )
        self._dom_empty = 0  # DOM observations in a row with nothing to act on by name
        self._dom_empty_doc: str | None = None  # ... of this document
        self._on_screen = False  # the page was last read off the screen (a vision reading)

    @property
    def id(self) -> int:
        """This tab's number in the session (``browser.page(id)``; ``Effect.new_tabs``)."""
        return self._id

    @property
    def dialogs(self) -> DialogPolicy:
        """How this tab answers JavaScript dialogs; assign a new policy to change it."""
        return self._dialogs

    @dialogs.setter
    def dialogs(self, policy: DialogPolicy) -> None:
        if not isinstance(policy, DialogPolicy):
            raise InvalidOption("dialogs", f"dialogs takes a DialogPolicy, not {policy!r}")
        self._dialogs = policy

    async def answer_next_dialog(
        self,
        *,
        accept: bool,
        prompt_text: str | None = None,
        prompt_check: Callable[[tuple[str, ...]], None] | None = None,
    ) -> None:
        """Answer the JavaScript dialogs of this tab's next action (a batch is one): each it
        opens (a confirm and its "Really?") is ``accept``-ed, a ``prompt()`` given
        ``prompt_text`` (by default the policy's) once ``prompt_check``, if any, called with
        the URLs of the tab's frames, raises no InputError (else it is dismissed: where a
        secret may go); then the answer lapses, dialog or not, and :attr:`dialogs` answers
        again. A dialog of no action before then (a timer's) takes it. Call this first."""
        if not isinstance(accept, bool):
            raise InvalidOption("accept", f"accept must be True or False, not {accept!r}")
        if prompt_text is not None and not isinstance(prompt_text, str):
            raise InvalidOption("prompt_text", f"prompt_text must be a str, not {prompt_text!r}")
        self._events.next_answer = (accept, prompt_text)
        self._events.prompt_check = prompt_check

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

    @property
    def crashed(self) -> bool:
        """Whether the tab's renderer crashed (the tab stays open, showing nothing)."""
        return self._tab.crashed

    async def title(self) -> str:
        # A crashed tab still answers with an empty title: say it crashed instead.
        gone = self._tab.gone_error()
        if gone is not None:
            raise gone
        try:
            with translate("reading the title"):
                return await self._page.title()
        except PageCrashed as exc:
            gone = self._tab.gone_error()  # the message that says what went: tab or browser
            if gone is None:
                raise
            raise gone from exc

    async def observe(
        self,
        *,
        view: View = "full",
        include: Collection[str] = (),
        max_tokens: int | None = None,
        max_chars: int | None = None,
        focus: str | None = None,
        mode: ObserveMode = "auto",
        timeout: float = 30.0,
        wait: float = 5.0,
        since: Observation | None = None,
        dom_empty_threshold: int = 2,
    ) -> Observation:
        """The page now, as a compact semantic tree and the elements that can be acted on.

        ``view="interactive"`` keeps only what can be acted on, each with the heading or group
        that tells it apart. ``include`` adds ``"bounds"`` and/or ``"href"`` to the text and JSON.
        ``max_tokens`` keeps every actionable element and cuts text to fit; ``max_chars`` cuts
        the text deterministically; ``focus`` keeps the part of the page relevant to a query.
        ``mode="auto"`` (the default) reads the DOM over CDP; after ``dom_empty_threshold``
        observations in a row whose DOM offers neither a control to act on by name nor text
        to read (a canvas app), it reads the screenshot instead (``obs.mode == "vision"``),
        until the DOM offers something again. ``mode="cdp"`` always reads the DOM,
        ``mode="vision"`` always the screenshot (OCR, and a vision model's caption when the
        browser has one).
        ``mode="evaluate"`` uses only Playwright's ``evaluate`` (no CDP). A page that does not
        answer within ``timeout`` seconds (a script hogging its thread) raises
        :class:`~pagesight.errors.PageUnresponsive`. Before reading, it waits up to ``wait``
        seconds for the document to be ready (see :meth:`wait_ready`); ``obs.ready`` says
        whether it was. That wait and the reading share ``timeout``: a page that keeps
        replacing its document raises :class:`~pagesight.errors.NavigationError` once it is
        spent. A document that never settles costs that wait once, not every time.
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
        if isinstance(dom_empty_threshold, bool) or not isinstance(dom_empty_threshold, int):
            raise InvalidOption("dom_empty_threshold", "dom_empty_threshold must be an int")
        if dom_empty_threshold < 0:
            raise InvalidOption("dom_empty_threshold", "dom_empty_threshold must not be negative")
        # One budget for the whole observation: the readiness wait and the walk's retries
        # (a page replacing its document) share ``timeout``, not each its own.
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        settle = min(wait, timeout)
        ready = await self._tab.guarded(
            self._ready(settle, once_per_document=True, answer_within=timeout), settle + timeout
        )
        reading = self._read(
            mode,
            href="href" in include,
            selector="selector" in include,
            focus=focus,
            threshold=dom_empty_threshold,
            within=max(0.0, deadline - loop.time()),
        )
        # OCR of a large screenshot takes seconds on a slow machine: not the page's fault.
        obs = await self._tab.guarded(reading, timeout + (_OCR_S if mode != "cdp" else 0))
        obs = replace(
            obs,
            ready=ready and obs.ready,
            view=view,
            include=frozenset(include),
            max_chars=max_chars,
        )
        refused = await self._services.refusals.requests_note(self._tab)
        if refused is not None:
            obs = replace(obs, notes=(*obs.notes, refused))
        if since is not None:
            obs = passes.changes_since(obs, since)
        if max_tokens is not None:
            obs = fit_tokens(obs, max_tokens)
        self._on_screen = obs.mode == "vision"
        return obs

    async def _read(
        self,
        mode: ObserveMode,
        *,
        href: bool,
        selector: bool,
        focus: str | None,
        threshold: int,
        within: float,
    ) -> Observation:
        """One observation in ``mode``; ``auto`` decides between the DOM and the screen. The
        walk tries for ``within`` seconds while the page replaces its document."""
        if mode == "vision":
            # A walk first: it is cheap beside OCR, and names the document the ids belong to.
            _dom, doc = await self._snapshot("cdp", within=within)
            return await self._read_screen(document=doc)
        obs, doc = await self._snapshot(
            "evaluate" if mode == "evaluate" else "cdp",
            href=href,
            selector=selector,
            within=within,
        )
        if mode == "auto":
            if doc != self._dom_empty_doc:  # a new document starts the count again
                self._dom_empty, self._dom_empty_doc = 0, doc
            # Judged on the whole page: a focus that matched nothing does not make it empty.
            if offers_something(obs):
                self._dom_empty = 0
            elif self._dom_empty >= threshold:
                return await self._read_screen(document=doc)
            else:
                self._dom_empty += 1
        return passes.focused(obs, focus) if focus else obs

    async def _read_screen(self, *, document: str | None) -> Observation:
        with translate("reading the title"):
            title = await self._page.title()
        return await self._screen.observe(
            url=self._page.url,
            title=title,
            ready=True,
            document=document,
            ocr=self._services.ocr(),
            captioner=self._services.vision_model,
        )

    async def screenshot(
        self, *, marks: bool = False, observation: Observation | None = None
    ) -> bytes:
        """The viewport as a PNG. With ``marks``, each element of ``observation`` (by default
        a fresh one) in view gets a dashed box coloured by kind and a badge with its id just
        left of its first line of text, covering no text on the page, drawn over the
        screenshot (the page is only read, never changed)."""
        if not marks:
            return (await self._tab.guarded(self._screen.shot(), _SLACK_S)).png
        obs = observation or await self.observe()
        return await self._tab.guarded(self._screen.marked(obs.elements), _SLACK_S + _OCR_S)

    async def capture(self, *, hide: Sequence[str] = ()) -> Capture:
        """The viewport now, to be marked later: ``capture.marked(elements)`` (blocking; run
        it in a thread) draws :meth:`screenshot`'s marks on it while the page goes on.
        ``hide``: texts (secret values) whose boxes on the page, wherever and in whatever
        case they show, ``capture.hidden`` holds, to be painted over."""
        return await self._tab.guarded(self._screen.capture(hide=hide), _SLACK_S)

    async def _snapshot(
        self,
        mode: Mode = "cdp",
        *,
        href: bool = False,
        selector: bool = False,
        within: float = WALK_S,
    ) -> tuple[Observation, str]:
        """The page now (no waiting), and the walker token of its main document."""
        obs, doc, _invalid = await self._walk(mode, href=href, selector=selector, within=within)
        return obs, doc

    async def _walk(
        self,
        mode: Mode = "cdp",
        *,
        href: bool = False,
        selector: bool = False,
        within: float = WALK_S,
    ) -> tuple[Observation, str, int]:
        """:meth:`_snapshot`, and how many times the browser's own form validation stopped a
        submit in the documents walked (their ``invalid`` events so far)."""
        options = {"href": href, "selector": selector}
        raw = await self._tab.walk(mode, options, within=within)
        tree = passes.collapse(
            build(raw["tree"], doc=raw["doc"], frame=None, id_of=self._tab.ids.id_of)
        )
        obs = Observation(
            url=raw["url"],
            title=raw["title"],
            ready=bool(raw["loaded"]),
            mode=mode,
            tree=tree,
            elements=passes.elements(tree),
        )
        return obs, raw["doc"], int(raw.get("iv", 0))

    async def wait_ready(self, timeout: float = 10.0) -> bool:
        """Wait until the document is ready, at most ``timeout`` seconds; says whether it is.

        Ready means, all at once: the load event has fired, the network has been quiet for
        0.3 s (0.5 s where pagesight cannot count the page's timers; WebSockets, EventSource,
        requests pending over 3 s, beacons and a page's steady polling do not count), the DOM
        has not changed for 300 ms (but for a node rewritten at a steady beat), no short
        timer (a ``setTimeout`` of up to a second) set by the page is pending, and no request
        its scripts wait on (a ``fetch``, the body it reads, an XHR) is unanswered. Once
        ready, a document stays ready.
        """
        if timeout < 0:
            raise InvalidOption("timeout", f"timeout must not be negative, not {timeout}")
        try:
            waiting = self._ready(timeout, once_per_document=False, answer_within=5.0)
            return await self._tab.guarded(waiting, timeout + 5)
        except PageUnresponsive:
            return False  # a page too busy to answer is not ready

    async def answers(self, within: float = 2.0) -> bool:
        """Whether the page runs a script within ``within`` seconds: after a call that raised
        :class:`~pagesight.errors.PageUnresponsive` (a script that never yields), a cheap
        question before the tab is used again. A crashed or closed tab does not answer."""
        check_seconds("within", within)
        if self._tab.gone_error() is not None:
            return False
        try:
            await ask(self._page, "0", within)
        except (PageUnresponsive, PageCrashed, ProtocolError):
            return False
        return True

    async def _ready(
        self, timeout: float, *, once_per_document: bool, answer_within: float
    ) -> bool:
        # Every look at the page starts here: a crashed or closed tab fails fast and plainly.
        gone = self._tab.gone_error()
        if gone is not None:
            raise gone
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
        # A closed tab forgets its ids: without this its ids would say "observe again",
        # where observing says the tab is gone.
        gone = self._tab.gone_error()
        if gone is not None:
            raise gone
        ref = self._services.ids.locate(element_id)
        channel = self._tab.channel_of(ref.document) if ref is not None else None
        if ref is None or channel is None:
            raise StaleElement(f"no element [{element_id}] on this page; observe again")
        try:
            # Guarded: a crashed renderer never answers the DevTools call.
            backend = await self._tab.guarded(channel.resolve(ref.document, ref.local_id), _SLACK_S)
        except ProtocolError as exc:  # its document (and execution context) is gone
            raise StaleElement(f"element [{element_id}] is gone with its document") from exc
        if backend is None:
            raise StaleElement(
                f"element [{element_id}] was removed or its document replaced; observe again"
            )
        return ElementLocation(
            element_id=element_id, document=ref.document, backend_node_id=backend or None
        )

    async def frame_url(self, element_id: int) -> str:
        """The URL of the frame whose document holds element ``element_id`` now, as the
        browser committed it (a page script cannot forge it; ``about:srcdoc`` for a frame
        written in place): its origin is where text typed into the element goes. Raises
        :class:`~pagesight.errors.StaleElement` if the element is gone."""
        handle = await self._resolver.element(element_id)
        try:
            frame = await self._tab.guarded(handle.owner_frame(), _SLACK_S)
        finally:
            with contextlib.suppress(PlaywrightError):  # a page gone takes its handles along
                await handle.dispose()
        if frame is None:
            raise StaleElement(f"element [{element_id}] is gone with its frame; observe again")
        return frame.url

    async def risk_facts(self, element_id: int | None) -> ElementFacts | None:
        """What the confirm rules (:mod:`pagesight.guard.risk`) judge element
        ``element_id`` by, read from the live page now: its names, whether it is its form's
        submit button, the form's fields and the button Enter in one of them presses.
        ``element_id=None`` reads the top document's focused element (where a key sent to no
        element goes); ``None`` when nothing has focus. An element that is gone raises
        :class:`~pagesight.errors.StaleElement`, a tab that is gone
        :class:`~pagesight.errors.PageCrashed`."""
        with translate("reading the element for the confirm rules"):
            if element_id is None:
                focused = await self._page.evaluate_handle("document.activeElement")
                handle = focused.as_element()
                if handle is None:
                    return None
            else:
                handle = await self._resolver.element(element_id)
            return await facts_of(handle)

    async def risk_facts_at(self, x: float, y: float) -> ElementFacts | None:
        """:meth:`risk_facts` of the element a click at ``(x, y)`` (CSS px of the viewport)
        lands on, through frames of any origin; ``None`` over nothing."""
        with translate("reading the element at a point for the confirm rules"):
            return await facts_at(self._page.main_frame, x, y)

    async def find(self, query: str, *, top: int = 5) -> list[Match]:
        """The ``top`` elements of the page now that best match ``query`` ("搜索框", "the Save
        button"), best first: each :class:`~pagesight.observe.find.Match` holds the element, its
        score, a CSS selector that matches it alone (with the iframes and shadow hosts to pass
        first) and a one-line description. Observes the page once; see
        :meth:`Observation.find` to search an observation you already have.
        """
        check_query(query, top)  # a bad query fails before the page is touched
        obs = await self.observe(include={"selector"}, mode="cdp")  # selectors live in the DOM
        return obs.find(query, top=top)

    async def act(
        self,
        element_id: int | None,
        action: str,
        *,
        wait: float = ACT_WAIT_S,
        timeout: float = ACT_TIMEOUT_S,
        **options: Unpack[ActOptions],
    ) -> Effect:
        """Act on element ``element_id`` of an observation and report what that changed.

        ``action`` is ``click`` (``count=2`` for a double click, ``button="right"`` or
        ``"middle"``, ``hold=SECONDS`` to press and hold), ``hover``, ``input`` (``text=``;
        replaces the value, or adds to it with ``append=True``; typed key by key when the
        field or an element around it listens for keys, or with ``keys=True``; a date or time
        input takes its own format or a human one, such as ``05/01/2025`` or ``1:45 pm``),
        ``input_submit`` (input, then Enter), ``press_key`` (``key="Enter"``,
        ``"Control+A"``; ``element_id=None`` sends it to whatever has focus), ``select``
        (``values=`` one or several labels or values, for a native select or an ARIA combobox
        or listbox), ``scroll`` (``direction=`` up/down/left/right by a screen or ``pixels=``,
        of a scroll container or, with ``element_id=None``, the page; with no direction, the
        element is scrolled into view), ``upload`` (``files=`` a path or several, on a file
        input or the button or label that opens one) or ``drag`` (``to=`` the id to drop on,
        or ``by=(dx, dy)`` in CSS pixels).

        The id is resolved again now: an element that is gone, hidden, covered, disabled or
        read-only raises :class:`~pagesight.errors.ActionError` (``reason`` says which) and
        nothing is done; one scrolled out of view is scrolled into it first. The action waits
        up to ``wait`` seconds for the page to be ready first, then for the page to settle
        after it (at most ``timeout`` seconds), and returns the :class:`Effect`.
        """
        args = check_args(action, element_id, **options)
        check_times(wait=wait, timeout=timeout)
        work = self._act(element_id, action, args, wait=wait, timeout=timeout)
        # A download started by the action is waited for too (see save_downloads).
        allowed = wait + 2 * timeout + _SLACK_S + DOWNLOAD_TIMEOUT_S
        return self._last_read(await self._answered(work, allowed, timeout))

    async def act_at(
        self,
        action: str,
        x: float,
        y: float,
        *,
        to: Sequence[float] | None = None,
        count: int = 1,
        button: str = "left",
        wait: float = ACT_WAIT_S,
        timeout: float = ACT_TIMEOUT_S,
    ) -> Effect:
        """Act at a point of the viewport, not on an element: ``click`` (``count``,
        ``button``), ``hover``, or ``drag`` (pressed at ``x, y``, released at ``to=(x, y)``),
        for what a screenshot shows but the DOM does not name (a canvas, a chart).

        Points are CSS pixels from the viewport's top left corner, as element bounds are (a
        screenshot at a ``devicePixelRatio`` of 2 has twice as many pixels: divide by it). A
        point outside the viewport raises :class:`~pagesight.errors.InvalidOption` naming its
        size. The action waits for readiness and settles like :meth:`act`, and the
        :class:`Effect` says what changed; its ``element_id`` is the element of the
        observation whose box holds the point (the smallest), ``None`` over none. On a page
        last read off the screen (``obs.mode == "vision"``), the Effect also says what changed
        on screen (``screen_change``) and its observation is read off the screen again.
        """
        # ``to`` as given: the check refuses what is no pair of numbers (tuple() of a number
        # would raise a bare TypeError instead).
        kind, point, end, args = check_point_action(action, (x, y), to, count=count, button=button)
        check_times(wait=wait, timeout=timeout)

        # On a page read off the screen (a canvas app), what changed on screen is what tells:
        # screenshots before and after, and the page after read off the screen again.
        screen = self._on_screen
        work = self._runner.run_at(
            kind, point, end, args, wait=wait, timeout=timeout, screen=screen
        )
        allowed = wait + 2 * timeout + _SLACK_S + DOWNLOAD_TIMEOUT_S + (_OCR_S if screen else 0)
        return self._last_read(await self._answered(work, allowed, timeout))

    async def _answered(
        self, work: Coroutine[Any, Any, Effect], allowed: float, timeout: float
    ) -> Effect:
        """An action's ``work``, guarded as every call on the page is. A page that stopped
        answering while a navigation the action started waits on its server is not busy with
        a script: Chromium holds the tab's scripts until the server answers. That navigation is
        stopped (the tab answers again, from the page it had) and said to be the server's."""
        try:
            return await self._tab.guarded(work, allowed, answer_within=timeout)
        except PageUnresponsive as exc:
            waited = self._network.unanswered_navigation()
            if waited is None:
                raise
            await stop_loading(self._page)
            raise NavigationError(server_silent(waited, timeout)) from exc

    def _last_read(self, effect: Effect) -> Effect:
        """``effect``, noting how the page after it was read: an action's Effect is a reading
        too, so a page loaded anew since a vision reading is acted on by its DOM again."""
        self._on_screen = effect.observation.mode == "vision"
        return effect

    async def navigate(self, url: str, *, wait: float = 5.0, timeout: float = 30.0) -> Effect:
        """Load ``url`` (a URL or a local file path) in this tab; the Effect says where it
        landed and whether the new document became ready within ``wait`` seconds."""
        target = normalise_url(url)
        check_times(wait=wait, timeout=timeout)
        self._services.refusals.policy.check(target)  # OriginNotAllowed before the page is touched

        async def load() -> None:
            await self._services.refusals.goto(
                self._tab, self._page, target, wait_until="commit", timeout=timeout
            )

        work = self._runner.run("navigate", None, load, wait=0.0, timeout=wait)
        return self._last_read(await self._tab.guarded(work, wait + timeout + _SLACK_S))

    async def back(self, *, wait: float = 5.0, timeout: float = 30.0) -> Effect:
        """Go back one step in this tab's history (``no_op`` when there is none)."""
        check_times(wait=wait, timeout=timeout)
        # OriginNotAllowed before the page moves.
        await self._services.refusals.check_history(self._tab, -1)

        async def go_back() -> None:
            await self._services.refusals.go_back(self._tab, self._page, timeout=timeout)

        work = self._runner.run("back", None, go_back, wait=0.0, timeout=wait)
        return self._last_read(await self._tab.guarded(work, wait + timeout + _SLACK_S))

    async def batch(self, steps: Iterable[Sequence[Any]]) -> BatchResult:
        """Run steps ``(element_id, action)`` or ``(element_id, action, {args})`` in order —
        ``(None, "navigate", {"url": …})`` and ``(None, "back")`` too — stopping at the first
        failure (nothing is rolled back); every step's arguments are checked before the first
        runs, as :meth:`act` checks them (a missing file is ``InvalidOption`` and nothing runs).
        A step that loads a new document must be the last: the steps after it are refused
        (``page_changed``), their ids being stale; after one that rebuilds the page in place,
        so are the steps whose element went with it. A URL outside the origin policy is
        refused before any step runs; a step whose navigation was refused stops the batch.
        """
        parsed = parse_steps(steps)
        for step in parsed:  # a URL typed outside the origin policy: nothing runs
            if step.action == "navigate":
                self._services.refusals.policy.check(normalise_url(step.args["url"]))
        # One action, as far as answer_next_dialog goes: a confirm of its last step (a Save)
        # gets the answer told before it, not only one of its first.
        with self._events.action():
            return await run_batch(parsed, self._step)

    async def _step(self, element_id: int | None, action: str, args: dict[str, Any]) -> Effect:
        if action == "navigate":
            return await self.navigate(**args)
        if action == "back":
            return await self.back(**args)
        return await self.act(element_id, action, **args)

    async def _act(
        self, element_id: int | None, action: str, args: Args, *, wait: float, timeout: float
    ) -> Effect:
        await self._ready(wait, once_per_document=True, answer_within=timeout)
        spot = self._screen.target(element_id) if element_id is not None else None
        if spot is not None and element_id is not None:
            return await self._runner.run_on_screen(element_id, spot, action, args, timeout=timeout)
        if element_id is None:

            async def keys_or_scroll() -> Performed:
                with translate(action):
                    return await perform(
                        self._page,
                        handle=None,
                        facts={},
                        action=action,
                        args=args,
                        timeout=timeout,
                        element_id=None,
                    )

            return await self._runner.run(action, None, keys_or_scroll, timeout=timeout)
        handle = await self._resolver.element(element_id)
        # A drag's drop target is resolved (and checked, below) like the element itself.
        drop = await self._resolver.element(args.to) if args.to is not None else None
        try:
            return await self._act_on(handle, element_id, action, args, drop, timeout=timeout)
        finally:
            with contextlib.suppress(PlaywrightError):  # a page gone takes its handles along
                await handle.dispose()
                if drop is not None:
                    await drop.dispose()

    async def _act_on(
        self,
        handle: ElementHandle,
        element_id: int,
        action: str,
        args: Args,
        drop: ElementHandle | None,
        *,
        timeout: float,
    ) -> Effect:
        facts = await look(handle, reveal=action != "scroll")
        element: Element | None = None
        target: Element | None = None

        def refuse(before: Observation) -> None:
            nonlocal element, target
            element = next((e for e in before.elements if e.id == element_id), None)
            target = next((e for e in before.elements if e.id == args.to), None)
            problem = refusal(facts, action, args, element_id, element)
            if problem is not None:
                raise problem

        async def do() -> Performed:
            nonlocal facts
            if action in POINTER_ACTIONS:
                # A fresh look right before the pointer moves: the page may have shifted.
                if drop is not None:  # the drop target into view, then the dragged element
                    await look(drop, reveal=True)
                facts = await look(handle, reveal=True)
                await to_top(self._page, handle, facts)
                problem = refusal(facts, action, args, element_id, element)
                if problem is None and drop is not None and args.to is not None:
                    drop_facts = await look_in_place(drop)  # both in view, if they fit
                    await to_top(self._page, drop, drop_facts)
                    problem = drop_refusal(drop_facts, args, args.to, target)
                    facts["drop"] = drop_facts["point"]
                if problem is not None:
                    raise problem
            try:
                if action == "click":
                    # The pointer first, so hover styles are there before the look is noted.
                    await self._page.mouse.move(facts["point"]["vx"], facts["point"]["vy"])
                    await looks.arm(handle)
                return await perform(
                    self._page,
                    handle=handle,
                    facts=facts,
                    action=action,
                    args=args,
                    timeout=timeout,
                    element_id=element_id,
                    session=await self._tab.session() if action == "upload" else None,
                )
            except PlaywrightError as exc:
                gone = self._tab.gone_error()
                if gone is not None:  # the tab went, not the element
                    raise gone from exc
                if not await still_connected(handle):
                    raise StaleElement(
                        f"element [{element_id}] went away during the {action}; observe again",
                        element_id=element_id,
                    ) from exc
                if action in ("input", "input_submit"):  # e.g. letters into type=number
                    raise ActionError(
                        "not_editable",
                        f"[{element_id}] does not take the text {args.text!r}: {first_line(exc)}",
                        element_id=element_id,
                    ) from exc
                with translate(action):
                    raise

        async def restyled() -> tuple[str, ...]:
            if action != "click":
                return ()
            return await looks.changed(handle, describe(element_id, element))

        return await self._runner.run(
            action,
            element_id,
            do,
            timeout=timeout,
            check=refuse,
            restyled=restyled,
            unowned_tabs=action == "click" and args.button == "middle",
        )

    async def close(self) -> None:
        """Close the tab (and pagesight's sessions on it)."""
        await self._tab.close()
