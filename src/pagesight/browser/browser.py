"""AsyncBrowser: a launched or attached Chromium shared by Playwright and pagesight."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import tempfile
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from urllib.parse import urlsplit

from playwright.async_api import Browser as PlaywrightBrowser
from playwright.async_api import BrowserContext, Playwright
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page as PlaywrightPage

from pagesight.act.events import DialogPolicy, DownloadFolder, Openings
from pagesight.act.navigation import WaitUntil, normalise_url
from pagesight.browser.driver import Driver, start_driver
from pagesight.browser.launch import ChromiumProcess, start_chromium
from pagesight.browser.page import AsyncPage
from pagesight.browser.refusals import Refusals, TabTarget
from pagesight.browser.services import TabServices
from pagesight.browser.viewport import DEFAULT_VIEWPORT, Viewport, check_viewport, fit_window
from pagesight.cdp import translate
from pagesight.errors import (
    BrowserClosed,
    ConnectError,
    InvalidOption,
    PageCrashed,
    PagesightError,
    RuntimeFailure,
    first_line,
)
from pagesight.guard.interception import GUARDED_PREFERENCES, RequestGuard
from pagesight.guard.origins import OriginPolicy
from pagesight.observe.capture import script
from pagesight.observe.ids import IdRegistry
from pagesight.vision.ocr import OcrEngine, TesseractOcr
from pagesight.vision.screen import Captioner


@dataclass(frozen=True)
class _Options:
    """What launch and connect pass on to the browser they make."""

    dialogs: DialogPolicy | None
    downloads: str | Path | None
    ocr: OcrEngine | None
    vision_model: Captioner | None
    viewport: Viewport | None = None
    origins: OriginPolicy = field(default_factory=OriginPolicy)


class AsyncBrowser:
    """A Chromium that pagesight launched or attached to. Use :meth:`launch` or :meth:`connect`."""

    def __init__(
        self,
        *,
        playwright: Playwright,
        browser: PlaywrightBrowser,
        context: BrowserContext,
        cdp_url: str,
        process: ChromiumProcess | None,
        openings: Openings,
        artifacts: DownloadFolder,
        dialogs: DialogPolicy,
        downloads: Path | None,
        ocr: OcrEngine | None,
        vision_model: Captioner | None,
        viewport: Viewport | None = None,
        origins: OriginPolicy | None = None,
        guard: RequestGuard | None = None,
        driver: Driver | None = None,
    ) -> None:
        self._playwright = playwright
        self._driver = driver
        if driver is not None:
            driver.on_end(self._on_driver_end)
        self._browser = browser
        self._context = context
        self._cdp_url = cdp_url
        self._process = process
        self._pages: dict[PlaywrightPage, AsyncPage] = {}
        """The open tabs pagesight has seen; a tab leaves it when it closes."""
        self._tab_ids = itertools.count(1)
        self._numbers: weakref.WeakKeyDictionary[PlaywrightPage, int] = weakref.WeakKeyDictionary()
        """Each tab's number, kept past its close (a tab a page opened and closed at once is
        still named by one number), but not the tab."""
        self._artifacts = artifacts
        self.ids = IdRegistry()
        """Session-wide element ids: never reused while this browser lives."""
        self._dialogs = dialogs
        self._ocr = ocr
        self._vision_model = vision_model
        self._downloads = downloads or Path(tempfile.mkdtemp(prefix="pagesight-downloads-"))
        self._downloads.mkdir(parents=True, exist_ok=True)
        self._own_downloads = downloads is None
        """Whether the downloads folder is one we made (removed on close if nothing was saved
        in it: a run that downloads nothing leaves no empty folder behind)."""
        self._closing = False
        """Set once :meth:`close` begins: a call still running on a tab then ends in
        BrowserClosed, not in a report that its page closed."""
        self._disconnected = False
        # A Chromium killed from outside (or a dropped DevTools connection) takes every tab
        # with it: each call then says so, rather than "open a new page", which cannot work.
        browser.on("disconnected", self._on_disconnected)
        self._viewport = viewport
        self._fitting: dict[PlaywrightPage, asyncio.Future[None]] = {}
        self._origins = origins or OriginPolicy()
        self._refusals = Refusals(self._origins, guard)
        # What each tab is given of this browser (it never sees the browser itself).
        self._services = TabServices(
            ids=self.ids,
            dialogs=dialogs,
            downloads=self._downloads,
            artifacts=artifacts,
            openings=openings,
            refusals=self._refusals,
            ocr=lambda: self.ocr,
            vision_model=vision_model,
            gone_error=self.gone_error,
            fit=self._fit,
            tab_id=lambda pw_page: self._wrap(pw_page).id,
            open_tabs=self._open_tabs,
        )
        if viewport is not None:  # every tab, also those a page opens, gets the page size
            context.on("page", self._on_page)

    @classmethod
    async def launch(
        cls,
        *,
        headless: bool = True,
        executable_path: str | None = None,
        args: tuple[str, ...] = (),
        viewport: tuple[int, int] = DEFAULT_VIEWPORT,
        dialogs: DialogPolicy | None = None,
        downloads: str | Path | None = None,
        ocr: OcrEngine | None = None,
        vision_model: Captioner | None = None,
        allowed_origins: Sequence[str] | None = None,
        allow_file_access: bool | None = None,
        blocked_origins: Sequence[str] | None = None,
    ) -> AsyncBrowser:
        """Start the system Chromium headless (by default) and connect to it.

        ``viewport`` is the size of the page in every tab, ``innerWidth`` x ``innerHeight``
        in CSS pixels (and so of every screenshot, times ``devicePixelRatio``): each tab's
        window is made just large enough for it, headless or headed, popups included.
        ``dialogs`` says how JavaScript dialogs are answered (default: accept alerts, dismiss
        confirms and prompts); ``downloads`` is the folder downloads are saved in (default: a
        new temporary folder for this session, kept after close once a download was saved in
        it, removed if none was). ``ocr`` reads screenshots
        in vision mode (default: Tesseract); ``vision_model`` (e.g. a
        :class:`~pagesight.models.VlmClient`) adds a caption to vision observations.

        ``allowed_origins`` (``["https://example.com", "http://127.0.0.1:*",
        "https://*.example.com"]``) is the origin policy, enforced by Chromium for every
        request of every tab, those the page opens included, their iframes and workers: no
        request to any other origin leaves — :meth:`open` and ``navigate`` raise
        :class:`~pagesight.errors.OriginNotAllowed`, an action whose navigation (a link, a
        redirect, a form, a script, a new tab) was refused says so in ``Effect.refused``, and
        a page's other requests (images, scripts, ``fetch``, XHR, ``sendBeacon``, WebSocket)
        fail as a network error and are counted in the tab's next observation's notes. Once
        a list is given, private-network addresses (loopback, RFC 1918, link-local, the cloud
        metadata service) are refused unless a pattern names that host exactly.
        ``blocked_origins`` are refused whatever else is allowed (with no allowed list,
        everything else is allowed). ``allow_file_access`` says whether ``file://`` URLs may
        be opened: by default they may when no list is given, and may not once one is. See
        :mod:`pagesight.guard.origins` for the patterns and
        :mod:`pagesight.guard.interception` for how each kind of request is stopped.
        """
        viewport = check_viewport(viewport)
        # Checked before Chromium starts.
        origins = OriginPolicy.of(allowed_origins, allow_file_access, blocked_origins)
        if origins.connect_sources() is not None:
            # The guard answers each document itself, to give it the connect-src policy that
            # holds its WebSockets (see guard.interception); Chromium's Local Network Access
            # would take such a document for one from nowhere and refuse its connections to
            # this machine's other servers. The guard's own private-network rule replaces it.
            args = (*args, "--disable-features=LocalNetworkAccessChecks")
        process = await start_chromium(
            executable=executable_path,
            headless=headless,
            window=viewport,
            args=args,
            preferences=GUARDED_PREFERENCES if origins.restricts_network else None,
        )
        try:
            options = _Options(dialogs, downloads, ocr, vision_model, viewport, origins)
            browser = await cls._attach(process.ws_url, process, options)
            for pw_page in browser._context.pages:  # the tab Chromium started with
                await browser._fit(pw_page)
            return browser
        except BaseException:
            await process.stop()
            raise

    @classmethod
    async def connect(
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
    ) -> AsyncBrowser:
        """Attach to a running Chromium by its DevTools URL (``http://127.0.0.1:9222``).

        :attr:`pages` then lists the tabs already open there, so a program driving a page
        with its own Playwright can observe that same page. Closing only disconnects. The
        other options are those of :meth:`launch`; the origin policy applies to every tab of
        that browser (its other clients' too) while this one is attached, from now on:
        documents already loaded stay as they are (and so do their WebSockets' policy).
        """
        origins = OriginPolicy.of(allowed_origins, allow_file_access, blocked_origins)
        parts = urlsplit(cdp_url)
        if parts.scheme not in ("http", "https", "ws", "wss") or not parts.netloc:
            raise ConnectError(f"{cdp_url!r} is not a DevTools URL such as http://127.0.0.1:9222")
        # Playwright reads /json/version itself when given the http:// URL.
        options = _Options(dialogs, downloads, ocr, vision_model, origins=origins)
        return await cls._attach(cdp_url, None, options)

    @classmethod
    async def _attach(
        cls,
        endpoint: str,
        process: ChromiumProcess | None,
        options: _Options,
    ) -> AsyncBrowser:
        """Connect Playwright to ``endpoint`` (a ws:// URL, or the http:// DevTools URL)."""
        artifacts = DownloadFolder()
        playwright, driver = await start_driver()
        try:
            try:
                browser = await playwright.chromium.connect_over_cdp(
                    endpoint, timeout=30_000, artifacts_dir=artifacts.path
                )
            except PlaywrightError as exc:
                reason = first_line(exc)
                if process is None:  # a browser the caller pointed us at
                    raise ConnectError(
                        f"no browser answers at {endpoint} ({reason}); is Chromium running "
                        "with --remote-debugging-port?"
                    ) from exc
                raise RuntimeFailure(f"cannot attach to the Chromium we started: {reason}") from exc
            with translate("setting up the browser"):
                context = browser.contexts[0] if browser.contexts else await browser.new_context()
                # Hooks run before each document's own scripts: they note click listeners and
                # closed shadow roots, which no page script could find afterwards.
                await context.add_init_script(script("hooks.js"))
                openings = Openings()
                await openings.attach(browser)
                await artifacts.attach(browser)
                guard = None
                if options.origins.restricts_network:
                    guard = RequestGuard(options.origins, closed_unseen=openings.forget)
                    await guard.attach(browser)
        except BaseException:
            try:
                await playwright.stop()
            finally:  # a driver that fails to stop (or a second cancellation) leaves no folder
                artifacts.remove()
            raise
        parts = urlsplit(endpoint)
        scheme = "https" if parts.scheme in ("https", "wss") else "http"
        http_url = process.http_url if process else f"{scheme}://{parts.netloc}"
        return cls(
            playwright=playwright,
            browser=browser,
            context=context,
            cdp_url=http_url,
            process=process,
            openings=openings,
            artifacts=artifacts,
            dialogs=options.dialogs or DialogPolicy(),
            downloads=Path(options.downloads).expanduser() if options.downloads else None,
            ocr=options.ocr,
            vision_model=options.vision_model,
            viewport=options.viewport,
            origins=options.origins,
            guard=guard,
            driver=driver,
        )

    @property
    def cdp_url(self) -> str:
        """The DevTools HTTP endpoint, for other clients (``connect_over_cdp``) to share."""
        return self._cdp_url

    @property
    def ocr(self) -> OcrEngine:
        """What reads text off screenshots (vision mode): Tesseract unless another was given."""
        if self._ocr is None:
            self._ocr = TesseractOcr()
        return self._ocr

    @property
    def vision_model(self) -> Captioner | None:
        """The vision-language model that captions screenshots in vision mode, if any."""
        return self._vision_model

    @property
    def origins(self) -> OriginPolicy:
        """Which origins this browser may load (``allowed_origins``, ``allow_file_access``)."""
        return self._origins

    @property
    def dialogs(self) -> DialogPolicy:
        """How new tabs answer JavaScript dialogs (each page has its own ``dialogs`` too)."""
        return self._dialogs

    @property
    def downloads(self) -> Path:
        """The folder every download of this session is saved in (kept after close; the
        temporary one made when none was given only if a download was saved in it)."""
        return self._downloads

    @property
    def playwright(self) -> PlaywrightBrowser:
        """The Playwright browser underneath."""
        return self._browser

    @property
    def pages(self) -> list[AsyncPage]:
        """Every open tab, including those opened before pagesight attached or by the page."""
        out = []
        for context in self._browser.contexts:
            for pw_page in context.pages:
                if not pw_page.is_closed():
                    out.append(self._wrap(pw_page))
        return out

    async def page(self, tab_id: int) -> AsyncPage:
        """The open tab whose :attr:`AsyncPage.id` is ``tab_id`` (as in ``Effect.new_tabs``)."""
        self._check_usable()
        for page in self.pages:
            if page.id == tab_id:
                await self._fit(page.playwright)
                return page
        raise InvalidOption("tab_id", f"no open tab {tab_id}; open tabs: {self._tab_list()}")

    def _tab_list(self) -> str:
        return ", ".join(f"{p.id} {p.url}" for p in self.pages) or "none"

    def _wrap(self, pw_page: PlaywrightPage) -> AsyncPage:
        """The pagesight page of a Playwright page of this browser (made on first sight, and
        forgotten when the tab closes: a session that opens tabs for days holds the open ones)."""
        page = self._pages.get(pw_page)
        if page is None:
            page = AsyncPage(self._services, pw_page, self._number(pw_page))
            if not pw_page.is_closed():  # a closed tab never says "close" again
                self._pages[pw_page] = page
                pw_page.once("close", self._on_close)
        return page

    def _on_close(self, pw_page: PlaywrightPage) -> None:
        self._pages.pop(pw_page, None)

    def _number(self, pw_page: PlaywrightPage) -> int:
        number = self._numbers.get(pw_page)
        if number is None:
            number = self._numbers[pw_page] = next(self._tab_ids)
        return number

    def _open_tabs(self) -> dict[int, TabTarget]:
        """Every open tab by its number, as a tab's action asks for them (TabServices)."""
        return {page.id: page._tab for page in self.pages}

    async def new_page(self) -> AsyncPage:
        """A new blank tab."""
        self._check_usable()
        try:
            with translate("opening a tab"):
                pw_page = await self._context.new_page()
        except PagesightError as exc:
            gone = self.gone_error()  # the browser went while the tab was being made
            if gone is not None:
                raise gone from exc
            raise
        await self._fit(pw_page)
        page = self._wrap(pw_page)
        await page._network.started()  # its requests are watched before it loads anything
        return page

    def _on_disconnected(self, _browser: PlaywrightBrowser) -> None:
        self._disconnected = True

    def _on_driver_end(self) -> None:
        # Every call in flight on a tab ends now, saying the driver went (gone_error), not
        # that its page closed, which is what Playwright's failed calls would say.
        for page in self._pages.values():
            page._tab.gone.set()

    def gone_error(self) -> BrowserClosed | PageCrashed | None:
        """What a call on this browser or its tabs must raise once it cannot work any more:
        closed by the caller, or its Chromium gone from under us."""
        if self._closing:
            return BrowserClosed("this browser is closed", advice="launch or connect a new one")
        if self._driver is not None and self._driver.ended:
            return self._driver.gone_error()
        # A Chromium of ours killed: its tabs' "close" can reach us before the browser's
        # "disconnected" does, but its process has ended by then, so ask it first.
        ended = self._process is not None and self._process.ended()
        if self._disconnected or ended:
            return PageCrashed(
                "the browser went away (its process ended or the DevTools connection dropped)",
                advice="launch or connect a new one",
            )
        return None

    def _check_usable(self) -> None:
        gone = self.gone_error()
        if gone is not None:
            raise gone

    def _on_page(self, pw_page: PlaywrightPage) -> None:
        # A tab the page opened is sized the moment it appears, before anyone asks for it.
        self._fitting_of(pw_page)

    async def _fit(self, pw_page: PlaywrightPage) -> None:
        """Wait until the tab ``pw_page`` has the launch viewport as its page size (its
        window is resized once, when the tab first shows; an attached browser is left as
        it is)."""
        fitting = self._fitting_of(pw_page)
        if fitting is not None:
            await asyncio.shield(fitting)

    def _fitting_of(self, pw_page: PlaywrightPage) -> asyncio.Future[None] | None:
        if self._viewport is None:  # an attached browser's windows are its owner's
            return None
        fitting = self._fitting.get(pw_page)
        if fitting is None:
            fitting = asyncio.ensure_future(fit_window(self._context, pw_page, self._viewport))
            self._fitting[pw_page] = fitting
            pw_page.once("close", lambda _: self._fitting.pop(pw_page, None))
        return fitting

    async def open(
        self, url: str, *, wait_until: WaitUntil = "load", timeout: float = 30.0
    ) -> AsyncPage:
        """A new tab at ``url`` (a URL or a local file path), once it has loaded."""
        target = normalise_url(url)
        self._origins.check(target)
        page = await self.new_page()
        try:
            await self._refusals.goto(
                page._tab, page.playwright, target, wait_until=wait_until, timeout=timeout
            )
        except BaseException:
            await page.close()
            raise
        return page

    async def close(self) -> None:
        """Close pagesight's connection; a launched Chromium is stopped, an attached one kept.
        A call still running on one of its tabs (from another thread) raises BrowserClosed."""
        self._closing = True
        try:
            if self._process is not None:  # our own browser: close our tabs cleanly first
                for page in list(self._pages.values()):
                    await page.close()
            self._pages.clear()
            with contextlib.suppress(PlaywrightError):  # the browser may already be gone
                await self._browser.close()
            await self._playwright.stop()
        finally:
            try:
                if self._process is not None:
                    await self._process.stop()
            finally:  # even when stopping was cut short (SIGTERM, a second cancellation)
                self._artifacts.remove()
                if self._own_downloads:
                    with contextlib.suppress(OSError):  # not empty: it holds saved files
                        self._downloads.rmdir()

    async def __aenter__(self) -> AsyncBrowser:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()
