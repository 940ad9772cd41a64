"""Loading a URL in a tab: which URLs pagesight opens, and how long it waits for them."""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page as PlaywrightPage
from playwright.async_api import Request, Response
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
    """Navigate and wait for ``wait_until``, all within ``timeout`` seconds; a page that
    commits but never finishes loading (a hung subresource) is still returned — its
    observation says ``loading``. A navigation no server answered in time is stopped, and
    the tab is left on the document it had."""
    deadline = time.monotonic() + timeout
    asked: list[Request] = []  # the documents asked for: the first, then each redirect's
    answered: list[Request] = []

    def note(request: Request) -> None:
        if request.is_navigation_request() and request.frame == page.main_frame:
            asked.append(request)

    def note_answer(response: Response) -> None:
        answered.append(response.request)

    page.on("request", note)
    page.on("response", note_answer)
    try:
        await page.goto(url, wait_until="commit", timeout=timeout * 1000)
    except PlaywrightTimeout as exc:
        # Chromium keeps a navigation waiting on its server for minutes, and while it
        # waits the tab answers no script: every look at it afterwards would time out too,
        # blamed on the page. Stopped, the tab answers at once, from the document it had.
        await stop_loading(page)
        waited = asked[-1] if asked else None
        raise NavigationError(_unanswered(waited, url, timeout, waited in answered)) from exc
    except PlaywrightError as exc:
        if page.is_closed():
            raise PageCrashed(f"the page closed while loading {url}") from exc
        # Chromium's network error code is the one fact Playwright passes on about the failure.
        if "net::ERR_TOO_MANY_REDIRECTS" in str(exc):
            raise NavigationError(
                f"{url} redirected more than {REDIRECT_LIMIT} times (a redirect loop)",
                advice="check the URL, or open another",
            ) from exc
        # Chromium's reason ends with the URL ("net::ERR_NAME_NOT_RESOLVED at URL"), which
        # our message names first already.
        reason = first_line(exc).removesuffix(f" at {url}")
        raise NavigationError(f"cannot load {url}: {reason}") from exc
    finally:
        page.remove_listener("request", note)
        page.remove_listener("response", note_answer)
    left = deadline - time.monotonic()
    if wait_until != "commit" and left > 0:
        # What is left of the one timeout, not a second one: a page whose server took
        # most of it to answer does not get it all again to load.
        with contextlib.suppress(PlaywrightTimeout):
            await page.wait_for_load_state(wait_until, timeout=left * 1000)


def _unanswered(waited: Request | None, url: str, timeout: float, answered: bool) -> str:
    """Why a navigation did not commit in time, naming the request it waited on (``waited``):
    the last one asked for, a redirect's target when the first server did answer."""
    target = waited.url if waited is not None else url
    if answered:
        return (
            f"{target} did not load within {timeout:g} s (its server answered, but the "
            "page never replaced the one before it)"
        )
    return server_silent(target, timeout)


def server_silent(target: str, timeout: float) -> str:
    """What to say of a navigation to ``target`` that its server never answered."""
    parts = urlsplit(target)
    where = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    server = f"{parts.scheme}://{parts.netloc}" if parts.netloc else target
    return (
        f"the server at {server} did not answer {where} within {round(timeout, 1):g} s "
        "(waited for the response to the navigation)"
    )


async def stop_loading(page: PlaywrightPage) -> None:
    """Stop the tab's pending navigation (as the Stop button does); a tab gone meanwhile has
    nothing to stop."""
    with contextlib.suppress(PlaywrightError):
        session = await page.context.new_cdp_session(page)
        try:
            await session.send("Page.stopLoading")
        finally:
            await session.detach()
