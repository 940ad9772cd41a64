"""The reference side: Playwright's aria snapshot, the raw CDP capture and the ground truth.

All three run on a plain Playwright connection to the same Chromium (over CDP), on
the very page pagesight observed when it can be found by URL, else on a fresh tab.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TypeVar

from playwright.sync_api import Browser, Page, Playwright, sync_playwright
from playwright.sync_api import TimeoutError as PlaywrightTimeout

import recall
import tokens

LOAD_CAP_MS = 10_000  # the load event, capped: some saved pages keep loading
SNAPSHOT_STYLES = ["display", "visibility", "opacity"]
T = TypeVar("T")


@dataclass
class PeerFigures:
    aria_ms: list[float] = field(default_factory=list)
    aria_tokens: int = 0
    aria_chars: int = 0
    cdp_ms: list[float] = field(default_factory=list)
    cdp_bytes: int = 0  # JSON of both replies
    cdp_snapshot_ms: list[float] = field(default_factory=list)
    cdp_axtree_ms: list[float] = field(default_factory=list)
    truth: list[recall.Item] = field(default_factory=list)
    same_page: bool = False  # measured on pagesight's own tab


def timed(fn: Callable[[], T], repeat: int) -> tuple[list[float], T]:
    """Warm up once, then time `repeat` calls; returns (milliseconds, last result)."""
    result = fn()
    samples: list[float] = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        samples.append((time.perf_counter() - t0) * 1000)
    return samples, result


def aria_text(page: Page) -> str:
    return page.locator("body").aria_snapshot()


def cdp_capture(page: Page, repeat: int, figures: PeerFigures) -> None:
    """The raw capture, warm-up plus `repeat` timed runs, with per-method times."""
    session = page.context.new_cdp_session(page)
    try:
        for i in range(repeat + 1):
            t0 = time.perf_counter()
            snap = session.send("DOMSnapshot.captureSnapshot", {"computedStyles": SNAPSHOT_STYLES})
            t1 = time.perf_counter()
            tree = session.send("Accessibility.getFullAXTree")
            t2 = time.perf_counter()
            if i:  # run 0 is the warm-up
                figures.cdp_snapshot_ms.append((t1 - t0) * 1000)
                figures.cdp_axtree_ms.append((t2 - t1) * 1000)
                figures.cdp_ms.append((t2 - t0) * 1000)
        figures.cdp_bytes = len(json.dumps(snap)) + len(json.dumps(tree))
    finally:
        session.detach()


def ground_truth(page: Page) -> list[recall.Item]:
    return recall.truth_items(page.evaluate(recall.GROUND_TRUTH_JS))


def measure(page: Page, repeat: int, progress: Callable[[str], None]) -> PeerFigures:
    figures = PeerFigures()
    progress("aria snapshot")
    figures.aria_ms, text = timed(lambda: aria_text(page), repeat)
    figures.aria_tokens, figures.aria_chars = tokens.count(text), len(text)
    progress("raw CDP capture")
    cdp_capture(page, repeat, figures)
    progress("ground truth")
    figures.truth = ground_truth(page)
    return figures


class PeerBrowser:
    """A Playwright driver that connects to the shared Chromium only while measuring.

    Connecting afresh for each page gives an up-to-date list of the tabs pagesight
    opened, and keeps a second CDP client out of the way while pagesight is timed.
    """

    def __init__(self, cdp_url: str) -> None:
        self.cdp_url = cdp_url
        self._pw: Playwright = sync_playwright().start()

    def close(self) -> None:
        self._pw.stop()

    @contextmanager
    def page_for(self, url: str, viewport: tuple[int, int] | None) -> Iterator[tuple[Page, bool]]:
        """Yields (page, same) with `same` true when it is an existing tab showing `url`."""
        browser: Browser = self._pw.chromium.connect_over_cdp(self.cdp_url)
        try:
            existing = [p for c in browser.contexts for p in c.pages if p.url == url]
            if existing:
                yield existing[-1], True
                return
            width, height = viewport or (1280, 720)
            context = browser.new_context(viewport={"width": width, "height": height})
            page = context.new_page()
            with contextlib.suppress(PlaywrightTimeout):  # measure the page as it stands
                page.goto(url, wait_until="load", timeout=LOAD_CAP_MS)
            yield page, False
        finally:
            browser.close()  # disconnects; closes only the contexts made here
