"""The synchronous facade: the async core run on a private event loop in a background thread.

Every call blocks until the coroutine behind it finishes on that loop, the way Playwright
offers a sync API over its async one.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import weakref
from collections.abc import Callable, Collection, Coroutine, Iterable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar, Unpack

from pagesight.act.args import ActOptions
from pagesight.act.batch import BatchResult
from pagesight.act.effect import Effect
from pagesight.act.events import DialogPolicy
from pagesight.act.navigation import WaitUntil
from pagesight.agent.loop import AsyncAgent
from pagesight.agent.planner import Planner
from pagesight.agent.profiles import DEFAULT_PROFILE, Profile
from pagesight.agent.registry import ToolRegistry
from pagesight.agent.skills import Skills
from pagesight.agent.state import RunResult, StepRecord
from pagesight.browser.browser import AsyncBrowser
from pagesight.browser.page import AsyncPage
from pagesight.errors import BrowserClosed, InvalidOption, RuntimeFailure
from pagesight.guard.origins import OriginPolicy
from pagesight.guard.risk import ElementFacts, Mode, Risk, RiskRules
from pagesight.observe.find import Match
from pagesight.observe.ids import ElementLocation
from pagesight.observe.observation import Observation, ObserveMode, View
from pagesight.vision.ocr import OcrEngine
from pagesight.vision.screen import Captioner, Capture

if TYPE_CHECKING:
    from pagesight.agent.state import TextLayerResult

T = TypeVar("T")


UNWIND_S = 15.0
"""Seconds an interrupted call is given to clean up (a Chromium stopped takes up to 10)."""


def _settle(
    task: asyncio.Task[T], result: concurrent.futures.Future[T], ended: threading.Event
) -> None:
    """Hand ``task``'s outcome to the thread waiting on ``result``."""
    if task.cancelled():
        result.cancel()
    elif (error := task.exception()) is not None:
        result.set_exception(error)
    else:
        result.set_result(task.result())
    ended.set()


class _Loop:
    """An event loop running in a daemon thread, and a way to run work on it.

    Everything the async core does, down to reading a Playwright attribute or registering a
    listener, happens on this loop's thread, whichever thread the sync API was called from
    (a worker thread, or a notebook's own running event loop): Playwright's objects belong to
    the loop they were made on.
    """

    def __init__(self) -> None:
        self.closed = False
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="pagesight", daemon=True
        )
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the loop and wait for its result."""
        if self.closed:
            coro.close()
            raise BrowserClosed("this browser is closed", advice="launch or connect a new one")
        if threading.current_thread() is self._thread:
            coro.close()  # waiting here would block the very loop that has to do the work
            raise RuntimeFailure(
                "a blocking pagesight call inside one of its own event handlers would wait "
                "for ever; use the async API (pagesight.aio) there"
            )
        result: concurrent.futures.Future[T] = concurrent.futures.Future()
        ended = threading.Event()
        tasks: list[asyncio.Task[T]] = []

        def start() -> None:
            task = self._loop.create_task(coro)
            tasks.append(task)
            task.add_done_callback(lambda done: _settle(done, result, ended))

        self._loop.call_soon_threadsafe(start)
        try:
            return result.result()
        except BaseException:
            # Interrupted here (Ctrl-C, or SIGTERM in the CLI): the work is cancelled, and its
            # clean-up — a Chromium half started killed, a record finished — runs before the
            # caller goes on to close the browser or exit. Not waited for, a launch cancelled
            # mid-way left its Chromium running after the process had gone.
            self._loop.call_soon_threadsafe(lambda: [task.cancel() for task in tasks])
            ended.wait(UNWIND_S)
            raise

    def call(self, fn: Callable[[], T]) -> T:
        """Run the plain function ``fn`` on the loop (at once if already there, or once the
        loop is closed: then nothing else touches what it reads)."""
        if self.closed or threading.current_thread() is self._thread:
            return fn()

        async def on_loop() -> T:
            return fn()

        return self.run(on_loop())

    def stop(self) -> None:
        if self.closed:
            return
        self.closed = True
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()


class SyncProxy:
    """A blocking view of a Playwright async object (``page.playwright`` in the sync API).

    Coroutine methods run on pagesight's loop and block; Playwright objects they return are
    wrapped the same way, and unwrapped when passed back. Event handlers (``on``) run on
    pagesight's thread. Async context managers (``expect_navigation``, ``expect_popup``) are
    not bridged: use the async API (:mod:`pagesight.aio`) for those.
    """

    def __init__(self, target: Any, loop: _Loop) -> None:
        self._target = target
        self._loop = loop

    def __getattr__(self, name: str) -> Any:
        value = self._loop.call(lambda: getattr(self._target, name))
        if not callable(value):
            return self._wrap(value)

        def call(*args: Any, **kwargs: Any) -> Any:
            async def on_loop() -> Any:
                result = value(*map(_unwrap, args), **{k: _unwrap(v) for k, v in kwargs.items()})
                return (await result) if asyncio.iscoroutine(result) else result

            return self._wrap(self._loop.run(on_loop()))

        return call

    def _wrap(self, value: Any) -> Any:
        if type(value).__module__.startswith("playwright.async_api"):
            return SyncProxy(value, self._loop)
        if isinstance(value, list):
            return [self._wrap(v) for v in value]
        return value

    def __repr__(self) -> str:
        return f"SyncProxy({self._target!r})"


def _unwrap(value: Any) -> Any:
    """Playwright wants its own objects back, not our blocking views of them."""
    return value._target if isinstance(value, SyncProxy) else value


class Page:
    """A browser tab (sync). See :class:`pagesight.aio.AsyncPage` for the async twin."""

    def __init__(self, page: AsyncPage, loop: _Loop) -> None:
        self._page = page
        self._loop = loop

    @property
    def playwright(self) -> Any:
        """The Playwright page underneath, with blocking methods (a :class:`SyncProxy`)."""
        return SyncProxy(self._page.playwright, self._loop)

    @property
    def url(self) -> str:
        return self._loop.call(lambda: self._page.url)

    @property
    def closed(self) -> bool:
        return self._loop.call(lambda: self._page.closed)

    @property
    def crashed(self) -> bool:
        """See :attr:`pagesight.aio.AsyncPage.crashed`."""
        return self._loop.call(lambda: self._page.crashed)

    def title(self) -> str:
        return self._loop.run(self._page.title())

    def observe(
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
        """See :meth:`pagesight.aio.AsyncPage.observe`."""
        return self._loop.run(
            self._page.observe(
                view=view,
                include=include,
                max_tokens=max_tokens,
                max_chars=max_chars,
                focus=focus,
                mode=mode,
                timeout=timeout,
                wait=wait,
                since=since,
                dom_empty_threshold=dom_empty_threshold,
            )
        )

    def screenshot(self, *, marks: bool = False, observation: Observation | None = None) -> bytes:
        """See :meth:`pagesight.aio.AsyncPage.screenshot`."""
        return self._loop.run(self._page.screenshot(marks=marks, observation=observation))

    def capture(self, *, hide: Sequence[str] = ()) -> Capture:
        """See :meth:`pagesight.aio.AsyncPage.capture`."""
        return self._loop.run(self._page.capture(hide=hide))

    def wait_ready(self, timeout: float = 10.0) -> bool:
        """See :meth:`pagesight.aio.AsyncPage.wait_ready`."""
        return self._loop.run(self._page.wait_ready(timeout))

    def answers(self, within: float = 2.0) -> bool:
        """See :meth:`pagesight.aio.AsyncPage.answers`."""
        return self._loop.run(self._page.answers(within))

    def frame_url(self, element_id: int) -> str:
        """See :meth:`pagesight.aio.AsyncPage.frame_url`."""
        return self._loop.run(self._page.frame_url(element_id))

    def risk_facts(self, element_id: int | None) -> ElementFacts | None:
        """See :meth:`pagesight.aio.AsyncPage.risk_facts`."""
        return self._loop.run(self._page.risk_facts(element_id))

    def risk_facts_at(self, x: float, y: float) -> ElementFacts | None:
        """See :meth:`pagesight.aio.AsyncPage.risk_facts_at`."""
        return self._loop.run(self._page.risk_facts_at(x, y))

    def locate(self, element_id: int) -> ElementLocation:
        """See :meth:`pagesight.aio.AsyncPage.locate`."""
        return self._loop.run(self._page.locate(element_id))

    def find(self, query: str, *, top: int = 5) -> list[Match]:
        """See :meth:`pagesight.aio.AsyncPage.find`."""
        return self._loop.run(self._page.find(query, top=top))

    @property
    def id(self) -> int:
        """This tab's number in the session (``browser.page(id)``; ``Effect.new_tabs``)."""
        return self._loop.call(lambda: self._page.id)

    @property
    def dialogs(self) -> DialogPolicy:
        """How this tab answers JavaScript dialogs; assign a new policy to change it."""
        return self._loop.call(lambda: self._page.dialogs)

    @dialogs.setter
    def dialogs(self, policy: DialogPolicy) -> None:
        def assign() -> None:
            self._page.dialogs = policy

        self._loop.call(assign)

    def answer_next_dialog(
        self,
        *,
        accept: bool,
        prompt_text: str | None = None,
        prompt_check: Callable[[tuple[str, ...]], None] | None = None,
    ) -> None:
        """See :meth:`pagesight.aio.AsyncPage.answer_next_dialog` (``prompt_check`` is
        called in the browser's thread)."""
        self._loop.run(
            self._page.answer_next_dialog(
                accept=accept, prompt_text=prompt_text, prompt_check=prompt_check
            )
        )

    def act(
        self,
        element_id: int | None,
        action: str,
        *,
        wait: float = 5.0,
        timeout: float = 10.0,
        **options: Unpack[ActOptions],
    ) -> Effect:
        """See :meth:`pagesight.aio.AsyncPage.act`."""
        return self._loop.run(
            self._page.act(element_id, action, wait=wait, timeout=timeout, **options)
        )

    def act_at(
        self,
        action: str,
        x: float,
        y: float,
        *,
        to: Sequence[float] | None = None,
        count: int = 1,
        button: str = "left",
        wait: float = 5.0,
        timeout: float = 10.0,
    ) -> Effect:
        """See :meth:`pagesight.aio.AsyncPage.act_at`."""
        return self._loop.run(
            self._page.act_at(
                action, x, y, to=to, count=count, button=button, wait=wait, timeout=timeout
            )
        )

    def navigate(self, url: str, *, wait: float = 5.0, timeout: float = 30.0) -> Effect:
        """See :meth:`pagesight.aio.AsyncPage.navigate`."""
        return self._loop.run(self._page.navigate(url, wait=wait, timeout=timeout))

    def back(self, *, wait: float = 5.0, timeout: float = 30.0) -> Effect:
        """See :meth:`pagesight.aio.AsyncPage.back`."""
        return self._loop.run(self._page.back(wait=wait, timeout=timeout))

    def batch(self, steps: Iterable[Sequence[Any]]) -> BatchResult:
        """See :meth:`pagesight.aio.AsyncPage.batch`."""
        return self._loop.run(self._page.batch(steps))

    def close(self) -> None:
        self._loop.run(self._page.close())


class Browser:
    """A Chromium launched or attached to (sync). Use :meth:`launch` or :meth:`connect`."""

    def __init__(self, browser: AsyncBrowser, loop: _Loop) -> None:
        self._browser = browser
        self._loop = loop
        # Weak: a tab's Page lives while its caller holds it (one Page a tab meanwhile), so a
        # session that opens and closes tabs for days does not keep every one it saw.
        self._pages: weakref.WeakValueDictionary[AsyncPage, Page] = weakref.WeakValueDictionary()

    @classmethod
    def launch(
        cls,
        *,
        headless: bool = True,
        executable_path: str | None = None,
        args: tuple[str, ...] = (),
        viewport: tuple[int, int] = (1280, 800),
        dialogs: DialogPolicy | None = None,
        downloads: str | Path | None = None,
        ocr: OcrEngine | None = None,
        vision_model: Captioner | None = None,
        allowed_origins: Sequence[str] | None = None,
        allow_file_access: bool | None = None,
        blocked_origins: Sequence[str] | None = None,
    ) -> Browser:
        """See :meth:`pagesight.aio.AsyncBrowser.launch`."""
        loop = _Loop()
        try:
            browser = loop.run(
                AsyncBrowser.launch(
                    headless=headless,
                    executable_path=executable_path,
                    args=args,
                    viewport=viewport,
                    dialogs=dialogs,
                    downloads=downloads,
                    ocr=ocr,
                    vision_model=vision_model,
                    allowed_origins=allowed_origins,
                    allow_file_access=allow_file_access,
                    blocked_origins=blocked_origins,
                )
            )
        except BaseException:
            loop.stop()
            raise
        return cls(browser, loop)

    @classmethod
    def connect(
        cls,
        cdp_url: str,
        *,
        dialogs: DialogPolicy | None = None,
        downloads: str | Path | None = None,
        ocr: OcrEngine | None = None,
        vision_model: Captioner | None = None,
        allowed_origins: Sequence[str] | None = None,
        allow_file_access: bool | None = None,
        blocked_origins: Sequence[str] | None = None,
    ) -> Browser:
        """See :meth:`pagesight.aio.AsyncBrowser.connect`."""
        loop = _Loop()
        try:
            browser = loop.run(
                AsyncBrowser.connect(
                    cdp_url,
                    dialogs=dialogs,
                    downloads=downloads,
                    ocr=ocr,
                    vision_model=vision_model,
                    allowed_origins=allowed_origins,
                    allow_file_access=allow_file_access,
                    blocked_origins=blocked_origins,
                )
            )
        except BaseException:
            loop.stop()
            raise
        return cls(browser, loop)

    def _wrap(self, page: AsyncPage) -> Page:
        # Only ever called on the loop, so two threads never make two Pages of one tab.
        found = self._pages.get(page)
        if found is None:
            found = self._pages[page] = Page(page, self._loop)
        return found

    def _run_page(self, make: Callable[[], Coroutine[Any, Any, AsyncPage]]) -> Page:
        # The coroutine is made on the loop too: a closed browser then leaves none unawaited.
        async def wrapped() -> Page:
            return self._wrap(await make())

        return self._loop.run(wrapped())

    @property
    def cdp_url(self) -> str:
        return self._loop.call(lambda: self._browser.cdp_url)

    @property
    def playwright(self) -> Any:
        """The Playwright browser underneath, with blocking methods (a :class:`SyncProxy`)."""
        return SyncProxy(self._browser.playwright, self._loop)

    @property
    def pages(self) -> list[Page]:
        # Tabs seen for the first time get their AsyncPage (and its listeners) made here.
        return self._loop.call(lambda: [self._wrap(p) for p in self._browser.pages])

    def page(self, tab_id: int) -> Page:
        """See :meth:`pagesight.aio.AsyncBrowser.page`."""
        return self._run_page(lambda: self._browser.page(tab_id))

    @property
    def dialogs(self) -> DialogPolicy:
        """How new tabs answer JavaScript dialogs (each page has its own ``dialogs`` too)."""
        return self._loop.call(lambda: self._browser.dialogs)

    @property
    def origins(self) -> OriginPolicy:
        """Which origins this browser may load (``allowed_origins``, ``allow_file_access``)."""
        return self._loop.call(lambda: self._browser.origins)

    @property
    def ocr(self) -> OcrEngine:
        """What reads text off screenshots (vision mode)."""
        return self._loop.call(lambda: self._browser.ocr)

    @property
    def vision_model(self) -> Captioner | None:
        """The vision-language model that captions screenshots in vision mode, if any."""
        return self._loop.call(lambda: self._browser.vision_model)

    @property
    def downloads(self) -> Path:
        """The folder every download of this session is saved in."""
        return self._loop.call(lambda: self._browser.downloads)

    def new_page(self) -> Page:
        return self._run_page(self._browser.new_page)

    def open(self, url: str, *, wait_until: WaitUntil = "load", timeout: float = 30.0) -> Page:
        """See :meth:`pagesight.aio.AsyncBrowser.open`."""
        return self._run_page(
            lambda: self._browser.open(url, wait_until=wait_until, timeout=timeout)
        )

    def close(self) -> None:
        """Close pagesight's connection (a launched Chromium is stopped). Closing twice is fine."""
        if self._loop.closed:
            return
        try:
            self._loop.run(self._browser.close())
        finally:
            self._loop.stop()

    def __enter__(self) -> Browser:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class Agent:
    """Runs a planner on a page until its goal is reached (sync). See
    :class:`pagesight.aio.AsyncAgent`; the planner's ``decide`` is async in both, and it and
    ``on_step`` run on pagesight's own event loop thread; ``confirmer`` is a plain function
    ``(Risk) -> bool`` here, run in a thread of its own (it may wait for a person)."""

    def __init__(
        self,
        browser: Browser,
        planner: Planner,
        *,
        max_steps: int = 15,
        out: str | Path | None = None,
        tools: Iterable[str | Path] = (),
        tool_profile: Profile = DEFAULT_PROFILE,
        skills: Iterable[str | Path] = (),
        secrets: Mapping[str, str] | None = None,
        on_step: Callable[[StepRecord], object] | None = None,
        timeout: float = 30.0,
        confirm: Mode = "never",
        confirm_rules: RiskRules | None = None,
        confirmer: Callable[[Risk], bool] | None = None,
    ) -> None:
        self._browser = browser
        self._loop = browser._loop
        ask = None
        if confirmer is not None:
            if not callable(confirmer):
                raise InvalidOption("confirmer", f"expected a function, not {confirmer!r}")
            asking = confirmer

            async def ask(risk: Risk) -> bool:
                return bool(await asyncio.to_thread(asking, risk))

        self._agent = AsyncAgent(
            browser._browser,
            planner,
            max_steps=max_steps,
            out=out,
            tools=tools,
            tool_profile=tool_profile,
            skills=skills,
            secrets=secrets,
            on_step=on_step,
            timeout=timeout,
            confirm=confirm,
            confirm_rules=confirm_rules,
            confirmer=ask,
        )

    @property
    def registry(self) -> ToolRegistry:
        """The tools this agent offers (built-in and from ``tools`` folders)."""
        return self._agent.registry

    @property
    def skills(self) -> Skills:
        return self._agent.skills

    @property
    def page(self) -> Page | None:
        """The tab the last run used, left open (``None`` before a run)."""
        page = self._agent.page
        return self._loop.call(lambda: self._browser._wrap(page)) if page is not None else None

    def run(
        self, url: str, goal: str | None = None, *, text_layer: TextLayerResult | None = None
    ) -> RunResult:
        """See :meth:`pagesight.aio.AsyncAgent.run`."""
        return self._loop.run(self._agent.run(url, goal, text_layer=text_layer))
