"""Helpers the vision tests share: the canvas fixture app and screenshots at a given scale."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from conftest import StaticServer
from pagesight import Browser

CANVAS_LABELS = ("File", "Edit", "View", "Width: 240", "保存", "取消")
APP_READY = "window.appState && window.appState.ready"


def open_canvas(browser: Browser, server: StaticServer) -> Any:
    """A pagesight page on tests/pages/canvas-app.html, painted."""
    page = browser.open(server.url("canvas-app.html"))
    page.playwright.wait_for_function(APP_READY)
    return page


def app_layout(pw_page: Any) -> dict[str, tuple[int, int, int, int]]:
    """Each canvas control's box in CSS pixels, as the app itself drew it."""
    layout: list[dict[str, Any]] = pw_page.evaluate("window.appLayout")
    return {item["name"]: tuple(item["box"]) for item in layout}


def app_state(pw_page: Any) -> dict[str, Any]:
    state: dict[str, Any] = pw_page.evaluate("window.appState")
    return state


@contextmanager
def scaled_page(
    browser: Browser, url: str, *, scale: float, size: tuple[int, int]
) -> Iterator[Any]:
    """A Playwright page in its own context with ``device_scale_factor=scale`` and a CSS
    viewport of ``size``, on ``url``; closed afterwards."""
    context = browser.playwright.new_context(
        device_scale_factor=scale, viewport={"width": size[0], "height": size[1]}
    )
    try:
        page = context.new_page()
        page.goto(url)
        yield page
    finally:
        context.close()


def centre(box: tuple[int, int, int, int]) -> tuple[float, float]:
    x, y, w, h = box
    return (x + w / 2, y + h / 2)


def inside(point: tuple[float, float], box: tuple[int, int, int, int], slack: float = 0) -> bool:
    x, y, w, h = box
    return x - slack <= point[0] <= x + w + slack and y - slack <= point[1] <= y + h + slack
