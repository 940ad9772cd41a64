"""The browser an MCP connection drives: launched on the first call that needs it, attached
instead with ``--cdp-url``, and started afresh by ``browser_navigate`` once it went away.

Launching lazily (not when the server starts) because an MCP client starts its servers with
the client and lists their tools long before (if ever) one is used: an idle server costs no
Chromium, and a browser that cannot start is a tool error the model reads, not a server that
fails to come up.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.async_api import Error as PlaywrightError

from pagesight.agent.registry import ToolRegistry
from pagesight.agent.secrets import Secrets
from pagesight.agent.session import Session
from pagesight.browser.browser import AsyncBrowser
from pagesight.browser.page import AsyncPage
from pagesight.errors import PageCrashed, PagesightError
from pagesight.guard.origins import OriginPolicy

log = logging.getLogger("pagesight.mcp")


@dataclass(frozen=True, kw_only=True)
class BrowserOptions:
    """How the server's browsers are started (the command line's options)."""

    output_dir: Path
    """Downloads and named screenshots are saved here, and only here."""
    output_dir_made: bool = False
    """Whether ``output_dir`` is a temporary folder made for this server (none was given):
    removed when the server ends if nothing was saved in it."""
    upload_dir: Path | None = None
    """Files may be uploaded from here only (``None``: the output dir)."""
    headed: bool = False
    cdp_url: str | None = None
    allowed_origins: tuple[str, ...] | None = None
    allow_file_access: bool = False
    blocked_origins: tuple[str, ...] | None = None
    secrets: Secrets = field(default_factory=Secrets, compare=False, repr=False)
    """Secrets the model may type as ``{{NAME}}`` (``--secret``): never in a result."""

    def guard_options(self) -> dict[str, Any]:
        """The origin options for launch / connect: the list (``None``: any origin) and
        file access, refused unless ``--allow-file-access`` (a model is not to read the
        machine's files unless the user says so)."""
        return {
            "allowed_origins": self.allowed_origins,
            "allow_file_access": self.allow_file_access,
            "blocked_origins": self.blocked_origins,
        }


def check_guard_options(options: BrowserOptions) -> None:
    """The origin options checked before anything starts: InvalidOption naming a bad
    pattern (the browser, launched later, would refuse it only at the first call)."""
    OriginPolicy.of(options.allowed_origins, options.allow_file_access, options.blocked_origins)


_CLOSE_S = 10.0


class BrowserHolder:
    """One connection's browser and :class:`Session`, made on demand; calls are serialised
    (a model's calls on one page run one after another, as a person's would)."""

    def __init__(self, registry: ToolRegistry, options: BrowserOptions) -> None:
        self._registry = registry
        self._options = options
        self._browser: AsyncBrowser | None = None
        self._session: Session | None = None
        self._starting: asyncio.Task[Session] | None = None
        self.lock = asyncio.Lock()
        self.hung: AsyncPage | None = None
        """The tab whose last call found its page not answering (a script that never yields):
        the next call asks it first instead of waiting its whole time again."""

    def gone(self) -> PagesightError | None:
        """Why the browser cannot be used any more (crashed, killed, its window closed),
        or ``None`` while it works (or none was started)."""
        return self._browser.gone_error() if self._browser is not None else None

    async def lost(self) -> PagesightError | None:
        """:meth:`gone`, asking the browser when it has not said so yet: a killed Chromium's
        tabs may report their close before the browser reports its disconnection, and a
        call failing in between must still say the browser is gone."""
        gone = self.gone()
        if gone is not None or self._browser is None:
            return gone
        try:
            probe = await asyncio.wait_for(self._browser.playwright.new_browser_cdp_session(), 10)
            await probe.detach()
        except (PlaywrightError, TimeoutError) as exc:  # a bare round trip failed: no browser
            log.info("the browser does not answer: %s", exc)
            return PageCrashed(
                "the browser went away (it does not answer: its process ended or the "
                "DevTools connection dropped)"
            )
        return None

    async def open(self) -> Session:
        """The session, launching (or attaching) a browser when there is none.

        The start runs in a task of its own, which :meth:`close` cancels and waits for: a
        server ending while the first call is still launching (its client gone) must not
        leave a Chromium, or its scratch folders, behind. A call cancelled meanwhile leaves
        the start running: the browser it gives is kept, and closed with the others."""
        if self._session is not None:
            return self._session
        starting = self._starting
        if starting is None or starting.done():
            starting = self._starting = asyncio.ensure_future(self._start())
        return await asyncio.shield(starting)

    async def _start(self) -> Session:
        options = self._options
        downloads = options.output_dir
        if options.cdp_url is not None:
            browser = await AsyncBrowser.connect(
                options.cdp_url, downloads=downloads, **options.guard_options()
            )
        else:
            browser = await AsyncBrowser.launch(
                headless=not options.headed,
                downloads=downloads,
                **options.guard_options(),
            )
        try:
            if options.cdp_url is not None:
                page = await browser.new_page()  # the tabs the owner has open stay theirs
            else:
                pages = browser.pages
                page = pages[0] if pages else await browser.new_page()
        except BaseException:
            await browser.close()
            raise
        self._browser = browser
        self._session = Session(
            browser=browser,
            page=page,
            registry=self._registry,
            secrets=options.secrets,
            output_dir=options.output_dir,
            upload_dir=options.upload_dir or options.output_dir,
        )
        return self._session

    async def fresh_tab(self) -> Session:
        """The session in a new tab of the same browser (cookies kept), for when the tab in
        use went (its renderer crashed, or the page closed it) or hangs; the old tab is
        closed."""
        session = self._session
        assert session is not None, "fresh_tab() before open()"
        dead = session.page
        session.page, session.latest = await session.browser.new_page(), None
        # A hung renderer may never answer a close: the new tab is in use whatever it does.
        with contextlib.suppress(PagesightError, TimeoutError):
            await asyncio.wait_for(dead.close(), _CLOSE_S)
        return session

    async def close(self) -> bool:
        """Close the browser (an attached one: only our connection, and the tab we opened);
        whether there was one. Never raises: a browser that died is closed all the same.
        A browser still starting is stopped first, its folders removed."""
        starting, self._starting = self._starting, None
        if starting is not None and not starting.done():
            starting.cancel()
            await asyncio.wait({starting})  # its own cleanup done (the launch's folders)
        if starting is not None and starting.done() and not starting.cancelled():
            starting.exception()  # a failed start was the call's error: retrieved, not logged
        browser, session = self._browser, self._session
        self._browser = self._session = None
        self.hung = None  # its tab goes with the browser
        if browser is None:
            return False
        try:
            if self._options.cdp_url is not None and session is not None:
                with contextlib.suppress(PagesightError):
                    await session.page.close()
            await browser.close()
        except (PagesightError, PlaywrightError, OSError):
            # A dead browser's connection or process may fail to close: it is gone anyway.
            log.warning("closing the browser failed", exc_info=True)
        return True


class Holders:
    """A :class:`BrowserHolder` per connection, keyed by the transport's session id (``None``:
    stdio, or an HTTP client without one, which share one)."""

    def __init__(self, registry: ToolRegistry, options: BrowserOptions) -> None:
        self._registry = registry
        self._options = options
        self._holders: dict[str | None, BrowserHolder] = {}
        self._ending: set[asyncio.Task[None]] = set()

    def get(self, key: str | None) -> BrowserHolder:
        holder = self._holders.get(key)
        if holder is None:
            holder = self._holders[key] = BrowserHolder(self._registry, self._options)
        return holder

    async def discard(self, key: str) -> None:
        """Close the browser of a connection that ended (after the call it may be running)."""
        holder = self._holders.pop(key, None)
        if holder is not None:
            async with holder.lock:
                await holder.close()

    def ended(self, key: str) -> None:
        """:meth:`discard` from outside any request (a session that idled out), in a task the
        server's :meth:`close` waits for."""
        task = asyncio.ensure_future(self.discard(key))
        self._ending.add(task)
        task.add_done_callback(self._ending.discard)

    async def close(self) -> None:
        for holder in list(self._holders.values()):
            await holder.close()
        self._holders.clear()
        if self._ending:  # a browser being closed as its session idled out
            await asyncio.wait(set(self._ending))

    async def end(self) -> None:
        """The server ends: close every browser, and remove the temporary output dir made for
        it if nothing was saved there (a folder holding files is the user's to read)."""
        await self.close()
        if self._options.output_dir_made:
            with contextlib.suppress(OSError):  # not empty (or gone already)
                self._options.output_dir.rmdir()
