"""The events a page raises on its own schedule: dialogs, downloads and popups.

They are recorded for the life of the page, in order; an action takes the slice that arrived
while it ran, so each is reported by exactly one effect. Dialogs are answered at once by the
page's :class:`DialogPolicy` (a dialog left open would block the page's scripts).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from playwright.async_api import Browser as PlaywrightBrowser
from playwright.async_api import CDPSession
from playwright.async_api import Dialog as PlaywrightDialog
from playwright.async_api import Download as PlaywrightDownload
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page as PlaywrightPage

from pagesight.act.effect import Dialog, Download
from pagesight.errors import InputError, InvalidOption, first_line

Answer = Literal["accept", "dismiss"]
_ANSWERS = ("accept", "dismiss")
DOWNLOAD_TIMEOUT_S = 30.0


@dataclass(frozen=True, kw_only=True)
class DialogPolicy:
    """How pagesight answers JavaScript dialogs: by default it accepts alerts and
    ``beforeunload`` prompts and dismisses confirms and prompts (the cautious answer)."""

    alert: Answer = "accept"
    confirm: Answer = "dismiss"
    prompt: Answer = "dismiss"
    beforeunload: Answer = "accept"
    prompt_text: str = ""
    """What an accepted ``prompt()`` returns."""

    def __post_init__(self) -> None:
        for kind in ("alert", "confirm", "prompt", "beforeunload"):
            if getattr(self, kind) not in _ANSWERS:
                raise InvalidOption(
                    "dialogs", f"{kind} must be 'accept' or 'dismiss', not {getattr(self, kind)!r}"
                )

    def answer(self, kind: str) -> Answer:
        return getattr(self, kind, "dismiss") if kind in _KINDS else "dismiss"


_KINDS = frozenset({"alert", "confirm", "prompt", "beforeunload"})


@dataclass(frozen=True)
class Mark:
    """How many events of each sort had arrived at one moment."""

    dialogs: int
    downloads: int
    popups: int


@dataclass
class PageEvents:
    """Every dialog, download and popup of one page, in order of arrival."""

    policy: Callable[[], DialogPolicy]
    dialogs: list[Dialog] = field(default_factory=list)
    downloads: list[PlaywrightDownload] = field(default_factory=list)
    popups: list[PlaywrightPage] = field(default_factory=list)
    next_answer: tuple[bool, str | None] | None = None
    """How the dialogs of the next action are answered, whatever the policy says: (accept,
    prompt text; ``None`` for the policy's). It lapses when that action ends (see
    :meth:`action`); a dialog that opens outside any action before then uses it up."""
    prompt_check: Callable[[tuple[str, ...]], None] | None = None
    """Asked, with the URLs of the tab's frames, before :attr:`next_answer`'s prompt text is
    typed into a ``prompt()``: an InputError it raises dismisses that prompt instead (a
    secret scoped to other origins than one of the frames that could have opened it)."""
    _acting: int = field(default=0, init=False, repr=False)  # actions running (nested: batch)

    def attach(self, page: PlaywrightPage) -> None:
        page.on("dialog", self._on_dialog)
        page.on("download", self._on_download)
        page.on("popup", self._on_popup)
        page.once("close", self._detach)

    def _detach(self, page: PlaywrightPage) -> None:
        # Playwright keeps a closed page (and so its listeners) until its context closes:
        # listening on, these would keep the tab that made them, and all it holds.
        page.remove_listener("dialog", self._on_dialog)
        page.remove_listener("download", self._on_download)
        page.remove_listener("popup", self._on_popup)

    # Playwright tags each handler with an attribute: it must be a function of ours, not a
    # bound builtin such as ``list.append``.
    def _on_download(self, download: PlaywrightDownload) -> None:
        self.downloads.append(download)

    def _on_popup(self, popup: PlaywrightPage) -> None:
        if popup not in self.popups:
            self.popups.append(popup)

    def _on_tab(self, tab: PlaywrightPage) -> None:
        self._on_popup(tab)

    @contextlib.contextmanager
    def tabs_without_opener(self, page: PlaywrightPage, *, catch: bool) -> Iterator[None]:
        """While a middle click runs, the tabs made in the page's browser context are its new
        tabs: Playwright raises no popup for a tab without an opener."""
        if not catch:
            yield
            return
        page.context.on("page", self._on_tab)
        try:
            yield
        finally:
            page.context.remove_listener("page", self._on_tab)

    @contextlib.contextmanager
    def action(self) -> Iterator[None]:
        """While an action runs. Every dialog it opens gets :attr:`next_answer`: a confirm
        and then its "Really?" are both accepted, else repeating the action could never get
        past the second. When it ends, the answer lapses, dialog or not: one told for an
        action that then opened none is not left to accept an unrelated confirm later."""
        self._acting += 1
        try:
            yield
        finally:
            self._acting -= 1
            if not self._acting:
                self.next_answer = None
                self.prompt_check = None

    async def _on_dialog(self, dialog: PlaywrightDialog) -> None:
        policy = self.policy()
        accept = policy.answer(dialog.type) == "accept"
        prompt_text: str | None = policy.prompt_text
        if self.next_answer is not None:
            accept, told = self.next_answer
            prompt_text = told if told is not None else prompt_text
            check = self.prompt_check
            if not self._acting:  # a dialog of no action (a timer's): it takes the answer
                self.next_answer = self.prompt_check = None
            if accept and told is not None and check is not None and dialog.type == "prompt":
                # Which frame opened it is not told (CDP names it; Playwright does not): the
                # text is typed only if every frame of the tab may have it.
                try:
                    check(tuple(f.url for f in dialog.page.frames) if dialog.page else ())
                except InputError:
                    accept = False
        self.dialogs.append(Dialog(type=dialog.type, message=dialog.message, accepted=accept))
        # The page may close under the dialog (a beforeunload on close): nothing left to answer.
        with contextlib.suppress(PlaywrightError):
            if accept:
                await dialog.accept(prompt_text if dialog.type == "prompt" else None)
            else:
                await dialog.dismiss()

    def mark(self) -> Mark:
        return Mark(len(self.dialogs), len(self.downloads), len(self.popups))


class DownloadFolder:
    """Where Chromium writes a download before pagesight saves it: this client's Playwright
    artifacts folder, claimed again before every action.

    Chromium keeps one download behaviour per browser, the one the last client set, and when
    that client leaves it falls back to its own (the user's Downloads folder). So another
    client attaching and leaving (``pagesight observe --cdp-url``, a second
    ``Browser.connect``) would send every later download there, where Playwright cannot find
    it. Claiming costs one CDP message.
    """

    def __init__(self) -> None:
        self.path = Path(tempfile.mkdtemp(prefix="pagesight-artifacts-"))
        self._session: CDPSession | None = None

    async def attach(self, browser: PlaywrightBrowser) -> None:
        self._session = await browser.new_browser_cdp_session()

    async def claim(self) -> None:
        if self._session is None:
            return
        # Events stay on: Playwright's own session hears the download from them.
        await self._session.send(
            "Browser.setDownloadBehavior",
            {"behavior": "allowAndName", "downloadPath": str(self.path), "eventsEnabled": True},
        )

    def remove(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


class Openings:
    """How many tabs each tab has opened, counted the moment Chromium creates them.

    Playwright announces a popup only once its first document has committed, well after a
    click has otherwise settled; this count says a new tab is on its way, so an action waits
    for it instead of reporting ``no_op``.
    """

    def __init__(self) -> None:
        self._by_opener: Counter[str] = Counter()
        self._unowned: Counter[str] = Counter()
        self._counted: dict[str, tuple[Counter[str], str]] = {}  # target id -> its count
        self._forgotten: set[str] = set()

    async def attach(self, browser: PlaywrightBrowser) -> None:
        session = await browser.new_browser_cdp_session()
        session.on("Target.targetCreated", self._created)
        await session.send("Target.setDiscoverTargets", {"discover": True})

    def _created(self, event: dict[str, Any]) -> None:
        info = event["targetInfo"]
        target = info.get("targetId", "")
        if info.get("type") != "page" or target in self._forgotten:
            return
        if info.get("openerId"):
            counted = (self._by_opener, info["openerId"])
        else:  # a middle-clicked link's tab has no opener
            counted = (self._unowned, info.get("browserContextId", ""))
        counted[0][counted[1]] += 1
        self._counted[target] = counted

    def forget(self, target_id: str) -> None:
        """The tab ``target_id`` was closed before it ever showed (the origin policy refused
        its first document): no action should wait for it."""
        counted = self._counted.pop(target_id, None)
        if counted is None:  # not announced yet: never count it
            self._forgotten.add(target_id)
        else:
            counted[0][counted[1]] -= 1

    def by(self, target_id: str, context_id: str | None = None) -> int:
        """How many tabs the tab ``target_id`` has opened so far; with ``context_id``, every
        tab made without an opener in that browser context counts too (a middle-clicked
        link's, or one pagesight opened)."""
        unowned = self._unowned[context_id] if context_id is not None else 0
        return self._by_opener[target_id] + unowned


async def save_downloads(
    downloads: list[PlaywrightDownload], folder: Path, timeout: float = DOWNLOAD_TIMEOUT_S
) -> tuple[Download, ...]:
    """Wait for each download to finish and keep it in ``folder`` under its own name."""
    return tuple(await asyncio.gather(*(_save(d, folder, timeout) for d in downloads)))


async def _save(download: PlaywrightDownload, folder: Path, timeout: float) -> Download:
    name = _safe_name(download.suggested_filename)
    target = _free_path(folder, name)
    # Claim the name now, so two downloads of one name saved together never collide.
    target.touch()
    try:
        failure = await asyncio.wait_for(download.failure(), timeout)
        if failure is None:
            await asyncio.wait_for(download.save_as(target), timeout)
            # Saved as a copy: the browser's own file would pile up in the shared folder.
            await download.delete()
    except TimeoutError:
        failure = f"not finished within {timeout:g} s"
    except PlaywrightError as exc:
        failure = first_line(exc)
    if failure is not None:
        target.unlink(missing_ok=True)
        return Download(filename=name, path=None, url=download.url, error=failure)
    return Download(filename=name, path=target, url=download.url)


def _safe_name(suggested: str) -> str:
    # A server chooses this name: keep it inside the folder and free of control characters.
    name = re.sub(r"[\x00-\x1f/\\]", "_", Path(suggested).name).strip(" .")
    return name or "download"


def _free_path(folder: Path, name: str) -> Path:
    target = folder / name
    stem, suffix = Path(name).stem, Path(name).suffix
    n = 1
    while target.exists():
        target = folder / f"{stem} ({n}){suffix}"
        n += 1
    return target
