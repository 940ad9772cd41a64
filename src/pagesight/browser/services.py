"""TabServices: what a tab needs of the browser it belongs to, and nothing more.

:class:`~pagesight.browser.browser.AsyncBrowser` makes one and hands it to each tab it wraps
(:class:`~pagesight.browser.page.AsyncPage`, and through it the tab's
:class:`~pagesight.browser.tab.Tab` and :class:`~pagesight.browser.runner.ActionRunner`).
A tab reaches its browser only through these, so the browser's plumbing stays its own and
the tab's modules never import the browser's.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from playwright.async_api import Page as PlaywrightPage

from pagesight.act.events import DialogPolicy, DownloadFolder, Openings
from pagesight.browser.refusals import Refusals, TabTarget
from pagesight.errors import BrowserClosed, PageCrashed
from pagesight.observe.ids import IdRegistry
from pagesight.vision.ocr import OcrEngine
from pagesight.vision.screen import Captioner


@dataclass(frozen=True, kw_only=True)
class TabServices:
    """The browser's parts every tab of it shares."""

    ids: IdRegistry
    """Session-wide element ids: never reused while the browser lives."""
    dialogs: DialogPolicy
    """How a new tab answers JavaScript dialogs (each tab may be given its own)."""
    downloads: Path
    """The folder every download of the session is saved in."""
    artifacts: DownloadFolder
    """Where Chromium puts a download before it is saved (claimed before each action)."""
    openings: Openings
    """How many tabs each tab has opened (so an action waits for a tab it opens)."""
    refusals: Refusals
    """The origin policy, and what it refused for each tab's calls."""
    ocr: Callable[[], OcrEngine]
    """What reads text off screenshots (made on first use: Tesseract unless another was
    given)."""
    vision_model: Captioner | None
    """The vision-language model that captions screenshots in vision mode, if any."""
    gone_error: Callable[[], BrowserClosed | PageCrashed | None]
    """What a call on any tab must raise once the browser cannot work any more."""
    fit: Callable[[PlaywrightPage], Awaitable[None]]
    """Wait until a tab has the launch viewport as its page size."""
    tab_id: Callable[[PlaywrightPage], int]
    """The session number of the tab a Playwright page is (a tab the page opened gets its
    number, and its pagesight page, on first sight)."""
    open_tabs: Callable[[], Mapping[int, TabTarget]]
    """Every open tab of the browser, by its session number."""
