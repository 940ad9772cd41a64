"""Loading a URL in a tab: which URLs pagesight opens, and how long it waits for them."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page as PlaywrightPage
from playwright.async_api import TimeoutError as PlaywrightTimeout

from pagesight.errors import (
    InvalidOption,
    NavigationError,
    PageCrashed,
    UnsupportedURL,
    first_line,
)

WaitUntil = Literal["load", "domcontentloaded", "networkidle", "commit"]
REDIRECT_LIMIT = 20
"""Redirects Chromium follows before it fails the navigation (net::ERR_TOO_MANY_REDIRECTS)."""
_SCHEMES = ("http", "https", "file", "about", "data")


def normalise_url(target: str | os.PathLike[str]) -> str:
    """A URL pagesight can open: http(s), file, about: or data:, or a path to a local file."""
    if isinstance(target, os.PathLike):  # a pathlib.Path is a path to a local file too
        target = os.fspath(target)
    if not isinstance(target, str):  # urlsplit would fail on it with an AttributeError
        raise InvalidOption("url", f"url must be a URL or a file path (a string), not {target!r}")
    parts = urlsplit(target)
    if parts.scheme in _SCHEMES:
        return target
    if not parts.scheme or len(parts.scheme) == 1:  # a path (or a Windows drive letter)
        path = Path(target).expanduser()
        if path.is_file():
            return path.resolve().as_uri()
        raise UnsupportedURL(f"{target!r} is neither a URL nor an existing file")
    raise UnsupportedURL(
        f"unsupported URL scheme {parts.scheme!r} in {target!r}; use http, https or a file path"
    )


async def goto(
    page: PlaywrightPage, url: str, *, wait_until: WaitUntil = "load", timeout: float = 30.0
) -> None:
    """Navigate and wait for ``wait_until``; a page that commits but never finishes
    loading (a hung subresource) is still returned — its observation says ``loading``."""
    try:
        await page.goto(url, wait_until="commit", timeout=timeout * 1000)
    except PlaywrightTimeout as exc:
        raise NavigationError(f"{url} did not answer within {timeout:g} s") from exc
    except PlaywrightError as exc:
        if page.is_closed():
            raise PageCrashed(f"the page closed while loading {url}") from exc
        # Chromium's network error code is the one fact Playwright passes on about the failure.
        if "net::ERR_TOO_MANY_REDIRECTS" in str(exc):
            raise NavigationError(
                f"{url} redirected more than {REDIRECT_LIMIT} times (a redirect loop)",
                advice="check the URL, or open another",
            ) from exc
        raise NavigationError(f"cannot load {url}: {first_line(exc)}") from exc
    if wait_until != "commit":
        with contextlib.suppress(PlaywrightTimeout):
            await page.wait_for_load_state(wait_until, timeout=timeout * 1000)
