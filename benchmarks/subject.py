"""The measured side: every pagesight call of the benchmark lives in this module.

`launch()` starts the browser (pagesight's own, else a bare Chromium so that the
reference side can still be measured) and `measure_pagesight()` observes one page.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.sync_api import TimeoutError as PlaywrightTimeout

import chromium
import peers
import recall


@dataclass
class PagesightFigures:
    full_ms: list[float] = field(default_factory=list)
    full_tokens: int = 0
    interactive_ms: list[float] = field(default_factory=list)
    interactive_tokens: int = 0
    full_items: list[recall.Item] = field(default_factory=list)
    interactive_items: list[recall.Item] = field(default_factory=list)
    names: Names | None = None


@dataclass
class Names:
    """How the controls of a page are named: by the page, by a hint guessed from markup, or not
    at all. Controls are the elements that take a click, text or a choice (frames and scroll
    containers are places, not controls)."""

    controls: int = 0
    unnamed: int = 0
    hinted: int = 0

    @classmethod
    def of(cls, elements: Any) -> Names:
        out = cls()
        for el in elements:
            if not {"click", "input", "select"} & set(el.actions):
                continue
            out.controls += 1
            if not el.name:
                out.unnamed += 1
            elif getattr(el, "name_hint", False):  # absent in versions before hint names
                out.hinted += 1
        return out


@dataclass
class Opened:
    """A page as pagesight opened it, for the reference side to find again."""

    url: str
    viewport: tuple[int, int] | None = None
    figures: PagesightFigures | None = None
    close: Callable[[], None] = lambda: None


@dataclass
class Launched:
    cdp_url: str
    browser: Any = None  # pagesight.Browser, or None when pagesight is unavailable
    why_not: str = ""  # why pagesight is not measured


SRC = Path(__file__).resolve().parent.parent / "src"
LOAD_CAP_S = peers.LOAD_CAP_MS / 1000


def _import_browser() -> Any:
    """pagesight.Browser, imported loosely (typed Any) so the benchmark type-checks alone."""
    try:
        return importlib.import_module("pagesight").Browser
    except ImportError:
        if str(SRC) in sys.path or not (SRC / "pagesight").is_dir():
            raise
    sys.path.insert(0, str(SRC))  # not installed in this venv: use the work tree
    return importlib.import_module("pagesight").Browser


@contextmanager
def launch() -> Iterator[Launched]:
    try:
        browser_cls = _import_browser()
    except ImportError as exc:
        why = f"pagesight not importable ({exc})"
    else:
        with browser_cls.launch(headless=True, args=chromium.OFFLINE_ARGS) as browser:
            yield Launched(str(browser.cdp_url), browser)
            return
    with chromium.launch() as cdp_url:
        yield Launched(cdp_url, None, why)


def _items(elements: Any) -> list[recall.Item]:
    out = []
    for el in elements:
        b = getattr(el, "bounds", None)
        bounds = (float(b[0]), float(b[1]), float(b[2]), float(b[3])) if b else None
        out.append(recall.Item(str(el.role), str(el.name or ""), bounds))
    return out


def _observe_with_bounds(page: Any, view: str, mode: str) -> Any:
    try:
        return page.observe(view=view, mode=mode, include={"bounds"})
    except TypeError:  # no `include` parameter: bounds may still be there
        return page.observe(view=view, mode=mode)


def measure_pagesight(
    launched: Launched, url: str, repeat: int, mode: str, progress: Callable[[str], None]
) -> Opened:
    """THE plug: open `url` with pagesight and time observe for both views.

    A timed call is `page.observe(...)` plus rendering its text, the counterpart of
    `aria_snapshot()` returning its text; counting tokens is outside the timing.
    """
    if launched.browser is None:
        return Opened(url)
    page = launched.browser.open(url, wait_until="domcontentloaded", timeout=LOAD_CAP_S)
    with contextlib.suppress(PlaywrightTimeout):  # capped: measure the page as it stands
        page.playwright.wait_for_load_state("load", timeout=LOAD_CAP_S * 1000)
    size = page.playwright.viewport_size
    opened = Opened(
        url=str(page.url),
        viewport=(int(size["width"]), int(size["height"])) if size else None,
        figures=PagesightFigures(),
        close=page.close,
    )
    fig = opened.figures
    assert fig is not None

    def observe(view: str) -> Any:
        obs = page.observe(view=view, mode=mode)
        obs.text()
        return obs

    progress("pagesight observe full")
    fig.full_ms, obs = peers.timed(lambda: observe("full"), repeat)
    fig.full_tokens = int(obs.tokens)
    progress("pagesight observe interactive")
    fig.interactive_ms, obs = peers.timed(lambda: observe("interactive"), repeat)
    fig.interactive_tokens = int(obs.tokens)
    progress("pagesight elements with bounds")
    full = _observe_with_bounds(page, "full", mode).elements
    fig.full_items = _items(full)
    fig.names = Names.of(full)
    fig.interactive_items = _items(_observe_with_bounds(page, "interactive", mode).elements)
    return opened
